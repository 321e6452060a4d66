/*
 * Point-to-point with a non-contiguous datatype: rank 0 sends a strided
 * vector (blocks of B doubles every 2B) and rank 1 receives it as
 * contiguous doubles, then the same with both sides contiguous, for the
 * same data size.  A runtime that packs the vector into a temporary
 * buffer (and unpacks on the receive side) moves the data two or three
 * times; one that copies straight from the sender's layout into the
 * receiver's moves it once, so the two rates come close.  Each message is
 * answered by an empty one.  Ranks other than 0 and 1 only join the
 * barriers.
 *
 * Output, on rank 0, one line per layout:
 *   layout=vector bytes=4194304 block=512 us=310.2 MBps=13520.4
 *   layout=contig bytes=4194304 us=150.3 MBps=27906.2
 *   ratio vector/contig=2.06
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

#define MAX_REPS 101

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median µs per message over reps repetitions of iters messages. */
static double time_it(int rank, const double *sbuf, int scount,
                      MPI_Datatype stype, double *rbuf, int n, long iters,
                      int reps)
{
    double t[MAX_REPS];
    for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long i = 0; i < iters; i++) {
            if (rank == 0) {
                MPI_Send(sbuf, scount, stype, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(NULL, 0, MPI_INT, 1, 2, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(rbuf, n, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                MPI_Send(NULL, 0, MPI_INT, 0, 2, MPI_COMM_WORLD);
            }
        }
        if (r >= 0)
            t[r] = (MPI_Wtime() - t0) * 1e6 / (double)iters;
    }
    qsort(t, (size_t)reps, sizeof(double), cmp_double);
    return t[reps / 2];
}

int main(int argc, char **argv)
{
    int rank, size;
    long n = 1 << 19, block = 512, iters = 50, reps = 7;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        int bad = i + 1 >= argc;
        FILE *err = rank ? NULL : stderr;
        if (!bad && !strcmp(argv[i], "-n"))
            bad =
                bench_parse_long(argv[0], argv[++i], "-n", 1, 1 << 26, &n, err);
        else if (!bad && !strcmp(argv[i], "-b"))
            bad = bench_parse_long(argv[0], argv[++i], "-b", 1, 1 << 20, &block,
                                   err);
        else if (!bad && !strcmp(argv[i], "-i"))
            bad = bench_parse_long(argv[0], argv[++i], "-i", 1, 1 << 30, &iters,
                                   err);
        else if (!bad && !strcmp(argv[i], "-r"))
            bad = bench_parse_long(argv[0], argv[++i], "-r", 1, MAX_REPS, &reps,
                                   err);
        else
            bad = 1;
        if (bad || size < 2 || n % block) {
            if (rank == 0)
                fprintf(stderr,
                        "usage: %s [-n DOUBLES] [-b BLOCK] [-i ITERS] "
                        "[-r REPS] on 2 or more ranks; BLOCK divides "
                        "DOUBLES\n",
                        argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    double *sbuf = malloc((size_t)(2 * n) * sizeof(double));
    double *rbuf = malloc((size_t)n * sizeof(double));
    for (long i = 0; i < 2 * n; i++)
        sbuf[i] = (double)i;
    for (long i = 0; i < n; i++)
        rbuf[i] = -1.0;
    MPI_Datatype vec;
    MPI_Type_vector((int)(n / block), (int)block, (int)(2 * block), MPI_DOUBLE,
                    &vec);
    MPI_Type_commit(&vec);
    double tv = time_it(rank, sbuf, 1, vec, rbuf, (int)n, iters, (int)reps);
    if (rank == 1)
        for (long i = 0; i < n; i++)
            if (rbuf[i] != (double)(i / block * 2 * block + i % block)) {
                fprintf(stderr, "typed: double %ld is wrong\n", i);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
    double tc =
        time_it(rank, sbuf, (int)n, MPI_DOUBLE, rbuf, (int)n, iters, (int)reps);
    if (rank == 0) {
        double bytes = (double)n * sizeof(double);
        printf("# typed: %ld doubles, vector blocks of %ld, %ld iters x %ld "
               "reps, median\n",
               n, block, iters, reps);
        printf("layout=vector bytes=%.0f block=%ld us=%.1f MBps=%.1f\n", bytes,
               block, tv, bytes / tv);
        printf("layout=contig bytes=%.0f us=%.1f MBps=%.1f\n", bytes, tc,
               bytes / tc);
        printf("ratio vector/contig=%.2f\n", tv / tc);
    }
    MPI_Type_free(&vec);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
