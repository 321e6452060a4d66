! A Fortran program written for Charm++'s AMPI: no main program, but a
! subroutine MPI_Main, which every rank enters.
! REQUIRES: flang, ampi-runtime
! RUN: %ampif90 %s -o %t
! RUN: %t +vp 3 +p 2 | FileCheck %s

! CHECK: entered 3 of 3
! CHECK: No Errors

subroutine mpi_main
  implicit none
  include 'mpif.h'
  integer :: ierr, me, np, one, entered
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  one = 1
  call MPI_REDUCE(one, entered, 1, MPI_INTEGER, MPI_SUM, 0, &
                  MPI_COMM_WORLD, ierr)
  if (me == 0) then
    print '(a, i0, a, i0)', 'entered ', entered, ' of ', np
    if (entered == np) print '(a)', ' No Errors'
  end if
  call MPI_FINALIZE(ierr)
end subroutine mpi_main
