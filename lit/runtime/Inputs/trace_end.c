/* A job that ends abnormally while +trace records (trace-abnormal-end.test):
 * `trace_end HOW [ITERS]` runs ITERS allreduces (default 200), then
 *   abort:    rank 1 calls MPI_Abort;
 *   exit:     rank 1 calls exit(4) before MPI_Finalize;
 *   deadlock: rank 0 waits for a message nobody sends;
 *   kill:     rank 0 kills its own process with SIGKILL;
 *   hang:     rank 0 computes for ever (the others wait in MPI_Barrier),
 *             until a signal ends the job;
 *   fatal:    a thread that is no rank (started before main) calls MPI
 *             when rank 0 tells it to, a fatal error of the runtime. */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The stray thread: waits for a byte on the pipe whose read end it is
 * given, then calls MPI. */
static void *stray(void *arg)
{
    char c;
    if (read((int)(intptr_t)arg, &c, 1) == 1) {
        int r;
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    }
    return NULL;
}

/* Before main, outside the ranks (glibc passes constructors main's
 * arguments): with "fatal", the stray thread, and the pipe's write end in
 * TRACE_END_FD for rank 0. */
__attribute__((constructor)) static void early(int argc, char **argv)
{
    int fds[2];
    pthread_t t;
    char text[16];
    if (argc < 2 || strcmp(argv[1], "fatal") != 0 || pipe(fds) != 0)
        return;
    snprintf(text, sizeof(text), "%d", fds[1]);
    setenv("TRACE_END_FD", text, 1);
    pthread_create(&t, NULL, stray, (void *)(intptr_t)fds[0]);
}

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
    if (strcmp(how, "fatal") == 0 && rank == 0 && getenv("TRACE_END_FD")) {
        if (write(atoi(getenv("TRACE_END_FD")), "x", 1) != 1)
            return 2;
        for (;;) /* until the runtime ends the process */
            MPI_Barrier(MPI_COMM_SELF);
    }
    static volatile unsigned long spin;
    if (strcmp(how, "hang") == 0 && rank == 0)
        for (;;)
            spin++;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
