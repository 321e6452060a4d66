// Ranks that only poll for what never comes are reported too, once
// nothing has happened for AMPI_POLL_DEADLOCK seconds, with the call they
// poll in: rank 0 tests a receive nobody sends, rank 1 probes for one,
// rank 2 spins on a compare-and-swap and a flush for a lock nobody
// releases (its first holder, rank 3, waits in a barrier).  Without the
// report the job would spin forever.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: env AMPI_POLL_DEADLOCK=0.3 %status %t +vp 4 +p 2 2>&1 | FileCheck %s
// RUN: env AMPI_POLL_DEADLOCK=0.3 %status %t +vp 4 +p 1 2>&1 | FileCheck %s

#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, flag = 0, buf = 0, *lock;
    MPI_Win win;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &lock, &win);
    *lock = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        MPI_Irecv(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        while (!flag)
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        while (!flag)
            MPI_Iprobe(0, 0, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    } else {
        int one = 1, zero = 0, old = 1;
        if (rank == 3) { /* takes the lock first and never gives it back */
            MPI_Compare_and_swap(&one, &zero, &old, MPI_INT, 0, 0, win);
            MPI_Win_flush(0, win);
            MPI_Send(&one, 1, MPI_INT, 2, 1, MPI_COMM_WORLD);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        MPI_Recv(&buf, 1, MPI_INT, 3, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        do {
            MPI_Compare_and_swap(&one, &zero, &old, MPI_INT, 0, 0, win);
            MPI_Win_flush(0, win);
        } while (old != 0);
    }
    MPI_Win_unlock_all(win);
    MPI_Finalize();
    return 0;
}

// CHECK: ampi: deadlock: every rank is blocked and no message is in flight
// CHECK-DAG: ampi:   rank 0: polling in MPI_Test, for what nothing will bring
// CHECK-DAG: ampi:   rank 1: polling in MPI_Iprobe, for what nothing will bring
// CHECK-DAG: ampi:   rank 2: polling in MPI_Win_flush, for what
// CHECK-DAG: ampi:   rank 3: blocked in MPI_Barrier
// CHECK: exit status 1
