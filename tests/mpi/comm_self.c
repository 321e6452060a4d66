/*
 * comm_self: point-to-point on MPI_COMM_SELF: sends to self (small and
 * large, receive posted first or sender first), the status source is 0
 * (the rank in SELF, not in WORLD), and SELF traffic does not match WORLD
 * traffic to self.
 */
#include "mpitest.h"

#include <stdlib.h>

/* 1 MiB on the first ranks only: many ranks may share one process. */
static int big_size(int rank)
{
    return rank < 8 ? 1 << 20 : 1 << 16;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);

    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Status st;

    /* Small, sender first. */
    int out = 42 + rank, in = -1;
    MPI_Request req;
    MT_CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, 0, 3, MPI_COMM_SELF, &req));
    MT_CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, 0, 3, MPI_COMM_SELF, &st));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(in, 42 + rank);
    MT_CHECK_INT_EQ(st.MPI_SOURCE, 0);
    MT_CHECK_INT_EQ(st.MPI_TAG, 3);

    /* Large, receive posted first, blocking send. */
    const int big = big_size(rank);
    unsigned char *sbuf = malloc(big), *rbuf = malloc(big);
    mt_fill(sbuf, big, (unsigned)rank);
    memset(rbuf, 0, big);
    MT_CHECK_MPI(MPI_Irecv(rbuf, big, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                           MPI_COMM_SELF, &req));
    MT_CHECK_MPI(MPI_Send(sbuf, big, MPI_BYTE, 0, 9, MPI_COMM_SELF));
    MT_CHECK_MPI(MPI_Wait(&req, &st));
    MT_CHECK_PATTERN(rbuf, big, (unsigned)rank);
    MT_CHECK_INT_EQ(st.MPI_SOURCE, 0);
    MT_CHECK_INT_EQ(st.MPI_TAG, 9);
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    MT_CHECK_INT_EQ(count, big);

    /* Large, sender first. */
    memset(rbuf, 0, big);
    MT_CHECK_MPI(MPI_Isend(sbuf, big, MPI_BYTE, 0, 10, MPI_COMM_SELF, &req));
    MT_CHECK_MPI(MPI_Recv(rbuf, big, MPI_BYTE, 0, 10, MPI_COMM_SELF, &st));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_CHECK_PATTERN(rbuf, big, (unsigned)rank);

    /* Sendrecv with self. */
    in = -1;
    MT_CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, 0, 4, &in, 1, MPI_INT, 0, 4,
                              MPI_COMM_SELF, &st));
    MT_CHECK_INT_EQ(in, 42 + rank);

    /* The same (rank, tag) on WORLD and on SELF: each receive gets its own
     * communicator's message, whichever was sent first. */
    int on_world = 1, on_self = 2;
    MPI_Request reqs[2];
    MPI_Isend(&on_world, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(&on_self, 1, MPI_INT, 0, 5, MPI_COMM_SELF, &reqs[1]);
    in = -1;
    MT_CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                          MPI_COMM_SELF, &st));
    MT_CHECK_INT_EQ(in, 2);
    MT_CHECK_INT_EQ(st.MPI_SOURCE, 0);
    in = -1;
    MT_CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                          MPI_COMM_WORLD, &st));
    MT_CHECK_INT_EQ(in, 1);
    MT_CHECK_INT_EQ(st.MPI_SOURCE, rank);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);

    MT_CHECK_MPI(MPI_Barrier(MPI_COMM_SELF));

    free(sbuf);
    free(rbuf);
    return mt_finish_and_finalize();
}
