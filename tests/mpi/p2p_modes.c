/*
 * p2p_modes: the blocking send modes between partners (rank ^ 1, or self):
 * MPI_Send, MPI_Ssend and MPI_Rsend (the receive posted before a barrier
 * that precedes the send), and MPI_Bsend with MPI_Buffer_attach/detach,
 * where the send buffer may be overwritten as soon as MPI_Bsend returns and
 * detach gives back the attached buffer and size.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { SMALL = 100, LARGE = 40000 }; /* ints; LARGE is 160 KB */

static void fill(int *buf, int n, int seed)
{
    for (int i = 0; i < n; i++)
        buf[i] = seed * 100003 + i;
}

static void check(const int *buf, int n, int seed, const char *what)
{
    for (int i = 0; i < n; i++) {
        if (!MT_CHECK_INT_EQ(buf[i], seed * 100003 + i)) {
            MT_FAIL("%s: element %d of %d", what, i, n);
            return;
        }
    }
}

/* Standard mode, ordered so that the pair cannot deadlock even if MPI_Send
 * does not buffer: the lower rank sends first. */
static void standard(int rank, int partner, int *sbuf, int *rbuf, int n)
{
    MPI_Status st;
    fill(sbuf, n, rank);
    if (partner == rank) {
        MPI_Request req;
        MPI_Irecv(rbuf, n, MPI_INT, partner, 1, MPI_COMM_WORLD, &req);
        MT_CHECK_MPI(MPI_Send(sbuf, n, MPI_INT, partner, 1, MPI_COMM_WORLD));
        MPI_Wait(&req, &st);
    } else if (rank < partner) {
        MT_CHECK_MPI(MPI_Send(sbuf, n, MPI_INT, partner, 1, MPI_COMM_WORLD));
        MT_CHECK_MPI(
            MPI_Recv(rbuf, n, MPI_INT, partner, 1, MPI_COMM_WORLD, &st));
    } else {
        MT_CHECK_MPI(
            MPI_Recv(rbuf, n, MPI_INT, partner, 1, MPI_COMM_WORLD, &st));
        MT_CHECK_MPI(MPI_Send(sbuf, n, MPI_INT, partner, 1, MPI_COMM_WORLD));
    }
    MT_CHECK_INT_EQ(st.MPI_SOURCE, partner);
    MT_CHECK_INT_EQ(st.MPI_TAG, 1);
    check(rbuf, n, partner, "MPI_Send");
}

/* Synchronous mode: the receive is posted first, so it works for self too. */
static void synchronous(int rank, int partner, int *sbuf, int *rbuf, int n)
{
    MPI_Request req;
    MPI_Status st;
    fill(sbuf, n, rank + 7);
    MPI_Irecv(rbuf, n, MPI_INT, partner, 2, MPI_COMM_WORLD, &req);
    MT_CHECK_MPI(MPI_Ssend(sbuf, n, MPI_INT, partner, 2, MPI_COMM_WORLD));
    MT_CHECK_MPI(MPI_Wait(&req, &st));
    MT_CHECK_INT_EQ(st.MPI_SOURCE, partner);
    check(rbuf, n, partner + 7, "MPI_Ssend");
}

/* Ready mode: every receive is posted before the barrier, every send comes
 * after it. */
static void ready(int rank, int partner, int *sbuf, int *rbuf, int n)
{
    MPI_Request req;
    MPI_Status st;
    fill(sbuf, n, rank + 11);
    MPI_Irecv(rbuf, n, MPI_INT, partner, 3, MPI_COMM_WORLD, &req);
    MPI_Barrier(MPI_COMM_WORLD);
    MT_CHECK_MPI(MPI_Rsend(sbuf, n, MPI_INT, partner, 3, MPI_COMM_WORLD));
    MT_CHECK_MPI(MPI_Wait(&req, &st));
    MT_CHECK_INT_EQ(st.MPI_SOURCE, partner);
    check(rbuf, n, partner + 11, "MPI_Rsend");
}

/* Buffered mode: one small and one large message are copied out before
 * MPI_Bsend returns; the sender scribbles over its buffers at once. */
static void buffered(int rank, int partner, int *sbuf, int *rbuf)
{
    int bufsize = (int)((SMALL + LARGE) * sizeof(int)) + 2 * MPI_BSEND_OVERHEAD;
    char *attached = malloc((size_t)bufsize);
    MT_CHECK_MPI(MPI_Buffer_attach(attached, bufsize));

    int *small = malloc(SMALL * sizeof(int));
    fill(small, SMALL, rank + 13);
    fill(sbuf, LARGE, rank + 17);
    MT_CHECK_MPI(MPI_Bsend(small, SMALL, MPI_INT, partner, 4, MPI_COMM_WORLD));
    MT_CHECK_MPI(MPI_Bsend(sbuf, LARGE, MPI_INT, partner, 5, MPI_COMM_WORLD));
    memset(small, 0xff, SMALL * sizeof(int));
    memset(sbuf, 0xff, LARGE * sizeof(int));

    MPI_Status st;
    /* Receive in the opposite order of sending: tags select. */
    MT_CHECK_MPI(
        MPI_Recv(rbuf, LARGE, MPI_INT, partner, 5, MPI_COMM_WORLD, &st));
    check(rbuf, LARGE, partner + 17, "MPI_Bsend large");
    MT_CHECK_MPI(
        MPI_Recv(small, SMALL, MPI_INT, partner, 4, MPI_COMM_WORLD, &st));
    check(small, SMALL, partner + 13, "MPI_Bsend small");

    void *detached = NULL;
    int detached_size = -1;
    MT_CHECK_MPI(MPI_Buffer_detach(&detached, &detached_size));
    MT_CHECK(detached == attached);
    MT_CHECK_INT_EQ(detached_size, bufsize);
    free(attached);
    free(small);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int partner = mt_partner(MPI_COMM_WORLD);

    int *sbuf = malloc(LARGE * sizeof(int));
    int *rbuf = malloc(LARGE * sizeof(int));
    for (int n = SMALL; n <= LARGE; n += LARGE - SMALL) {
        standard(rank, partner, sbuf, rbuf, n);
        synchronous(rank, partner, sbuf, rbuf, n);
        ready(rank, partner, sbuf, rbuf, n);
    }
    buffered(rank, partner, sbuf, rbuf);
    /* A second attach after detach works. */
    buffered(rank, partner, sbuf, rbuf);

    free(sbuf);
    free(rbuf);
    return mt_finish_and_finalize();
}
