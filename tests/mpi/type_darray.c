/*
 * type_darray: MPI_Type_create_darray against a brute-force owner map.
 * For every process of several grids (block, cyclic(k), none; default and
 * explicit distribution arguments; C and Fortran order) the type, packed
 * over a global array holding its own offsets, must yield exactly the
 * offsets that process owns, in memory order; the processes together own
 * every element once; lb is 0 and the extent the whole array; the
 * envelope gives back the arguments.  Bad arguments answer MPI_ERR_ARG.
 */
#include "mpitest.h"

#include <stdlib.h>
#include <string.h>

#define MAXD 3

typedef struct cfg {
    int ndims, order;
    int gsizes[MAXD], distribs[MAXD], dargs[MAXD], psizes[MAXD];
} cfg_t;

/* The grid coordinate that owns index i of dimension d. */
static int owner(const cfg_t *c, int d, int i)
{
    int p = c->psizes[d], g = c->gsizes[d], k = c->dargs[d];
    switch (c->distribs[d]) {
    case MPI_DISTRIBUTE_BLOCK:
        if (k == MPI_DISTRIBUTE_DFLT_DARG)
            k = (g + p - 1) / p;
        return i / k;
    case MPI_DISTRIBUTE_CYCLIC:
        if (k == MPI_DISTRIBUTE_DFLT_DARG)
            k = 1;
        return (i / k) % p;
    default: return 0;
    }
}

/* 1 if process prank owns the element at memory offset off. */
static int owns(const cfg_t *c, int prank, int off)
{
    int coords[MAXD], idx[MAXD];
    for (int d = c->ndims - 1, r = prank; d >= 0; d--) {
        coords[d] = r % c->psizes[d];
        r /= c->psizes[d];
    }
    for (int k = 0; k < c->ndims; k++) {
        int d = c->order == MPI_ORDER_C ? c->ndims - 1 - k : k;
        idx[d] = off % c->gsizes[d];
        off /= c->gsizes[d];
    }
    for (int d = 0; d < c->ndims; d++)
        if (owner(c, d, idx[d]) != coords[d])
            return 0;
    return 1;
}

static void check_envelope(const cfg_t *c, int size, int prank, MPI_Datatype t)
{
    int ni, na, nt, comb, ints[4 + 4 * MAXD];
    MPI_Aint addrs[1];
    MPI_Datatype types[1];
    MT_CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nt, &comb));
    MT_CHECK_INT_EQ(comb, MPI_COMBINER_DARRAY);
    MT_CHECK_INT_EQ(ni, 4 + 4 * c->ndims);
    MT_CHECK_INT_EQ(na, 0);
    MT_CHECK_INT_EQ(nt, 1);
    MT_CHECK_MPI(MPI_Type_get_contents(t, ni, 1, 1, ints, addrs, types));
    MT_CHECK_INT_EQ(ints[0], size);
    MT_CHECK_INT_EQ(ints[1], prank);
    MT_CHECK_INT_EQ(ints[2], c->ndims);
    for (int d = 0; d < c->ndims; d++) {
        MT_CHECK_INT_EQ(ints[3 + d], c->gsizes[d]);
        MT_CHECK_INT_EQ(ints[3 + c->ndims + d], c->distribs[d]);
        MT_CHECK_INT_EQ(ints[3 + 2 * c->ndims + d], c->dargs[d]);
        MT_CHECK_INT_EQ(ints[3 + 3 * c->ndims + d], c->psizes[d]);
    }
    MT_CHECK_INT_EQ(ints[3 + 4 * c->ndims], c->order);
    MT_CHECK(types[0] == MPI_INT);
}

