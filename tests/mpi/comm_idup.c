/*
 * MPI_Comm_idup: the new communicator has the group of the old one and its
 * own context, several idups (of one communicator and of different ones)
 * may be outstanding at once, and point-to-point traffic on the old one
 * between the call and the wait is not disturbed.
 */
#include "mpitest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm half, dups[3];
    MPI_Request reqs[3];
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
    MT_CHECK_INT_EQ(MPI_Comm_idup(MPI_COMM_WORLD, &dups[0], &reqs[0]),
                    MPI_SUCCESS);
    MT_CHECK_INT_EQ(MPI_Comm_idup(half, &dups[1], &reqs[1]), MPI_SUCCESS);
    MT_CHECK_INT_EQ(MPI_Comm_idup(MPI_COMM_WORLD, &dups[2], &reqs[2]),
                    MPI_SUCCESS);

    /* Traffic on the parent while the idups are outstanding. */
    int token = rank, got = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 5, &got, 1, MPI_INT,
                 (rank + size - 1) % size, 5, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MT_CHECK_INT_EQ(got, (rank + size - 1) % size);

    MPI_Status st[3];
    MT_CHECK_INT_EQ(MPI_Waitall(3, reqs, st), MPI_SUCCESS);
    for (int i = 0; i < 3; i++) {
        int count = -1;
        MPI_Get_count(&st[i], MPI_INT, &count);
        MT_CHECK_INT_EQ(count, 0);
        MT_CHECK_INT_EQ(reqs[i] == MPI_REQUEST_NULL, 1);
    }

    int result;
    MPI_Comm_compare(MPI_COMM_WORLD, dups[0], &result);
    MT_CHECK_INT_EQ(result, MPI_CONGRUENT);
    MPI_Comm_compare(half, dups[1], &result);
    MT_CHECK_INT_EQ(result, MPI_CONGRUENT);
    MPI_Comm_compare(dups[0], dups[2], &result);
    MT_CHECK_INT_EQ(result, MPI_CONGRUENT);

    /* Same tag on all three world-sized communicators at once: each
     * message must arrive on its own communicator. */
    int in[3] = {-1, -1, -1}, out[3];
    MPI_Request r[6];
    MPI_Comm on[3] = {MPI_COMM_WORLD, dups[0], dups[2]};
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    for (int i = 0; i < 3; i++) {
        out[i] = 100 * i + rank;
        MPI_Irecv(&in[i], 1, MPI_INT, from, 9, on[i], &r[i]);
    }
    for (int i = 2; i >= 0; i--)
        MPI_Isend(&out[i], 1, MPI_INT, to, 9, on[i], &r[3 + i]);
    MPI_Waitall(6, r, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 3; i++)
        MT_CHECK_INT_EQ(in[i], 100 * i + from);

    /* Collectives work on the new communicators. */
    int hsize, sum = 0, one = 1;
    MPI_Comm_size(dups[1], &hsize);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dups[1]);
    MT_CHECK_INT_EQ(sum, hsize);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MT_CHECK_INT_EQ(
        MPI_Comm_idup(MPI_COMM_WORLD, &dups[0], NULL) != MPI_SUCCESS, 1);
    MPI_Request bad;
    int cls = -1;
    MPI_Error_class(MPI_Comm_idup(MPI_COMM_NULL, &dups[0], &bad), &cls);
    MT_CHECK_INT_EQ(cls, MPI_ERR_COMM);

    for (int i = 0; i < 3; i++)
        MPI_Comm_free(&dups[i]);
    MPI_Comm_free(&half);
    return mt_finish_and_finalize();
}
