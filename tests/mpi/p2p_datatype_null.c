/*
 * Zero-count buffers with MPI_DATATYPE_NULL (MPI-4.1): sends and receives
 * of every form (blocking, nonblocking, synchronous, persistent,
 * MPI_Sendrecv, matched probe and MPI_Mrecv) and MPI_Alltoallw's entries
 * of count 0 take it; the message arrives empty with its envelope.  With a
 * count above 0 it is still MPI_ERR_TYPE.
 */
#include "mpitest.h"

#include <stdlib.h>

static void check_empty(const MPI_Status *st, int source, int tag)
{
    int count = -1;
    MT_CHECK_INT_EQ(st->MPI_SOURCE, source);
    MT_CHECK_INT_EQ(st->MPI_TAG, tag);
    MPI_Get_count(st, MPI_INT, &count);
    MT_CHECK_INT_EQ(count, 0);
}

static void point_to_point(int rank, int size)
{
    const MPI_Datatype null = MPI_DATATYPE_NULL;
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Status st;
    MPI_Request r[2];

    MPI_Irecv(NULL, 0, null, from, 1, MPI_COMM_WORLD, &r[0]);
    MT_CHECK_MPI(MPI_Send(NULL, 0, null, to, 1, MPI_COMM_WORLD));
    MT_CHECK_MPI(MPI_Wait(&r[0], &st));
    check_empty(&st, from, 1);

    MT_CHECK_MPI(MPI_Irecv(NULL, 0, null, from, 2, MPI_COMM_WORLD, &r[0]));
    MT_CHECK_MPI(MPI_Issend(NULL, 0, null, to, 2, MPI_COMM_WORLD, &r[1]));
    MT_CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));

    MT_CHECK_MPI(MPI_Sendrecv(NULL, 0, null, to, 3, NULL, 0, null, from, 3,
                              MPI_COMM_WORLD, &st));
    check_empty(&st, from, 3);

    MT_CHECK_MPI(MPI_Recv_init(NULL, 0, null, from, 4, MPI_COMM_WORLD, &r[0]));
    MT_CHECK_MPI(MPI_Send_init(NULL, 0, null, to, 4, MPI_COMM_WORLD, &r[1]));
    for (int i = 0; i < 2; i++) {
        MT_CHECK_MPI(MPI_Startall(2, r));
        MT_CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);

    MPI_Message msg;
    MPI_Isend(NULL, 0, null, to, 5, MPI_COMM_WORLD, &r[1]);
    MT_CHECK_MPI(MPI_Mprobe(from, 5, MPI_COMM_WORLD, &msg, &st));
    MT_CHECK_MPI(MPI_Mrecv(NULL, 0, null, &msg, &st));
    check_empty(&st, from, 5);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
}

/* Every rank sends its rank to the next one; every other entry is empty
 * and typed MPI_DATATYPE_NULL. */
static void alltoallw(int rank, int size)
{
    int *zeros = calloc((size_t)size, sizeof(int));
    int *sc = calloc((size_t)size, sizeof(int));
    int *rc = calloc((size_t)size, sizeof(int));
    MPI_Datatype *st = malloc((size_t)size * sizeof(MPI_Datatype));
    MPI_Datatype *rt = malloc((size_t)size * sizeof(MPI_Datatype));
    int to = (rank + 1) % size, from = (rank + size - 1) % size, got = -1;
    for (int i = 0; i < size; i++)
        st[i] = rt[i] = MPI_DATATYPE_NULL;
    sc[to] = rc[from] = 1;
    st[to] = rt[from] = MPI_INT;
    MT_CHECK_MPI(MPI_Alltoallw(&rank, sc, zeros, st, &got, rc, zeros, rt,
                               MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(got, from);
    free(zeros);
    free(sc);
    free(rc);
    free(st);
    free(rt);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    point_to_point(rank, size);
    alltoallw(rank, size);
    MT_CHECK_ERR_CLASS(
        MPI_Send(&x, 1, MPI_DATATYPE_NULL, rank, 6, MPI_COMM_WORLD),
        MPI_ERR_TYPE);
    MT_CHECK_ERR_CLASS(MPI_Recv(&x, 1, MPI_DATATYPE_NULL, rank, 6,
                                MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                       MPI_ERR_TYPE);
    return mt_finish_and_finalize();
}
