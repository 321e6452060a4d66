// A rank that skips a collective leaves the others blocked inside it; the
// report says which call and which communicator, and counts the finished.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: %status %t +vp 3 +p 2 2>&1 | FileCheck %s

#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 2)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}

// CHECK: ampi: deadlock: every rank is blocked and no message is in flight
// CHECK: ampi:   rank 0: blocked in MPI_Barrier
// CHECK: (MPI_COMM_WORLD, inside a collective)
// CHECK: ampi:   rank 1: blocked in MPI_Barrier
// CHECK: ampi:   1 rank has already finished
// CHECK-NEXT: exit status 1
