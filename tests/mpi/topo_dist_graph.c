/*
 * topo_dist_graph: distributed graph topologies.
 *  - MPI_Dist_graph_create_adjacent, weighted: rank r receives from r - 1
 *    and r - 2 and sends to r + 1 and r + 2 (mod size), with weights that
 *    name the edge; MPI_Topo_test, MPI_Dist_graph_neighbors_count (weighted
 *    set) and MPI_Dist_graph_neighbors in the order given; weights not
 *    written when MPI_UNWEIGHTED is passed for them; MPI_Comm_dup keeps
 *    it;
 *  - unweighted (MPI_UNWEIGHTED): the weighted flag is 0; a rank with no
 *    edges passes MPI_WEIGHTS_EMPTY;
 *  - MPI_Dist_graph_create, where ranks name edges of other ranks: rank r
 *    names r -> r + 1 (weight 1000 + r) and, for rank r + 2, the edge
 *    r + 2 -> r + 3 (weight 2000 + r); rank 0 names nothing more, with
 *    MPI_WEIGHTS_EMPTY when it has no edges.  Each rank checks the
 *    multiset of its in- and out-edges with weights against what it
 *    computes;
 *  - errors: a neighbor out of range (MPI_ERR_RANK), a negative degree or
 *    weight, MPI_WEIGHTS_EMPTY with edges (MPI_ERR_ARG), arrays too short
 *    (MPI_ERR_ARG), a freed info (MPI_ERR_INFO), queries on MPI_COMM_WORLD
 *    (MPI_ERR_TOPOLOGY).
 */
#include "mpitest.h"

#include <stdlib.h>

static int mod(int a, int n)
{
    return ((a % n) + n) % n;
}

static void adjacent(int me, int size)
{
    int src[2] = {mod(me - 1, size), mod(me - 2, size)};
    int dst[2] = {mod(me + 1, size), mod(me + 2, size)};
    /* Weight of edge a -> b: 100 * a + b. */
    int srcw[2] = {100 * src[0] + me, 100 * src[1] + me};
    int dstw[2] = {100 * me + dst[0], 100 * me + dst[1]};
    MPI_Comm g, dup;
    MT_CHECK_MPI(MPI_Dist_graph_create_adjacent(
        MPI_COMM_WORLD, 2, src, srcw, 2, dst, dstw, MPI_INFO_NULL, 0, &g));
    int status, indeg, outdeg, weighted, s[2], sw[2], d[2], dw[2];
    MT_CHECK_MPI(MPI_Comm_dup(g, &dup));
    MPI_Comm_free(&g);
    MT_CHECK_MPI(MPI_Topo_test(dup, &status));
    MT_CHECK_INT_EQ(status, MPI_DIST_GRAPH);
    MT_CHECK_MPI(
        MPI_Dist_graph_neighbors_count(dup, &indeg, &outdeg, &weighted));
    MT_CHECK_INT_EQ(indeg, 2);
    MT_CHECK_INT_EQ(outdeg, 2);
    MT_CHECK_INT_EQ(weighted, 1);
    MT_CHECK_MPI(MPI_Dist_graph_neighbors(dup, 2, s, sw, 2, d, dw));
    for (int i = 0; i < 2; i++) {
        MT_CHECK_INT_EQ(s[i], src[i]);
        MT_CHECK_INT_EQ(sw[i], srcw[i]);
        MT_CHECK_INT_EQ(d[i], dst[i]);
        MT_CHECK_INT_EQ(dw[i], dstw[i]);
    }
    sw[0] = dw[0] = -5;
    MT_CHECK_MPI(MPI_Dist_graph_neighbors(dup, 2, s, MPI_UNWEIGHTED, 2, d,
                                          MPI_UNWEIGHTED));
    MT_CHECK_INT_EQ(sw[0], -5);
    MT_CHECK_INT_EQ(dw[0], -5);
    MPI_Comm_free(&dup);

    /* Unweighted; rank 0 only sends (to everyone), the others only
     * receive from it. */
    int *all = malloc((size_t)size * sizeof(int));
    for (int i = 0; i < size; i++)
        all[i] = i;
    int zero = 0;
    if (me == 0)
        MT_CHECK_MPI(MPI_Dist_graph_create_adjacent(
            MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, size, all, MPI_UNWEIGHTED,
            MPI_INFO_NULL, 1, &g));
    else
        MT_CHECK_MPI(MPI_Dist_graph_create_adjacent(
            MPI_COMM_WORLD, 1, &zero, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED,
            MPI_INFO_NULL, 1, &g));
    MT_CHECK_MPI(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted));
    MT_CHECK_INT_EQ(weighted, 0);
    MT_CHECK_INT_EQ(indeg, me == 0 ? 0 : 1);
    MT_CHECK_INT_EQ(outdeg, me == 0 ? size : 0);
    MPI_Comm_free(&g);
    free(all);

    /* A weighted graph where this rank has no edges. */
    MT_CHECK_MPI(MPI_Dist_graph_create_adjacent(
        MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL, MPI_WEIGHTS_EMPTY,
        MPI_INFO_NULL, 0, &g));
    MT_CHECK_MPI(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted));
    MT_CHECK_INT_EQ(indeg + outdeg, 0);
    MT_CHECK_INT_EQ(weighted, 1);
    MPI_Comm_free(&g);
}

/* Edges as (peer, weight) pairs, sorted, for comparing multisets. */
static int cmp_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0])
                        : (x[1] > y[1]) - (x[1] < y[1]);
}

