// A passive-target lock that is never released: the rank waiting for it
// sleeps instead of spinning, so the deadlock is reported with its call.
// Rank 0 takes the exclusive lock of its own window memory, tells rank 1,
// and waits in a barrier that rank 1 never reaches: rank 1 waits for the
// lock.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: %status %t +vp 2 +p 2 2>&1 | FileCheck %s
// RUN: %status %t +vp 2 +p 1 2>&1 | FileCheck %s

#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, cell = 0;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(&cell, sizeof(int), sizeof(int), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &win);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Send(&cell, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        MPI_Recv(&cell, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    }
    MPI_Finalize();
    return 0;
}

// CHECK: ampi: deadlock: every rank is blocked and no message is in flight
// CHECK-DAG: ampi:   rank 0: blocked in MPI_Barrier
// CHECK-DAG: ampi:   rank 1: blocked in MPI_Win_lock
// CHECK: exit status 1
