// exit() in a rank between MPI_Init and MPI_Finalize ends the job with that
// status (exit-after-finalize-ends-the-rank.c: after MPI_Finalize it ends
// the rank alone); a non-zero return from
// main becomes the process's status once every rank is done.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: %status %t +vp 4 +p 2 exit 2>&1 | FileCheck %s --check-prefix=EXIT
// RUN: %status %t +vp 4 +p 2 return 2>&1 | FileCheck %s --check-prefix=RETURN
// RUN: %status %t +vp 4 +p 2 ok 2>&1 | FileCheck %s --check-prefix=OK

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 2 && strcmp(argv[1], "exit") == 0)
        exit(3);
    if (strcmp(argv[1], "exit") == 0)
        MPI_Barrier(MPI_COMM_WORLD); /* rank 2 never arrives */
    MPI_Finalize();
    if (rank == 0)
        printf("rank 0 done\n");
    return strcmp(argv[1], "return") == 0 && rank == 1 ? 5 : 0;
}

// EXIT-NOT: deadlock
// EXIT: exit status 3
// RETURN: rank 0 done
// RETURN: exit status 5
// OK: rank 0 done
// OK: exit status 0
