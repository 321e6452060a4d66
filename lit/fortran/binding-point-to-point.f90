! Point-to-point through use mpi: blocking calls and status fields,
! MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE, nonblocking calls completed by
! MPI_WAITANY (1-based index), MPI_WAITSOME, MPI_TESTALL and MPI_TEST
! (LOGICAL flags), MPI_IPROBE, persistent requests, MPI_SENDRECV_REPLACE
! and MPI_INITIALIZED / MPI_IS_THREAD_MAIN.
! REQUIRES: flang, ampi-runtime
! RUN: %ampif90 %s -o %t
! RUN: %t +vp 2 +p 1 | FileCheck %s
! RUN: %t +vp 4 +p 2 | FileCheck %s
! RUN: %t +vp 7 +p 2 | FileCheck %s
! The same program built with gfortran: gfortran-binding.test.

! CHECK-NOT: FAIL
! CHECK: No Errors

program p2p
  use mpi
  implicit none
  integer :: ierr, me, np, errs, total
  logical :: flag
  errs = 0
  call MPI_INITIALIZED(flag, ierr)
  if (flag) call fail('MPI_INITIALIZED is .true. before MPI_INIT')
  call MPI_INIT(ierr)
  call MPI_INITIALIZED(flag, ierr)
  if (.not. flag) call fail('MPI_INITIALIZED is .false.')
  call MPI_IS_THREAD_MAIN(flag, ierr)
  if (.not. flag) call fail('MPI_IS_THREAD_MAIN is .false.')
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  call blocking()
  call nonblocking()
  call persistent()
  call MPI_ALLREDUCE(errs, total, 1, MPI_INTEGER, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  if (me == 0 .and. total == 0) print '(a)', ' No Errors'
  call MPI_FINALIZE(ierr)

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a, i0, 2a)', 'FAIL: rank ', me, ': ', what
    errs = errs + 1
  end subroutine fail

  subroutine expect(got, want, what)
    integer, intent(in) :: got, want
    character(len=*), intent(in) :: what
    character(len=100) :: msg
    if (got /= want) then
      write (msg, '(a, a, i0, a, i0)') what, ' is ', got, ', expected ', want
      call fail(trim(msg))
    end if
  end subroutine expect

  ! Rank 0 sends 4 doubles to rank np-1, which probes, then receives;
  ! a ring of MPI_SENDRECV_REPLACE.
  subroutine blocking()
    integer :: status(MPI_STATUS_SIZE), count, buf(2)
    double precision :: d(4)
    logical :: found
    if (me == 0) then
      d = [1d0, 2d0, 3d0, 4d0]
      call MPI_SSEND(d, 4, MPI_DOUBLE_PRECISION, np - 1, 11, &
                     MPI_COMM_WORLD, ierr)
      call expect(ierr, MPI_SUCCESS, 'MPI_SSEND ierror')
    end if
    if (me == np - 1) then
      found = .false.
      do while (.not. found)
        call MPI_IPROBE(0, 11, MPI_COMM_WORLD, found, status, ierr)
      end do
      call expect(status(MPI_SOURCE), 0, 'MPI_IPROBE source')
      d = 0
      status(MPI_ERROR) = MPI_ERR_OTHER ! a single completion leaves it alone
      call MPI_RECV(d, 4, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 11, &
                    MPI_COMM_WORLD, status, ierr)
      call expect(status(MPI_TAG), 11, 'status(MPI_TAG)')
      call expect(status(MPI_ERROR), MPI_ERR_OTHER, 'status(MPI_ERROR)')
      call MPI_GET_COUNT(status, MPI_DOUBLE_PRECISION, count, ierr)
      call expect(count, 4, 'MPI_GET_COUNT')
      call MPI_GET_ELEMENTS(status, MPI_DOUBLE_PRECISION, count, ierr)
      call expect(count, 4, 'MPI_GET_ELEMENTS')
      if (any(d /= [1d0, 2d0, 3d0, 4d0])) call fail('MPI_RECV data')
    end if
    buf = [me, 100 + me]
    call MPI_SENDRECV_REPLACE(buf, 2, MPI_INTEGER, mod(me + 1, np), 5, &
                              mod(me + np - 1, np), 5, MPI_COMM_WORLD, &
                              MPI_STATUS_IGNORE, ierr)
    call expect(buf(2), 100 + mod(me + np - 1, np), 'MPI_SENDRECV_REPLACE')
  end subroutine blocking

  ! Every rank sends its number to every other; receives are completed
  ! by MPI_WAITANY, then MPI_WAITSOME, the sends by MPI_TESTALL.
  subroutine nonblocking()
    integer :: rreq(np), sreq(np), vals(np), mine(np), i, idx, n, done
    integer :: indices(np), statuses(MPI_STATUS_SIZE, np)
    integer :: status(MPI_STATUS_SIZE), req
    logical :: flag
    vals = -1
    mine = me
    do i = 1, np
      call MPI_IRECV(vals(i), 1, MPI_INTEGER, i - 1, 3, MPI_COMM_WORLD, &
                     rreq(i), ierr)
      call MPI_ISEND(mine(i), 1, MPI_INTEGER, i - 1, 3, MPI_COMM_WORLD, &
                     sreq(i), ierr)
    end do
    call MPI_WAITANY(np, rreq, idx, status, ierr)
    if (idx < 1 .or. idx > np) then
      call fail('MPI_WAITANY index out of 1..np')
    else
      call expect(status(MPI_SOURCE), idx - 1, 'MPI_WAITANY index')
      call expect(vals(idx), idx - 1, 'MPI_WAITANY data')
      call expect(rreq(idx), MPI_REQUEST_NULL, 'request after MPI_WAITANY')
    end if
    done = 1
    do while (done < np)
      call MPI_WAITSOME(np, rreq, n, indices, statuses, ierr)
      do i = 1, n
        call expect(statuses(MPI_SOURCE, i), indices(i) - 1, &
                    'MPI_WAITSOME index')
      end do
      done = done + n
    end do
    do i = 1, np
      call expect(vals(i), i - 1, 'nonblocking data')
    end do
    flag = .false.
    do while (.not. flag)
      call MPI_TESTALL(np, sreq, flag, MPI_STATUSES_IGNORE, ierr)
    end do
    call MPI_WAITSOME(np, sreq, n, indices, MPI_STATUSES_IGNORE, ierr)
    call expect(n, MPI_UNDEFINED, 'MPI_WAITSOME outcount, all inactive')
    call MPI_ISEND(me, 1, MPI_INTEGER, me, 4, MPI_COMM_WORLD, req, ierr)
    call MPI_RECV(i, 1, MPI_INTEGER, me, 4, MPI_COMM_WORLD, &
                  MPI_STATUS_IGNORE, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_TEST(req, flag, MPI_STATUS_IGNORE, ierr)
    end do
    call expect(req, MPI_REQUEST_NULL, 'request after MPI_TEST')
  end subroutine nonblocking

  subroutine persistent()
    integer :: reqs(2), sendv, recvv, k
    call MPI_SEND_INIT(sendv, 1, MPI_INTEGER, mod(me + 1, np), 9, &
                       MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_RECV_INIT(recvv, 1, MPI_INTEGER, mod(me + np - 1, np), 9, &
                       MPI_COMM_WORLD, reqs(2), ierr)
    do k = 1, 3
      sendv = me * 10 + k
      call MPI_STARTALL(2, reqs, ierr)
      call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
      call expect(recvv, mod(me + np - 1, np) * 10 + k, 'persistent data')
    end do
    call MPI_REQUEST_FREE(reqs(1), ierr)
    call MPI_REQUEST_FREE(reqs(2), ierr)
  end subroutine persistent
end program p2p
