/* A job that ends abnormally while +trace records (trace-abnormal-end.test):
 * `trace_end HOW [ITERS]` runs ITERS allreduces (default 200), then
 *   abort:    rank 1 calls MPI_Abort;
 *   exit:     rank 1 calls exit(4) before MPI_Finalize;
 *   deadlock: rank 0 waits for a message nobody sends;
 *   kill:     rank 0 kills its own process with SIGKILL;
 *   hang:     rank 0 computes for ever (the others wait in MPI_Barrier),
 *             until a signal ends the job. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *how = argc > 1 ? argv[1] : "";
    int iters = argc > 2 ? atoi(argv[2]) : 200;
    for (int i = 0; i < iters; i++) {
        int mine = rank;
        MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    printf("rank %d: allreduces done, sum %d\n", rank, sum);
    fflush(stdout);
    if (strcmp(how, "abort") == 0 && rank == 1)
        MPI_Abort(MPI_COMM_WORLD, 3);
    if (strcmp(how, "exit") == 0 && rank == 1)
        exit(4);
    if (strcmp(how, "deadlock") == 0 && rank == 0) {
        int x;
        MPI_Recv(&x, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (strcmp(how, "kill") == 0 && rank == 0)
        raise(SIGKILL);
    static volatile unsigned long spin;
    if (strcmp(how, "hang") == 0 && rank == 0)
        for (;;)
            spin++;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
