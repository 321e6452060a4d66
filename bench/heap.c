/*
 * A buffer freed and allocated again every step, as codes that size their
 * message buffers per step do: malloc, fill, sum, free.  In a rank the
 * allocation comes from the rank's heap (runtime/mem/heap.c); built with a
 * plain compiler (-DPLAIN) from glibc's malloc.
 *
 *   heap-ampi [-b BYTES] [-n STEPS] +vp N +p P   every rank runs the loop
 *   heap-plain [-b BYTES] [-n STEPS]
 *
 * Prints "bytes=B us_per_step=T faults_per_step=F" (rank 0; faults: minor
 * page faults of the process, getrusage).  bench/run_heap.sh runs both in
 * one invocation.
 */
#include "args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#ifndef PLAIN
#include <mpi.h>
#endif

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long minor_faults(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

/* steps rounds of malloc, fill, sum, free; the sum of what was read. */
static long run(size_t bytes, long steps)
{
    long sum = 0;
    for (long s = 0; s < steps; s++) {
        unsigned char *buf = malloc(bytes);
        if (!buf) {
            fprintf(stderr, "heap: malloc(%zu) failed\n", bytes);
            exit(1);
        }
        memset(buf, (int)(s & 0x7f), bytes);
        for (size_t i = 0; i < bytes; i += 4096)
            sum += buf[i];
        free(buf);
    }
    return sum;
}

static int parse(int argc, char **argv, long *bytes, long *steps)
{
    for (int i = 1; i < argc; i++) {
        int ok = i + 1 < argc && argv[i][0] == '-' && !argv[i][2];
        long *to = ok && argv[i][1] == 'b' ? bytes
                   : ok && argv[i][1] == 'n' ? steps
                                             : NULL;
        if (!to) {
            fprintf(stderr, "%s: unknown argument '%s' (use -b BYTES -n STEPS)\n",
                    argv[0], argv[i]);
            return -1;
        }
        if (bench_parse_long(argv[0], argv[i + 1], argv[i], 1, 1L << 34, to,
                             stderr) != 0)
            return -1;
        i++;
    }
    return 0;
}

int main(int argc, char **argv)
{
    long bytes = 4L << 20, steps = 200;
    int rank = 0;
#ifndef PLAIN
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#endif
    if (parse(argc, argv, &bytes, &steps) != 0)
        return 2;
    long expect = 0;
    for (long s = 0; s < steps; s++)
        expect += (s & 0x7f) * ((bytes + 4095) / 4096);
    run((size_t)bytes, 2); /* warm up */
    long faults = minor_faults();
    double t = now();
    long sum = run((size_t)bytes, steps);
    t = now() - t;
    faults = minor_faults() - faults;
    if (sum != expect) {
        fprintf(stderr, "heap: read %ld, expected %ld\n", sum, expect);
        return 1;
    }
    if (rank == 0)
        printf("bytes=%ld us_per_step=%.1f faults_per_step=%.1f\n", bytes,
               t * 1e6 / (double)steps, (double)faults / (double)steps);
#ifndef PLAIN
    MPI_Finalize();
#endif
    return 0;
}
