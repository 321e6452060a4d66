/*
 * Collective latency: MPI_Allreduce (MPI_SUM on doubles), MPI_Bcast (bytes,
 * root 0) and MPI_Alltoall (bytes, SIZE to each rank) on MPI_COMM_WORLD.
 *
 * A plain MPI program (MPI-1 calls and MPI_Comm_set_errhandler) built with
 * our ampicc and with Open MPI's mpicc, so one source measures both.
 *
 * For each operation and size: a few warm-up calls, then calibration
 * batches (growing until one takes CALIBRATE_MS) set the iteration count
 * so that one repetition takes about TARGET_MS (every rank uses the
 * slowest rank's figure, so they agree); then `reps` timed repetitions of
 * `iters` back-to-back calls.  A repetition's time per call is the slowest
 * rank's; the median repetition is reported (the fastest too).  Buffers
 * are written before timing (see pingpong.c on the zero-page trap) and the
 * results are checked once per size.
 *
 * MPI_Alltoall is skipped, with a comment line, when the library under
 * test reports an error for it (not implemented); its sizes stop where
 * SIZE * ranks would pass ALLTOALL_MAX_BYTES per rank.
 *
 * Output on rank 0, one line per measurement:
 *   op=allreduce size=8 lat_us=0.412 lat_min_us=0.401 iters=10000 reps=5
 *   ranks=8
 * preceded by comment lines starting with '#'.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

#define MAX_REPS 51
#define DEFAULT_REPS 5
#define DEFAULT_MAX_SIZE (1L << 20)
#define TARGET_MS 20.0
#define CALIBRATE_MS 2.0
#define MAX_ITERS 100000L
#define ALLTOALL_MAX_BYTES (4L << 20)

enum { OP_ALLREDUCE, OP_BCAST, OP_ALLTOALL, NOPS };
static const char *const op_names[NOPS] = {"allreduce", "bcast", "alltoall"};

typedef struct bench {
    int rank, nranks, reps;
    long max_size;
    int ops[NOPS]; /* which to run */
    unsigned char *sbuf, *rbuf;
} bench_t;

static void usage(FILE *f, const char *prog)
{
    fprintf(
        f,
        "usage: %s [-m MAX_BYTES] [-r REPS] [-o OPS]\n"
        "  -m MAX_BYTES  largest size; sizes go 8, 64, 512, ... (x8) up to\n"
        "                it, then MAX_BYTES itself (default %ld)\n"
        "  -r REPS       timed repetitions per size, median reported\n"
        "                (default %d, at most %d)\n"
        "  -o OPS        comma-free letters: a = allreduce, b = bcast,\n"
        "                t = alltoall (default abt)\n",
        prog, DEFAULT_MAX_SIZE, DEFAULT_REPS, MAX_REPS);
}

/* Returns 0 to run, 1 for -h, -1 on a bad command line. */
static int parse_args(int argc, char **argv, bench_t *b, FILE *err)
{
    b->reps = DEFAULT_REPS;
    b->max_size = DEFAULT_MAX_SIZE;
    for (int k = 0; k < NOPS; k++)
        b->ops[k] = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return 1;
        if (i + 1 >= argc) {
            if (err)
                fprintf(err, "coll: unknown or incomplete option '%s'\n", a);
            return -1;
        }
        const char *v = argv[++i];
        long n;
        if (strcmp(a, "-m") == 0) {
            if (bench_parse_long("coll", v, "-m", 8, 1L << 28, &n, err))
                return -1;
            b->max_size = n;
        } else if (strcmp(a, "-r") == 0) {
            if (bench_parse_long("coll", v, "-r", 1, MAX_REPS, &n, err))
                return -1;
            b->reps = (int)n;
        } else if (strcmp(a, "-o") == 0) {
            const char *letters = "abt";
            for (int k = 0; k < NOPS; k++)
                b->ops[k] = strchr(v, letters[k]) != NULL;
            if (strspn(v, letters) != strlen(v) || !*v) {
                if (err)
                    fprintf(err,
                            "coll: -o wants letters from 'abt', got "
                            "'%s'\n",
                            v);
                return -1;
            }
        } else {
            if (err)
                fprintf(err, "coll: unknown option '%s'\n", a);
            return -1;
        }
    }
    return 0;
}

/* One call of op with size bytes (per peer for alltoall). */
static void call(const bench_t *b, int op, long size)
{
    switch (op) {
    case OP_ALLREDUCE:
        MPI_Allreduce(b->sbuf, b->rbuf, (int)(size / 8), MPI_DOUBLE, MPI_SUM,
                      MPI_COMM_WORLD);
        break;
    case OP_BCAST:
        MPI_Bcast(b->rank == 0 ? b->sbuf : b->rbuf, (int)size, MPI_BYTE, 0,
                  MPI_COMM_WORLD);
        break;
    case OP_ALLTOALL:
        MPI_Alltoall(b->sbuf, (int)size, MPI_BYTE, b->rbuf, (int)size, MPI_BYTE,
                     MPI_COMM_WORLD);
        break;
    }
}

/* Fills the send buffer with what rank r sends; doubles for allreduce. */
static void fill(const bench_t *b, int op, long size)
{
    if (op == OP_ALLREDUCE) {
        double *d = (double *)b->sbuf;
        for (long i = 0; i < size / 8; i++)
            d[i] = (double)(b->rank + 1 + i % 13);
        return;
    }
    long n = op == OP_ALLTOALL ? size * b->nranks : size;
    for (long i = 0; i < n; i++)
        b->sbuf[i] = (unsigned char)(1 + (i * 7 + b->rank * 31) % 251);
    memset(b->rbuf, 0, (size_t)n);
}

