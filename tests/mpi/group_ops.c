/*
 * group_ops: groups of MPI_COMM_WORLD and their algebra.  MPI_Group_size
 * and MPI_Group_rank; MPI_Group_incl in reversed order; translate_ranks
 * (MPI_PROC_NULL to itself, MPI_UNDEFINED for a rank absent from the
 * target); compare (IDENT, SIMILAR, UNEQUAL); union, intersection and
 * difference keep the first group's order and append the second's new
 * members; range_incl/range_excl with strides of both signs; empty results
 * are MPI_GROUP_EMPTY; MPI_Group_free sets MPI_GROUP_NULL.
 */
#include "mpitest.h"

#include <stdlib.h>

/* Checks that group g holds the world ranks want[0..n) in that order. */
static void check_members(MPI_Group world, MPI_Group g, const int *want, int n,
                          int line)
{
    int size = -1;
    MPI_Group_size(g, &size);
    if (!mt_check_int_eq(size, n, "size", "n", __FILE__, line))
        return;
    int *ranks = malloc(((size_t)n + 1) * sizeof(int));
    int *out = malloc(((size_t)n + 1) * sizeof(int));
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    MT_CHECK_MPI(MPI_Group_translate_ranks(g, n, ranks, world, out));
    for (int i = 0; i < n; i++)
        if (!mt_check_int_eq(out[i], want[i], "out[i]", "want[i]", __FILE__,
                             line))
            break;
    free(ranks);
    free(out);
}

static void check_queries(MPI_Group world, int rank, int size)
{
    int gsize = -1, grank = -1;
    MT_CHECK_MPI(MPI_Group_size(world, &gsize));
    MT_CHECK_MPI(MPI_Group_rank(world, &grank));
    MT_CHECK_INT_EQ(gsize, size);
    MT_CHECK_INT_EQ(grank, rank);

    MPI_Group self;
    MT_CHECK_MPI(MPI_Comm_group(MPI_COMM_SELF, &self));
    int zero = 0, mine = -1;
    MT_CHECK_MPI(MPI_Group_translate_ranks(self, 1, &zero, world, &mine));
    MT_CHECK_INT_EQ(mine, rank);
    int result = -1;
    MT_CHECK_MPI(MPI_Group_compare(world, self, &result));
    MT_CHECK_INT_EQ(result, size == 1 ? MPI_IDENT : MPI_UNEQUAL);
    MT_CHECK_MPI(MPI_Group_free(&self));
    MT_CHECK(self == MPI_GROUP_NULL);

    MT_CHECK_MPI(MPI_Group_size(MPI_GROUP_EMPTY, &gsize));
    MT_CHECK_INT_EQ(gsize, 0);
    MT_CHECK_MPI(MPI_Group_rank(MPI_GROUP_EMPTY, &grank));
    MT_CHECK_INT_EQ(grank, MPI_UNDEFINED);
}

static void check_reversed(MPI_Group world, int rank, int size, int *buf)
{
    for (int i = 0; i < size; i++)
        buf[i] = size - 1 - i;
    MPI_Group rev;
    MT_CHECK_MPI(MPI_Group_incl(world, size, buf, &rev));
    check_members(world, rev, buf, size, __LINE__);
    int grank = -1, result = -1;
    MPI_Group_rank(rev, &grank);
    MT_CHECK_INT_EQ(grank, size - 1 - rank);
    MT_CHECK_MPI(MPI_Group_compare(world, rev, &result));
    MT_CHECK_INT_EQ(result, size == 1 ? MPI_IDENT : MPI_SIMILAR);

    /* The same by a range with a negative stride. */
    int ranges[1][3] = {{size - 1, 0, -1}};
    MPI_Group rev2;
    MT_CHECK_MPI(MPI_Group_range_incl(world, 1, ranges, &rev2));
    MT_CHECK_MPI(MPI_Group_compare(rev, rev2, &result));
    MT_CHECK_INT_EQ(result, MPI_IDENT);

    /* translate_ranks: PROC_NULL stays, every rank maps to its mirror. */
    int in[3] = {0, MPI_PROC_NULL, size - 1}, out[3] = {-7, -7, -7};
    MT_CHECK_MPI(MPI_Group_translate_ranks(world, 3, in, rev, out));
    MT_CHECK_INT_EQ(out[0], size - 1);
    MT_CHECK_INT_EQ(out[1], MPI_PROC_NULL);
    MT_CHECK_INT_EQ(out[2], 0);
    MPI_Group_free(&rev2);
    MPI_Group_free(&rev);
}

/* without0 = world minus rank 0; checks the set operations on it and on
 * the reversed world. */
