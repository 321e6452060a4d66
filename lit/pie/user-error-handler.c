// An error handler created with MPI_Comm_create_errhandler in a program
// built with -privatize=pie runs in the failing rank's own copy of the
// program: what it records lands in that rank's globals.
// REQUIRES: ampi-runtime
// RUN: %ampicc -privatize=pie -O2 %s -o %t
// RUN: %t +vp 4 +p 2 | FileCheck %s
// RUN: %t +vp 16 +p 2 | FileCheck %s

// CHECK: [[N:[0-9]+]] of [[N]] ranks saw their own error

#include <mpi.h>
#include <stdio.h>

static int handled;   /* per rank */
static int last_code; /* per rank */

static void on_error(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handled++;
    last_code = *code;
}

int main(int argc, char **argv)
{
    int rank, size, mine, total, buf = 0, rc;
    MPI_Errhandler eh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_create_errhandler(on_error, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    /* Odd ranks fail twice, even ranks once: an invalid destination. */
    for (int i = 0; i <= rank % 2; i++)
        rc = MPI_Send(&buf, 1, MPI_INT, size + 1, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    mine = handled == rank % 2 + 1 && last_code == rc;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d of %d ranks saw their own error\n", total, size);
    MPI_Errhandler_free(&eh);
    MPI_Finalize();
    return 0;
}
