/*
 * The cost of MPI calls from threads of a rank (MPI_THREAD_MULTIPLE).
 *
 * A plain MPI program, built with our ampicc and with Open MPI's mpicc.
 * With two ranks (0 and 1), it measures:
 *   call_main     MPI_Comm_rank from the rank's own thread
 *   call_thread   MPI_Comm_rank from a thread the rank created
 *   pp_main       8-byte ping-pong latency between the ranks' own threads
 *   pp_thread     the same between a thread of each rank
 * Under AMPI a thread's call runs on the rank's PE (docs/mpi-support.md):
 * call_thread - call_main is the price of that hand-over.
 *
 * Output on rank 0: one line per case, "case=NAME ns=VALUE", the median
 * of REPS repetitions (ns per call, or one-way latency in ns).
 */
#include <mpi.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

#define REPS 7

typedef struct {
    long iters;
    int rank;
    double ns[REPS];
    int pingpong; /* 0: MPI_Comm_rank calls, 1: ping-pong */
} job_t;

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v)
{
    qsort(v, REPS, sizeof(double), cmp);
    return v[REPS / 2];
}

static void run(job_t *j)
{
    char buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int peer = 1 - j->rank, r;
    for (int rep = 0; rep < REPS; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long i = 0; i < j->iters; i++) {
            if (!j->pingpong) {
                MPI_Comm_rank(MPI_COMM_WORLD, &r);
            } else if (j->rank == 0) {
                MPI_Send(buf, 8, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
                MPI_Recv(buf, 8, MPI_BYTE, peer, 5, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, 8, MPI_BYTE, peer, 5, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                MPI_Send(buf, 8, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
            }
        }
        double dt = MPI_Wtime() - t0;
        j->ns[rep] = dt * 1e9 / (double)j->iters / (j->pingpong ? 2 : 1);
    }
}

static void *thread_main(void *p)
{
    run(p);
    return NULL;
}

/* Runs j on the rank's own thread, or (in_thread) on a thread of it, and
 * reports the median. */
static void measure(const char *name, job_t *j, int in_thread)
{
    if (in_thread) {
        pthread_t th;
        if (pthread_create(&th, NULL, thread_main, j) != 0) {
            fprintf(stderr, "threads: pthread_create failed\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        pthread_join(th, NULL);
    } else {
        run(j);
    }
    if (j->rank == 0)
        printf("case=%s ns=%.1f\n", name, median(j->ns));
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    long iters = 20000;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i + 1 < argc; i += 2)
        if (strcmp(argv[i], "-i") == 0 &&
            bench_parse_long(argv[0], argv[i + 1], "-i", 1, 1000000000L, &iters,
                             rank == 0 ? stderr : NULL) != 0)
            MPI_Abort(MPI_COMM_WORLD, 2);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        if (rank == 0)
            fprintf(stderr,
                    "threads: needs MPI_THREAD_MULTIPLE and 2 ranks "
                    "(has level %d, %d ranks)\n",
                    provided, size);
        MPI_Finalize();
        return 2;
    }
    job_t j = {.iters = iters * 10, .rank = rank};
    measure("call_main", &j, 0);
    measure("call_thread", &j, 1);
    j.iters = iters;
    j.pingpong = 1;
    measure("pp_main", &j, 0);
    measure("pp_thread", &j, 1);
    MPI_Finalize();
    return 0;
}
