/*
 * Ranks that go back and forth between processes (RotateLB moves every
 * rank at every step; across 2 processes a rank is back where it started
 * every 2 or 4 steps).  Each finds its heap, its stack and its global as
 * they were after every step, a heap that grew while the rank was in the
 * other process included.  A process keeps the pages of the ranks that
 * left it (rank/move.h, move_keep.c), so a rank that comes back makes no
 * page of its slot present again: over the last 8 steps, the process a
 * rank started in takes fewer than 16 page faults a step for each rank
 * it holds.  A process that gave the pages back took one for every page
 * of every rank that arrived (about 300 a rank here).
 */
#include "mpitest.h"

#include <stdlib.h>
#include <sys/resource.h>

enum { STEPS = 16, MEASURE_FROM = 9, GROWN = 2 << 20, STACK = 4096 };

static int my_global = -1; /* privatized per rank */

static long faults(void)
{
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_minflt : -1;
}

static void check(int rank, const unsigned char *heap, size_t bytes,
                  const unsigned char *grown, const unsigned char *stack)
{
    MT_CHECK_INT_EQ(my_global, 500 + rank);
    MT_CHECK_PATTERN(heap, bytes, (unsigned)rank);
    if (grown)
        MT_CHECK_PATTERN(grown, GROWN, (unsigned)rank + 3);
    MT_CHECK_PATTERN(stack, STACK, (unsigned)rank + 9);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    my_global = 500 + rank;
    size_t bytes = (size_t)1 << 20;
    unsigned char *heap = malloc(bytes), *grown = NULL;
    MT_CHECK(heap != NULL);
    mt_fill(heap, bytes, (unsigned)rank);
    unsigned char stack[STACK];
    mt_fill(stack, STACK, (unsigned)rank + 9);
    int procs = mt_nprocs(), start = -1, nlocal = 0, *v, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_MY_PROCESS, &v, &flag);
    start = flag ? *v : -1;
    long from = 0;
    for (int step = 1; step <= STEPS; step++) {
        if (step == MEASURE_FROM)
            from = faults();
        MT_CHECK_MPI(AMPI_Migrate(AMPI_INFO_LB_SYNC));
        check(rank, heap, bytes, grown, stack);
        if (step == 1) { /* in the other process: the heap grows there */
            grown = malloc(GROWN);
            MT_CHECK(grown != NULL);
            mt_fill(grown, GROWN, (unsigned)rank + 3);
        }
    }
    long took = faults() - from;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_MY_PROCESS, &v, &flag);
    MT_CHECK(flag && *v == start); /* back where it started */
    /* The ranks of this process now: those that started in it. */
    MPI_Comm here;
    MT_CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, start, rank, &here));
    MT_CHECK_MPI(MPI_Comm_size(here, &nlocal));
    MPI_Comm_free(&here);
    long bound = 16L * nlocal * (STEPS - MEASURE_FROM + 1);
    if (procs > 1 && !MT_ASAN && took >= bound)
        MT_FAIL("rank %d: %ld page faults in process %d over %d steps "
                "(bound %ld): pages of ranks that came back made present "
                "again",
                rank, took, start, STEPS - MEASURE_FROM + 1, bound);
    free(grown);
    free(heap);
    return mt_finish_and_finalize();
}