static void check_edges(const int *ranks, const int *weights, int n, int *want,
                        int nwant, const char *what)
{
    if (!MT_CHECK_INT_EQ(n, nwant)) {
        MT_FAIL("%s: wrong number of edges", what);
        return;
    }
    int *got = malloc(2 * (size_t)n * sizeof(int) + 1);
    for (int i = 0; i < n; i++) {
        got[2 * i] = ranks[i];
        got[2 * i + 1] = weights[i];
    }
    qsort(got, (size_t)n, 2 * sizeof(int), cmp_pair);
    qsort(want, (size_t)n, 2 * sizeof(int), cmp_pair);
    for (int i = 0; i < 2 * n; i++)
        if (!MT_CHECK_INT_EQ(got[i], want[i])) {
            MT_FAIL("%s: edge %d differs", what, i / 2);
            break;
        }
    free(got);
}

/* Rank r names edge r -> r+1 (weight 1000 + r) and, if r > 0, the edge
 * r+2 -> r+3 (weight 2000 + r) of another rank. */
static void general(int me, int size)
{
    int sources[2] = {me, mod(me + 2, size)}, degrees[2] = {1, 1};
    int dests[2] = {mod(me + 1, size), mod(me + 3, size)};
    int weights[2] = {1000 + me, 2000 + me};
    MPI_Comm g;
    MT_CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, me > 0 ? 2 : 1, sources,
                                       degrees, dests, weights, MPI_INFO_NULL,
                                       0, &g));
    /* Out-edges of me: me -> me+1 (1000 + me), and me -> me+1 named by
     * rank me-2 if me-2 > 0 (2000 + me - 2).  In-edges: from me-1 (1000 +
     * me-1) and, named by rank me-3 > 0, from me-1 (2000 + me-3). */
    int want_out[4], want_in[4], nout = 0, nin = 0;
    want_out[nout++] = mod(me + 1, size);
    want_out[nout++] = 1000 + me;
    for (int r = 1; r < size; r++) {
        if (mod(r + 2, size) == me) {
            want_out[nout++] = mod(r + 3, size);
            want_out[nout++] = 2000 + r;
        }
        if (mod(r + 3, size) == me) {
            want_in[nin++] = mod(r + 2, size);
            want_in[nin++] = 2000 + r;
        }
    }
    want_in[nin++] = mod(me - 1, size);
    want_in[nin++] = 1000 + mod(me - 1, size);
    int indeg, outdeg, weighted, s[4], sw[4], d[4], dw[4];
    MT_CHECK_MPI(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted));
    MT_CHECK_INT_EQ(weighted, 1);
    if (MT_CHECK(indeg <= 4 && outdeg <= 4)) {
        MT_CHECK_MPI(MPI_Dist_graph_neighbors(g, 4, s, sw, 4, d, dw));
        check_edges(s, sw, indeg, want_in, nin / 2, "in-edges");
        check_edges(d, dw, outdeg, want_out, nout / 2, "out-edges");
    }
    MPI_Comm_free(&g);

    /* Unweighted, and rank 0 names no edges at all. */
    MT_CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, me > 0, sources, degrees,
                                       dests, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                       &g));
    MT_CHECK_MPI(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted));
    MT_CHECK_INT_EQ(weighted, 0);
    MT_CHECK_INT_EQ(outdeg, me > 0);
    MT_CHECK_INT_EQ(indeg, mod(me - 1, size) > 0);
    MPI_Comm_free(&g);
}

static void errors(int me, int size)
{
    int bad = size, one = 1, neg = -1, w = 1, n;
    MPI_Comm g;
    MT_CHECK_ERR_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &bad,
                                                      &w, 0, NULL, &w,
                                                      MPI_INFO_NULL, 0, &g),
                       MPI_ERR_RANK);
    MT_CHECK_ERR_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, &me,
                                                      &w, 0, NULL, &w,
                                                      MPI_INFO_NULL, 0, &g),
                       MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &me,
                                                      &neg, 1, &me, &w,
                                                      MPI_INFO_NULL, 0, &g),
                       MPI_ERR_ARG);
    MPI_Info info, freed;
    MPI_Info_create(&info);
    freed = info;
    MPI_Info_free(&info);
    MT_CHECK_ERR_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &me,
                                                      &w, 1, &me, &w, freed, 0,
                                                      &g),
                       MPI_ERR_INFO);
    MT_CHECK_ERR_CLASS(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &me, &one, &me,
                                             &w, freed, 0, &g),
                       MPI_ERR_INFO);
    MT_CHECK_ERR_CLASS(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &me, &one, &bad,
                                             &w, MPI_INFO_NULL, 0, &g),
                       MPI_ERR_RANK);
    MT_CHECK_ERR_CLASS(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &me, &neg, &me,
                                             &w, MPI_INFO_NULL, 0, &g),
                       MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &me, &one, &me,
                                             MPI_WEIGHTS_EMPTY, MPI_INFO_NULL,
                                             0, &g),
                       MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(
        MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &n, &n, &n),
        MPI_ERR_TOPOLOGY);

    int two[2] = {me, me}, s[2];
    MT_CHECK_MPI(MPI_Dist_graph_create_adjacent(
        MPI_COMM_WORLD, 2, two, MPI_UNWEIGHTED, 2, two, MPI_UNWEIGHTED,
        MPI_INFO_NULL, 0, &g));
    MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(
        MPI_Dist_graph_neighbors(g, 1, s, MPI_UNWEIGHTED, 2, s, MPI_UNWEIGHTED),
        MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Graphdims_get(g, &n, &n), MPI_ERR_TOPOLOGY);
    MPI_Comm_free(&g);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    adjacent(me, size);
    general(me, size);
    errors(me, size);

    return mt_finish_and_finalize();
}
