! MPI_BUFFER_AUTOMATIC (MPI-4.1) through use mpi: attached to the process
! (MPI_BUFFER_ATTACH) and to a communicator (MPI_COMM_ATTACH_BUFFER), it
! takes buffered sends of any size; MPI_COMM_FLUSH_BUFFER and
! MPI_BUFFER_FLUSH wait for them; detaching works.
! REQUIRES: flang, ampi-runtime
! RUN: %ampif90 %s -o %t
! RUN: %t +vp 1 +p 1 | FileCheck %s
! RUN: %t +vp 3 +p 2 | FileCheck %s

! CHECK-NOT: FAIL
! CHECK: No Errors

program buffer_automatic
  use mpi
  implicit none
  integer, parameter :: n = 100000
  integer :: ierr, me, np, errs, total, i, k, size, peer
  integer :: out(n), in(n), dummy(1)
  errs = 0
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  peer = mod(me + 1, np)
  do i = 1, n
    out(i) = me * n + i
  end do

  call MPI_BUFFER_ATTACH(MPI_BUFFER_AUTOMATIC, 0, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_BUFFER_ATTACH')
  call MPI_COMM_ATTACH_BUFFER(MPI_COMM_WORLD, MPI_BUFFER_AUTOMATIC, 0, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_COMM_ATTACH_BUFFER')
  do k = 1, 3
    call MPI_BSEND(out, n, MPI_INTEGER, peer, k, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS) call fail('MPI_BSEND')
  end do
  do k = 1, 3
    call MPI_RECV(in, n, MPI_INTEGER, MPI_ANY_SOURCE, k, MPI_COMM_WORLD, &
                  MPI_STATUS_IGNORE, ierr)
    if (in(n) /= mod(me + np - 1, np) * n + n) call fail('received data')
  end do
  call MPI_COMM_FLUSH_BUFFER(MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_COMM_FLUSH_BUFFER')
  call MPI_BUFFER_FLUSH(ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_BUFFER_FLUSH')
  call MPI_COMM_DETACH_BUFFER(MPI_COMM_WORLD, dummy, size, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_COMM_DETACH_BUFFER')
  call MPI_BUFFER_DETACH(dummy, size, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_BUFFER_DETACH')

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

end program buffer_automatic
