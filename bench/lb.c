/*
 * Load balancing (docs/load-balancing.md, results in docs/bench.md):
 *
 *   lb loop [ITERS [UNIT_STEPS]]   an imbalanced loop: the first half of
 *       the ranks do 4 units of work per iteration, the others 1, then all
 *       meet in an MPI_Allreduce; AMPI_Migrate(AMPI_INFO_LB_SYNC) after
 *       iterations 2, 12, 22, ...  Prints "loop_s S" (wall time of the
 *       loop) and "result R" (the same with or without a balancer).
 *   lb migrate [ROUNDS]   every rank moves to the next PE of its process
 *       with AMPI_Migrate_to_pe, ROUNDS times, then the same call that
 *       moves nobody: prints "move_us" and "stay_us" (per call) and
 *       "us_per_rank" (the extra time of a call that moves every rank,
 *       per rank moved).
 *   lb migrate_heap [ROUNDS [BYTES]]   the same with BYTES of heap per
 *       rank, written before the moves (a move copies nothing, so the
 *       time does not depend on it).
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A dependent chain the compiler cannot shorten. */
static uint64_t work(uint64_t x, long steps)
{
    for (long i = 0; i < steps; i++) {
        x ^= x >> 29;
        x = x * 6364136223846793005u + (uint64_t)i;
    }
    return x;
}

static int loop(int rank, int size, int iters, long unit)
{
    long units = rank < size / 2 ? 4 : 1;
    uint64_t acc = (uint64_t)rank;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        acc = work(acc, units * unit);
        uint64_t sum;
        MPI_Allreduce(&acc, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        acc ^= sum;
        if (it % 10 == 2)
            AMPI_Migrate(AMPI_INFO_LB_SYNC);
    }
    double t = MPI_Wtime() - t0;
    uint64_t all;
    MPI_Allreduce(&acc, &all, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    if (rank == 0)
        printf("loop_s %.4f\nresult %llu\n", t, (unsigned long long)all);
    return 0;
}

static int my_pe(void)
{
    int *v, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_MY_WTH, &v, &flag);
    return *v;
}

static double time_calls(int rounds, int move, int npes)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < rounds; i++)
        AMPI_Migrate_to_pe(move ? (my_pe() + 1) % npes : -1);
    return (MPI_Wtime() - t0) / rounds;
}

static int migrate(int rank, int size, int rounds, size_t bytes)
{
    int *np, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_NUM_WTHS, &np, &flag);
    /* Written once: its pages are resident, and a move copies none. */
    char *heap = bytes ? malloc(bytes) : NULL;
    if (heap)
        memset(heap, 1, bytes);
    time_calls(rounds / 10 + 1, 1, *np); /* warm up */
    double move = time_calls(rounds, 1, *np);
    double stay = time_calls(rounds, 0, *np);
    double m = 0, s = 0;
    MPI_Allreduce(&move, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&stay, &s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("move_us %.2f\nstay_us %.2f\nus_per_rank %.3f\n", m * 1e6,
               s * 1e6, (m - s) * 1e6 / size);
    free(heap);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "loop";
    int rc;
    if (strcmp(mode, "loop") == 0)
        rc = loop(rank, size, argc > 2 ? atoi(argv[2]) : 40,
                  argc > 3 ? atol(argv[3]) : 1000000L);
    else if (strcmp(mode, "migrate") == 0)
        rc = migrate(rank, size, argc > 2 ? atoi(argv[2]) : 2000, 0);
    else
        rc = migrate(rank, size, argc > 2 ? atoi(argv[2]) : 200,
                     argc > 3 ? (size_t)atol(argv[3]) : (1u << 20));
    MPI_Finalize();
    return rc;
}
