// MPI_Abort ends the whole job with its error code and says who called it.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: %status %t +vp 8 +p 2 2>&1 | FileCheck %s

#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 5)
        MPI_Abort(MPI_COMM_WORLD, 7);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}

// CHECK: ampi: MPI_Abort called by rank 5 on MPI_COMM_WORLD with error code 7
// CHECK-NEXT: exit status 7
