! The mpi module (use mpi): the constants of mpif.h.  The calls are
! external procedures, as with mpif.h; explicit interfaces come later.
module mpi
  implicit none
  include 'mpif.h'
end module mpi
