! Fortran 90 module variables (scalars, arrays, CHARACTER, a derived
! type, an ALLOCATABLE array, initialized or not) built with gfortran, whose
! default privatization under ampif90 is pie, are per rank: each rank writes
! its rank into every one, lets the others run (a barrier) and reads its
! own values back.  The module is in a file of its own, and the program
! uses the mpi module (gfortran's own mpi.mod).  Built with -privatize=none
! the ranks of a worker thread share them, which the test shows too.
! REQUIRES: gfortran, ampi-runtime
! RUN: rm -rf %t && split-file %s %t && cd %t
! RUN: %gfortran_env %ampif90 -c state.f90 -o state.o
! RUN: %gfortran_env %ampif90 main.f90 state.o -o private
! RUN: ./private +vp 4 +p 1 | FileCheck %s --check-prefix=PRIVATE
! RUN: ./private +vp 4 +p 2 | FileCheck %s --check-prefix=PRIVATE
! RUN: ./private +vp 16 +p 2 | FileCheck %s --check-prefix=PRIVATE
! RUN: %gfortran_env %ampif90 -privatize=none -c state.f90 -o shared-state.o
! RUN: %gfortran_env %ampif90 -privatize=none main.f90 shared-state.o -o shared
! RUN: ./shared +vp 4 +p 1 | FileCheck %s --check-prefix=SHARED

! PRIVATE: [[N:[0-9]+]] of [[N]] ranks saw the initial values; 0 saw another rank's
! SHARED: 4 of 4 ranks saw the initial values; 3 saw another rank's

!--- state.f90
module state
  implicit none
  type point
    integer :: id = -1
    real(8) :: x(3) = 0.5d0
  end type point
  integer :: counter = 100
  real(8) :: table(64)
  character(len=16) :: label = 'initial'
  type(point) :: origin
  integer, allocatable :: work(:)
contains
  logical function fresh()
    fresh = counter == 100 .and. all(table == 0) .and. &
            label == 'initial' .and. origin%id == -1 .and. &
            all(origin%x == 0.5d0) .and. .not. allocated(work)
  end function fresh

  subroutine set_all(me)
    integer, intent(in) :: me
    integer :: i
    counter = me
    table = [(me + i, i = 1, 64)]
    write (label, '(a, i0)') 'rank-', me
    origin%id = me
    origin%x = me * 2
    if (allocated(work)) deallocate (work) ! shared: another rank's
    allocate (work(me + 1))
    work = me
  end subroutine set_all

  logical function mine(me)
    integer, intent(in) :: me
    integer :: i
    character(len=16) :: want
    write (want, '(a, i0)') 'rank-', me
    mine = counter == me .and. all(table == [(me + i, i = 1, 64)]) .and. &
           label == want .and. origin%id == me .and. &
           all(origin%x == me * 2) .and. size(work) == me + 1 .and. &
           all(work == me)
  end function mine
end module state

!--- main.f90
program modvars
  use mpi
  use state
  implicit none
  integer :: ierr, me, np, counts(2), totals(2)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  counts = 0
  if (fresh()) counts(1) = 1
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call set_all(me)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (.not. mine(me)) counts(2) = 1
  call MPI_ALLREDUCE(counts, totals, 2, MPI_INTEGER, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  if (me == 0) print '(i0, a, i0, a, i0, a)', totals(1), ' of ', np, &
      ' ranks saw the initial values; ', totals(2), ' saw another rank''s'
  call MPI_FINALIZE(ierr)
end program modvars
