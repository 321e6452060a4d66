/*
 * probe: MPI_Probe and MPI_Iprobe report source, tag and size of a pending
 * message (1 MiB between the first 8 ranks, 4 KiB elsewhere) without
 * receiving it: probing twice sees the same message, and an MPI_Recv of
 * exactly the probed size gets it. Repeated MPI_Iprobe eventually finds a
 * sent message; it finds nothing for a tag never sent. Probing
 * MPI_PROC_NULL returns at once with source MPI_PROC_NULL, tag MPI_ANY_TAG
 * and count 0.
 */
#include "mpitest.h"

#include <stdlib.h>

static int msg_size(int rank)
{
    return rank < 8 ? 1 << 20 : 4096;
}

/* Receives the message st describes, allocating exactly its size. */
static void recv_probed(const MPI_Status *st, int partner, int tag, int seed)
{
    int count = -1;
    MT_CHECK_MPI(MPI_Get_count(st, MPI_INT, &count));
    MT_CHECK_INT_EQ(count, msg_size(partner) / (int)sizeof(int));
    MT_CHECK_INT_EQ(st->MPI_SOURCE, partner);
    MT_CHECK_INT_EQ(st->MPI_TAG, tag);
    if (count < 0)
        return;
    int *buf = malloc((size_t)count * sizeof(int) + 1);
    MPI_Status rst;
    MT_CHECK_MPI(MPI_Recv(buf, count, MPI_INT, st->MPI_SOURCE, st->MPI_TAG,
                          MPI_COMM_WORLD, &rst));
    int rcount = -1;
    MPI_Get_count(&rst, MPI_INT, &rcount);
    MT_CHECK_INT_EQ(rcount, count);
    MT_CHECK_PATTERN(buf, (size_t)count * sizeof(int), (unsigned)seed);
    free(buf);
}

static void blocking_probe(int rank, int partner, const void *sbuf)
{
    MPI_Request req;
    MPI_Status st, st2;
    int n = msg_size(rank) / (int)sizeof(int);
    MPI_Isend(sbuf, n, MPI_INT, partner, 5, MPI_COMM_WORLD, &req);

    MT_CHECK_MPI(MPI_Probe(partner, 5, MPI_COMM_WORLD, &st));
    /* Probe does not consume: the wildcard probe sees the same message. */
    MT_CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st2));
    MT_CHECK_INT_EQ(st2.MPI_SOURCE, partner);
    MT_CHECK_INT_EQ(st2.MPI_TAG, 5);
    recv_probed(&st, partner, 5, partner);
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
}

static void polling_probe(int rank, int partner, const void *sbuf)
{
    MPI_Request req;
    MPI_Status st;
    int n = msg_size(rank) / (int)sizeof(int), flag = 0;
    MPI_Isend(sbuf, n, MPI_INT, partner, 6, MPI_COMM_WORLD, &req);
    MPI_Barrier(MPI_COMM_WORLD);
    /* The message was sent; MPI must make progress until Iprobe sees it. */
    while (!flag)
        MT_CHECK_MPI(
            MPI_Iprobe(partner, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    recv_probed(&st, partner, 6, partner);
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));

    /* Nothing is ever sent with tag 77. */
    flag = 1;
    MT_CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &flag, &st));
    MT_CHECK_INT_EQ(flag, 0);
}

static void proc_null_probe(void)
{
    MPI_Status st;
    int flag = 0;
    MT_CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st));
    MT_CHECK_EMPTY_STATUS(st, MPI_PROC_NULL);
    MT_CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &st));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK_EMPTY_STATUS(st, MPI_PROC_NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int partner = mt_partner(MPI_COMM_WORLD);

    void *sbuf = malloc((size_t)msg_size(rank));
    mt_fill(sbuf, (size_t)msg_size(rank), (unsigned)rank);

    blocking_probe(rank, partner, sbuf);
    polling_probe(rank, partner, sbuf);
    proc_null_probe();

    free(sbuf);
    return mt_finish_and_finalize();
}
