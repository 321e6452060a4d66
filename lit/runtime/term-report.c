// A job ended by SIGTERM (a time limit, mpirun ending it) that hangs
// without being deadlocked: rank 0 computes for ever, rank 1 waits for its
// message in MPI_Recv (each on a PE of its own).  Nothing is idle, so no
// deadlock is found; the signal has each process log what its ranks were
// doing before it ends as SIGTERM says, in one process and across two
// (mpirun passes the signal on).  AMPI_TERM_REPORT=0 leaves the report out.
// REQUIRES: ampi-runtime, openmpi-mpirun
// RUN: %ampicc %s -o %t
// RUN: %term_after spinning %t +vp 2 +p 2 | FileCheck %s --check-prefix=ONE
// RUN: %term_after spinning env AMPI_TERM_REPORT=0 %t +vp 2 +p 2 \
// RUN:   | FileCheck %s --check-prefix=OFF
// mpirun follows its SIGTERM with SIGKILL after odls_base_sigkill_timeout
// (1 s by default): on a loaded machine a process could lose its report to
// it, so the test gives it 10 s.
// RUN: %term_after spinning %mpirun --mca odls_base_sigkill_timeout 10 -np 2 %t +vp 2 \
// RUN:   | grep "ampi:" | grep -v "PMIx" | env LC_ALL=C sort | FileCheck %s --check-prefix=TWO

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        volatile unsigned long spin = 0;
        printf("spinning\n"); /* the test's driver sends SIGTERM then */
        fflush(stdout);
        for (;;)
            spin++;
    }
    if (rank == 1)
        MPI_Recv(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("not reached\n");
    MPI_Finalize();
    return 0;
}

// ONE: spinning
// ONE-NEXT: ampi: process 0 of 1 ended by signal 15 (SIGTERM); its ranks then:
// ONE-NEXT: ampi:   rank 0: running (its last MPI call: MPI_Barrier)
// ONE-NEXT: ampi:   rank 1: blocked in MPI_Recv
// ONE-NEXT: ampi:     receive from source 0, tag 5 (MPI_COMM_WORLD)
// ONE-NEXT: killed by signal SIGTERM

// OFF: spinning
// OFF-NOT: ampi:
// OFF: killed by signal SIGTERM

// Sorted: process 0 holds rank 0, process 1 rank 1.
// TWO: ampi:     receive from source 0, tag 5 (MPI_COMM_WORLD)
// TWO-NEXT: ampi:   rank 0: running (its last MPI call: MPI_Barrier)
// TWO-NEXT: ampi:   rank 1: blocked in MPI_Recv
// TWO-NEXT: ampi: process 0 of 2 ended by signal 15 (SIGTERM); its ranks then:
// TWO-NEXT: ampi: process 1 of 2 ended by signal 15 (SIGTERM); its ranks then:
