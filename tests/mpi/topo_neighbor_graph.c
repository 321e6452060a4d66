/*
 * topo_neighbor_graph: neighborhood collectives on graph topologies, on
 * any number of ranks.
 *  - an asymmetric distributed graph (MPI_Dist_graph_create_adjacent):
 *    rank r sends to r + 1 and r + 3 and receives from r - 3 and r - 1,
 *    listed in an order other than the senders'; with few ranks the edges
 *    repeat, and the k-th message from a rank fills the k-th slot listing
 *    it.  MPI_Neighbor_alltoall, _alltoallv, _alltoallw and their
 *    nonblocking forms (overlapped with a ring exchange on
 *    MPI_COMM_WORLD);
 *  - a distributed graph from MPI_Dist_graph_create where rank 0 names an
 *    edge from itself to every rank on top of a ring: in-degrees differ
 *    (rank 0 sends to everyone, nobody sends back to it but its ring
 *    predecessor); MPI_Neighbor_allgather(v) / MPI_Ineighbor_allgather
 *    into slots in the order MPI_Dist_graph_neighbors gives;
 *  - an MPI_Graph_create ring: MPI_Neighbor_allgather;
 *  - errors: no topology (MPI_ERR_TOPOLOGY), MPI_IN_PLACE
 *    (MPI_ERR_BUFFER), a negative count (MPI_ERR_COUNT), a NULL request
 *    (MPI_ERR_ARG).
 */
#include "mpitest.h"

#include <stdlib.h>

enum { SENTINEL = -7 };

static int mod(int a, int n)
{
    return ((a % n) + n) % n;
}

/* Element i of what rank r sends from out-slot k. */
static int val(int r, int k, int i)
{
    return r * 1000 + k * 10 + i;
}

/* The out-slot of peer p whose message lands in my in-slot j: the m-th
 * listing of me among p's destinations, where j is the m-th listing of p
 * among my sources. */
static int sender_slot(const int *src, int j, const int *pdst, int npdst,
                       int me)
{
    int m = 0;
    for (int i = 0; i < j; i++)
        m += src[i] == src[j];
    for (int k = 0; k < npdst; k++)
        if (pdst[k] == me && m-- == 0)
            return k;
    return -1;
}

/* r's destinations: r + 1, r + 3. */
static void dests_of(int r, int size, int *d)
{
    d[0] = mod(r + 1, size);
    d[1] = mod(r + 3, size);
}

static void check_in(const int *rbuf, const int *rdispls, const int *src,
                     int me, int size, int count, const char *what)
{
    for (int j = 0; j < 2; j++) {
        int pd[2];
        dests_of(src[j], size, pd);
        int k = sender_slot(src, j, pd, 2, me);
        for (int i = 0; i < count; i++)
            if (!MT_CHECK_INT_EQ(rbuf[rdispls[j] + i], val(src[j], k, i))) {
                MT_FAIL("%s: slot %d element %d", what, j, i);
                return;
            }
        MT_CHECK_INT_EQ(rbuf[rdispls[j] + count], SENTINEL);
    }
}

static void fill(int *buf, int n, int v)
{
    for (int i = 0; i < n; i++)
        buf[i] = v;
}

