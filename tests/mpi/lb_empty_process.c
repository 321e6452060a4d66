/*
 * A load-balancing step that takes every rank out of a process while other
 * ranks move into it (runtime/rank/move.c): with 5 ranks in 2 processes
 * (ranks 0-1, 2-4) and RefineLB, the loads of the first step send rank 1
 * to process 1, those of the second send process 0's last rank, rank 0,
 * to process 1 and ranks 2 and 4 to process 0.  Ranks 2 and 4 carry 32 MiB
 * of heap each, so rank 0 is gone long before they arrive: process 0 must
 * wait for them instead of taking itself for finished (it did, and the
 * job hung).  Each moved heap is checked where it arrived.
 */
#include "mpitest.h"

#include <stdlib.h>
#include <string.h>

#define HEAP (32 << 20)

static int my_process(void)
{
    int *p, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_MY_PROCESS, &p, &flag);
    return flag ? *p : 0;
}

int main(int argc, char **argv)
{
    static const double step1[5] = {10, 1, 1, 1, 1};
    static const double step2[5] = {3.1, 0.86, 3.3, 0.82, 0.93};
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *heap = NULL;
    if (rank == 2 || rank == 4) {
        heap = malloc(HEAP);
        MT_CHECK(heap != NULL);
        memset(heap, rank, HEAP);
    }
    MT_CHECK_MPI(AMPI_Load_set_value(size == 5 ? step1[rank] : 1.0));
    MT_CHECK_MPI(AMPI_Migrate(AMPI_INFO_LB_SYNC));
    MT_CHECK_MPI(AMPI_Load_set_value(size == 5 ? step2[rank] : 1.0));
    MT_CHECK_MPI(AMPI_Migrate(AMPI_INFO_LB_SYNC));
    if (size == 5 && mt_nprocs() == 2) {
        static const int where[5] = {1, 1, 0, 1, 0};
        MT_CHECK_INT_EQ(my_process(), where[rank]);
    }
    if (heap) {
        MT_CHECK(heap[0] == rank && heap[HEAP / 2] == rank &&
                 heap[HEAP - 1] == rank);
        free(heap);
    }
    return mt_finish_and_finalize();
}
