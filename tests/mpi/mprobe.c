/*
 * mprobe: matched probes. MPI_Mprobe/MPI_Improbe take a message out of
 * matching: with two messages of one source and tag, a second probe sees
 * the second message, and the two can be received in reverse order with
 * MPI_Mrecv/MPI_Imrecv, which set the handle to MPI_MESSAGE_NULL. Large
 * messages (1 MiB between the first 8 ranks) work too. MPI_PROC_NULL gives
 * MPI_MESSAGE_NO_PROC, and receiving that returns an empty status.
 */
#include "mpitest.h"

#include <stdlib.h>

static int big_size(int rank)
{
    return rank < 8 ? 1 << 20 : 4096;
}

static void check_count(const MPI_Status *st, int expected)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    MT_CHECK_INT_EQ(count, expected);
}

/* Two messages, same source and tag: A (small) then B (big). With
 * sent_first, a barrier makes sure both are sent before anyone probes. */
static void two_messages(int rank, int partner, int tag, int sent_first)
{
    int big = big_size(rank), pbig = big_size(partner);
    unsigned char a_out[16], a_in[16];
    unsigned char *b_out = malloc((size_t)big), *b_in = malloc((size_t)pbig);
    mt_fill(a_out, sizeof(a_out), (unsigned)rank);
    mt_fill(b_out, (size_t)big, (unsigned)rank + 1000);

    MPI_Request sreqs[2];
    MPI_Isend(a_out, sizeof(a_out), MPI_BYTE, partner, tag, MPI_COMM_WORLD,
              &sreqs[0]);
    MPI_Isend(b_out, big, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &sreqs[1]);
    if (sent_first)
        MPI_Barrier(MPI_COMM_WORLD);

    MPI_Message ma = MPI_MESSAGE_NULL, mb = MPI_MESSAGE_NULL;
    MPI_Status st;
    MT_CHECK_MPI(MPI_Mprobe(partner, tag, MPI_COMM_WORLD, &ma, &st));
    MT_CHECK(ma != MPI_MESSAGE_NULL && ma != MPI_MESSAGE_NO_PROC);
    MT_CHECK_INT_EQ(st.MPI_SOURCE, partner);
    MT_CHECK_INT_EQ(st.MPI_TAG, tag);
    check_count(&st, (int)sizeof(a_in));

    /* A is matched: a plain probe now sees B. */
    MT_CHECK_MPI(MPI_Probe(partner, tag, MPI_COMM_WORLD, &st));
    check_count(&st, pbig);

    int flag = 0;
    while (!flag)
        MT_CHECK_MPI(
            MPI_Improbe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &mb, &st));
    MT_CHECK_INT_EQ(st.MPI_SOURCE, partner);
    check_count(&st, pbig);

    /* Both matched: nothing left to probe. */
    flag = 1;
    MT_CHECK_MPI(
        MPI_Iprobe(partner, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(flag, 0);

    /* Receive B (nonblocking) before A. */
    MPI_Request rreq;
    MT_CHECK_MPI(MPI_Imrecv(b_in, pbig, MPI_BYTE, &mb, &rreq));
    MT_CHECK(mb == MPI_MESSAGE_NULL);
    MT_CHECK_MPI(MPI_Wait(&rreq, &st));
    check_count(&st, pbig);
    MT_CHECK_INT_EQ(st.MPI_SOURCE, partner);
    MT_CHECK_PATTERN(b_in, (size_t)pbig, (unsigned)partner + 1000);

    MT_CHECK_MPI(MPI_Mrecv(a_in, sizeof(a_in), MPI_BYTE, &ma, &st));
    MT_CHECK(ma == MPI_MESSAGE_NULL);
    check_count(&st, (int)sizeof(a_in));
    MT_CHECK_INT_EQ(st.MPI_TAG, tag);
    MT_CHECK_PATTERN(a_in, sizeof(a_in), (unsigned)partner);

    MPI_Waitall(2, sreqs, MPI_STATUSES_IGNORE);
    free(b_out);
    free(b_in);
}

static void proc_null(void)
{
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Status st;
    int flag = 0, buf = 123;

    MT_CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &msg, &st));
    MT_CHECK(msg == MPI_MESSAGE_NO_PROC);
    MT_CHECK_EMPTY_STATUS(st, MPI_PROC_NULL);
    MT_CHECK_MPI(MPI_Mrecv(&buf, 1, MPI_INT, &msg, &st));
    MT_CHECK_EMPTY_STATUS(st, MPI_PROC_NULL);
    MT_CHECK_INT_EQ(buf, 123);

    msg = MPI_MESSAGE_NULL;
    MT_CHECK_MPI(
        MPI_Improbe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &flag, &msg, &st));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK(msg == MPI_MESSAGE_NO_PROC);
    MT_CHECK_EMPTY_STATUS(st, MPI_PROC_NULL);
    MPI_Request req;
    MT_CHECK_MPI(MPI_Imrecv(&buf, 1, MPI_INT, &msg, &req));
    MT_CHECK_MPI(MPI_Wait(&req, &st));
    MT_CHECK_EMPTY_STATUS(st, MPI_PROC_NULL);
    MT_CHECK_INT_EQ(buf, 123);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int partner = mt_partner(MPI_COMM_WORLD);

    /* A new tag each round: the partner may run a round ahead. */
    two_messages(rank, partner, 8, 0);
    two_messages(rank, partner, 9, 1);
    proc_null();

    return mt_finish_and_finalize();
}
