! Datatypes, errors, communicators, info and attributes through use mpi:
! MPI_TYPE_VECTOR on a column-major array, MPI_TYPE_CREATE_STRUCT with
! MPI_ADDRESS_KIND displacements from MPI_GET_ADDRESS (sent from
! MPI_BOTTOM), MPI_TYPE_SIZE / MPI_TYPE_GET_EXTENT, type names;
! MPI_ERRORS_RETURN with MPI_ERROR_CLASS / MPI_ERROR_STRING (CHARACTER);
! MPI_COMM_SPLIT / MPI_COMM_DUP / MPI_COMM_COMPARE, communicator names;
! MPI_INFO_SET / MPI_INFO_GET (LOGICAL flag, blank padding) and the
! other info calls; a keyval with MPI_COMM_DUP_FN and one with Fortran
! callbacks; MPI_TAG_UB through MPI_COMM_GET_ATTR; MPI_CART_CREATE and
! MPI_CART_GET (LOGICAL periods).
! REQUIRES: flang, ampi-runtime
! RUN: %ampif90 %s -o %t
! RUN: %t +vp 2 +p 1 | FileCheck %s
! RUN: %t +vp 4 +p 2 | FileCheck %s
! RUN: %t +vp 6 +p 2 | FileCheck %s
! The same program built with gfortran: gfortran-binding.test.

! CHECK-NOT: FAIL
! CHECK: No Errors

module callbacks
  use mpi
  implicit none
contains
  ! Copies the attribute doubled; counts deletions in extra_state's target.
  subroutine copy_twice(oldcomm, keyval, extra, valin, valout, flag, ierr)
    integer :: oldcomm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
    logical :: flag
    valout = 2 * valin + extra
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine copy_twice

  subroutine delete_it(comm, keyval, val, extra, ierr)
    integer :: comm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    ierr = MPI_SUCCESS
  end subroutine delete_it
end module callbacks

