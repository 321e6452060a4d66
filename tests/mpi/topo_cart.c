/*
 * topo_cart: Cartesian topologies on every rank count.
 *  - 1-, 2- and 3-dimensional grids of all ranks (MPI_Dims_create), each
 *    periodic, non-periodic and mixed: MPI_Topo_test, MPI_Cartdim_get,
 *    MPI_Cart_get; MPI_Cart_coords and MPI_Cart_rank round trips for every
 *    rank; MPI_Cart_shift by -2..2 in every dimension against coordinates
 *    computed here (MPI_PROC_NULL off non-periodic edges); MPI_Cart_rank
 *    wraps periodic coordinates and rejects others (MPI_ERR_RANK);
 *  - MPI_Comm_dup keeps the topology;
 *  - a grid of size - 1 ranks: the last rank gets MPI_COMM_NULL, and
 *    MPI_Cart_map says MPI_UNDEFINED there;
 *  - a 0-dimensional grid: rank 0 alone;
 *  - errors: a grid larger than the communicator (MPI_ERR_ARG), a zero or
 *    negative dimension (MPI_ERR_DIMS), Cartesian queries on
 *    MPI_COMM_WORLD (MPI_ERR_TOPOLOGY), a bad direction (MPI_ERR_ARG), a
 *    bad rank (MPI_ERR_RANK).
 */
#include "mpitest.h"

enum { MAXD = 3 };

/* Coordinates of r in a row-major grid. */
static void coords_of(int r, int ndims, const int *dims, int *coords)
{
    for (int d = ndims - 1; d >= 0; d--) {
        coords[d] = r % dims[d];
        r /= dims[d];
    }
}

static int rank_of(int ndims, const int *dims, const int *coords)
{
    int r = 0;
    for (int d = 0; d < ndims; d++)
        r = r * dims[d] + coords[d];
    return r;
}

/* The rank disp steps from coords along d, computed here. */
static int expected_shift(int ndims, const int *dims, const int *periods,
                          const int *coords, int d, int disp)
{
    int c[MAXD];
    memcpy(c, coords, sizeof(c));
    c[d] += disp;
    if (periods[d])
        c[d] = ((c[d] % dims[d]) + dims[d]) % dims[d];
    else if (c[d] < 0 || c[d] >= dims[d])
        return MPI_PROC_NULL;
    return rank_of(ndims, dims, c);
}

static void check_shifts(MPI_Comm cart, int ndims, const int *dims,
                         const int *periods, const int *coords)
{
    for (int d = 0; d < ndims; d++) {
        for (int disp = -2; disp <= 2; disp++) {
            int src, dst;
            MT_CHECK_MPI(MPI_Cart_shift(cart, d, disp, &src, &dst));
            MT_CHECK_INT_EQ(
                dst, expected_shift(ndims, dims, periods, coords, d, disp));
            MT_CHECK_INT_EQ(
                src, expected_shift(ndims, dims, periods, coords, d, -disp));
        }
    }
}

/* Cart_rank of coordinates one grid length off in each dimension: the
 * same rank when periodic, MPI_ERR_RANK otherwise. */
static void check_wrap(MPI_Comm cart, int ndims, const int *dims,
                       const int *periods, const int *coords, int me)
{
    for (int d = 0; d < ndims; d++) {
        int c[MAXD], r = -7;
        memcpy(c, coords, sizeof(c));
        c[d] += d % 2 ? dims[d] : -dims[d];
        int rc = MPI_Cart_rank(cart, c, &r);
        if (periods[d]) {
            MT_CHECK_MPI(rc);
            MT_CHECK_INT_EQ(r, me);
        } else {
            MT_CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
        }
    }
}

static void check_grid(MPI_Comm cart, int ndims, const int *dims,
                       const int *periods)
{
    int me, size, status, nd, gdims[MAXD], gperiods[MAXD], gcoords[MAXD];
    MPI_Comm_rank(cart, &me);
    MPI_Comm_size(cart, &size);
    MT_CHECK_MPI(MPI_Topo_test(cart, &status));
    MT_CHECK_INT_EQ(status, MPI_CART);
    MT_CHECK_MPI(MPI_Cartdim_get(cart, &nd));
    MT_CHECK_INT_EQ(nd, ndims);
    MT_CHECK_MPI(MPI_Cart_get(cart, MAXD, gdims, gperiods, gcoords));
    int want[MAXD];
    coords_of(me, ndims, dims, want);
    for (int d = 0; d < ndims; d++) {
        MT_CHECK_INT_EQ(gdims[d], dims[d]);
        MT_CHECK_INT_EQ(gperiods[d], periods[d]);
        MT_CHECK_INT_EQ(gcoords[d], want[d]);
    }
    for (int r = 0; r < size; r++) {
        int c[MAXD], back = -1;
        MT_CHECK_MPI(MPI_Cart_coords(cart, r, MAXD, c));
        coords_of(r, ndims, dims, want);
        for (int d = 0; d < ndims; d++)
            MT_CHECK_INT_EQ(c[d], want[d]);
        MT_CHECK_MPI(MPI_Cart_rank(cart, c, &back));
        MT_CHECK_INT_EQ(back, r);
    }
    check_shifts(cart, ndims, dims, periods, gcoords);
    check_wrap(cart, ndims, dims, periods, gcoords, me);
}

