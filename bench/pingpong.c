/*
 * Ping-pong latency and bandwidth between ranks 0 and 1.
 *
 * A plain MPI program: it builds with any mpicc (ours, Open MPI's, MPICH's)
 * and uses only MPI-1 calls, so the same source measures every
 * implementation side by side.  Ranks other than 0 and 1 only join the
 * barriers.
 *
 * For each message size, rank 0 sends and waits for the echo; rank 1
 * receives and sends back.  One-way latency is half the round trip;
 * bandwidth is size / one-way time (MB/s, 1 MB = 10^6 bytes).  Each size gets
 * warm-up round trips, then `reps` timed repetitions of `iters` round trips;
 * the median repetition is reported (the minimum is printed too).
 *
 * Buffers are written before timing.  A buffer that is allocated but never
 * written maps the kernel's shared zero page: every read of it hits one
 * cached 4 KiB page, and large messages look several times faster than any
 * real program would see.  Both the send and the receive buffers are filled
 * with non-zero patterns, and the received data is checked once per size.
 *
 * Output: one line per size on rank 0,
 *   size=8 lat_us=0.412 bw_MBps=19.42 lat_min_us=0.401 iters=10000 reps=7
 * preceded by comment lines starting with '#'.
 */
#define _POSIX_C_SOURCE 200809L /* posix_memalign */

#include <mpi.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

#define MAX_SIZES 64
#define MAX_REPS 101
#define DEFAULT_ITERS 10000
#define DEFAULT_REPS 7
/* Sizes up to this many bytes get the full iteration count; larger ones get
 * proportionally fewer, so every size moves about the same number of bytes. */
#define FULL_ITERS_BYTES 8192
#define TAG 17

typedef struct options {
    size_t sizes[MAX_SIZES];
    int nsizes;
    long iters;
    int reps;
} options_t;

static const size_t default_sizes[] = {
    8, 64, 512, 4096, 65536, 1048576, 4194304,
};

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
            "usage: %s [-s SIZES] [-i ITERS] [-r REPS]\n"
            "  -s SIZES  comma-separated message sizes in bytes; a k or m\n"
            "            suffix multiplies by 1024 or 1048576\n"
            "            (default 8,64,512,4k,64k,1m,4m)\n"
            "  -i ITERS  round trips per repetition for sizes up to %d bytes;\n"
            "            larger sizes scale down by size (default %d)\n"
            "  -r REPS   timed repetitions per size, median reported "
            "(default %d, at most %d)\n",
            prog, FULL_ITERS_BYTES, DEFAULT_ITERS, DEFAULT_REPS, MAX_REPS);
}

/* Parses "8,64,4k,1m" into opts->sizes.  Returns 0, or -1 after printing
 * the reason to err (when err is not NULL). */
static int parse_sizes(const char *arg, options_t *opts, FILE *err)
{
    const char *p = arg;

    opts->nsizes = 0;
    while (*p != '\0') {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (end == p || errno != 0) {
            if (err)
                fprintf(err, "pingpong: bad size list '%s' (-s)\n", arg);
            return -1;
        }
        unsigned long long unit = 1;
        if (*end == 'k' || *end == 'K') {
            unit = 1024;
            end++;
        } else if (*end == 'm' || *end == 'M') {
            unit = 1024 * 1024;
            end++;
        }
        if (v == 0 || v > (unsigned long long)INT32_MAX / unit) {
            if (err)
                fprintf(err, "pingpong: size '%s' out of range 1..%d (-s)\n",
                        arg, INT32_MAX);
            return -1;
        }
        v *= unit;
        if (opts->nsizes == MAX_SIZES) {
            if (err)
                fprintf(err, "pingpong: more than %d sizes (-s)\n", MAX_SIZES);
            return -1;
        }
        opts->sizes[opts->nsizes++] = (size_t)v;
        if (*end == ',') {
            end++;
        } else if (*end != '\0') {
            if (err)
                fprintf(err, "pingpong: bad size list '%s' (-s)\n", arg);
            return -1;
        }
        p = end;
    }
    if (opts->nsizes == 0) {
        if (err)
            fprintf(err, "pingpong: empty size list (-s)\n");
        return -1;
    }
    return 0;
}

static int parse_long(const char *arg, const char *flag, long lo, long hi,
                      long *out, FILE *err)
{
    return bench_parse_long("pingpong", arg, flag, lo, hi, out, err);
}

/* Returns 0 to run, 1 for -h, -1 on a bad command line (reason printed to
 * err unless it is NULL). */
static int parse_args(int argc, char **argv, options_t *opts, FILE *err)
{
    opts->nsizes = (int)(sizeof(default_sizes) / sizeof(default_sizes[0]));
    memcpy(opts->sizes, default_sizes, sizeof(default_sizes));
    opts->iters = DEFAULT_ITERS;
    opts->reps = DEFAULT_REPS;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return 1;
        if (i + 1 >= argc) {
            if (err)
                fprintf(err, "pingpong: unknown or incomplete option '%s'\n",
                        a);
            return -1;
        }
        const char *v = argv[++i];
        long n;
        if (strcmp(a, "-s") == 0) {
            if (parse_sizes(v, opts, err) != 0)
                return -1;
        } else if (strcmp(a, "-i") == 0) {
            if (parse_long(v, "-i", 1, 100000000L, &n, err) != 0)
                return -1;
            opts->iters = n;
        } else if (strcmp(a, "-r") == 0) {
            if (parse_long(v, "-r", 1, MAX_REPS, &n, err) != 0)
                return -1;
            opts->reps = (int)n;
        } else {
            if (err)
                fprintf(err, "pingpong: unknown option '%s'\n", a);
            return -1;
        }
    }
    return 0;
}

