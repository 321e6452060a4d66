/*
 * topo_cart_sub: MPI_Cart_sub of a 3-dimensional grid of all ranks
 * (MPI_Dims_create), for every subset of the dimensions kept: the
 * subgrid's size is the product of the kept dimensions, its rank and
 * coordinates are this rank's coordinates in them, its periods are the
 * kept ones, and its members are exactly the ranks that share the dropped
 * coordinates (an allreduce of world ranks over it matches a sum computed
 * here).  Keeping nothing gives a 0-dimensional grid of one rank.
 */
#include "mpitest.h"

enum { ND = 3 };

static int rank_of(const int *dims, const int *coords)
{
    int r = 0;
    for (int d = 0; d < ND; d++)
        r = r * dims[d] + coords[d];
    return r;
}

/* The sum of the world ranks whose coordinates agree with mine in every
 * dimension not kept (a grid of all ranks: world rank = grid rank). */
static long long expected_sum(const int *dims, const int *mine, const int *keep)
{
    long long sum = 0;
    int c[ND];
    for (c[0] = 0; c[0] < dims[0]; c[0]++)
        for (c[1] = 0; c[1] < dims[1]; c[1]++)
            for (c[2] = 0; c[2] < dims[2]; c[2]++) {
                int same = 1;
                for (int d = 0; d < ND; d++)
                    same &= keep[d] || c[d] == mine[d];
                if (same)
                    sum += rank_of(dims, c);
            }
    return sum;
}

static void check_sub(MPI_Comm cart, const int *dims, const int *periods,
                      const int *coords, const int *keep, int me)
{
    MPI_Comm sub;
    if (!MT_CHECK_MPI(MPI_Cart_sub(cart, keep, &sub)))
        return;
    int nd = -1, size, rank, want_size = 1, want_rank = 0, k = 0, status;
    int sdims[ND], speriods[ND], scoords[ND];
    MT_CHECK_MPI(MPI_Topo_test(sub, &status));
    MT_CHECK_INT_EQ(status, MPI_CART);
    MT_CHECK_MPI(MPI_Cartdim_get(sub, &nd));
    MT_CHECK_MPI(MPI_Cart_get(sub, ND, sdims, speriods, scoords));
    for (int d = 0; d < ND; d++) {
        if (!keep[d])
            continue;
        want_size *= dims[d];
        want_rank = want_rank * dims[d] + coords[d];
        MT_CHECK_INT_EQ(sdims[k], dims[d]);
        MT_CHECK_INT_EQ(speriods[k], periods[d]);
        MT_CHECK_INT_EQ(scoords[k], coords[d]);
        k++;
    }
    MT_CHECK_INT_EQ(nd, k);
    MPI_Comm_size(sub, &size);
    MPI_Comm_rank(sub, &rank);
    MT_CHECK_INT_EQ(size, want_size);
    MT_CHECK_INT_EQ(rank, want_rank);
    long long mine = me, sum = -1;
    MT_CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, sub));
    MT_CHECK_INT_EQ(sum, expected_sum(dims, coords, keep));
    MPI_Comm_free(&sub);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int dims[ND] = {0, 0, 0}, periods[ND] = {1, 0, 1}, coords[ND];
    MPI_Comm cart;
    MT_CHECK_MPI(MPI_Dims_create(size, ND, dims));
    MT_CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, ND, dims, periods, 0, &cart));
    MT_CHECK_MPI(MPI_Cart_coords(cart, me, ND, coords));
    for (int mask = 0; mask < (1 << ND); mask++) {
        int keep[ND];
        for (int d = 0; d < ND; d++)
            keep[d] = (mask >> d) & 1;
        check_sub(cart, dims, periods, coords, keep, me);
    }
    MPI_Comm_free(&cart);

    return mt_finish_and_finalize();
}