static void full_grids(int size)
{
    for (int ndims = 1; ndims <= MAXD; ndims++) {
        for (int kind = 0; kind < 3; kind++) {
            int dims[MAXD] = {0, 0, 0}, periods[MAXD];
            MPI_Dims_create(size, ndims, dims);
            for (int d = 0; d < ndims; d++)
                periods[d] = kind == 0 ? 1 : kind == 1 ? 0 : d % 2;
            MPI_Comm cart;
            if (!MT_CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims,
                                              periods, 1, &cart)))
                continue;
            MT_CHECK(cart != MPI_COMM_NULL);
            int csize;
            MPI_Comm_size(cart, &csize);
            MT_CHECK_INT_EQ(csize, size);
            MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
            check_grid(cart, ndims, dims, periods);
            MPI_Comm dup;
            MT_CHECK_MPI(MPI_Comm_dup(cart, &dup));
            check_grid(dup, ndims, dims, periods);
            MPI_Comm_free(&dup);
            MPI_Comm_free(&cart);
        }
    }
}

static void partial_grids(int me, int size)
{
    int dims[1] = {size > 1 ? size - 1 : 1}, periods[1] = {1}, newrank;
    MPI_Comm cart;
    MT_CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &newrank));
    MT_CHECK_INT_EQ(newrank, me < dims[0] ? me : MPI_UNDEFINED);
    MT_CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    if (me < dims[0]) {
        if (MT_CHECK(cart != MPI_COMM_NULL)) {
            check_grid(cart, 1, dims, periods);
            MPI_Comm_free(&cart);
        }
    } else {
        MT_CHECK(cart == MPI_COMM_NULL);
    }

    /* No dimensions: a grid of one rank. */
    MT_CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &cart));
    if (me == 0 && MT_CHECK(cart != MPI_COMM_NULL)) {
        int nd = -1, csize = 0;
        MPI_Cartdim_get(cart, &nd);
        MPI_Comm_size(cart, &csize);
        MT_CHECK_INT_EQ(nd, 0);
        MT_CHECK_INT_EQ(csize, 1);
        MPI_Comm_free(&cart);
    } else if (me != 0) {
        MT_CHECK(cart == MPI_COMM_NULL);
    }
}

static void errors(int size)
{
    int dims[2] = {size + 1, 1}, periods[2] = {0, 0}, r, c[2], src, dst, nd;
    MPI_Comm cart;
    MT_CHECK_ERR_CLASS(
        MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart),
        MPI_ERR_ARG);
    dims[0] = 0;
    MT_CHECK_ERR_CLASS(
        MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart),
        MPI_ERR_DIMS);
    MT_CHECK_ERR_CLASS(
        MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &cart),
        MPI_ERR_DIMS);
    MT_CHECK_ERR_CLASS(MPI_Cartdim_get(MPI_COMM_WORLD, &nd), MPI_ERR_TOPOLOGY);
    MT_CHECK_ERR_CLASS(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &src, &dst),
                       MPI_ERR_TOPOLOGY);
    MT_CHECK_ERR_CLASS(MPI_Cart_rank(MPI_COMM_WORLD, c, &r), MPI_ERR_TOPOLOGY);

    dims[0] = size;
    MT_CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(MPI_Cart_shift(cart, 2, 1, &src, &dst), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Cart_shift(cart, -1, 1, &src, &dst), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Cart_coords(cart, size, 2, c), MPI_ERR_RANK);
    MT_CHECK_ERR_CLASS(MPI_Cart_coords(cart, -1, 2, c), MPI_ERR_RANK);
    MT_CHECK_ERR_CLASS(MPI_Cart_coords(cart, 0, 1, c), MPI_ERR_ARG);
    c[0] = size;
    c[1] = 0;
    MT_CHECK_ERR_CLASS(MPI_Cart_rank(cart, c, &r), MPI_ERR_RANK);
    MT_CHECK_ERR_CLASS(MPI_Graphdims_get(cart, &r, &nd), MPI_ERR_TOPOLOGY);
    MPI_Comm_free(&cart);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    int status = 0;
    MT_CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &status));
    MT_CHECK_INT_EQ(status, MPI_UNDEFINED);
    full_grids(size);
    partial_grids(me, size);
    errors(size);

    return mt_finish_and_finalize();
}
