/*
 * p2p_asserts: the MPI-4 hints mpi_assert_no_any_source and
 * mpi_assert_no_any_tag (set with MPI_Comm_set_info on a duplicate of
 * MPI_COMM_WORLD) make a wildcard receive or probe erroneous:
 * MPI_ANY_SOURCE answers MPI_ERR_RANK, MPI_ANY_TAG MPI_ERR_TAG, while
 * named receives still match in order; the hints set back to "false"
 * allow wildcards again.  Messages waiting when the hints change are
 * found either way, a wildcard one in the order they were sent.
 */
#include "mpitest.h"

static void set_hints(MPI_Comm comm, const char *value)
{
    MPI_Info info;
    MT_CHECK_MPI(MPI_Info_create(&info));
    MT_CHECK_MPI(MPI_Info_set(info, "mpi_assert_no_any_source", value));
    MT_CHECK_MPI(MPI_Info_set(info, "mpi_assert_no_any_tag", value));
    MT_CHECK_MPI(MPI_Comm_set_info(comm, info));
    MT_CHECK_MPI(MPI_Info_free(&info));
}

static void exchange(MPI_Comm comm, int rank, int size, int any)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[3], in[3];
    MPI_Request reqs[3];
    for (int k = 0; k < 3; k++)
        MT_CHECK_MPI(MPI_Irecv(&in[k], 1, MPI_INT, any ? MPI_ANY_SOURCE : left,
                               any ? MPI_ANY_TAG : 4, comm, &reqs[k]));
    for (int k = 0; k < 3; k++) {
        out[k] = rank * 10 + k;
        MT_CHECK_MPI(MPI_Send(&out[k], 1, MPI_INT, right, 4, comm));
    }
    MT_CHECK_MPI(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
    for (int k = 0; k < 3; k++)
        MT_CHECK_INT_EQ(in[k], left * 10 + k);
}

/* Three small messages with tags 7, 8, 9 to the right wait unexpected
 * while the hints are as before; then set to value, they are received
 * in the order the tags name (in_order) or by wildcard tag. */
static void waiting_switch(MPI_Comm comm, int rank, int size, const char *value,
                           int by_tag)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int t = 7; t <= 9; t++) {
        int v = rank * 100 + t;
        MT_CHECK_MPI(MPI_Send(&v, 1, MPI_INT, right, t, comm));
    }
    MT_CHECK_MPI(MPI_Barrier(comm));
    set_hints(comm, value);
    for (int k = 0; k < 3; k++) {
        int t = by_tag ? 9 - k : MPI_ANY_TAG, v = -1;
        MPI_Status st;
        MT_CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, left, t, comm, &st));
        int want_tag = by_tag ? 9 - k : 7 + k; /* wildcard: arrival order */
        MT_CHECK_INT_EQ(st.MPI_TAG, want_tag);
        MT_CHECK_INT_EQ(v, left * 100 + want_tag);
    }
}

int main(int argc, char **argv)
{
    int rank, size, x = 0, flag;
    MPI_Comm comm;
    MPI_Status st;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    set_hints(comm, "true");
    exchange(comm, rank, size, 0);

    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, comm, &st),
                       MPI_ERR_RANK);
    MT_CHECK_ERR_CLASS(MPI_Recv(&x, 1, MPI_INT, 0, MPI_ANY_TAG, comm, &st),
                       MPI_ERR_TAG);
    MT_CHECK_ERR_CLASS(MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, comm, &req),
                       MPI_ERR_RANK);
    MT_CHECK_ERR_CLASS(MPI_Iprobe(0, MPI_ANY_TAG, comm, &flag, &st),
                       MPI_ERR_TAG);
    MT_CHECK_ERR_CLASS(MPI_Probe(MPI_ANY_SOURCE, 1, comm, &st), MPI_ERR_RANK);
    /* MPI_COMM_WORLD itself carries no hints */
    MT_CHECK_MPI(
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));

    set_hints(comm, "false");
    exchange(comm, rank, size, 1);
    /* messages waiting in hashed queues go back in arrival order, and
     * those waiting in arrival order move into the hashed queues */
    set_hints(comm, "true");
    waiting_switch(comm, rank, size, "false", 0);
    waiting_switch(comm, rank, size, "true", 1);
    set_hints(comm, "false");
    MT_CHECK_MPI(MPI_Comm_free(&comm));
    return mt_finish_and_finalize();
}
