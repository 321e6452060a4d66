! The profiling names of use mpi_f08 (PMPI_Comm_rank, PMPI_Wtime...),
! which MPICH's f08/timer/wtimef90 calls.
program f08_pmpi
  use mpi_f08
  implicit none
  integer :: me, pme, np
  double precision :: t
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call PMPI_Comm_rank(MPI_COMM_WORLD, pme)
  call PMPI_Comm_size(MPI_COMM_WORLD, np)
  t = PMPI_Wtime()
  if (pme /= me .or. np < 1 .or. t < 0 .or. PMPI_Wtick() <= 0) then
    print *, 'profiling names wrong', me, pme, np, t
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  call PMPI_Barrier(MPI_COMM_WORLD)
  if (me == 0) print '(a)', 'profiling names ok'
  call MPI_Finalize()
end program f08_pmpi