static void asymmetric(int me, int size, int *sbuf, int *rbuf)
{
    int src[2] = {mod(me - 3, size), mod(me - 1, size)}, dst[2];
    dests_of(me, size, dst);
    MPI_Comm g;
    MT_CHECK_MPI(MPI_Dist_graph_create_adjacent(
        MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst, MPI_UNWEIGHTED,
        MPI_INFO_NULL, 0, &g));
    enum { C = 4 };
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < C; i++)
            sbuf[k * C + i] = val(me, k, i);
    int rd[2] = {C + 1, 0}, sd[2] = {0, C}, counts[2] = {C, C};
    MPI_Aint brd[2] = {rd[0] * sizeof(int), rd[1] * sizeof(int)};
    MPI_Aint bsd[2] = {sd[0] * sizeof(int), sd[1] * sizeof(int)};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    int regular[2] = {0, C + 1};

    fill(rbuf, 2 * (C + 1), SENTINEL);
    /* Blocks C + 1 apart: a receive type of C ints with an extent of C + 1. */
    MPI_Datatype block;
    MPI_Type_contiguous(C, MPI_INT, &block);
    MPI_Datatype block_pad;
    MPI_Type_create_resized(block, 0, (C + 1) * sizeof(int), &block_pad);
    MPI_Type_commit(&block_pad);
    MT_CHECK_MPI(
        MPI_Neighbor_alltoall(sbuf, C, MPI_INT, rbuf, 1, block_pad, g));
    check_in(rbuf, regular, src, me, size, C, "alltoall");

    fill(rbuf, 2 * (C + 1), SENTINEL);
    MT_CHECK_MPI(MPI_Neighbor_alltoallv(sbuf, counts, sd, MPI_INT, rbuf, counts,
                                        rd, MPI_INT, g));
    check_in(rbuf, rd, src, me, size, C, "alltoallv");

    fill(rbuf, 2 * (C + 1), SENTINEL);
    MT_CHECK_MPI(MPI_Neighbor_alltoallw(sbuf, counts, bsd, types, rbuf, counts,
                                        brd, types, g));
    check_in(rbuf, rd, src, me, size, C, "alltoallw");

    /* Nonblocking, with a ring exchange in between. */
    int world_in = -1, world_out = me;
    MPI_Request reqs[4];
    fill(rbuf, 4 * (C + 1), SENTINEL);
    int *rbuf2 = rbuf + 2 * (C + 1);
    MT_CHECK_MPI(MPI_Irecv(&world_in, 1, MPI_INT, mod(me - 1, size), 9,
                           MPI_COMM_WORLD, &reqs[0]));
    MT_CHECK_MPI(MPI_Ineighbor_alltoallv(sbuf, counts, sd, MPI_INT, rbuf,
                                         counts, rd, MPI_INT, g, &reqs[1]));
    MT_CHECK_MPI(MPI_Isend(&world_out, 1, MPI_INT, mod(me + 1, size), 9,
                           MPI_COMM_WORLD, &reqs[2]));
    MT_CHECK_MPI(MPI_Ineighbor_alltoallw(sbuf, counts, bsd, types, rbuf2,
                                         counts, brd, types, g, &reqs[3]));
    MT_CHECK_MPI(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
    MT_CHECK_INT_EQ(world_in, mod(me - 1, size));
    check_in(rbuf, rd, src, me, size, C, "ineighbor_alltoallv");
    check_in(rbuf2, rd, src, me, size, C, "ineighbor_alltoallw");

    MPI_Request req;
    fill(rbuf, 2 * (C + 1), SENTINEL);
    MT_CHECK_MPI(
        MPI_Ineighbor_alltoall(sbuf, C, MPI_INT, rbuf, 1, block_pad, g, &req));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check_in(rbuf, regular, src, me, size, C, "ineighbor_alltoall");

    MPI_Type_free(&block);
    MPI_Type_free(&block_pad);
    MPI_Comm_free(&g);
}

