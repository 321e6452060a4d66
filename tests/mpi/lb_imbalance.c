/*
 * An imbalanced loop (the first half of each process's ranks do 4 times
 * the work) with AMPI_Migrate between iterations, run with +balancer NAME.
 * The result is the one computed without any migration, and with several
 * PEs per process the balancer moved ranks (within their processes, in a
 * job of several).  With the program
 * argument "setvalue" the ranks give their load with AMPI_Load_set_value
 * (in work units), so the outcome is exact: the most loaded PE has less
 * work than before, and with "setvalue exact" (GreedyLB, RefineLB) the
 * most loaded PE is within 5% of the average or one light rank above the
 * least loaded, when each PE has at least four ranks.
 *
 * With "setvalue even" every rank gives the same load: a step gains nothing
 * and, under the default +lbmingain, moves no rank ("even stay"); with
 * +lbmingain 0, GreedyLB's fresh deal moves some ("even").
 */
#include "mpitest.h"

#include <stdint.h>
#include <string.h>

#define ITERS 6
#define STEPS_PER_UNIT 200000L

/* Work that takes time and whose result depends on every step. */
static uint64_t work(int rank, int iter, long units)
{
    uint64_t x = (uint64_t)rank * 1000003u + (uint64_t)iter;
    for (long i = 0; i < units * STEPS_PER_UNIT; i++)
        x = x * 6364136223846793005u + 1442695040888963407u;
    return x;
}

static int even;

static long units_of(int rank)
{
    if (even)
        return 1;
    int p = mt_process_of(rank), first = mt_first_rank_of(p);
    return rank - first < (mt_first_rank_of(p + 1) - first) / 2 ? 4 : 1;
}

static int my_pe(void)
{
    int *v, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_MY_WTH, &v, &flag);
    return flag ? *v : -1;
}

/* The most and the least work units of a PE (every rank's units added
 * on the PE it runs on now). */
static void pe_spread(long units, int npes, long *lo, long *hi, long *total)
{
    long mine[64] = {0}, per_pe[64];
    mine[my_pe()] = units;
    MPI_Allreduce(mine, per_pe, npes, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    *lo = *hi = *total = per_pe[0];
    for (int p = 1; p < npes; p++) {
        *total += per_pe[p];
        *lo = per_pe[p] < *lo ? per_pe[p] : *lo;
        *hi = per_pe[p] > *hi ? per_pe[p] : *hi;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, *npes_attr, flag;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_NUM_WTHS, &npes_attr, &flag);
    int npes = *npes_attr;
    int setvalue = 0, exact = 0, stay = 0;
    for (int i = 1; i < argc; i++) {
        setvalue |= strcmp(argv[i], "setvalue") == 0;
        exact |= strcmp(argv[i], "exact") == 0;
        even |= strcmp(argv[i], "even") == 0;
        stay |= strcmp(argv[i], "stay") == 0;
    }
    long units = units_of(rank), lo0 = 0, hi0 = 0, lo, hi, total;
    if (npes <= 64)
        pe_spread(units, npes, &lo0, &hi0, &total);

    int moved_any = 0;
    uint64_t acc = 0; /* carried on the stack across the moves */
    for (int iter = 0; iter < ITERS; iter++) {
        acc ^= work(rank, iter, units);
        uint64_t sum = 0;
        MT_CHECK_MPI(MPI_Allreduce(&acc, &sum, 1, MPI_UINT64_T, MPI_SUM,
                                   MPI_COMM_WORLD));
        acc += sum;
        if (iter == 1 || iter == 3) {
            int before = my_pe();
            if (setvalue)
                MT_CHECK_MPI(AMPI_Load_set_value((double)units));
            MT_CHECK_MPI(AMPI_Migrate(AMPI_INFO_LB_SYNC));
            int moved = my_pe() != before, any = 0;
            MPI_Allreduce(&moved, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
            moved_any |= any;
        }
    }

    /* The same computation without migration, and its global result. */
    uint64_t ref = 0;
    for (int iter = 0; iter < ITERS; iter++) {
        ref ^= work(rank, iter, units);
        uint64_t sum = 0;
        MPI_Allreduce(&ref, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        ref += sum;
    }
    MT_CHECK(acc == ref);

    /* Every process has more ranks than PEs. */
    int can_move = npes > 1 && size / mt_nprocs() > npes;
    MT_CHECK(my_pe() >= 0 && my_pe() < npes);
    if (can_move && stay)
        MT_CHECK(!moved_any);
    if (can_move && !stay) {
        MT_CHECK(moved_any);
        if (setvalue && !even && npes <= 64) {
            pe_spread(units, npes, &lo, &hi, &total);
            MT_CHECK(hi < hi0);
            /* Within RefineLB's tolerance (5%) of the average, or one
             * light rank from it. */
            if (exact && size >= 4 * npes)
                MT_CHECK(hi * npes * 100 <= total * 105 || hi - lo <= 1);
        }
    }
    return mt_finish_and_finalize();
}
