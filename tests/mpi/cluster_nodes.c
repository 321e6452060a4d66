/*
 * The node level as a job of several hosts sees it: the processes whose
 * host names (MPI_Get_processor_name) match form a node, and nothing else
 * does, although every process of the job may share /dev/shm and one
 * kernel.  Checked on MPI_COMM_WORLD:
 *
 * - the node count equals MT_EXPECT_NODES when it is set;
 * - MPI_COMM_TYPE_SHARED and AMPI_COMM_TYPE_HOST give exactly the ranks
 *   whose host name is this rank's, AMPI_COMM_TYPE_PROCESS those of this
 *   process (AMPI_MY_PROCESS);
 * - MPI_WTIME_IS_GLOBAL is 0 when there are several nodes;
 * - a window of MPI_Win_allocate_shared over the node's communicator is
 *   loaded and stored by every rank of the node, and over the world of
 *   several nodes it fails with MPI_ERR_RMA_SHARED;
 * - messages, reductions, broadcasts and an alltoall over the world, whose
 *   three levels (PE, process, node) meet here, give the values of a
 *   computation by hand.
 */
#include "mpitest.h"
#include <stdlib.h>

/* Host names of every world rank, MPI_MAX_PROCESSOR_NAME apart. */
static char *all_hosts(int size)
{
    char mine[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    char *all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);

    MT_CHECK_MPI(MPI_Get_processor_name(mine, &len));
    MT_CHECK_MPI(MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all,
                               MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                               MPI_COMM_WORLD));
    return all;
}

static const char *host_of(const char *all, int r)
{
    return all + (size_t)r * MPI_MAX_PROCESSOR_NAME;
}

static int count_nodes(const char *all, int size)
{
    int nodes = 0;

    for (int r = 0; r < size; r++) {
        int first = 1;
        for (int q = 0; q < r && first; q++)
            first = strcmp(host_of(all, q), host_of(all, r)) != 0;
        nodes += first;
    }
    return nodes;
}

/* comm (a split of the world) holds exactly the world ranks r for which
 * same(r) is true. */
static void check_members(MPI_Comm comm, const int *same, int size)
{
    MPI_Group world_group, group;
    int n = 0, want = 0;

    for (int r = 0; r < size; r++)
        want += same[r];
    MT_CHECK_MPI(MPI_Comm_size(comm, &n));
    MT_CHECK_INT_EQ(n, want);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Comm_group(comm, &group);
    for (int r = 0; r < size; r++) {
        int in = MPI_UNDEFINED;
        MPI_Group_translate_ranks(world_group, 1, &r, group, &in);
        if (!MT_CHECK_INT_EQ(in != MPI_UNDEFINED, same[r]))
            break;
    }
    MPI_Group_free(&group);
    MPI_Group_free(&world_group);
}

static void check_splits(const char *hosts, int rank, int size)
{
    int *same = calloc((size_t)size, sizeof(int));
    int *my_proc, *procs = calloc((size_t)size, sizeof(int)), flag = 0;
    MPI_Comm comm;

    for (int r = 0; r < size; r++)
        same[r] = strcmp(host_of(hosts, r), host_of(hosts, rank)) == 0;
    MT_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                                     MPI_INFO_NULL, &comm));
    check_members(comm, same, size);
    MPI_Comm_free(&comm);
    MT_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, AMPI_COMM_TYPE_HOST, 0,
                                     MPI_INFO_NULL, &comm));
    check_members(comm, same, size);
    MPI_Comm_free(&comm);

    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_MY_PROCESS, &my_proc, &flag);
    MT_CHECK(flag);
    MPI_Allgather(my_proc, 1, MPI_INT, procs, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        same[r] = procs[r] == *my_proc;
    MT_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, AMPI_COMM_TYPE_PROCESS, 0,
                                     MPI_INFO_NULL, &comm));
    check_members(comm, same, size);
    MPI_Comm_free(&comm);
    /* A process lies on one node. */
    for (int r = 0; r < size; r++)
        if (procs[r] == *my_proc)
            MT_CHECK(strcmp(host_of(hosts, r), host_of(hosts, rank)) == 0);
    free(procs);
    free(same);
}

/* Every rank of the node stores its rank into its own segment, then reads
 * every other's. */
static void check_node_window(void)
{
    MPI_Comm node;
    MPI_Win win;
    int *base, rank, n;

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                        &node);
    MPI_Comm_rank(node, &rank);
    MPI_Comm_size(node, &n);
    MT_CHECK_MPI(MPI_Win_allocate_shared(sizeof(int), sizeof(int),
                                         MPI_INFO_NULL, node, &base, &win));
    MPI_Win_fence(0, win);
    *base = 1000 + rank;
    MPI_Win_fence(0, win);
    for (int q = 0; q < n; q++) {
        MPI_Aint sz;
        int disp, *p;
        MPI_Win_shared_query(win, q, &sz, &disp, &p);
        if (!MT_CHECK_INT_EQ(*p, 1000 + q))
            break;
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}

static void check_world_window_refused(int nodes)
{
    MPI_Win win;
    int *base;

    if (nodes < 2)
        return;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(MPI_Win_allocate_shared(sizeof(int), sizeof(int),
                                               MPI_INFO_NULL, MPI_COMM_WORLD,
                                               &base, &win),
                       MPI_ERR_RMA_SHARED);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Messages around the ring, then the collectives against sums by hand. */
static void check_traffic(int rank, int size)
{
    long sum = 0, want = (long)size * (size - 1) / 2;
    int got = -1, n = 1 << 16;
    int *big = malloc((size_t)n * sizeof(int));
    int *send = malloc((size_t)size * sizeof(int));
    int *recv = malloc((size_t)size * sizeof(int));

    MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 5, &got, 1, MPI_INT,
                 (rank + size - 1) % size, 5, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MT_CHECK_INT_EQ(got, (rank + size - 1) % size);
    long mine = rank;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MT_CHECK_INT_EQ(sum, want);
    for (int root = 0; root < size; root += size > 3 ? size / 3 : 1) {
        for (int i = 0; i < n; i++)
            big[i] = rank == root ? i * 3 + root : -1;
        MPI_Bcast(big, n, MPI_INT, root, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            if (!MT_CHECK_INT_EQ(big[i], i * 3 + root))
                break;
    }
    for (int q = 0; q < size; q++)
        send[q] = rank * 1000 + q;
    MPI_Alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < size; q++)
        if (!MT_CHECK_INT_EQ(recv[q], q * 1000 + rank))
            break;
    MPI_Barrier(MPI_COMM_WORLD);
    free(recv);
    free(send);
    free(big);
}

int main(int argc, char **argv)
{
    int rank, size, *global, flag = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *hosts = all_hosts(size);
    int nodes = count_nodes(hosts, size);
    const char *expect = getenv("MT_EXPECT_NODES");

    if (expect != NULL)
        MT_CHECK_INT_EQ(nodes, atoi(expect));
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &flag);
    MT_CHECK(flag);
    if (flag && nodes > 1)
        MT_CHECK_INT_EQ(*global, 0);
    check_splits(hosts, rank, size);
    check_node_window();
    check_world_window_refused(nodes);
    check_traffic(rank, size);
    if (rank == 0)
        printf("%d ranks on %d nodes\n", size, nodes);
    free(hosts);
    return mt_finish_and_finalize();
}
