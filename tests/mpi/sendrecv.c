/*
 * sendrecv: MPI_Sendrecv and MPI_Sendrecv_replace shifting data around the
 * ring (right by one, and left by half the ring), small and 256 KiB, with a
 * receive buffer larger than the message; with self; and along an open
 * chain whose ends send to and receive from MPI_PROC_NULL (empty status,
 * buffer untouched).
 */
#include "mpitest.h"

#include <stdlib.h>

static int value(int sender, int i)
{
    return sender * 1000003 + i;
}

static void check_values(const int *buf, int n, int sender, const char *what)
{
    for (int i = 0; i < n; i++) {
        if (!MT_CHECK_INT_EQ(buf[i], value(sender, i))) {
            MT_FAIL("%s: %d ints from %d, element %d", what, n, sender, i);
            return;
        }
    }
}

static void check_status(const MPI_Status *st, int source, int tag, int n)
{
    int count = -1;
    MPI_Get_count(st, MPI_INT, &count);
    MT_CHECK_INT_EQ(st->MPI_SOURCE, source);
    MT_CHECK_INT_EQ(st->MPI_TAG, tag);
    MT_CHECK_INT_EQ(count, n);
}

/* Tags differ from call to call, so a rank that runs ahead cannot match. */
static void shift(int rank, int size, int n, int dist, int tag)
{
    int dest = (rank + dist) % size, src = (rank - dist % size + size) % size;
    int *sbuf = malloc((size_t)n * sizeof(int));
    int *rbuf = malloc((size_t)(n + 10) * sizeof(int));
    MPI_Status st;

    for (int i = 0; i < n; i++)
        sbuf[i] = value(rank, i);
    MT_CHECK_MPI(MPI_Sendrecv(sbuf, n, MPI_INT, dest, tag, rbuf, n + 10,
                              MPI_INT, src, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    check_status(&st, src, tag, n);
    check_values(rbuf, n, src, "MPI_Sendrecv");
    check_values(sbuf, n, rank, "MPI_Sendrecv send buffer");

    MT_CHECK_MPI(MPI_Sendrecv_replace(sbuf, n, MPI_INT, dest, tag + 1,
                                      MPI_ANY_SOURCE, tag + 1, MPI_COMM_WORLD,
                                      &st));
    check_status(&st, src, tag + 1, n);
    check_values(sbuf, n, src, "MPI_Sendrecv_replace");

    free(sbuf);
    free(rbuf);
}

/* Ranks form an open chain 0 - 1 - ... - size-1; data moves right. */
static void chain(int rank, int size)
{
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    int out[4], in[4] = {-7, -7, -7, -7};
    MPI_Status st;
    for (int i = 0; i < 4; i++)
        out[i] = value(rank, i);

    MT_CHECK_MPI(MPI_Sendrecv(out, 4, MPI_INT, right, 9, in, 4, MPI_INT, left,
                              9, MPI_COMM_WORLD, &st));
    if (left == MPI_PROC_NULL) {
        MT_CHECK_EMPTY_STATUS(st, MPI_PROC_NULL);
        MT_CHECK_INT_EQ(in[0], -7);
        MT_CHECK_INT_EQ(in[3], -7);
    } else {
        check_status(&st, left, 9, 4);
        check_values(in, 4, left, "chain");
    }

    MT_CHECK_MPI(MPI_Sendrecv_replace(out, 4, MPI_INT, right, 10, left, 10,
                                      MPI_COMM_WORLD, &st));
    if (left == MPI_PROC_NULL) {
        MT_CHECK_EMPTY_STATUS(st, MPI_PROC_NULL);
        check_values(out, 4, rank, "chain replace from MPI_PROC_NULL");
    } else {
        check_status(&st, left, 10, 4);
        check_values(out, 4, left, "chain replace");
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    shift(rank, size, 1, 1, 10);
    shift(rank, size, 100, 1, 20);
    shift(rank, size, 65536, 1, 30);
    shift(rank, size, 1000, size / 2, 40);
    shift(rank, size, 1000, 0, 50);
    shift(rank, size, 65536, 0, 60);
    chain(rank, size);

    return mt_finish_and_finalize();
}
