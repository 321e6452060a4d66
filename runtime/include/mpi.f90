! The mpi module (use mpi), a template: scripts/gen_fortran.py replaces
! the line !@MPIF_H@ with the constants of mpif.h (without its
! declarations of the calls below) and !@INTERFACES@ with the explicit
! interfaces of the calls without choice buffers or callbacks, generated
! from the same classification of the C prototypes as the wrappers.  The
! other calls stay external procedures, as with mpif.h.
module mpi
  implicit none
!@MPIF_H@
!@INTERFACES@
end module mpi
