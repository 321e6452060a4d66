/*
 * topo_graph: graph topologies (MPI_Graph_create and its queries).
 *  - a ring of all ranks, each node linked to both neighbors (on one rank
 *    a doubled self-loop, on two a doubled edge): MPI_Topo_test,
 *    MPI_Graphdims_get, MPI_Graph_get, and MPI_Graph_neighbors_count /
 *    MPI_Graph_neighbors of every node;
 *  - a star over size - 1 nodes: the last rank gets MPI_COMM_NULL and
 *    MPI_Graph_map says MPI_UNDEFINED there; MPI_Comm_dup keeps it;
 *  - a graph of no nodes: MPI_COMM_NULL everywhere;
 *  - errors: more nodes than ranks, an edge to no node, a negative index
 *    entry (MPI_ERR_ARG), a node out of range (MPI_ERR_RANK), arrays too
 *    short (MPI_ERR_ARG), graph queries on MPI_COMM_WORLD and a Cartesian
 *    query on a graph (MPI_ERR_TOPOLOGY).
 */
#include "mpitest.h"

#include <stdlib.h>

static void check_graph(MPI_Comm g, int nnodes, const int *index,
                        const int *edges)
{
    int status, nn, ne, nedges = index[nnodes - 1];
    MT_CHECK_MPI(MPI_Topo_test(g, &status));
    MT_CHECK_INT_EQ(status, MPI_GRAPH);
    MT_CHECK_MPI(MPI_Graphdims_get(g, &nn, &ne));
    MT_CHECK_INT_EQ(nn, nnodes);
    MT_CHECK_INT_EQ(ne, nedges);
    int *gi = malloc((size_t)(nnodes + nedges) * sizeof(int));
    int *ge = gi + nnodes;
    MT_CHECK_MPI(MPI_Graph_get(g, nnodes, nedges, gi, ge));
    for (int i = 0; i < nnodes; i++)
        MT_CHECK_INT_EQ(gi[i], index[i]);
    for (int i = 0; i < nedges; i++)
        MT_CHECK_INT_EQ(ge[i], edges[i]);
    for (int r = 0; r < nnodes; r++) {
        int first = r ? index[r - 1] : 0, n = -1;
        MT_CHECK_MPI(MPI_Graph_neighbors_count(g, r, &n));
        MT_CHECK_INT_EQ(n, index[r] - first);
        MT_CHECK_MPI(MPI_Graph_neighbors(g, r, nedges, ge));
        for (int i = 0; i < n; i++)
            MT_CHECK_INT_EQ(ge[i], edges[first + i]);
    }
    free(gi);
}

static void ring(int size)
{
    int *index = malloc(3 * (size_t)size * sizeof(int)), *edges = index + size;
    for (int r = 0; r < size; r++) {
        index[r] = 2 * (r + 1);
        edges[2 * r] = (r + size - 1) % size;
        edges[2 * r + 1] = (r + 1) % size;
    }
    MPI_Comm g;
    MT_CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 1, &g));
    if (MT_CHECK(g != MPI_COMM_NULL)) {
        check_graph(g, size, index, edges);
        MPI_Comm_free(&g);
    }
    free(index);
}

static void star(int me, int size)
{
    int nnodes = size > 1 ? size - 1 : 1, newrank;
    int *index = malloc(3 * (size_t)size * sizeof(int)), *edges = index + size;
    /* Node 0 linked to all others and they to it. */
    int k = 0;
    for (int r = 0; r < nnodes; r++) {
        if (r == 0)
            for (int j = 1; j < nnodes; j++)
                edges[k++] = j;
        else
            edges[k++] = 0;
        index[r] = k;
    }
    MT_CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, nnodes, index, edges, &newrank));
    MT_CHECK_INT_EQ(newrank, me < nnodes ? me : MPI_UNDEFINED);
    MPI_Comm g, dup;
    MT_CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, nnodes, index, edges, 0, &g));
    if (me >= nnodes) {
        MT_CHECK(g == MPI_COMM_NULL);
    } else if (MT_CHECK(g != MPI_COMM_NULL)) {
        int gsize;
        MPI_Comm_size(g, &gsize);
        MT_CHECK_INT_EQ(gsize, nnodes);
        MT_CHECK_MPI(MPI_Comm_dup(g, &dup));
        check_graph(dup, nnodes, index, edges);
        MPI_Comm_free(&dup);
        MPI_Comm_free(&g);
    }
    MT_CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, 0, index, edges, 0, &g));
    MT_CHECK(g == MPI_COMM_NULL);
    free(index);
}

static void errors(int size)
{
    int index[2] = {1, 2}, edges[2] = {0, 0}, n, out[2];
    MPI_Comm g;
    MT_CHECK_ERR_CLASS(
        MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, edges, 0, &g),
        MPI_ERR_ARG);
    index[0] = 2;
    edges[1] = 1; /* node 1 of a one-node graph */
    MT_CHECK_ERR_CLASS(MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &g),
                       MPI_ERR_ARG);
    index[0] = -1; /* a negative degree */
    MT_CHECK_ERR_CLASS(MPI_Graph_map(MPI_COMM_WORLD, 1, index, edges, &n),
                       MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Graphdims_get(MPI_COMM_WORLD, &n, &n),
                       MPI_ERR_TOPOLOGY);

    /* A one-node graph with two self-loops. */
    index[0] = 2;
    edges[0] = edges[1] = 0;
    MT_CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &g));
    if (g == MPI_COMM_NULL)
        return;
    MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(MPI_Graph_neighbors_count(g, 1, &n), MPI_ERR_RANK);
    MT_CHECK_ERR_CLASS(MPI_Graph_neighbors(g, -1, 2, out), MPI_ERR_RANK);
    MT_CHECK_ERR_CLASS(MPI_Graph_neighbors(g, 0, 1, out), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Graph_get(g, 1, 1, index, out), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Cartdim_get(g, &n), MPI_ERR_TOPOLOGY);
    MPI_Comm_free(&g);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    ring(size);
    star(me, size);
    errors(size);

    return mt_finish_and_finalize();
}
