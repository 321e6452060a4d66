! use mpi_f08: handles of their own types (compared with == and /=),
! TYPE(MPI_Status), optional IERROR, choice buffers of any type, kind and
! rank (scalars, arrays, a non-contiguous section in a blocking call,
! MPI_IN_PLACE), requests and MPI_STATUSES_IGNORE, a large count
! (INTEGER(KIND=MPI_COUNT_KIND): the _c form), derived datatypes, a
! persistent collective, callbacks of the standard's abstract interfaces
! (a user reduction, attribute copy and delete, an error handler, the
! predefined MPI_COMM_DUP_FN), the status conversions and MPI_Wtime.
! REQUIRES: flang, ampi-runtime
! RUN: %ampif90 %s -o %t
! RUN: %t +vp 2 +p 1 | FileCheck %s
! RUN: %t +vp 4 +p 2 | FileCheck %s
! RUN: %t +vp 5 +p 2 | FileCheck %s
! The same program built with gfortran: use-mpi-f08-gfortran.test.

! CHECK-NOT: FAIL
! CHECK: No Errors

module f08_test_ops
  use, intrinsic :: iso_c_binding
  use mpi_f08
  implicit none
  integer :: ndeleted = 0, nerrors = 0
contains
  subroutine add_ints(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = b + a
  end subroutine add_ints

  subroutine copy_attr(oldcomm, comm_keyval, extra_state, attribute_val_in, &
                       attribute_val_out, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, &
                                      attribute_val_out
    logical :: flag
    attribute_val_out = attribute_val_in + extra_state
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine copy_attr

  subroutine delete_attr(comm, comm_keyval, attribute_val, extra_state, ierror)
    type(MPI_Comm) :: comm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    ndeleted = ndeleted + 1
    ierror = MPI_SUCCESS
  end subroutine delete_attr

  subroutine on_error(comm, error_code)
    type(MPI_Comm) :: comm
    integer :: error_code
    if (error_code == MPI_ERR_OTHER) nerrors = nerrors + 1
  end subroutine on_error
end module f08_test_ops

program f08
  use mpi_f08
  use f08_test_ops
  implicit none
  type(MPI_Comm) :: comm, dup
  type(MPI_Status) :: st
  type(MPI_Request) :: reqs(2), preq
  type(MPI_Datatype) :: pair
  type(MPI_Op) :: op
  type(MPI_Comm) :: c1, c2
  type(MPI_Errhandler) :: eh
  integer :: me, np, partner, errs, total, ierr, cnt, i, key, key2
  integer(kind=MPI_ADDRESS_KIND) :: val
  logical :: flag
  ! Buffers of nonblocking and persistent calls are ASYNCHRONOUS (the
  ! compiler must not move their loads and stores across MPI calls).
  integer, asynchronous :: a(4), b(4), v(2), r(2)
  integer :: m(3, 4), row(4), fst(MPI_STATUS_SIZE)
  integer(kind=MPI_COUNT_KIND) :: big
  real(8) :: x, y, t

  call MPI_Init()
  errs = 0
  comm = MPI_COMM_WORLD
  if (comm /= MPI_COMM_WORLD) call fail('handle comparison')
  call MPI_Comm_rank(comm, me)
  call MPI_Comm_size(comm, np, ierr)
  if (ierr /= MPI_SUCCESS) call fail('ierror')
  partner = ieor(me, 1)
  if (partner >= np) partner = me

  ! Arrays and scalars of several types.
  a = [(me * 10 + i, i = 1, 4)]
  call MPI_Sendrecv(a, 4, MPI_INTEGER, partner, 1, b, 4, MPI_INTEGER, &
                    partner, 1, comm, st)
  if (any(b /= [(partner * 10 + i, i = 1, 4)])) call fail('sendrecv')
  if (st%MPI_SOURCE /= partner .or. st%MPI_TAG /= 1) call fail('status')
  call MPI_Get_count(st, MPI_INTEGER, cnt)
  if (cnt /= 4) call fail('get_count')
  x = me + 0.5d0
  call MPI_Sendrecv(x, 1, MPI_DOUBLE_PRECISION, partner, 2, y, 1, &
                    MPI_DOUBLE_PRECISION, partner, 2, comm, MPI_STATUS_IGNORE)
  if (y /= partner + 0.5d0) call fail('scalar')

  ! A row of a matrix: not contiguous, in blocking calls.
  m = reshape([(i, i = 1, 12)], [3, 4]) + 100 * me
  call MPI_Sendrecv(m(2, :), 4, MPI_INTEGER, partner, 3, row, 4, &
                    MPI_INTEGER, partner, 3, comm, MPI_STATUS_IGNORE)
  if (any(row /= [2, 5, 8, 11] + 100 * partner)) call fail('section')
  m = 0
  call MPI_Sendrecv(row, 4, MPI_INTEGER, 0, 4, m(3, :), 4, MPI_INTEGER, &
                    0, 4, MPI_COMM_SELF, MPI_STATUS_IGNORE)
  if (any(m(3, :) /= row) .or. any(m(1:2, :) /= 0)) call fail('section in')

  ! Requests; a large count.
  big = 4
  call MPI_Irecv(b, 4, MPI_INTEGER, partner, 5, comm, reqs(1))
  call MPI_Isend(a, big, MPI_INTEGER, partner, 5, comm, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  if (reqs(1) /= MPI_REQUEST_NULL) call fail('request null')
  if (any(b /= [(partner * 10 + i, i = 1, 4)])) call fail('isend_c')

  ! In place; a duplicate; a derived type; a persistent collective.
  v = [me, 1]
  call MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INTEGER, MPI_SUM, comm)
  if (v(1) /= np * (np - 1) / 2 .or. v(2) /= np) call fail('in place')
  call MPI_Comm_dup(comm, dup)
  call MPI_Type_contiguous(2, MPI_INTEGER, pair)
  call MPI_Type_commit(pair)
  call MPI_Allreduce_init(v, r, 1, pair, MPI_MAX, dup, MPI_INFO_NULL, preq)
  v = [me, -me]
  call MPI_Start(preq)
  call MPI_Wait(preq, MPI_STATUS_IGNORE)
  if (r(1) /= np - 1 .or. r(2) /= 0) call fail('allreduce_init')
  call MPI_Request_free(preq)
  call MPI_Type_free(pair)
  call MPI_Comm_free(dup)
  if (dup /= MPI_COMM_NULL) call fail('comm_free')

  ! A user reduction, a sum.
  call MPI_Op_create(add_ints, .true., op)
  v = [1, me]
  call MPI_Allreduce(v, r, 2, MPI_INTEGER, op, comm)
  if (r(1) /= np .or. r(2) /= np * (np - 1) / 2) call fail('user op')
  call MPI_Op_free(op)

  ! Attribute callbacks, the predefined MPI_COMM_DUP_FN, an error handler.
  call MPI_Comm_create_keyval(copy_attr, delete_attr, key, 1_MPI_ADDRESS_KIND)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key2, &
                              0_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(comm, c1)
  call MPI_Comm_set_attr(c1, key, 41_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(c1, key2, 7_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(c1, c2)
  call MPI_Comm_get_attr(c2, key, val, flag)
  if (.not. flag .or. val /= 42) call fail('copy_attr')
  call MPI_Comm_get_attr(c2, key2, val, flag)
  if (.not. flag .or. val /= 7) call fail('MPI_COMM_DUP_FN')
  call MPI_Comm_create_errhandler(on_error, eh)
  call MPI_Comm_set_errhandler(c2, eh)
  call MPI_Comm_call_errhandler(c2, MPI_ERR_OTHER)
  if (nerrors /= 1) call fail('errhandler')
  call MPI_Errhandler_free(eh)
  call MPI_Comm_free(c2)
  call MPI_Comm_free(c1)
  if (ndeleted /= 2) call fail('delete_attr')
  call MPI_Comm_free_keyval(key)
  call MPI_Comm_free_keyval(key2)

  ! Conversions and the clock.
  st%MPI_SOURCE = 7
  call MPI_Status_f082f(st, fst)
  if (fst(MPI_SOURCE) /= 7) call fail('f082f')
  call MPI_Status_f2f08(fst, st)
  if (st%MPI_SOURCE /= 7) call fail('f2f08')
  t = MPI_Wtime()
  if (t < 0) call fail('wtime')

  call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, comm)
  if (me == 0) then
    if (total == 0) then
      print '(a)', ' No Errors'
    else
      print *, 'FAIL: errors', total
    end if
  end if
  if (total /= 0) error stop 1
  call MPI_Finalize()

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    print *, 'FAIL: rank', me, what
    errs = errs + 1
  end subroutine fail
end program f08
