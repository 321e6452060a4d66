// Started by a PMIx launcher as one process (mpirun -np 1), the program
// runs its +vp ranks as it does when started alone.
// REQUIRES: ampi-runtime, openmpi-mpirun
// RUN: %ampicc %s -o %t
// RUN: %status %mpirun -np 1 %t +vp 4 2>&1 | FileCheck %s

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("size %d, sum of ranks %d\n", size, sum);
    MPI_Finalize();
    return 0;
}

// CHECK-NOT: ampi:
// CHECK: size 4, sum of ranks 6
// CHECK-NEXT: exit status 0