/* Round trips per repetition for one size: the full count up to
 * FULL_ITERS_BYTES, then inversely proportional to size, never below
 * iters / 250 (and never below 2). */
static long iters_for_size(long iters, size_t size)
{
    long n = iters;
    if (size > FULL_ITERS_BYTES)
        n = (long)((double)iters * FULL_ITERS_BYTES / (double)size);
    long min_iters = iters / 250 > 2 ? iters / 250 : 2;
    return n > min_iters ? n : min_iters;
}

/* The byte each rank writes at offset i: never zero, differs per rank. */
static unsigned char pattern_byte(int rank, size_t i)
{
    return (unsigned char)(1 + (i * 7 + (size_t)rank * 101) % 251);
}

static void fill_pattern(unsigned char *buf, size_t n, int rank)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = pattern_byte(rank, i);
}

/* Checks that buf[0..n) holds the pattern `from` wrote.  Returns the first
 * bad offset, or n when all match. */
static size_t check_pattern(const unsigned char *buf, size_t n, int from)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != pattern_byte(from, i))
            return i;
    return n;
}

/* `count` round trips of `size` bytes; rank 0 starts them, rank 1 echoes. */
static void round_trips(int rank, unsigned char *sbuf, unsigned char *rbuf,
                        int size, long count)
{
    for (long k = 0; k < count; k++) {
        if (rank == 0) {
            MPI_Send(sbuf, size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
            MPI_Recv(rbuf, size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(sbuf, size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
        }
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_sorted(const double *v, int n)
{
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Measures one size and prints its line on rank 0.  Returns 0, or -1 when
 * the data received was wrong. */
static int measure_size(int rank, const options_t *opts, size_t size,
                        unsigned char *sbuf, unsigned char *rbuf)
{
    long iters = iters_for_size(opts->iters, size);
    long warmup = iters / 10 > 2 ? iters / 10 : 2;
    double one_way_us[MAX_REPS];
    int active = rank < 2;

    /* Reset the receive buffer so the check below sees this size's data. */
    if (active)
        memset(rbuf, 0xa5, size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (active)
        round_trips(rank, sbuf, rbuf, (int)size, warmup);

    for (int r = 0; r < opts->reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (!active)
            continue;
        double t0 = MPI_Wtime();
        round_trips(rank, sbuf, rbuf, (int)size, iters);
        double t1 = MPI_Wtime();
        one_way_us[r] = (t1 - t0) * 1e6 / (2.0 * (double)iters);
    }

    if (active) {
        size_t bad = check_pattern(rbuf, size, 1 - rank);
        if (bad != size) {
            fprintf(stderr,
                    "pingpong: rank %d: size %zu: byte %zu is 0x%02x, "
                    "expected 0x%02x\n",
                    rank, size, bad, rbuf[bad], pattern_byte(1 - rank, bad));
            return -1;
        }
    }
    if (rank != 0)
        return 0;

    qsort(one_way_us, (size_t)opts->reps, sizeof(double), cmp_double);
    double lat = median_sorted(one_way_us, opts->reps);
    printf("size=%zu lat_us=%.3f bw_MBps=%.1f lat_min_us=%.3f iters=%ld "
           "reps=%d\n",
           size, lat, (double)size / lat, one_way_us[0], iters, opts->reps);
    fflush(stdout);
    return 0;
}

static const char *impl_name(void)
{
#if defined(AMPI)
    return "ampi";
#elif defined(OPEN_MPI)
    return "openmpi";
#elif defined(MPICH_VERSION)
    return "mpich";
#else
    return "unknown";
#endif
}

int main(int argc, char **argv)
{
    options_t opts;
    int rank, nranks;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    /* Every rank parses the same argv, so all of them agree on the outcome. */
    int parsed = parse_args(argc, argv, &opts, rank == 0 ? stderr : NULL);
    if (parsed != 0) {
        if (rank == 0)
            usage(parsed > 0 ? stdout : stderr, argv[0]);
        MPI_Finalize();
        return parsed > 0 ? 0 : 2;
    }
    if (nranks < 2) {
        if (rank == 0)
            fprintf(stderr,
                    "pingpong: needs at least 2 ranks, got %d "
                    "(run with +vp 2, or mpirun -np 2)\n",
                    nranks);
        MPI_Finalize();
        return 2;
    }

    size_t max_size = 0;
    for (int i = 0; i < opts.nsizes; i++)
        if (opts.sizes[i] > max_size)
            max_size = opts.sizes[i];

    /* Page-aligned, and written all the way through before any timing. */
    unsigned char *sbuf = NULL, *rbuf = NULL;
    if (rank < 2) {
        if (posix_memalign((void **)&sbuf, 4096, max_size) != 0 ||
            posix_memalign((void **)&rbuf, 4096, max_size) != 0) {
            fprintf(stderr,
                    "pingpong: rank %d: cannot allocate 2 x %zu "
                    "bytes\n",
                    rank, max_size);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        fill_pattern(sbuf, max_size, rank);
        memset(rbuf, 0xa5, max_size);
    }

    if (rank == 0) {
        printf("# pingpong impl=%s ranks=%d reps=%d iters=%ld\n", impl_name(),
               nranks, opts.reps, opts.iters);
        fflush(stdout);
    }

    int status = 0;
    for (int i = 0; i < opts.nsizes && status == 0; i++)
        status = measure_size(rank, &opts, opts.sizes[i], sbuf, rbuf);
    if (status != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);

    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
