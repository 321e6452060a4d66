// A rank that reads another rank's window many times (MPI_Get and
// MPI_Win_flush in a loop, as a benchmark or a table lookup does) while
// that rank waits in a barrier makes progress: each flush completes its
// get. It is neither slowed down as a fruitless poller nor reported as a
// deadlock, even with a short AMPI_POLL_DEADLOCK; its reads see the
// values the target wrote. The same holds for a loop of get-accumulates
// that add (MPICH's rma/atomic_rmw_gacc), whose sum must come out whole.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: env AMPI_POLL_DEADLOCK=0.5 %t +vp 2 +p 1 | FileCheck %s
// RUN: env AMPI_POLL_DEADLOCK=0.5 %t +vp 2 +p 2 | FileCheck %s
// RUN: env AMPI_POLL_DEADLOCK=0.5 %t +vp 4 +p 2 | FileCheck %s
#include <mpi.h>
#include <stdio.h>

#define READS 20000

int main(int argc, char **argv)
{
    int rank, size, *mem;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < 4; i++)
        mem[i] = 100 * rank + i;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int got[4], bad = 0;
        double t = MPI_Wtime();
        MPI_Win_lock(MPI_LOCK_SHARED, size - 1, 0, win);
        for (int i = 0; i < READS; i++) {
            MPI_Get(got, 4, MPI_INT, size - 1, 0, 4, MPI_INT, win);
            MPI_Win_flush(size - 1, win);
            bad += got[i % 4] != 100 * (size - 1) + i % 4;
        }
        MPI_Win_unlock(size - 1, win);
        t = MPI_Wtime() - t;
        printf("reads: %d, wrong: %d, within 5 s: %s\n", READS, bad,
               t < 5.0 ? "yes" : "no");
        int one = 1, old = -1, last = -1;
        t = MPI_Wtime();
        MPI_Win_lock(MPI_LOCK_SHARED, size - 1, 0, win);
        for (int i = 0; i < READS; i++) {
            MPI_Get_accumulate(&one, 1, MPI_INT, &old, 1, MPI_INT, size - 1,
                               3, 1, MPI_INT, MPI_SUM, win);
            MPI_Win_flush(size - 1, win);
            bad += old != last + 1 && last >= 0;
            last = old;
        }
        MPI_Win_unlock(size - 1, win);
        t = MPI_Wtime() - t;
        printf("adds: %d, wrong: %d, last %d, within 5 s: %s\n", READS, bad,
               last - (100 * (size - 1) + 3), t < 5.0 ? "yes" : "no");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
// CHECK: reads: 20000, wrong: 0, within 5 s: yes
// CHECK: adds: 20000, wrong: 0, last 19999, within 5 s: yes
// CHECK-NOT: deadlock
