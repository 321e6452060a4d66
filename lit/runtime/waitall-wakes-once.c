// A rank blocked in MPI_Waitall on many receives is resumed once, when the
// last one completes, not once per completed request: rank 1 sends the 64
// messages one at a time and yields after each, which would let a rank
// woken per completion run 64 times.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: %t +vp 2 +p 1 +stats 2>&1 | FileCheck %s

#include <mpi.h>
#include <stdio.h>

#define N 64

int main(int argc, char **argv)
{
    int rank, buf[N];
    MPI_Request reqs[N];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < N; i++)
            MPI_Irecv(&buf[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD, &reqs[i]);
        /* Rank 0 runs first (+p 1, block mapping): it blocks here before
         * rank 1 has sent anything. */
        MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE);
        int ok = 1;
        for (int i = 0; i < N; i++)
            ok &= buf[i] == 1000 + i;
        printf("received %s\n", ok ? "all" : "WRONG");
    } else {
        for (int i = 0; i < N; i++) {
            int v = 1000 + i;
            MPI_Send(&v, 1, MPI_INT, 0, i, MPI_COMM_WORLD);
            AMPI_Yield();
        }
    }
    MPI_Finalize();
    return 0;
}

// CHECK: received all
// Once to start, once when the Waitall completed.
// CHECK: ampi: stats: rank 0 on PE 0 resumed 2 times
// CHECK: ampi: stats: rank 1 on PE 0 resumed {{[0-9]+}} times
