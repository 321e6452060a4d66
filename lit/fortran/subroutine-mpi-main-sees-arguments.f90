! A subroutine MPI_Main (no main program) reads its command line with
! command_argument_count and get_command_argument: every rank sees the
! arguments the runtime options left, as a main program does.
! REQUIRES: flang, ampi-runtime
! RUN: %ampif90 %s -o %t
! RUN: %t +vp 2 +p 2 alpha beta | FileCheck %s

! CHECK-DAG: rank 0: 2 arguments, 1 is [alpha] (status 0), 2 is [beta]
! CHECK-DAG: rank 1: 2 arguments, 1 is [alpha] (status 0), 2 is [beta]

subroutine mpi_main
  implicit none
  include 'mpif.h'
  integer :: ierr, me, st
  character(len=32) :: a1, a2
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call get_command_argument(1, a1, status=st)
  call get_command_argument(2, a2)
  print '(a, i0, a, i0, a, a, a, i0, a, a, a)', 'rank ', me, ': ', &
    command_argument_count(), ' arguments, 1 is [', trim(a1), &
    '] (status ', st, '), 2 is [', trim(a2), ']'
  call MPI_FINALIZE(ierr)
end subroutine mpi_main