program dtinfo
  use mpi
  use callbacks
  implicit none
  integer :: ierr, me, np, errs, total
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  errs = 0
  call datatypes()
  call errors()
  call communicators()
  call info()
  call attributes()
  call topology()
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

  subroutine datatypes()
    integer :: a(4, 3), row(3), rowtype, st, size, i, len
    integer :: blocks(2), types(2), next, prev
    integer(kind=MPI_ADDRESS_KIND) :: lb, extent, disps(2)
    integer :: ival
    double precision :: dval
    character(len=MPI_MAX_OBJECT_NAME) :: name
    a = reshape([(i, i = 1, 12)], [4, 3])
    ! Row 2 of a: 3 integers 4 apart.
    call MPI_TYPE_VECTOR(3, 1, 4, MPI_INTEGER, rowtype, ierr)
    call MPI_TYPE_COMMIT(rowtype, ierr)
    call MPI_TYPE_SIZE(rowtype, size, ierr)
    call expect(size, 12, 'MPI_TYPE_SIZE of the vector')
    call MPI_TYPE_GET_EXTENT(rowtype, lb, extent, ierr)
    call expect(int(extent), 36, 'MPI_TYPE_GET_EXTENT of the vector')
    call MPI_TYPE_SET_NAME(rowtype, 'row of a   ', ierr)
    call MPI_TYPE_GET_NAME(rowtype, name, len, ierr)
    call expect(len, 8, 'MPI_TYPE_GET_NAME length')
    if (name /= 'row of a') call fail('MPI_TYPE_GET_NAME: ' // name)
    call MPI_SENDRECV(a(2, 1), 1, rowtype, me, 1, row, 3, MPI_INTEGER, &
                      me, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    if (any(row /= [2, 6, 10])) call fail('vector data')
    call MPI_TYPE_FREE(rowtype, ierr)
    call expect(rowtype, MPI_DATATYPE_NULL, 'MPI_TYPE_FREE')
    ! An integer and a double, at their absolute addresses.
    ival = 1000 + me
    dval = me + 0.5d0
    call MPI_GET_ADDRESS(ival, disps(1), ierr)
    call MPI_GET_ADDRESS(dval, disps(2), ierr)
    blocks = 1
    types = [MPI_INTEGER, MPI_DOUBLE_PRECISION]
    call MPI_TYPE_CREATE_STRUCT(2, blocks, disps, types, st, ierr)
    call MPI_TYPE_COMMIT(st, ierr)
    call MPI_TYPE_SIZE(st, size, ierr)
    call expect(size, 12, 'MPI_TYPE_SIZE of the struct')
    next = mod(me + 1, np)
    prev = mod(me + np - 1, np)
    call MPI_SENDRECV_REPLACE(MPI_BOTTOM, 1, st, next, 2, prev, 2, &
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call expect(ierr, MPI_SUCCESS, 'struct from MPI_BOTTOM ierror')
    call expect(ival, 1000 + prev, 'struct from MPI_BOTTOM integer')
    if (dval /= prev + 0.5d0) call fail('struct from MPI_BOTTOM double')
    call MPI_TYPE_FREE(st, ierr)
  end subroutine datatypes

  subroutine errors()
    integer :: code, class, len, eh
    character(len=MPI_MAX_ERROR_STRING) :: text
    character(len=4) :: short
    call MPI_COMM_GET_ERRHANDLER(MPI_COMM_WORLD, eh, ierr)
    call expect(eh, MPI_ERRORS_ARE_FATAL, 'default error handler')
    call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
    call MPI_SEND(me, 1, MPI_INTEGER, np + 5, 0, MPI_COMM_WORLD, code)
    call MPI_ERROR_CLASS(code, class, ierr)
    call expect(class, MPI_ERR_RANK, 'class of a send to a bad rank')
    call MPI_SEND(me, -1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, code)
    call MPI_ERROR_CLASS(code, class, ierr)
    call expect(class, MPI_ERR_COUNT, 'class of a negative count')
    call MPI_ERROR_STRING(code, text, len, ierr)
    if (len < 1 .or. len_trim(text) /= len) call fail('MPI_ERROR_STRING')
    call MPI_ERROR_STRING(MPI_ERR_RANK, short, len, ierr)
    if (len /= 4) call fail('MPI_ERROR_STRING into CHARACTER*4')
    call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
  end subroutine errors

  subroutine communicators()
    integer :: half, dup, result, rank, size, len
    character(len=MPI_MAX_OBJECT_NAME) :: name
    logical :: inter
    call MPI_COMM_SPLIT(MPI_COMM_WORLD, mod(me, 2), -me, half, ierr)
    call MPI_COMM_SIZE(half, size, ierr)
    call MPI_COMM_RANK(half, rank, ierr)
    call expect(size, (np + 1 - mod(me, 2)) / 2, 'MPI_COMM_SPLIT size')
    call expect(rank, size - 1 - me / 2, 'MPI_COMM_SPLIT rank by key')
    call MPI_COMM_DUP(half, dup, ierr)
    call MPI_COMM_COMPARE(half, dup, result, ierr)
    call expect(result, MPI_CONGRUENT, 'MPI_COMM_COMPARE')
    call MPI_COMM_TEST_INTER(dup, inter, ierr)
    if (inter) call fail('MPI_COMM_TEST_INTER is .true.')
    call MPI_COMM_SET_NAME(dup, 'halves', ierr)
    call MPI_COMM_GET_NAME(dup, name, len, ierr)
    if (name /= 'halves' .or. len /= 6) call fail('MPI_COMM_GET_NAME')
    call MPI_COMM_FREE(dup, ierr)
    call MPI_COMM_FREE(half, ierr)
    call expect(half, MPI_COMM_NULL, 'MPI_COMM_FREE')
  end subroutine communicators

  subroutine info()
    integer :: inf, copy, nkeys, len
    logical :: flag
    character(len=20) :: value
    character(len=MPI_MAX_INFO_KEY) :: key
    call MPI_INFO_CREATE(inf, ierr)
    call MPI_INFO_SET(inf, 'color', 'blue   ', ierr)
    call MPI_INFO_SET(inf, 'shape', 'round', ierr)
    value = 'xxxxxxxxxxxxxxxxxxxx'
    call MPI_INFO_GET(inf, 'color', 20, value, flag, ierr)
    if (.not. flag .or. value /= 'blue') call fail('MPI_INFO_GET: ' // value)
    call MPI_INFO_GET(inf, 'size', 20, value, flag, ierr)
    if (flag) call fail('MPI_INFO_GET of a missing key: flag')
    call MPI_INFO_GET_VALUELEN(inf, 'shape', len, flag, ierr)
    if (.not. flag) call fail('MPI_INFO_GET_VALUELEN flag')
    call expect(len, 5, 'MPI_INFO_GET_VALUELEN')
    call MPI_INFO_DUP(inf, copy, ierr)
    call MPI_INFO_DELETE(copy, 'color', ierr)
    call MPI_INFO_GET_NKEYS(copy, nkeys, ierr)
    call expect(nkeys, 1, 'MPI_INFO_GET_NKEYS after a delete')
    call MPI_INFO_GET_NTHKEY(copy, 0, key, ierr)
    if (key /= 'shape') call fail('MPI_INFO_GET_NTHKEY: ' // trim(key))
    call MPI_INFO_FREE(copy, ierr)
    call MPI_INFO_FREE(inf, ierr)
    call expect(inf, MPI_INFO_NULL, 'MPI_INFO_FREE')
  end subroutine info

  subroutine attributes()
    integer :: kdup, kcb, dup
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    logical :: flag
    call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
    if (.not. flag .or. val < 32767) call fail('MPI_TAG_UB')
    extra = 5
    call MPI_COMM_CREATE_KEYVAL(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &
                                kdup, extra, ierr)
    call MPI_COMM_CREATE_KEYVAL(copy_twice, delete_it, kcb, extra, ierr)
    val = 40 + me
    call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, kdup, val, ierr)
    call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, kcb, val, ierr)
    call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
    val = -1
    call MPI_COMM_GET_ATTR(dup, kdup, val, flag, ierr)
    if (.not. flag) call fail('attribute copied by MPI_COMM_DUP_FN: flag')
    call expect(int(val), 40 + me, 'attribute copied by MPI_COMM_DUP_FN')
    call MPI_COMM_GET_ATTR(dup, kcb, val, flag, ierr)
    if (.not. flag) call fail('attribute copied by a Fortran callback')
    call expect(int(val), 85 + 2 * me, 'attribute copied by a callback')
    call MPI_COMM_FREE(dup, ierr)
    call MPI_COMM_DELETE_ATTR(MPI_COMM_WORLD, kcb, ierr)
    call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, kcb, val, flag, ierr)
    if (flag) call fail('attribute after MPI_COMM_DELETE_ATTR')
    call MPI_COMM_FREE_KEYVAL(kdup, ierr)
    call MPI_COMM_FREE_KEYVAL(kcb, ierr)
  end subroutine attributes

  subroutine topology()
    integer :: cart, dims(2), coords(2)
    logical :: periods(2)
    dims = 0
    call MPI_DIMS_CREATE(np, 2, dims, ierr)
    call MPI_CART_CREATE(MPI_COMM_WORLD, 2, dims, [.true., .false.], &
                         .false., cart, ierr)
    call MPI_CART_GET(cart, 2, dims, periods, coords, ierr)
    if (.not. periods(1) .or. periods(2)) call fail('MPI_CART_GET periods')
    call expect(coords(1) * dims(2) + coords(2), me, 'MPI_CART_GET coords')
    call MPI_COMM_FREE(cart, ierr)
  end subroutine topology
end program dtinfo
