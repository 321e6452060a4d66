! Generalized requests from Fortran: MPI_GREQUEST_START with Fortran query,
! free and cancel subroutines (EXTRA_STATE of MPI_ADDRESS_KIND, COMPLETE
! LOGICAL), MPI_GREQUEST_COMPLETE, MPI_WAIT with the status the query
! fills through MPI_STATUS_SET_ELEMENTS / MPI_STATUS_SET_CANCELLED, and
! MPI_CANCEL.  The callbacks get the program's own EXTRA_STATE variable (as
! under MPICH and Open MPI): what the free subroutine stores in it, the
! program sees.
! REQUIRES: flang, ampi-runtime
! RUN: %ampif90 %s -o %t
! RUN: %t +vp 2 +p 1 | FileCheck %s
! RUN: %t +vp 3 +p 2 | FileCheck %s
! The same program built with gfortran: gfortran-binding.test.

! CHECK-NOT: FAIL
! CHECK: No Errors

module greq_callbacks
  use mpi
  implicit none
  integer, save :: queries = 0, frees = 0, cancels = 0
  logical, save :: seen_complete = .true.
contains
  subroutine query(extra, status, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: status(MPI_STATUS_SIZE), ierr
    queries = queries + 1
    status(MPI_SOURCE) = int(extra)
    status(MPI_TAG) = 42
    call MPI_STATUS_SET_ELEMENTS(status, MPI_INTEGER, 3, ierr)
    call MPI_STATUS_SET_CANCELLED(status, .false., ierr)
    ierr = MPI_SUCCESS
  end subroutine query

  subroutine release(extra, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: ierr
    frees = frees + 1
    extra = -extra
    ierr = MPI_SUCCESS
  end subroutine release

  subroutine cancel(extra, complete, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: complete
    integer :: ierr
    cancels = cancels + 1
    seen_complete = complete
    ierr = MPI_SUCCESS
  end subroutine cancel
end module greq_callbacks

program grequest
  use mpi
  use greq_callbacks
  implicit none
  integer :: ierr, req, rank, count, errs, total
  integer :: status(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: extra
  logical :: flag
  errs = 0
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  extra = 5 + rank
  call MPI_GREQUEST_START(query, release, cancel, extra, req, ierr)
  call MPI_TEST(req, flag, status, ierr)
  if (flag) then
    print *, 'FAIL: complete before MPI_GREQUEST_COMPLETE'
    errs = errs + 1
  end if
  call MPI_CANCEL(req, ierr)
  if (cancels /= 1 .or. seen_complete) then
    print *, 'FAIL: cancel', cancels, seen_complete
    errs = errs + 1
  end if
  call MPI_GREQUEST_COMPLETE(req, ierr)
  call MPI_WAIT(req, status, ierr)
  call MPI_GET_COUNT(status, MPI_INTEGER, count, ierr)
  if (req /= MPI_REQUEST_NULL .or. queries /= 1 .or. frees /= 1 .or. &
      status(MPI_SOURCE) /= 5 + rank .or. status(MPI_TAG) /= 42 .or. &
      count /= 3 .or. extra /= -(5 + rank)) then
    print *, 'FAIL: wait', queries, frees, status(MPI_SOURCE), count, extra
    errs = errs + 1
  end if
  call MPI_ALLREDUCE(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                     ierr)
  if (rank == 0 .and. total == 0) print *, 'No Errors'
  call MPI_FINALIZE(ierr)
end program grequest
