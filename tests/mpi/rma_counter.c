/* A passive-target counter at rank 0, incremented by every other rank with
 * MPI_Fetch_and_op and MPI_Accumulate while rank 0 computes without calling
 * MPI: the origins on other PEs of its process must all finish before it
 * stops.  Origins in other processes are served by rank 0's PE when it
 * polls (docs/rma.md), here in the closing barrier; they are checked
 * after it. */
#include "mpitest.h"

#include <ampi.h>

#include <stdlib.h>

int main(int argc, char **argv)
{
    int me, np, *mem, flag, *pe, one = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Win win;
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &mem, &win);
    mem[0] = mem[1] = 0;
    int *pes = malloc((size_t)np * sizeof(int));
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_MY_WTH, &pe, &flag);
    MPI_Allgather(pe, 1, MPI_INT, pes, 1, MPI_INT, MPI_COMM_WORLD);
    int remote = 0;
    for (int r = 1; r < np; r++)
        remote += pes[r] != pes[0] && mt_process_of(r) == mt_process_of(0);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        /* Compute until the origins of other PEs are done (each adds 1 to
         * both counters), at most 20 s. */
        double end = MPI_Wtime() + 20.0;
        while (__atomic_load_n(&mem[1], __ATOMIC_ACQUIRE) < remote &&
               MPI_Wtime() < end)
            ;
        MT_CHECK(__atomic_load_n(&mem[1], __ATOMIC_ACQUIRE) >= remote);
    } else {
        int old = -1;
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, win);
        MPI_Win_unlock(0, win);
        MT_CHECK(old >= 0 && old < np - 1);
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Accumulate(&one, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        MT_CHECK_INT_EQ(mem[0], np - 1);
        MT_CHECK_INT_EQ(mem[1], np - 1);
    }
    free(pes);
    MPI_Win_free(&win);
    return mt_finish_and_finalize();
}
