// ampirun -n 3 starts the 3 processes and the job gives its answer, also
// on a machine of fewer cores, where Open MPI's launcher alone refuses
// them (not enough slots) and ampirun asks it to oversubscribe.
// REQUIRES: ampi-runtime, openmpi-mpirun
// RUN: %ampicc %s -o %t
// RUN: env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 %ampirun -n 3 %t +vp 6 +p 1 2>&1 | FileCheck %s

// CHECK: ranks 6 sum 21

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mine = rank + 1;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ranks %d sum %d\n", size, sum);
    MPI_Finalize();
    return 0;
}
