! Collectives through mpif.h: MPI_BCAST, MPI_REDUCE, MPI_ALLREDUCE with
! MPI_IN_PLACE, MPI_GATHER, MPI_SCATTER, MPI_ALLGATHER, MPI_GATHERV,
! MPI_ALLTOALL, MPI_SCAN, MPI_REDUCE_SCATTER_BLOCK, MPI_IBCAST with
! MPI_WAIT, MPI_IALLREDUCE with MPI_TEST, and MPI_OP_CREATE with a Fortran
! user function (MPI_OP_COMMUTATIVE gives back its LOGICAL).
! REQUIRES: flang, ampi-runtime
! RUN: %ampif90 %s -o %t
! RUN: %t +vp 1 +p 1 | FileCheck %s
! RUN: %t +vp 4 +p 2 | FileCheck %s
! RUN: %t +vp 9 +p 2 | FileCheck %s
! The same program built with gfortran: gfortran-binding.test.

! CHECK-NOT: FAIL
! CHECK: No Errors

subroutine absmax(invec, inoutvec, len, datatype)
  implicit none
  integer :: len, datatype, i
  integer :: invec(len), inoutvec(len)
  do i = 1, len
    inoutvec(i) = max(abs(invec(i)), abs(inoutvec(i)))
  end do
end subroutine absmax

program coll
  implicit none
  include 'mpif.h'
  integer :: ierr, me, np, errs, total
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  errs = 0
  call rooted()
  call all_to_all()
  call nonblocking()
  call user_op()
  call MPI_REDUCE(errs, total, 1, MPI_INTEGER, MPI_SUM, 0, &
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

  subroutine rooted()
    integer :: root, v(3), all(3 * np), one, i, counts(np), displs(np)
    integer :: sums(2), w(np), allv(np * (np + 1) / 2)
    double precision :: x
    root = np - 1
    x = 0
    if (me == root) x = 3.25d0
    call MPI_BCAST(x, 1, MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD, ierr)
    if (x /= 3.25d0) call fail('MPI_BCAST data')
    sums = -1
    call MPI_REDUCE([me, 1], sums, 2, MPI_INTEGER, MPI_SUM, root, &
                    MPI_COMM_WORLD, ierr)
    if (me == root) then
      call expect(sums(1), np * (np - 1) / 2, 'MPI_REDUCE sum')
      call expect(sums(2), np, 'MPI_REDUCE count')
    end if
    sums = [me, -me]
    call MPI_ALLREDUCE(MPI_IN_PLACE, sums, 2, MPI_INTEGER, MPI_MIN, &
                       MPI_COMM_WORLD, ierr)
    call expect(sums(1), 0, 'MPI_ALLREDUCE MPI_IN_PLACE min')
    call expect(sums(2), 1 - np, 'MPI_ALLREDUCE MPI_IN_PLACE min')
    v = [me, 2 * me, 3 * me]
    all = -1
    call MPI_GATHER(v, 3, MPI_INTEGER, all, 3, MPI_INTEGER, 0, &
                    MPI_COMM_WORLD, ierr)
    if (me == 0) then
      do i = 1, np
        call expect(all(3 * i - 1), 2 * (i - 1), 'MPI_GATHER data')
      end do
    end if
    if (me == 0) all = [(i, i = 1, 3 * np)]
    call MPI_SCATTER(all, 3, MPI_INTEGER, v, 3, MPI_INTEGER, 0, &
                     MPI_COMM_WORLD, ierr)
    call expect(v(3), 3 * me + 3, 'MPI_SCATTER data')
    ! Rank i contributes i + 1 copies of i.
    do i = 1, np
      counts(i) = i
      displs(i) = (i - 1) * i / 2
    end do
    allv = -1
    w = me
    call MPI_GATHERV(w, me + 1, MPI_INTEGER, allv, counts, displs, &
                     MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    if (me == 0) then
      call expect(allv(np * (np + 1) / 2), np - 1, 'MPI_GATHERV data')
      call expect(allv(1), 0, 'MPI_GATHERV data')
    end if
    one = me * me
    call MPI_SCAN(one, i, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call expect(i, me * (me + 1) * (2 * me + 1) / 6, 'MPI_SCAN')
  end subroutine rooted

  subroutine all_to_all()
    integer :: s(np), r(np), i, g(np), got
    do i = 1, np
      s(i) = 100 * me + i - 1
    end do
    call MPI_ALLTOALL(s, 1, MPI_INTEGER, r, 1, MPI_INTEGER, &
                      MPI_COMM_WORLD, ierr)
    do i = 1, np
      call expect(r(i), 100 * (i - 1) + me, 'MPI_ALLTOALL data')
    end do
    call MPI_ALLGATHER(me * 2, 1, MPI_INTEGER, g, 1, MPI_INTEGER, &
                       MPI_COMM_WORLD, ierr)
    call expect(g(np), 2 * (np - 1), 'MPI_ALLGATHER data')
    s = 1
    call MPI_REDUCE_SCATTER_BLOCK(s, got, 1, MPI_INTEGER, MPI_SUM, &
                                  MPI_COMM_WORLD, ierr)
    call expect(got, np, 'MPI_REDUCE_SCATTER_BLOCK')
  end subroutine all_to_all

  subroutine nonblocking()
    integer :: req, v, sum, status(MPI_STATUS_SIZE)
    logical :: flag
    v = 0
    if (me == 0) v = 77
    call MPI_IBCAST(v, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, req, ierr)
    call MPI_WAIT(req, status, ierr)
    call expect(v, 77, 'MPI_IBCAST data')
    call MPI_IALLREDUCE(me + 1, sum, 1, MPI_INTEGER, MPI_SUM, &
                        MPI_COMM_WORLD, req, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_TEST(req, flag, MPI_STATUS_IGNORE, ierr)
    end do
    call expect(sum, np * (np + 1) / 2, 'MPI_IALLREDUCE sum')
  end subroutine nonblocking

  subroutine user_op()
    external absmax
    integer :: op, v(2), r(2)
    logical :: commute
    call MPI_OP_CREATE(absmax, .true., op, ierr)
    call expect(ierr, MPI_SUCCESS, 'MPI_OP_CREATE ierror')
    call MPI_OP_COMMUTATIVE(op, commute, ierr)
    if (.not. commute) call fail('MPI_OP_COMMUTATIVE is .false.')
    v = [-me, me - 1]
    call MPI_ALLREDUCE(v, r, 2, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
    call expect(r(1), np - 1, 'user operation')
    ! With one rank the operation is never called.
    if (np > 1) call expect(r(2), max(1, np - 2), 'user operation')
    call MPI_OP_FREE(op, ierr)
    call expect(op, MPI_OP_NULL, 'MPI_OP_FREE')
  end subroutine user_op
end program coll
