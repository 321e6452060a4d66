/*
 * topo_dims: MPI_Dims_create.
 *  - fixed cases: balanced factors in non-increasing order (6 -> 3x2,
 *    7 -> 7x1, 180 -> 6x6x5, 2^20 -> 1024x1024, a large prime);
 *  - ties between equally balanced splits go to the one whose smallest
 *    entry is largest, then the next smallest (5616 over 4 is 13x9x8x6, not
 *    13x12x6x6; 72 over 2 is 9x8), as MPICH and Open MPI give them;
 *  - fixed nonzero entries are kept and the rest split around them;
 *  - for every nnodes up to 120 and 1..3 free dimensions: the product is
 *    nnodes, the entries never increase, and no factorization has a
 *    smaller spread (largest - smallest), by exhaustive search;
 *  - errors: nnodes not divisible by the fixed entries, all entries fixed
 *    to the wrong product, a negative entry, negative ndims (MPI_ERR_DIMS);
 *    nnodes 0 (MPI_ERR_ARG).
 */
#include "mpitest.h"

static void check_dims(int nnodes, int ndims, const int *in, const int *want)
{
    int dims[8];
    memcpy(dims, in, (size_t)ndims * sizeof(int));
    if (!MT_CHECK_MPI(MPI_Dims_create(nnodes, ndims, dims)))
        return;
    for (int d = 0; d < ndims; d++)
        if (!MT_CHECK_INT_EQ(dims[d], want[d])) {
            MT_FAIL("MPI_Dims_create(%d, %d): dims[%d]", nnodes, ndims, d);
            return;
        }
}

/* The smallest spread of a factorization of m into k non-increasing
 * factors, each at most cap; -1 if none. */
static int best_spread(int m, int k, int cap, int first)
{
    if (k == 1) {
        if (m > cap)
            return -1;
        return (first ? first : m) - m;
    }
    int best = -1;
    for (int d = cap < m ? cap : m; d >= 1; d--) {
        if (m % d)
            continue;
        int s = best_spread(m / d, k - 1, d, first ? first : d);
        if (s >= 0 && (best < 0 || s < best))
            best = s;
    }
    return best;
}

static void check_all_small(void)
{
    for (int ndims = 1; ndims <= 3; ndims++) {
        for (int n = 1; n <= 120; n++) {
            int dims[3] = {0, 0, 0};
            if (!MT_CHECK_MPI(MPI_Dims_create(n, ndims, dims)))
                return;
            long long prod = 1;
            for (int d = 0; d < ndims; d++) {
                prod *= dims[d];
                if (d > 0 && !MT_CHECK(dims[d] <= dims[d - 1]))
                    MT_FAIL("MPI_Dims_create(%d, %d) increases at %d", n, ndims,
                            d);
            }
            MT_CHECK_INT_EQ(prod, n);
            if (!MT_CHECK_INT_EQ(dims[0] - dims[ndims - 1],
                                 best_spread(n, ndims, n, 0)))
                MT_FAIL("MPI_Dims_create(%d, %d) not balanced", n, ndims);
        }
    }
}

static void check_errors(void)
{
    int dims[3];
    dims[0] = 4;
    dims[1] = 0;
    MT_CHECK_ERR_CLASS(MPI_Dims_create(6, 2, dims), MPI_ERR_DIMS);
    dims[0] = 2;
    dims[1] = 2;
    MT_CHECK_ERR_CLASS(MPI_Dims_create(6, 2, dims), MPI_ERR_DIMS);
    dims[0] = -1;
    dims[1] = 0;
    MT_CHECK_ERR_CLASS(MPI_Dims_create(6, 2, dims), MPI_ERR_DIMS);
    MT_CHECK_ERR_CLASS(MPI_Dims_create(6, -1, dims), MPI_ERR_DIMS);
    dims[0] = 0;
    MT_CHECK_ERR_CLASS(MPI_Dims_create(0, 1, dims), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Dims_create(2, 0, dims), MPI_ERR_DIMS);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    check_dims(6, 2, (int[]){0, 0}, (int[]){3, 2});
    check_dims(7, 2, (int[]){0, 0}, (int[]){7, 1});
    check_dims(1, 3, (int[]){0, 0, 0}, (int[]){1, 1, 1});
    check_dims(12, 3, (int[]){0, 0, 0}, (int[]){3, 2, 2});
    check_dims(16, 4, (int[]){0, 0, 0, 0}, (int[]){2, 2, 2, 2});
    check_dims(180, 3, (int[]){0, 0, 0}, (int[]){6, 6, 5});
    check_dims(1 << 20, 2, (int[]){0, 0}, (int[]){1024, 1024});
    check_dims(2147483647, 2, (int[]){0, 0}, (int[]){2147483647, 1});
    /* Ties in the spread. */
    check_dims(5616, 4, (int[]){0, 0, 0, 0}, (int[]){13, 9, 8, 6});
    check_dims(72, 2, (int[]){0, 0}, (int[]){9, 8});
    check_dims(5040, 3, (int[]){0, 0, 0}, (int[]){21, 16, 15});
    check_dims(561600, 5, (int[]){0, 0, 0, 0, 0}, (int[]){16, 15, 15, 13, 12});
    check_dims(561600, 6, (int[]){0, 0, 0, 0, 0, 0},
               (int[]){13, 10, 10, 9, 8, 6});
    check_dims(1000000000, 3, (int[]){0, 0, 0}, (int[]){1000, 1000, 1000});
    /* Fixed entries stay; the free ones share the rest. */
    check_dims(12, 3, (int[]){0, 3, 0}, (int[]){2, 3, 2});
    check_dims(10, 2, (int[]){0, 5}, (int[]){2, 5});
    check_dims(24, 3, (int[]){1, 0, 0}, (int[]){1, 6, 4});
    check_dims(6, 2, (int[]){3, 2}, (int[]){3, 2});
    check_dims(1, 0, (int[]){0}, (int[]){0});
    check_all_small();
    check_errors();

    return mt_finish_and_finalize();
}
