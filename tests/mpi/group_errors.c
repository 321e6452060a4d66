/*
 * group_errors: bad arguments to the group calls fail with the class the
 * standard names (under MPI_ERRORS_RETURN): MPI_ERR_GROUP for
 * MPI_GROUP_NULL and invalid handles, MPI_ERR_RANK for ranks out of range
 * or repeated, MPI_ERR_ARG for negative counts, zero strides, ranges that
 * never end and NULL pointers.  Nothing is created by a failing call.
 */
#include "mpitest.h"

static void check_handles(MPI_Group world)
{
    int size = 0, result = 0, zero = 0, out = 0;
    MPI_Group g = MPI_GROUP_NULL;
    MT_CHECK_ERR_CLASS(MPI_Group_size(MPI_GROUP_NULL, &size), MPI_ERR_GROUP);
    MT_CHECK_ERR_CLASS(MPI_Group_rank((MPI_Group)12345, &size), MPI_ERR_GROUP);
    MT_CHECK_ERR_CLASS(MPI_Group_compare(world, MPI_GROUP_NULL, &result),
                       MPI_ERR_GROUP);
    MT_CHECK_ERR_CLASS(MPI_Group_union(MPI_GROUP_NULL, world, &g),
                       MPI_ERR_GROUP);
    MT_CHECK_ERR_CLASS(
        MPI_Group_translate_ranks(world, 1, &zero, MPI_GROUP_NULL, &out),
        MPI_ERR_GROUP);
    MT_CHECK_ERR_CLASS(MPI_Group_free(&g), MPI_ERR_GROUP);
    MT_CHECK_ERR_CLASS(MPI_Group_free(NULL), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Group_size(world, NULL), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Comm_group(MPI_COMM_NULL, &g), MPI_ERR_COMM);
    MT_CHECK_ERR_CLASS(MPI_Comm_remote_group(MPI_COMM_WORLD, &g), MPI_ERR_COMM);
    MT_CHECK(g == MPI_GROUP_NULL);

    /* A freed handle is invalid afterwards. */
    MPI_Group copy, stale;
    MPI_Group_incl(world, 1, &zero, &copy);
    stale = copy;
    MT_CHECK_MPI(MPI_Group_free(&copy));
    MT_CHECK_ERR_CLASS(MPI_Group_size(stale, &size), MPI_ERR_GROUP);
}

static void check_ranks(MPI_Group world, int size)
{
    MPI_Group g = MPI_GROUP_NULL;
    int bad[2] = {size, 0}, twice[2] = {0, 0}, out[2];
    MT_CHECK_ERR_CLASS(MPI_Group_incl(world, 1, bad, &g), MPI_ERR_RANK);
    MT_CHECK_ERR_CLASS(MPI_Group_incl(world, 2, twice, &g), MPI_ERR_RANK);
    MT_CHECK_ERR_CLASS(MPI_Group_excl(world, 1, (int[]){-1}, &g), MPI_ERR_RANK);
    MT_CHECK_ERR_CLASS(MPI_Group_excl(world, 2, twice, &g), MPI_ERR_RANK);
    MT_CHECK_ERR_CLASS(MPI_Group_incl(world, -1, twice, &g), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Group_incl(world, 1, NULL, &g), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Group_incl(world, 1, twice, NULL), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Group_translate_ranks(world, 1, bad, world, out),
                       MPI_ERR_RANK);
    MT_CHECK_ERR_CLASS(MPI_Group_translate_ranks(world, -2, bad, world, out),
                       MPI_ERR_ARG);

    int zero_stride[1][3] = {{0, 0, 0}};
    int wrong_way[1][3] = {{size - 1, 0, 1}};
    int outside[1][3] = {{0, size, 1}};
    int overlap[2][3] = {{0, 0, 1}, {0, 0, 1}};
    MT_CHECK_ERR_CLASS(MPI_Group_range_incl(world, 1, zero_stride, &g),
                       MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Group_range_excl(world, 1, outside, &g),
                       MPI_ERR_RANK);
    MT_CHECK_ERR_CLASS(MPI_Group_range_incl(world, 2, overlap, &g),
                       MPI_ERR_RANK);
    if (size > 1)
        MT_CHECK_ERR_CLASS(MPI_Group_range_incl(world, 1, wrong_way, &g),
                           MPI_ERR_ARG);
    MT_CHECK(g == MPI_GROUP_NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Group world;
    MT_CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
    check_handles(world);
    check_ranks(world, size);
    MPI_Group_free(&world);
    return mt_finish_and_finalize();
}