static void check_algebra(MPI_Group world, int rank, int size, int *buf)
{
    int zero = 0, result = -1, out = -7;
    MPI_Group without0, rev, g;
    MT_CHECK_MPI(MPI_Group_excl(world, 1, &zero, &without0));
    for (int i = 0; i < size; i++)
        buf[i] = size - 1 - i;
    MPI_Group_incl(world, size, buf, &rev);

    MT_CHECK_MPI(MPI_Group_translate_ranks(world, 1, &zero, without0, &out));
    MT_CHECK_INT_EQ(out, MPI_UNDEFINED);
    int grank = -1;
    MPI_Group_rank(without0, &grank);
    MT_CHECK_INT_EQ(grank, rank == 0 ? MPI_UNDEFINED : rank - 1);

    /* union: without0's order (1..n-1), then rev's new member 0. */
    MT_CHECK_MPI(MPI_Group_union(without0, rev, &g));
    for (int i = 0; i < size - 1; i++)
        buf[i] = i + 1;
    buf[size - 1] = 0;
    check_members(world, g, buf, size, __LINE__);
    MPI_Group_free(&g);

    /* intersection: rev's order without 0. */
    MT_CHECK_MPI(MPI_Group_intersection(rev, without0, &g));
    for (int i = 0; i < size - 1; i++)
        buf[i] = size - 1 - i;
    check_members(world, g, buf, size - 1, __LINE__);
    MPI_Group_free(&g);

    /* difference: only 0 is left; with itself nothing is. */
    MT_CHECK_MPI(MPI_Group_difference(world, without0, &g));
    check_members(world, g, &zero, 1, __LINE__);
    MPI_Group_free(&g);
    MT_CHECK_MPI(MPI_Group_difference(rev, world, &g));
    MT_CHECK_MPI(MPI_Group_compare(g, MPI_GROUP_EMPTY, &result));
    MT_CHECK_INT_EQ(result, MPI_IDENT);
    MT_CHECK_MPI(MPI_Group_free(&g));
    MT_CHECK(g == MPI_GROUP_NULL);

    /* union with the empty group changes nothing. */
    MT_CHECK_MPI(MPI_Group_union(MPI_GROUP_EMPTY, rev, &g));
    MT_CHECK_MPI(MPI_Group_compare(g, rev, &result));
    MT_CHECK_INT_EQ(result, MPI_IDENT);
    MPI_Group_free(&g);

    MT_CHECK_MPI(MPI_Group_compare(without0, world, &result));
    MT_CHECK_INT_EQ(result, MPI_UNEQUAL);
    MPI_Group_free(&without0);
    MPI_Group_free(&rev);
}

static void check_ranges(MPI_Group world, int size, int *buf)
{
    /* Even ranks by range_incl, odd ones by range_excl of the same. */
    int ranges[1][3] = {{0, size - 1, 2}};
    MPI_Group even, odd;
    MT_CHECK_MPI(MPI_Group_range_incl(world, 1, ranges, &even));
    MT_CHECK_MPI(MPI_Group_range_excl(world, 1, ranges, &odd));
    int n = 0;
    for (int r = 0; r < size; r += 2)
        buf[n++] = r;
    check_members(world, even, buf, n, __LINE__);
    n = 0;
    for (int r = 1; r < size; r += 2)
        buf[n++] = r;
    check_members(world, odd, buf, n, __LINE__);
    MPI_Group_free(&even);
    MPI_Group_free(&odd);

    /* Two triples, in the order given: the top rank, then 0..top-1. */
    int two[2][3] = {{size - 1, size - 1, 1}, {0, size - 2, 1}};
    MPI_Group rot;
    MT_CHECK_MPI(MPI_Group_range_incl(world, size > 1 ? 2 : 1, two, &rot));
    buf[0] = size - 1;
    for (int i = 1; i < size; i++)
        buf[i] = i - 1;
    check_members(world, rot, buf, size, __LINE__);
    MPI_Group_free(&rot);

    /* Excluding everything leaves the empty group. */
    int all[1][3] = {{0, size - 1, 1}};
    MPI_Group none;
    int result = -1;
    MT_CHECK_MPI(MPI_Group_range_excl(world, 1, all, &none));
    MT_CHECK_MPI(MPI_Group_compare(none, MPI_GROUP_EMPTY, &result));
    MT_CHECK_INT_EQ(result, MPI_IDENT);
    MPI_Group_free(&none);
    MT_CHECK_MPI(MPI_Group_incl(world, 0, NULL, &none));
    MT_CHECK_MPI(MPI_Group_compare(none, MPI_GROUP_EMPTY, &result));
    MT_CHECK_INT_EQ(result, MPI_IDENT);
    MPI_Group_free(&none);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *buf = malloc((size_t)size * sizeof(int));
    MPI_Group world;
    MT_CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
    check_queries(world, rank, size);
    check_reversed(world, rank, size, buf);
    check_algebra(world, rank, size, buf);
    check_ranges(world, size, buf);
    MT_CHECK_MPI(MPI_Group_free(&world));
    free(buf);
    return mt_finish_and_finalize();
}