static void check_cfg(const cfg_t *c)
{
    int n = 1, size = 1;
    for (int d = 0; d < c->ndims; d++) {
        n *= c->gsizes[d];
        size *= c->psizes[d];
    }
    int *global = malloc((size_t)n * sizeof(int));
    int *packed = malloc((size_t)n * sizeof(int));
    int *seen = calloc((size_t)n, sizeof(int));
    for (int i = 0; i < n; i++)
        global[i] = i;
    for (int p = 0; p < size; p++) {
        MPI_Datatype t;
        MT_CHECK_MPI(MPI_Type_create_darray(size, p, c->ndims, c->gsizes,
                                            c->distribs, c->dargs, c->psizes,
                                            c->order, MPI_INT, &t));
        MT_CHECK_MPI(MPI_Type_commit(&t));
        MPI_Aint lb, extent;
        MT_CHECK_MPI(MPI_Type_get_extent(t, &lb, &extent));
        MT_CHECK_INT_EQ(lb, 0);
        MT_CHECK_INT_EQ(extent, (MPI_Aint)n * (MPI_Aint)sizeof(int));
        int tsize, pos = 0, want = 0;
        MT_CHECK_MPI(MPI_Type_size(t, &tsize));
        MT_CHECK_MPI(MPI_Pack(global, 1, t, packed, n * (int)sizeof(int), &pos,
                              MPI_COMM_WORLD));
        MT_CHECK_INT_EQ(pos, tsize);
        for (int off = 0; off < n; off++) {
            if (!owns(c, p, off))
                continue;
            if (want < pos / (int)sizeof(int))
                MT_CHECK_INT_EQ(packed[want], off);
            want++;
            seen[off]++;
        }
        MT_CHECK_INT_EQ(want * (int)sizeof(int), tsize);
        check_envelope(c, size, p, t);
        MT_CHECK_MPI(MPI_Type_free(&t));
    }
    for (int i = 0; i < n; i++)
        MT_CHECK_INT_EQ(seen[i], 1);
    free(global);
    free(packed);
    free(seen);
}

static void errors(void)
{
    const int B = MPI_DISTRIBUTE_BLOCK, D = MPI_DISTRIBUTE_DFLT_DARG;
    int g[2] = {8, 6}, dist[2] = {B, B}, darg[2] = {D, D}, ps[2] = {2, 3};
    MPI_Datatype t;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* grid of 6 processes, size 4 */
    MT_CHECK_ERR_CLASS(MPI_Type_create_darray(4, 0, 2, g, dist, darg, ps,
                                              MPI_ORDER_C, MPI_INT, &t),
                       MPI_ERR_ARG);
    int bad_dist[2] = {B, 42};
    MT_CHECK_ERR_CLASS(MPI_Type_create_darray(6, 0, 2, g, bad_dist, darg, ps,
                                              MPI_ORDER_C, MPI_INT, &t),
                       MPI_ERR_ARG);
    int small[2] = {2, D}; /* 2 blocks of 2 cannot cover 8 */
    MT_CHECK_ERR_CLASS(MPI_Type_create_darray(6, 0, 2, g, dist, small, ps,
                                              MPI_ORDER_C, MPI_INT, &t),
                       MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Type_create_darray(6, 6, 2, g, dist, darg, ps,
                                              MPI_ORDER_C, MPI_INT, &t),
                       MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(
        MPI_Type_create_darray(6, 0, 2, g, dist, darg, ps, 77, MPI_INT, &t),
        MPI_ERR_ARG);
    int none_dist[2] = {MPI_DISTRIBUTE_NONE, B};
    MT_CHECK_ERR_CLASS(MPI_Type_create_darray(6, 0, 2, g, none_dist, darg, ps,
                                              MPI_ORDER_C, MPI_INT, &t),
                       MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC,
              N = MPI_DISTRIBUTE_NONE, D = MPI_DISTRIBUTE_DFLT_DARG;
    const cfg_t cfgs[] = {
        {1, MPI_ORDER_C, {10}, {B}, {D}, {3}},
        {1, MPI_ORDER_C, {10}, {B}, {4}, {3}},
        {1, MPI_ORDER_FORTRAN, {11}, {C}, {2}, {3}},
        {2, MPI_ORDER_C, {7, 5}, {B, C}, {D, D}, {2, 2}},
        {2, MPI_ORDER_FORTRAN, {7, 5}, {B, C}, {D, D}, {2, 2}},
        {2, MPI_ORDER_C, {6, 9}, {C, B}, {3, 5}, {3, 2}},
        {2, MPI_ORDER_FORTRAN, {6, 9}, {N, C}, {D, 2}, {1, 4}},
        {3, MPI_ORDER_C, {4, 5, 6}, {C, N, B}, {1, D, D}, {3, 1, 2}},
        {3, MPI_ORDER_FORTRAN, {4, 5, 6}, {B, C, C}, {D, 2, 4}, {2, 2, 2}},
    };
    for (size_t i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++)
        check_cfg(&cfgs[i]);
    errors();
    return mt_finish_and_finalize();
}