/* Whether the last call left the right data; prints the first error. */
static int check(const bench_t *b, int op, long size)
{
    if (op == OP_ALLREDUCE) {
        const double *d = (const double *)b->rbuf;
        for (long i = 0; i < size / 8; i++) {
            double want = (double)b->nranks * (double)(b->nranks + 1) / 2 +
                          (double)b->nranks * (double)(i % 13);
            if (d[i] != want) {
                fprintf(stderr,
                        "coll: rank %d: allreduce %ld B: element %ld "
                        "is %g, expected %g\n",
                        b->rank, size, i, d[i], want);
                return 0;
            }
        }
        return 1;
    }
    for (long i = 0; i < (op == OP_ALLTOALL ? size * b->nranks : size); i++) {
        /* Bcast: root 0's data (the root checks its own). */
        int from = op == OP_ALLTOALL ? (int)(i / size) : 0;
        long at = op == OP_ALLTOALL ? b->rank * size + i % size : i;
        const unsigned char *got =
            op == OP_BCAST && b->rank == 0 ? b->sbuf : b->rbuf;
        unsigned char want = (unsigned char)(1 + (at * 7 + from * 31) % 251);
        if (got[i] != want) {
            fprintf(stderr,
                    "coll: rank %d: %s %ld B: byte %ld is %u, "
                    "expected %u\n",
                    b->rank, op_names[op], size, i, got[i], want);
            return 0;
        }
    }
    return 1;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, c = *(const double *)y;
    return (a > c) - (a < c);
}

/* Seconds per call, the slowest rank's, over iters calls. */
static double timed(const bench_t *b, int op, long size, long iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long k = 0; k < iters; k++)
        call(b, op, size);
    double mine = (MPI_Wtime() - t0) / (double)iters, slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

static int measure(const bench_t *b, int op, long size)
{
    fill(b, op, size);
    for (int k = 0; k < 3; k++)
        call(b, op, size);
    int ok = check(b, op, size), all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok)
        return -1;
    /* Calibrate on batches of at least CALIBRATE_MS. */
    long iters = 1;
    double one = timed(b, op, size, iters);
    while (one * (double)iters < CALIBRATE_MS * 1e-3 && iters < MAX_ITERS) {
        iters *= 4;
        one = timed(b, op, size, iters);
    }
    iters = (long)(TARGET_MS * 1e-3 / (one > 1e-9 ? one : 1e-9));
    iters = iters < 1 ? 1 : iters > MAX_ITERS ? MAX_ITERS : iters;
    double us[MAX_REPS];
    for (int r = 0; r < b->reps; r++)
        us[r] = timed(b, op, size, iters) * 1e6;
    if (b->rank == 0) {
        qsort(us, (size_t)b->reps, sizeof(double), cmp_double);
        double med = b->reps % 2
                         ? us[b->reps / 2]
                         : 0.5 * (us[b->reps / 2 - 1] + us[b->reps / 2]);
        printf("op=%s size=%ld lat_us=%.3f lat_min_us=%.3f iters=%ld reps=%d "
               "ranks=%d\n",
               op_names[op], size, med, us[0], iters, b->reps, b->nranks);
        fflush(stdout);
    }
    return 0;
}

/* Whether the library runs MPI_Alltoall at all (it may not implement it
 * yet): one call under MPI_ERRORS_RETURN, agreed by every rank. */
static int alltoall_works(const bench_t *b)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int ok = MPI_Alltoall(b->sbuf, 1, MPI_BYTE, b->rbuf, 1, MPI_BYTE,
                          MPI_COMM_WORLD) == MPI_SUCCESS,
        all_ok = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all_ok;
}

static int run(bench_t *b)
{
    if (b->ops[OP_ALLTOALL] && !alltoall_works(b)) {
        b->ops[OP_ALLTOALL] = 0;
        if (b->rank == 0)
            printf("# alltoall: skipped, MPI_Alltoall returned an error\n");
    }
    for (int op = 0; op < NOPS; op++) {
        if (!b->ops[op])
            continue;
        for (long size = 8;; size *= 8) {
            if (size > b->max_size)
                size = b->max_size;
            if (op == OP_ALLTOALL && size * b->nranks > ALLTOALL_MAX_BYTES)
                break;
            if (measure(b, op, size) != 0)
                return -1;
            if (size == b->max_size)
                break;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    bench_t b;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b.nranks);
    int parsed = parse_args(argc, argv, &b, b.rank == 0 ? stderr : NULL);
    if (parsed != 0) {
        if (b.rank == 0)
            usage(parsed > 0 ? stdout : stderr, argv[0]);
        MPI_Finalize();
        return parsed > 0 ? 0 : 2;
    }
    long a2a = b.max_size * b.nranks;
    a2a = a2a < ALLTOALL_MAX_BYTES ? a2a : ALLTOALL_MAX_BYTES;
    size_t bytes = (size_t)(b.max_size > a2a ? b.max_size : a2a);
    b.sbuf = malloc(bytes);
    b.rbuf = malloc(bytes);
    if (!b.sbuf || !b.rbuf) {
        fprintf(stderr, "coll: rank %d: out of memory for %zu bytes\n", b.rank,
                2 * bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (b.rank == 0)
        printf("# coll: %d ranks, max %ld bytes, %d reps\n", b.nranks,
               b.max_size, b.reps);
    int rc = run(&b);
    free(b.sbuf);
    free(b.rbuf);
    MPI_Finalize();
    return rc == 0 ? 0 : 1;
}
