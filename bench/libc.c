/*
 * The cost of the C library's generators called in a rank, where the runtime
 * keeps their state per rank (runtime/libc), against glibc's own in a
 * process (the same source built with a plain compiler, -DPLAIN).
 *
 *   libc-ampi [-n CALLS] +vp N +p P   rank 0 reports; every rank draws
 *   libc-plain [-n CALLS]
 *
 * Prints one line per call: "call=rand ns=12.3".  bench/run_libc.sh runs
 * both in one invocation and prints the ratios.
 */
#include "args.h"

#include <stdio.h>
#include <stdlib.h>
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

/* ns per call of each generator; sink keeps the calls. */
static void measure(long calls, int report)
{
    volatile long sink = 0;
    double t = now();
    for (long i = 0; i < calls; i++)
        sink += rand();
    double rand_ns = (now() - t) * 1e9 / (double)calls;
    t = now();
    for (long i = 0; i < calls; i++)
        sink += (long)(drand48() * 1000.0);
    double drand_ns = (now() - t) * 1e9 / (double)calls;
    t = now();
    for (long i = 0; i < calls; i++)
        sink += random();
    double random_ns = (now() - t) * 1e9 / (double)calls;
    if (report) {
        printf("call=rand ns=%.2f\n", rand_ns);
        printf("call=drand48 ns=%.2f\n", drand_ns);
        printf("call=random ns=%.2f\n", random_ns);
    }
    (void)sink;
}

int main(int argc, char **argv)
{
    long calls = 10000000;
    int rank = 0;
#ifndef PLAIN
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#endif
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1] == 'n' && i + 1 < argc) {
            if (bench_parse_long(argv[0], argv[++i], "-n", 1, 1000000000L,
                                 &calls, stderr) != 0)
                return 2;
        } else {
            fprintf(stderr, "%s: unknown argument '%s' (use -n CALLS)\n",
                    argv[0], argv[i]);
            return 2;
        }
    }
    measure(calls / 10, 0); /* warm up */
    measure(calls, rank == 0);
#ifndef PLAIN
    MPI_Finalize();
#endif
    return 0;
}
