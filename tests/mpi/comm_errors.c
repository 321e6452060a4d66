/*
 * comm_errors: bad arguments to the communicator constructors and the
 * inter-communicator calls fail with the class the standard names, under
 * MPI_ERRORS_RETURN, and leave the output handle alone: MPI_ERR_COMM for
 * MPI_COMM_NULL and for an intra-communicator where an inter-communicator
 * is needed (and the reverse); MPI_ERR_ARG for a negative color, an
 * unknown split type and NULL outputs; MPI_ERR_INFO for a bad info;
 * MPI_ERR_GROUP for a group that is not part of the communicator; MPI_ERR_TAG
 * and MPI_ERR_RANK for bad tags and leaders.  Every check is local, so no rank
 * waits for another.
 */
#include "mpitest.h"

static void check_constructors(int rank, int size)
{
    MPI_Comm c = MPI_COMM_SELF;
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MT_CHECK_ERR_CLASS(MPI_Comm_split(MPI_COMM_NULL, 0, 0, &c), MPI_ERR_COMM);
    MT_CHECK_ERR_CLASS(MPI_Comm_split(MPI_COMM_WORLD, -3, 0, &c), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Comm_split(MPI_COMM_WORLD, 0, 0, NULL), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(
        MPI_Comm_split_type(MPI_COMM_WORLD, 999, 0, MPI_INFO_NULL, &c),
        MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(
        MPI_Comm_dup_with_info(MPI_COMM_WORLD, (MPI_Info)12345, &c),
        MPI_ERR_INFO);
    MT_CHECK_ERR_CLASS(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED,
                                           0, (MPI_Info)12345, &c),
                       MPI_ERR_INFO);
    MT_CHECK_ERR_CLASS(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c),
                       MPI_ERR_GROUP);
    MT_CHECK_ERR_CLASS(MPI_Comm_create(MPI_COMM_NULL, world, &c), MPI_ERR_COMM);
    MT_CHECK_ERR_CLASS(MPI_Comm_create_group(MPI_COMM_WORLD, world, -1, &c),
                       MPI_ERR_TAG);
    MT_CHECK_ERR_CLASS(
        MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_NULL, 0, &c),
        MPI_ERR_GROUP);
    if (size > 1) {
        /* WORLD's group is larger than SELF's. */
        MT_CHECK_ERR_CLASS(MPI_Comm_create(MPI_COMM_SELF, world, &c),
                           MPI_ERR_GROUP);
        MT_CHECK_ERR_CLASS(MPI_Comm_create_group(MPI_COMM_SELF, world, 0, &c),
                           MPI_ERR_GROUP);
    } else {
        MT_CHECK_MPI(MPI_Comm_create(MPI_COMM_SELF, world, &c));
        MT_CHECK_MPI(MPI_Comm_free(&c));
        c = MPI_COMM_SELF;
    }
    MT_CHECK(c == MPI_COMM_SELF);
    MPI_Group_free(&world);
    (void)rank;
}

static void check_inter_calls(int rank)
{
    MPI_Comm c = MPI_COMM_SELF;
    int flag = -1, size = -1;
    MT_CHECK_MPI(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    MT_CHECK_INT_EQ(flag, 0);
    MT_CHECK_ERR_CLASS(MPI_Comm_test_inter(MPI_COMM_NULL, &flag), MPI_ERR_COMM);
    MT_CHECK_ERR_CLASS(MPI_Comm_remote_size(MPI_COMM_SELF, &size),
                       MPI_ERR_COMM);
    MT_CHECK_INT_EQ(size, -1);
    MT_CHECK_ERR_CLASS(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &c),
                       MPI_ERR_COMM);
    MT_CHECK_ERR_CLASS(
        MPI_Intercomm_create(MPI_COMM_SELF, 1, MPI_COMM_WORLD, 0, 0, &c),
        MPI_ERR_RANK);
    MT_CHECK_ERR_CLASS(
        MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 0, -5, &c),
        MPI_ERR_TAG);
    MT_CHECK_ERR_CLASS(
        MPI_Intercomm_create(MPI_COMM_NULL, 0, MPI_COMM_WORLD, 0, 0, &c),
        MPI_ERR_COMM);
    /* At the leader: peer_comm and remote_leader are checked. */
    MT_CHECK_ERR_CLASS(
        MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_NULL, 0, 0, &c),
        MPI_ERR_COMM);
    MT_CHECK_ERR_CLASS(
        MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, -1, 0, &c),
        MPI_ERR_RANK);
    MT_CHECK_ERR_CLASS(
        MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, rank, 0, &c),
        MPI_ERR_RANK);
    MT_CHECK(c == MPI_COMM_SELF);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    check_constructors(rank, size);
    check_inter_calls(rank);
    return mt_finish_and_finalize();
}
