/*
 * MPI_Win_shared_query on windows of every flavor (MPI-4.1): a member's
 * segment comes back with its size, disp_unit and an address to load from
 * when this rank may load and store it (a member of its own process, any
 * window; a member of another process of the node, when the window's
 * memory is node memory: MPI_Win_allocate_shared's and MPI_Win_allocate's),
 * otherwise (MPI_Win_create's memory in another process) size 0 and a NULL
 * base.  MPI_PROC_NULL gives the first member with bytes here.  A dynamic
 * window has no segment: MPI_ERR_RMA_FLAVOR.
 */
#include "mpitest.h"

#include <stdlib.h>

/* By comm rank: whether it runs in this rank's process (collective). */
static int *same_process(MPI_Comm comm, int np)
{
    MPI_Comm proc;
    MPI_Group g, pg;
    int *in = malloc((size_t)np * sizeof(int)),
        *all = malloc((size_t)np * sizeof(int));
    MPI_Comm_split_type(comm, AMPI_COMM_TYPE_PROCESS, 0, MPI_INFO_NULL, &proc);
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(proc, &pg);
    for (int r = 0; r < np; r++)
        all[r] = r;
    MPI_Group_translate_ranks(g, np, all, pg, in);
    for (int r = 0; r < np; r++)
        in[r] = in[r] != MPI_UNDEFINED;
    MPI_Group_free(&g);
    MPI_Group_free(&pg);
    MPI_Comm_free(&proc);
    free(all);
    return in;
}

/* Member r of win (made with flavor) as the query gives it; node_mem: its
 * memory is node memory, loadable from every process of the node. */
static void check_member(MPI_Win win, const int *local, int r, int node_mem)
{
    MPI_Aint size = -1;
    int unit = -1;
    int *base = NULL;
    MT_CHECK_MPI(MPI_Win_shared_query(win, r, &size, &unit, &base));
    int n = r % 3 == 1 ? 0 : r + 2; /* some members have none */
    if (!node_mem && !local[r]) {
        MT_CHECK_INT_EQ(size, 0);
        MT_CHECK(base == NULL);
        return;
    }
    MT_CHECK_INT_EQ(size, n * (MPI_Aint)sizeof(int));
    MT_CHECK_INT_EQ(unit, sizeof(int));
    for (int i = 0; i < n; i++)
        MT_CHECK_INT_EQ(base[i], 1000 * r + i);
}

/* The first member with bytes this rank may load. */
static void check_proc_null(MPI_Win win, const int *local, int np, int node_mem)
{
    MPI_Aint size = -1;
    int unit = -1, first = -1;
    int *base = NULL;
    for (int r = 0; r < np && first < 0; r++)
        if (r % 3 != 1 && (node_mem || local[r]))
            first = r;
    MT_CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &size, &unit, &base));
    if (first < 0) {
        MT_CHECK_INT_EQ(size, 0);
        return;
    }
    MT_CHECK_INT_EQ(size, (first + 2) * (MPI_Aint)sizeof(int));
    MT_CHECK(base != NULL && base[0] == 1000 * first);
}

static void one_flavor(int flavor, MPI_Comm comm)
{
    int me, np;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    int n = me % 3 == 1 ? 0 : me + 2;
    MPI_Aint bytes = n * (MPI_Aint)sizeof(int);
    int *mem = NULL;
    MPI_Win win;
    if (flavor == MPI_WIN_FLAVOR_CREATE) {
        mem = malloc(bytes ? (size_t)bytes : 1);
        MT_CHECK_MPI(
            MPI_Win_create(mem, bytes, sizeof(int), MPI_INFO_NULL, comm, &win));
    } else if (flavor == MPI_WIN_FLAVOR_ALLOCATE) {
        MT_CHECK_MPI(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, comm,
                                      &mem, &win));
    } else {
        MT_CHECK_MPI(MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL,
                                             comm, &mem, &win));
    }
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < n; i++)
        mem[i] = 1000 * me + i;
    MPI_Win_sync(win);
    MPI_Barrier(comm);
    MPI_Win_sync(win);
    int node_mem = flavor != MPI_WIN_FLAVOR_CREATE;
    int *local = same_process(comm, np);
    for (int r = 0; r < np; r++)
        check_member(win, local, r, node_mem);
    check_proc_null(win, local, np, node_mem);
    free(local);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(
        MPI_Win_shared_query(win, np, &(MPI_Aint){0}, &(int){0}, &(void *){0}),
        MPI_ERR_RANK);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    if (flavor == MPI_WIN_FLAVOR_CREATE)
        free(mem);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* The processes of the node (the tests run on one). */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                        &node);
    one_flavor(MPI_WIN_FLAVOR_CREATE, node);
    one_flavor(MPI_WIN_FLAVOR_ALLOCATE, node);
    one_flavor(MPI_WIN_FLAVOR_SHARED, node);

    MPI_Win dyn;
    MPI_Win_create_dynamic(MPI_INFO_NULL, node, &dyn);
    MPI_Win_set_errhandler(dyn, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(
        MPI_Win_shared_query(dyn, 0, &(MPI_Aint){0}, &(int){0}, &(void *){0}),
        MPI_ERR_RMA_FLAVOR);
    MPI_Win_free(&dyn);
    MPI_Comm_free(&node);
    return mt_finish_and_finalize();
}
