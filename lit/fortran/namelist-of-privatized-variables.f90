! NAMELIST I/O on privatized variables: flang describes each namelist
! item with a constant that holds the variable's address, which differs
! per rank once the variable is thread-local.  The pass rebuilds those
! descriptions per rank, so every rank writes its own values.
! REQUIRES: flang, ampi-runtime
! RUN: %ampif90 %s -o %t
! RUN: %t +vp 4 +p 1 | FileCheck %s
! RUN: %t +vp 16 +p 2 | FileCheck %s

! CHECK: [[N:[0-9]+]] of [[N]] ranks wrote their own namelist

module config
  implicit none
  integer :: steps = -1
end module config

program nml
  use mpi
  use config
  implicit none
  integer :: ierr, me, np, ok, total
  integer :: grid(2)
  common /sizes/ grid
  character(len=200) :: line, want
  namelist /input/ steps, grid
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  steps = me
  grid = [me * 10, me * 100]
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  write (line, nml=input)
  write (want, '(a, i0, a, i0, a, i0, a)') ' &INPUT STEPS= ', me, &
      ',GRID= ', me * 10, ' ', me * 100, '/'
  ok = 0
  if (line == want) ok = 1
  if (ok == 0) print '(3a)', trim(line), ' instead of ', trim(want)
  call MPI_ALLREDUCE(ok, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                     ierr)
  if (me == 0) print '(i0, a, i0, a)', total, ' of ', np, &
      ' ranks wrote their own namelist'
  call MPI_FINALIZE(ierr)
end program nml
