! MPI_THREAD_MULTIPLE from a flang OpenMP region (libomp): thread t of
! every rank talks to thread t of its partner (tag t) and runs a collective
! on a communicator of its own; the threads see the rank's module variables
! (privatized per rank); the master is the main thread; the region has an
! if clause (flang's __kmpc_fork_call_if).
! REQUIRES: flang, ampi-runtime
! RUN: %ampif90 -fopenmp %s -o %t
! RUN: %t +vp 2 +p 1 | FileCheck %s
! RUN: %t +vp 4 +p 2 | FileCheck %s
! RUN: %t +vp 5 +p 2 | FileCheck %s

! CHECK-NOT: FAIL
! CHECK: No Errors

module state
  integer :: my_rank = -1
end module state

program openmp_threads
  use mpi
  use omp_lib
  use state
  implicit none
  integer, parameter :: nt = 3, nmsg = 10
  integer :: ierr, provided, np, partner, errs, total, t, i, team
  integer :: comms(0:nt-1)
  call mpi_init_thread(MPI_THREAD_MULTIPLE, provided, ierr)
  errs = 0
  if (provided /= MPI_THREAD_MULTIPLE) errs = errs + 1
  call mpi_comm_rank(MPI_COMM_WORLD, my_rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, np, ierr)
  partner = ieor(my_rank, 1)
  if (partner >= np) partner = my_rank
  do t = 0, nt - 1
    call mpi_comm_dup(MPI_COMM_WORLD, comms(t), ierr)
  end do
  team = 0
!$omp parallel num_threads(nt) if(np > 0) private(t, i, ierr) reduction(+:errs)
  block
    integer :: sreq(nmsg), outv(nmsg), inv, sum
    logical :: is_main
    t = omp_get_thread_num()
!$omp single
    team = omp_get_num_threads()
!$omp end single
    if (my_rank < 0) errs = errs + 1
    call mpi_is_thread_main(is_main, ierr)
    if (is_main .neqv. (t == 0)) then
      print *, 'FAIL: thread', t, 'main', is_main
      errs = errs + 1
    end if
    do i = 1, nmsg
      outv(i) = my_rank * 1000 + t * 100 + i
      call mpi_isend(outv(i), 1, MPI_INTEGER, partner, t, comms(t), sreq(i), ierr)
    end do
    do i = 1, nmsg
      call mpi_recv(inv, 1, MPI_INTEGER, partner, t, comms(t), MPI_STATUS_IGNORE, ierr)
      if (inv /= partner * 1000 + t * 100 + i) then
        print *, 'FAIL: thread', t, 'got', inv
        errs = errs + 1
      end if
    end do
    call mpi_waitall(nmsg, sreq, MPI_STATUSES_IGNORE, ierr)
    call mpi_allreduce(1, sum, 1, MPI_INTEGER, MPI_SUM, comms(t), ierr)
    if (sum /= np) errs = errs + 1
  end block
!$omp end parallel
  if (team /= nt) then
    print *, 'FAIL: team of', team
    errs = errs + 1
  end if
  do t = 0, nt - 1
    call mpi_comm_free(comms(t), ierr)
  end do
  call mpi_allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (my_rank == 0) then
    if (total == 0) then
      print '(a)', ' No Errors'
    else
      print *, 'FAIL: errors', total
    end if
  end if
  if (total /= 0) error stop 1
  call mpi_finalize(ierr)
end program openmp_threads
