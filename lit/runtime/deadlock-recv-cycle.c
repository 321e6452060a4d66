// Two ranks that both receive first: the runtime reports who waits for
// what instead of hanging, and the job fails.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: %status %t +vp 2 +p 1 2>&1 | FileCheck %s
// RUN: %status %t +vp 2 +p 2 2>&1 | FileCheck %s
// RUN: %status %t +vp 4 +p 2 2>&1 | FileCheck %s --check-prefix=FOUR

#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank < 2)
        MPI_Recv(&x, 1, MPI_INT, 1 - rank, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}

// CHECK: ampi: deadlock: every rank is blocked and no message is in flight
// CHECK-NEXT: ampi:   rank 0: blocked in MPI_Recv
// CHECK-NEXT: ampi:     receive from source 1, tag 7 (MPI_COMM_WORLD)
// CHECK-NEXT: ampi:   rank 1: blocked in MPI_Recv
// CHECK-NEXT: ampi:     receive from source 0, tag 7 (MPI_COMM_WORLD)
// CHECK-NEXT: exit status 1

// FOUR: ampi:   rank 1: blocked in MPI_Recv
// FOUR-NEXT: ampi:     receive from source 0, tag 7 (MPI_COMM_WORLD)
// FOUR-NEXT: ampi:   2 ranks have already finished
// FOUR-NEXT: exit status 1
