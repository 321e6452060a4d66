// Many codes end main with MPI_Finalize(); exit(0);.  Under any other MPI
// each process's exit ends that process alone; here it ends the rank alone,
// so rank 0, still checking and printing, gets to print.  A non-zero status
// after MPI_Finalize becomes the job's.  exit(0) before MPI_Init ends the
// rank alone too (a process that never joined the job); exit(n) with n not
// 0 before MPI_Init, or between MPI_Init and MPI_Finalize, ends the job.
// Each rank's atexit handlers run in the rank, with its own globals, when it
// ends, and what it printed is flushed.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: %status %t +vp 4 +p 2 zero | FileCheck %s --check-prefix=ZERO
// RUN: %status %t +vp 4 +p 2 three | FileCheck %s --check-prefix=THREE
// RUN: %status %t +vp 4 +p 2 early | FileCheck %s --check-prefix=EARLY
// RUN: %status %t +vp 4 +p 2 job | FileCheck %s --check-prefix=JOB
// RUN: %status %t +vp 4 +p 2 earlyfail | FileCheck %s --check-prefix=EARLYFAIL
// RUN: %ampicc -privatize=pie %s -o %t.pie
// RUN: %status %t.pie +vp 4 +p 2 zero | FileCheck %s --check-prefix=ZERO
// RUN: %status %t.pie +vp 4 +p 2 three | FileCheck %s --check-prefix=THREE
// RUN: %status %ampirun -n 2 --allow-run-as-root --launcher-arg --oversubscribe %t +vp 4 zero | FileCheck %s --check-prefix=ZERO

// ZERO-DAG: handler of rank 0
// ZERO-DAG: handler of rank 1
// ZERO-DAG: handler of rank 2
// ZERO-DAG: handler of rank 3
// ZERO-DAG: result 6
// ZERO: exit status 0

// THREE-DAG: result 6
// THREE-DAG: handler of rank 3
// THREE: exit status 3

// EARLY-COUNT-4: never joined
// EARLY-NOT: joined
// EARLY: exit status 0
// EARLYFAIL: exit status 5

// JOB: handler of rank 2
// JOB-NOT: result
// JOB: exit status 4

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int me = -1; /* the rank, in a global (per rank) */

static void handler(void)
{
    printf("handler of rank %d\n", me);
}

int main(int argc, char **argv)
{
    const char *mode = argv[argc - 1];
    int size, sum, rank;
    if (strcmp(mode, "early") == 0) { /* like a program without MPI */
        printf("never joined\n");
        exit(0);
    }
    if (strcmp(mode, "earlyfail") == 0)
        exit(5);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    me = rank;
    atexit(handler);
    if (strcmp(mode, "job") == 0 && rank == 2)
        exit(4); /* before MPI_Finalize: ends the job */
    MPI_Reduce(&rank, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        usleep(200000); /* the others are gone by now */
        printf("result %d\n", sum);
    }
    MPI_Finalize();
    exit(strcmp(mode, "three") == 0 && rank == 3 ? 3 : 0);
}
