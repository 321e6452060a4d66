/*
 * One-sided latency and bandwidth: rank 0 puts to, gets from and
 * accumulates to (MPI_SUM of size / 8 doubles) rank 1's window under a
 * passive-target lock, each operation followed by MPI_Win_flush, while
 * rank 1 waits in MPI_Barrier (it makes no RMA call).
 *
 * A plain MPI-3 program: it builds with any mpicc, so the same source
 * measures every implementation side by side.  Ranks other than 0 and 1
 * only join the barriers.
 *
 * For each size and operation (put, get, acc), `reps` timed repetitions of
 * `iters` operation+flush pairs follow a warm-up; the median repetition's
 * time per pair is reported (the minimum too), and bandwidth is size / that
 * time (MB/s, 1 MB = 10^6 bytes).  The data are checked once per size.
 *
 * Output: one line per operation and size on rank 0,
 *   op=put size=8 lat_us=1.234 bw_MBps=6.48 lat_min_us=1.201 iters=2000
 * preceded by comment lines starting with '#'.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

#define MAX_REPS 101
#define DEFAULT_ITERS 2000
#define DEFAULT_REPS 5
#define FULL_ITERS_BYTES 8192

static const size_t sizes[] = {8, 64, 512, 4096, 65536, 1048576, 4194304};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define MAX_SIZE 4194304

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static long iters_for(long iters, size_t size)
{
    long n = size <= FULL_ITERS_BYTES ? iters
                                      : (long)(iters * FULL_ITERS_BYTES / size);
    return n < 10 ? 10 : n;
}

enum { PUT, GET, ACC };
static const char *const op_names[] = {"put", "get", "acc"};

/* One operation of kind on size bytes at buf (an accumulate: size / 8
 * doubles, MPI_SUM), followed by a flush. */
static void one_op(int kind, char *buf, size_t size, MPI_Win win)
{
    if (kind == PUT)
        MPI_Put(buf, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
    else if (kind == GET)
        MPI_Get(buf, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
    else
        MPI_Accumulate(buf, (int)(size / 8), MPI_DOUBLE, 1, 0, (int)(size / 8),
                       MPI_DOUBLE, MPI_SUM, win);
    MPI_Win_flush(1, win);
}

/* Seconds per operation+flush, reps times; returns the median, *min the
 * fastest.  *ops: how many operations ran. */
static double time_op(int kind, char *buf, size_t size, long n, int reps,
                      MPI_Win win, double *min, long *ops)
{
    double t[MAX_REPS];
    *ops = 0;
    for (long i = 0; i < n / 10 + 1; i++, ++*ops) /* warm-up */
        one_op(kind, buf, size, win);
    for (int r = 0; r < reps; r++) {
        double start = MPI_Wtime();
        for (long i = 0; i < n; i++)
            one_op(kind, buf, size, win);
        t[r] = (MPI_Wtime() - start) / (double)n;
        *ops += n;
    }
    qsort(t, (size_t)reps, sizeof(double), cmp_double);
    *min = t[0];
    return t[reps / 2];
}

static void report(const char *op, size_t size, double lat, double min, long n)
{
    printf("op=%s size=%zu lat_us=%.3f bw_MBps=%.2f lat_min_us=%.3f "
           "iters=%ld\n",
           op, size, lat * 1e6, (double)size / lat / 1e6, min * 1e6, n);
    fflush(stdout);
}

/* After ops accumulates of 1.0 onto zeros: whether the first and last
 * doubles of size bytes at the target hold ops. */
static int acc_wrong(double *d, size_t size, long ops, MPI_Win win)
{
    MPI_Get(d, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
    MPI_Win_flush(1, win);
    return d[0] != (double)ops || d[size / 8 - 1] != (double)ops;
}

/* Rank 0's side: every size, put, get, then accumulate. */
static int origin(char *buf, long iters, int reps, MPI_Win win)
{
    int bad = 0;
    long ops;
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    for (size_t s = 0; s < NSIZES; s++) {
        size_t size = sizes[s];
        long n = iters_for(iters, size);
        double min, lat;
        memset(buf, (int)(s + 1), size);
        lat = time_op(PUT, buf, size, n, reps, win, &min, &ops);
        report(op_names[PUT], size, lat, min, n);
        memset(buf, 0, size);
        lat = time_op(GET, buf, size, n, reps, win, &min, &ops);
        report(op_names[GET], size, lat, min, n);
        bad |= buf[0] != (char)(s + 1) || buf[size - 1] != (char)(s + 1);
        double *d = (double *)buf;
        memset(buf, 0, size); /* the target's doubles to 0.0 */
        MPI_Put(buf, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
        MPI_Win_flush(1, win);
        for (size_t i = 0; i < size / 8; i++)
            d[i] = 1.0;
        lat = time_op(ACC, buf, size, n, reps, win, &min, &ops);
        report(op_names[ACC], size, lat, min, n);
        bad |= acc_wrong(d, size, ops, win);
    }
    MPI_Win_unlock(1, win);
    return bad;
}

int main(int argc, char **argv)
{
    long iters = DEFAULT_ITERS, reps = DEFAULT_REPS;
    int me, np, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int i = 1; i < argc; i++) {
        int ok = i + 1 < argc;
        if (ok && strcmp(argv[i], "-i") == 0)
            ok = bench_parse_long("rma", argv[++i], "-i", 10, 100000000, &iters,
                                  me == 0 ? stderr : NULL) == 0;
        else if (ok && strcmp(argv[i], "-r") == 0)
            ok = bench_parse_long("rma", argv[++i], "-r", 1, MAX_REPS, &reps,
                                  me == 0 ? stderr : NULL) == 0;
        else
            ok = 0;
        if (!ok) {
            if (me == 0)
                fprintf(stderr, "usage: rma [-i ITERS] [-r REPS]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (np < 2) {
        if (me == 0)
            fprintf(stderr, "rma: needs at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    char *mem, *buf = malloc(MAX_SIZE);
    MPI_Win win;
    MPI_Win_allocate(me == 1 ? MAX_SIZE : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                     &mem, &win);
    memset(buf, 1, MAX_SIZE);
    if (me == 1)
        memset(mem, 1, MAX_SIZE);
    if (me == 0)
        printf("# rma: %d ranks, put/get/accumulate + MPI_Win_flush under a "
               "shared lock; the target waits in MPI_Barrier\n",
               np);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        bad = origin(buf, iters, (int)reps, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    free(buf);
    if (bad)
        fprintf(stderr, "rma: data check failed\n");
    MPI_Finalize();
    return bad;
}
