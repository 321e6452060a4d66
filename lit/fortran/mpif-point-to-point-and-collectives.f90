! Point-to-point and collective calls through mpif.h (included in free
! form): a ring with MPI_SENDRECV, status fields read through
! MPI_STATUS_SIZE and MPI_SOURCE/MPI_TAG, MPI_GET_COUNT, nonblocking
! calls with MPI_WAITALL, MPI_PROBE, MPI_STATUS_IGNORE, MPI_ALLREDUCE
! (also MPI_IN_PLACE), MPI_REDUCE, MPI_BCAST, and the environment calls.
! REQUIRES: flang, ampi-runtime
! RUN: %ampif90 %s -o %t
! RUN: %t +vp 4 +p 1 | FileCheck %s
! RUN: %t +vp 4 +p 2 | FileCheck %s
! RUN: %t +vp 16 +p 2 | FileCheck %s

! CHECK-NOT: FAIL
! CHECK: No Errors

program p2pcoll
  implicit none
  include 'mpif.h'
  integer :: ierr, me, np, errs, total
  logical :: flag
  call MPI_INIT(ierr)
  call MPI_INITIALIZED(flag, ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  errs = 0
  if (.not. flag) call fail('MPI_INITIALIZED is .false.')
  call ring(me, np)
  call nonblocking(me, np)
  call collectives(me, np)
  call environment()
  call MPI_ALLREDUCE(errs, total, 1, MPI_INTEGER, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  if (me == 0 .and. total == 0) print '(a)', ' No Errors'
  call MPI_FINALIZE(ierr)
  call MPI_FINALIZED(flag, ierr)
  if (.not. flag) print '(a)', 'FAIL: MPI_FINALIZED is .false.'

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a, i0, 2a)', 'FAIL: rank ', me, ': ', what
    errs = errs + 1
  end subroutine fail

  subroutine expect(got, want, what)
    integer, intent(in) :: got, want
    character(len=*), intent(in) :: what
    character(len=80) :: msg
    if (got /= want) then
      write (msg, '(a, a, i0, a, i0)') what, ' is ', got, ', expected ', want
      call fail(trim(msg))
    end if
  end subroutine expect

  ! Each rank sends 3 doubles to the next and receives from the previous.
  subroutine ring(me, np)
    integer, intent(in) :: me, np
    integer :: status(MPI_STATUS_SIZE), count, next, prev
    double precision :: out(3), in(5)
    next = mod(me + 1, np)
    prev = mod(me + np - 1, np)
    out = [me, me * 10, me * 100]
    in = -1
    call MPI_SENDRECV(out, 3, MPI_DOUBLE_PRECISION, next, 7 + me, &
                      in, 5, MPI_DOUBLE_PRECISION, prev, MPI_ANY_TAG, &
                      MPI_COMM_WORLD, status, ierr)
    call expect(ierr, MPI_SUCCESS, 'MPI_SENDRECV ierror')
    call expect(status(MPI_SOURCE), prev, 'status(MPI_SOURCE)')
    call expect(status(MPI_TAG), 7 + prev, 'status(MPI_TAG)')
    call MPI_GET_COUNT(status, MPI_DOUBLE_PRECISION, count, ierr)
    call expect(count, 3, 'MPI_GET_COUNT')
    if (any(in(1:3) /= [prev, prev * 10, prev * 100]) .or. in(4) /= -1) &
      call fail('MPI_SENDRECV data')
  end subroutine ring

  ! Rank 0 gets one message from every other rank, nonblocking, and
  ! probes for one more; the others send with MPI_ISEND.
  subroutine nonblocking(me, np)
    integer, intent(in) :: me, np
    integer :: reqs(np), statuses(MPI_STATUS_SIZE, np), got(np), i
    integer :: status(MPI_STATUS_SIZE), count, extra
    if (me == 0) then
      got = -1
      do i = 2, np
        call MPI_IRECV(got(i), 1, MPI_INTEGER, i - 1, 3, MPI_COMM_WORLD, &
                       reqs(i), ierr)
      end do
      reqs(1) = MPI_REQUEST_NULL
      call MPI_WAITALL(np, reqs, statuses, ierr)
      do i = 2, np
        call expect(got(i), 1000 + i - 1, 'MPI_IRECV data')
        call expect(statuses(MPI_SOURCE, i), i - 1, 'MPI_WAITALL source')
        call expect(reqs(i), MPI_REQUEST_NULL, 'request after MPI_WAITALL')
      end do
      if (np > 1) then
        call MPI_PROBE(MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, status, ierr)
        call MPI_GET_COUNT(status, MPI_INTEGER, count, ierr)
        call expect(count, 2, 'MPI_GET_COUNT after MPI_PROBE')
        call MPI_RECV(got, 2, MPI_INTEGER, status(MPI_SOURCE), 4, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call expect(got(1) * got(2), np - 1, 'probed message')
      end if
    else
      extra = 1000 + me
      call MPI_ISEND(extra, 1, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, reqs(1), &
                     ierr)
      call MPI_WAIT(reqs(1), MPI_STATUS_IGNORE, ierr)
      call expect(reqs(1), MPI_REQUEST_NULL, 'request after MPI_WAIT')
      if (me == np - 1) call MPI_SEND([me, np - me], 2, MPI_INTEGER, 0, 4, &
                                      MPI_COMM_WORLD, ierr)
    end if
  end subroutine nonblocking

  subroutine collectives(me, np)
    integer, intent(in) :: me, np
    integer :: sum, vals(2), size
    real :: r
    call MPI_ALLREDUCE(me, sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                       ierr)
    call expect(sum, np * (np - 1) / 2, 'MPI_ALLREDUCE sum')
    vals = [me, -me]
    call MPI_ALLREDUCE(MPI_IN_PLACE, vals, 2, MPI_INTEGER, MPI_MAX, &
                       MPI_COMM_WORLD, ierr)
    call expect(vals(1), np - 1, 'MPI_ALLREDUCE in place max')
    call expect(vals(2), 0, 'MPI_ALLREDUCE in place max')
    sum = -1
    call MPI_REDUCE(me + 1, sum, 1, MPI_INTEGER, MPI_PROD, 0, &
                    MPI_COMM_WORLD, ierr)
    if (me == 0 .and. np <= 12) &
      call expect(sum, factorial(np), 'MPI_REDUCE product')
    r = 0
    if (me == np - 1) r = 2.5
    call MPI_BCAST(r, 1, MPI_REAL, np - 1, MPI_COMM_WORLD, ierr)
    if (r /= 2.5) call fail('MPI_BCAST data')
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    call MPI_TYPE_SIZE(MPI_DOUBLE_PRECISION, size, ierr)
    call expect(size, 8, 'MPI_TYPE_SIZE(MPI_DOUBLE_PRECISION)')
  end subroutine collectives

  integer function factorial(n)
    integer, intent(in) :: n
    integer :: i
    factorial = product([(i, i = 1, n)])
  end function factorial

  subroutine environment()
    character(len=MPI_MAX_PROCESSOR_NAME) :: name
    character(len=MPI_MAX_ERROR_STRING) :: text
    integer :: length, class, newcomm, rank
    double precision :: t0
    call MPI_GET_PROCESSOR_NAME(name, length, ierr)
    if (length < 1 .or. len_trim(name) /= length) &
      call fail('MPI_GET_PROCESSOR_NAME length')
    call MPI_ERROR_STRING(MPI_ERR_TAG, text, length, ierr)
    if (length < 1 .or. len_trim(text) /= length) &
      call fail('MPI_ERROR_STRING length')
    call MPI_ERROR_CLASS(MPI_ERR_TRUNCATE, class, ierr)
    call expect(class, MPI_ERR_TRUNCATE, 'MPI_ERROR_CLASS')
    call MPI_COMM_DUP(MPI_COMM_WORLD, newcomm, ierr)
    call MPI_COMM_RANK(newcomm, rank, ierr)
    call expect(rank, me, 'rank in a duplicate of MPI_COMM_WORLD')
    call MPI_COMM_FREE(newcomm, ierr)
    call expect(newcomm, MPI_COMM_NULL, 'communicator after MPI_COMM_FREE')
    t0 = MPI_WTIME()
    if (MPI_WTIME() < t0 .or. MPI_WTICK() <= 0) call fail('MPI_WTIME')
  end subroutine environment
end program p2pcoll
