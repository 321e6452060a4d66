/*
 * MPI-4.1's status calls: MPI_Status_get_/set_source, _tag, _error read
 * and write a status's fields; MPI_Request_get_status_any, _all and _some
 * tell which requests are complete, with their statuses, and free none of
 * them (the handles stay, and a later wait completes them as usual).
 */
#include "mpitest.h"

static void fields(void)
{
    MPI_Status st;
    int v = -1;
    MT_CHECK_MPI(MPI_Status_set_source(&st, 3));
    MT_CHECK_MPI(MPI_Status_set_tag(&st, 44));
    MT_CHECK_MPI(MPI_Status_set_error(&st, MPI_ERR_TRUNCATE));
    MT_CHECK_MPI(MPI_Status_get_source(&st, &v));
    MT_CHECK_INT_EQ(v, 3);
    MT_CHECK_MPI(MPI_Status_get_tag(&st, &v));
    MT_CHECK_INT_EQ(v, 44);
    MT_CHECK_MPI(MPI_Status_get_error(&st, &v));
    MT_CHECK_INT_EQ(v, MPI_ERR_TRUNCATE);
    MT_CHECK_ERR_CLASS(MPI_Status_get_tag(MPI_STATUS_IGNORE, &v), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Status_get_tag(&st, NULL), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Status_set_source(NULL, 1), MPI_ERR_ARG);
}

static void several(void)
{
    int in[3] = {-1, -1, -1}, out[3] = {10, 20, 30}, flag = -1, index = -1;
    int outcount = -1, indices[3];
    MPI_Request r[3] = {MPI_REQUEST_NULL};
    MPI_Status st, sts[3];
    MPI_Irecv(&in[1], 1, MPI_INT, 0, 1, MPI_COMM_SELF, &r[1]);
    MPI_Irecv(&in[2], 1, MPI_INT, 0, 2, MPI_COMM_SELF, &r[2]);
    MPI_Send(&out[2], 1, MPI_INT, 0, 2, MPI_COMM_SELF);

    /* Only r[2] is complete. */
    MT_CHECK_MPI(MPI_Request_get_status_any(3, r, &index, &flag, &st));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK_INT_EQ(index, 2);
    MT_CHECK_INT_EQ(st.MPI_TAG, 2);
    MT_CHECK(r[2] != MPI_REQUEST_NULL);
    MT_CHECK_MPI(MPI_Request_get_status_all(3, r, &flag, sts));
    MT_CHECK_INT_EQ(flag, 0);
    MT_CHECK_MPI(MPI_Request_get_status_some(3, r, &outcount, indices, sts));
    MT_CHECK_INT_EQ(outcount, 1);
    MT_CHECK_INT_EQ(indices[0], 2);
    MT_CHECK_INT_EQ(sts[0].MPI_TAG, 2);

    /* Both complete; asking again changes nothing. */
    MPI_Send(&out[1], 1, MPI_INT, 0, 1, MPI_COMM_SELF);
    for (int k = 0; k < 2; k++) {
        flag = 0;
        while (!flag)
            MT_CHECK_MPI(MPI_Request_get_status_all(3, r, &flag, sts));
        MT_CHECK_INT_EQ(sts[0].MPI_SOURCE, MPI_ANY_SOURCE); /* null: empty */
        MT_CHECK_INT_EQ(sts[1].MPI_TAG, 1);
        MT_CHECK_INT_EQ(sts[2].MPI_TAG, 2);
        MT_CHECK_MPI(
            MPI_Request_get_status_some(3, r, &outcount, indices, sts));
        MT_CHECK_INT_EQ(outcount, 2);
        MT_CHECK_INT_EQ(indices[0], 1);
        MT_CHECK_INT_EQ(indices[1], 2);
    }
    MT_CHECK(r[1] != MPI_REQUEST_NULL && r[2] != MPI_REQUEST_NULL);
    MT_CHECK_MPI(MPI_Waitall(3, r, sts));
    MT_CHECK_INT_EQ(in[1], 20);
    MT_CHECK_INT_EQ(in[2], 30);
    MT_CHECK_INT_EQ(sts[1].MPI_TAG, 1);

    /* No active request. */
    MT_CHECK_MPI(MPI_Request_get_status_any(3, r, &index, &flag, &st));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK_INT_EQ(index, MPI_UNDEFINED);
    MT_CHECK_MPI(MPI_Request_get_status_some(3, r, &outcount, indices,
                                             MPI_STATUSES_IGNORE));
    MT_CHECK_INT_EQ(outcount, MPI_UNDEFINED);
    MT_CHECK_MPI(MPI_Request_get_status_all(3, r, &flag, MPI_STATUSES_IGNORE));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK_ERR_CLASS(MPI_Request_get_status_any(-1, r, &index, &flag, &st),
                       MPI_ERR_COUNT);
    MT_CHECK_ERR_CLASS(MPI_Request_get_status_all(3, r, NULL, sts),
                       MPI_ERR_ARG);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    fields();
    several();
    return mt_finish_and_finalize();
}
