/* MPI_Win_allocate_shared: one block, segments in rank order, queried with
 * MPI_Win_shared_query and used with plain loads and stores (across the
 * processes of the node too); a dynamic window's attach and detach. */
#include "mpitest.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    /* Shared windows take the ranks of the processes of one node (all of
     * them when the job runs on one node). */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                        &node);
    MPI_Comm_rank(node, &me);
    MPI_Comm_size(node, &np);
    double *mine;
    MPI_Win win;
    MPI_Win_allocate_shared((MPI_Aint)(me + 1) * sizeof(double), sizeof(double),
                            MPI_INFO_NULL, node, &mine, &win);
    for (int i = 0; i <= me; i++)
        mine[i] = me + 0.5 * i;
    MPI_Win_lock_all(0, win);
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    char *prev = NULL;
    for (int r = 0; r < np; r++) {
        MPI_Aint size;
        int unit;
        double *base;
        MPI_Win_shared_query(win, r, &size, &unit, &base);
        MT_CHECK_INT_EQ(size, (r + 1) * (MPI_Aint)sizeof(double));
        MT_CHECK_INT_EQ(unit, sizeof(double));
        MT_CHECK((char *)base > prev);
        prev = (char *)base;
        for (int i = 0; i <= r; i++)
            MT_CHECK_DBL_EQ(base[i], r + 0.5 * i);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);

    /* Dynamic: attach, use, detach; after detaching, the range is gone. */
    MPI_Win dyn;
    MPI_Win_create_dynamic(MPI_INFO_NULL, node, &dyn);
    MPI_Win_set_errhandler(dyn, MPI_ERRORS_RETURN);
    int *cell = malloc(sizeof(int));
    *cell = -1;
    MPI_Win_attach(dyn, cell, sizeof(int));
    MPI_Aint addr, *addrs = malloc((size_t)np * sizeof(MPI_Aint));
    MPI_Get_address(cell, &addr);
    MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, node);
    int right = (me + 1) % np;
    MPI_Win_fence(0, dyn);
    MPI_Put(&me, 1, MPI_INT, right, addrs[right], 1, MPI_INT, dyn);
    MPI_Win_fence(0, dyn);
    MT_CHECK_INT_EQ(*cell, (me + np - 1) % np);
    MPI_Win_detach(dyn, cell);
    MPI_Barrier(node);
    /* The origin sees the range error of a target of its own process at
     * the call; a target in another process reports it to the fence that
     * waits for the operation (docs/rma.md). */
    int *mine_proc, flag, *procs = malloc((size_t)np * sizeof(int));
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_MY_PROCESS, &mine_proc, &flag);
    MPI_Allgather(mine_proc, 1, MPI_INT, procs, 1, MPI_INT, node);
    if (procs[right] == *mine_proc) {
        MT_CHECK_ERR_CLASS(
            MPI_Put(&me, 1, MPI_INT, right, addrs[right], 1, MPI_INT, dyn),
            MPI_ERR_RMA_RANGE);
        MPI_Win_fence(0, dyn);
    } else {
        MT_CHECK_MPI(
            MPI_Put(&me, 1, MPI_INT, right, addrs[right], 1, MPI_INT, dyn));
        MT_CHECK_ERR_CLASS(MPI_Win_fence(0, dyn), MPI_ERR_RMA_RANGE);
    }
    free(procs);
    MT_CHECK_ERR_CLASS(MPI_Win_detach(dyn, cell), MPI_ERR_RMA_ATTACH);
    MPI_Win_free(&dyn);
    free(addrs);
    free(cell);
    MPI_Comm_free(&node);
    return mt_finish_and_finalize();
}