/* Rank 0 names 0 -> r for every r, every rank names r -> r + 1. */
static void star_ring(int me, int size, int *sbuf, int *rbuf)
{
    int srcs[2], degs[2];
    int *dsts = malloc(((size_t)size + 1) * sizeof(int));
    int n = 0, k = 0;
    srcs[n] = me;
    degs[n++] = 1;
    dsts[k++] = mod(me + 1, size);
    if (me == 0) {
        srcs[n] = 0;
        degs[n++] = size;
        for (int r = 0; r < size; r++)
            dsts[k++] = r;
    }
    MPI_Comm g;
    MT_CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, n, srcs, degs, dsts,
                                       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
    int indeg, outdeg, weighted;
    MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted);
    MT_CHECK_INT_EQ(indeg, 1 + 1);
    MT_CHECK_INT_EQ(outdeg, me == 0 ? size + 1 : 1);
    int in[2] = {-1, -1};
    MT_CHECK_MPI(MPI_Dist_graph_neighbors(g, 2, in, MPI_UNWEIGHTED, size + 1,
                                          dsts, MPI_UNWEIGHTED));

    sbuf[0] = val(me, 0, 0);
    sbuf[1] = val(me, 0, 1);
    fill(rbuf, 6, SENTINEL);
    MT_CHECK_MPI(MPI_Neighbor_allgather(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, g));
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 2; i++)
            MT_CHECK_INT_EQ(rbuf[2 * j + i], val(in[j], 0, i));

    int counts[2] = {2, 2}, displs[2] = {3, 0};
    MPI_Request req;
    fill(rbuf, 6, SENTINEL);
    MT_CHECK_MPI(MPI_Ineighbor_allgatherv(sbuf, 2, MPI_INT, rbuf, counts,
                                          displs, MPI_INT, g, &req));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int rep = 0; rep < 2; rep++) {
        for (int j = 0; j < 2; j++)
            for (int i = 0; i < 2; i++)
                MT_CHECK_INT_EQ(rbuf[displs[j] + i], val(in[j], 0, i));
        MT_CHECK_INT_EQ(rbuf[2], SENTINEL);
        MT_CHECK_INT_EQ(rbuf[5], SENTINEL);
        fill(rbuf, 6, SENTINEL);
        if (rep == 0)
            MT_CHECK_MPI(MPI_Neighbor_allgatherv(sbuf, 2, MPI_INT, rbuf, counts,
                                                 displs, MPI_INT, g));
    }
    MPI_Comm_free(&g);
    free(dsts);
}

static void graph_ring(int me, int size, int *sbuf, int *rbuf)
{
    int *index = malloc(3 * (size_t)size * sizeof(int)), *edges = index + size;
    for (int r = 0; r < size; r++) {
        index[r] = 2 * (r + 1);
        edges[2 * r] = mod(r - 1, size);
        edges[2 * r + 1] = mod(r + 1, size);
    }
    MPI_Comm g;
    MT_CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g));
    sbuf[0] = me;
    fill(rbuf, 2, SENTINEL);
    MT_CHECK_MPI(MPI_Neighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, g));
    MT_CHECK_INT_EQ(rbuf[0], mod(me - 1, size));
    MT_CHECK_INT_EQ(rbuf[1], mod(me + 1, size));
    MPI_Comm_free(&g);
    free(index);
}

static void errors(int me, int *sbuf, int *rbuf)
{
    MPI_Comm g;
    MT_CHECK_ERR_CLASS(MPI_Neighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1,
                                              MPI_INT, MPI_COMM_WORLD),
                       MPI_ERR_TOPOLOGY);
    MT_CHECK_MPI(MPI_Dist_graph_create_adjacent(
        MPI_COMM_WORLD, 1, &me, MPI_UNWEIGHTED, 1, &me, MPI_UNWEIGHTED,
        MPI_INFO_NULL, 0, &g));
    MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(
        MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, rbuf, 1, MPI_INT, g),
        MPI_ERR_BUFFER);
    MT_CHECK_ERR_CLASS(
        MPI_Neighbor_alltoall(sbuf, -1, MPI_INT, rbuf, 1, MPI_INT, g),
        MPI_ERR_COUNT);
    MT_CHECK_ERR_CLASS(
        MPI_Neighbor_allgather(sbuf, 1, MPI_DATATYPE_NULL, rbuf, 1, MPI_INT, g),
        MPI_ERR_TYPE);
    MT_CHECK_ERR_CLASS(
        MPI_Ineighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, g, NULL),
        MPI_ERR_ARG);
    MPI_Comm_free(&g);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int *sbuf = malloc(64 * sizeof(int)), *rbuf = malloc(64 * sizeof(int));

    asymmetric(me, size, sbuf, rbuf);
    star_ring(me, size, sbuf, rbuf);
    graph_ring(me, size, sbuf, rbuf);
    errors(me, sbuf, rbuf);

    free(sbuf);
    free(rbuf);
    return mt_finish_and_finalize();
}
