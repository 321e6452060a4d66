/*
 * coll_in_place: MPI_IN_PLACE. MPI_Allreduce with MPI_IN_PLACE on every
 * rank (MPI_SUM on ints, MPI_MAX on doubles, MPI_MAXLOC on MPI_2INT, a
 * large count); MPI_Reduce with MPI_IN_PLACE as the root's send buffer,
 * for every root, while non-roots pass a NULL receive buffer and keep
 * their send buffer unchanged.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { COUNT = 5, BIG_COUNT = 25000 };

static void allreduce_sum(int rank, int size, int count)
{
    int *buf = malloc((size_t)count * sizeof(int));
    for (int i = 0; i < count; i++)
        buf[i] = rank + i;
    MT_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, buf, count, MPI_INT, MPI_SUM,
                               MPI_COMM_WORLD));
    for (int i = 0; i < count; i++) {
        if (!MT_CHECK_INT_EQ(buf[i], size * (size - 1) / 2 + size * i)) {
            MT_FAIL("in-place MPI_Allreduce of %d ints, element %d", count, i);
            break;
        }
    }
    free(buf);
}

static void allreduce_max_maxloc(int rank, int size)
{
    double d[COUNT];
    struct {
        int v, i;
    } p[COUNT];
    for (int i = 0; i < COUNT; i++) {
        d[i] = (rank * 5 + i * 3) % 7 * 0.5;
        p[i].v = (rank + i) % 4;
        p[i].i = size - rank;
    }
    MT_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, d, COUNT, MPI_DOUBLE, MPI_MAX,
                               MPI_COMM_WORLD));
    MT_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, p, COUNT, MPI_2INT, MPI_MAXLOC,
                               MPI_COMM_WORLD));
    for (int i = 0; i < COUNT; i++) {
        double dmax = 0;
        int vmax = -1, imin = 0;
        for (int r = 0; r < size; r++) {
            double x = (r * 5 + i * 3) % 7 * 0.5;
            dmax = x > dmax ? x : dmax;
            int v = (r + i) % 4;
            if (v > vmax || (v == vmax && size - r < imin)) {
                vmax = v;
                imin = size - r;
            }
        }
        MT_CHECK_DBL_EQ(d[i], dmax);
        MT_CHECK_INT_EQ(p[i].v, vmax);
        MT_CHECK_INT_EQ(p[i].i, imin);
    }
}

static void reduce_every_root(int rank, int size)
{
    for (int root = 0; root < size; root++) {
        int buf[COUNT];
        for (int i = 0; i < COUNT; i++)
            buf[i] = (rank + 1) * (i + 1) + root;
        if (rank == root) {
            MT_CHECK_MPI(MPI_Reduce(MPI_IN_PLACE, buf, COUNT, MPI_INT, MPI_SUM,
                                    root, MPI_COMM_WORLD));
            for (int i = 0; i < COUNT; i++)
                MT_CHECK_INT_EQ(buf[i],
                                size * (size + 1) / 2 * (i + 1) + size * root);
        } else {
            MT_CHECK_MPI(MPI_Reduce(buf, NULL, COUNT, MPI_INT, MPI_SUM, root,
                                    MPI_COMM_WORLD));
            for (int i = 0; i < COUNT; i++)
                MT_CHECK_INT_EQ(buf[i], (rank + 1) * (i + 1) + root);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    allreduce_sum(rank, size, COUNT);
    allreduce_sum(rank, size, BIG_COUNT);
    allreduce_max_maxloc(rank, size);
    reduce_every_root(rank, size);

    return mt_finish_and_finalize();
}
