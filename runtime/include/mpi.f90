! The mpi module (use mpi), a template: scripts/gen_fortran.py replaces
! the line !@MPIF_H@ with the constants of mpif.h (without its
! declarations of the calls below) and !@INTERFACES@ with the explicit
! interfaces of the calls without choice buffers or callbacks, generated
! from the same classification of the C prototypes as the wrappers, and
! the generic MPI_SIZEOF.  The
! other calls stay external procedures, as with mpif.h.  The interfaces
! of AMPI's extensions (ampi.h, whose wrappers runtime/mpi/fortran/fortran.c
! writes by hand) follow, written here.
module mpi
  implicit none
!@MPIF_H@
!@INTERFACES@
  interface
    subroutine AMPI_MIGRATE(info, ierror)
      implicit none
      integer :: info, ierror
    end subroutine AMPI_MIGRATE
    subroutine AMPI_MIGRATE_TO_PE(pe, ierror)
      implicit none
      integer :: pe, ierror
    end subroutine AMPI_MIGRATE_TO_PE
    subroutine AMPI_REGISTER_ABOUT_TO_MIGRATE(fn, ierror)
      implicit none
      external :: fn
      integer :: ierror
    end subroutine AMPI_REGISTER_ABOUT_TO_MIGRATE
    subroutine AMPI_REGISTER_JUST_MIGRATED(fn, ierror)
      implicit none
      external :: fn
      integer :: ierror
    end subroutine AMPI_REGISTER_JUST_MIGRATED
    subroutine AMPI_LOAD_SET_VALUE(value, ierror)
      implicit none
      double precision :: value
      integer :: ierror
    end subroutine AMPI_LOAD_SET_VALUE
    subroutine AMPI_LOAD_START_MEASURE(ierror)
      implicit none
      integer :: ierror
    end subroutine AMPI_LOAD_START_MEASURE
    subroutine AMPI_LOAD_STOP_MEASURE(ierror)
      implicit none
      integer :: ierror
    end subroutine AMPI_LOAD_STOP_MEASURE
    subroutine AMPI_YIELD(ierror)
      implicit none
      integer :: ierror
    end subroutine AMPI_YIELD
  end interface
end module mpi
