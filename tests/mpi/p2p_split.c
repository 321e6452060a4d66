/*
 * p2p_split: large messages between processes of one node, which the
 * receiver copies together with the sender (AMPI_NODE_SPLIT_COPY,
 * docs/multi-process.md), checked byte by byte:
 *   - sizes at the threshold and around it, and sizes that are no
 *     multiple of the chunks;
 *   - a sender busy computing (no MPI call) while its message is received:
 *     the receiver copies alone, and the request for help reaches the
 *     sender only after the receiver went on to the next message;
 *   - a non-contiguous receive type (copied through a temporary);
 *   - a receive buffer too short (MPI_ERR_TRUNCATE, nothing past it).
 * Rank i pairs with i + size / 2 (in another process under ampirun's
 * blocks of ranks); the lower one is side 0.  A last odd rank only
 * finalizes.
 */
#include "mpitest.h"

#include <stdlib.h>
#include <time.h>

static const int sizes[] = {(256 << 10) - 1, 256 << 10, (1 << 20) + 12345,
                            (3 << 20) + 7};
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

/* Computes for about ms milliseconds without calling MPI. */
static void busy(int ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 <
           ms);
}

static void check_count(const MPI_Status *st, int n)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    MT_CHECK_INT_EQ(count, n);
}

/* Each size both ways, the receive posted first. */
static void sizes_both_ways(int side, int partner, unsigned char *buf)
{
    for (int i = 0; i < NSIZES; i++) {
        int n = sizes[i];
        for (int from = 0; from < 2; from++) {
            MPI_Status st;
            if (side == from) {
                mt_fill(buf, (size_t)n, (unsigned)(i * 2 + from));
                MPI_Send(buf, n, MPI_BYTE, partner, i, MPI_COMM_WORLD);
            } else {
                memset(buf, 0, (size_t)n + 64);
                MPI_Recv(buf, n + 64, MPI_BYTE, partner, i, MPI_COMM_WORLD,
                         &st);
                check_count(&st, n);
                MT_CHECK_PATTERN(buf, (size_t)n, (unsigned)(i * 2 + from));
                for (int k = 0; k < 64; k++)
                    MT_CHECK_INT_EQ(buf[n + k], 0);
            }
        }
    }
}

/* Two messages from a sender that computes 30 ms after posting them. */
static void busy_sender(int side, int partner, unsigned char *buf,
                        unsigned char *buf2)
{
    int n = (2 << 20) + 3;
    if (side == 0) {
        MPI_Request r[2];
        mt_fill(buf, (size_t)n, 11);
        MPI_Isend(buf, n, MPI_BYTE, partner, 100, MPI_COMM_WORLD, &r[0]);
        busy(30);
        mt_fill(buf2, (size_t)n, 12);
        MPI_Isend(buf2, n, MPI_BYTE, partner, 101, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    } else {
        MPI_Status st;
        MPI_Recv(buf, n, MPI_BYTE, partner, 100, MPI_COMM_WORLD, &st);
        check_count(&st, n);
        MT_CHECK_PATTERN(buf, (size_t)n, 11);
        MPI_Recv(buf2, n, MPI_BYTE, partner, 101, MPI_COMM_WORLD, &st);
        check_count(&st, n);
        MT_CHECK_PATTERN(buf2, (size_t)n, 12);
    }
}

/* 128 Ki ints into every other int of the receive buffer. */
static void strided_receive(int side, int partner, unsigned char *buf)
{
    int n = 128 << 10;
    int *v = (int *)buf;
    if (side == 0) {
        for (int i = 0; i < n; i++)
            v[i] = i * 7 + 1;
        MPI_Send(v, n, MPI_INT, partner, 200, MPI_COMM_WORLD);
        return;
    }
    MPI_Datatype every_other;
    MPI_Type_vector(n, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    memset(buf, 0, (size_t)n * 2 * sizeof(int));
    MPI_Recv(v, 1, every_other, partner, 200, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    int bad = 0;
    for (int i = 0; i < n && bad < 5; i++)
        if (v[2 * i] != i * 7 + 1 || v[2 * i + 1] != 0) {
            MT_FAIL("element %d: %d and %d after it", i, v[2 * i],
                    v[2 * i + 1]);
            bad++;
        }
    MPI_Type_free(&every_other);
}

/* 1 MiB into a buffer of 512 KiB: an error, and nothing written past it. */
static void truncated(int side, int partner, unsigned char *buf)
{
    int n = 1 << 20, room = 512 << 10;
    if (side == 0) {
        mt_fill(buf, (size_t)n, 21);
        MPI_Send(buf, n, MPI_BYTE, partner, 300, MPI_COMM_WORLD);
        return;
    }
    memset(buf, 0, (size_t)n);
    MPI_Status st;
    MT_CHECK_ERR_CLASS(MPI_Recv(buf, room, MPI_BYTE, partner, 300,
                                MPI_COMM_WORLD, &st),
                       MPI_ERR_TRUNCATE);
    for (int k = room; k < n; k += 4096)
        MT_CHECK_INT_EQ(buf[k], 0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int half = np / 2, side = me >= half;
    int partner = side ? me - half : me + half;
    size_t max = (4u << 20) + 64;
    unsigned char *buf = malloc(max), *buf2 = malloc(max);
    MT_CHECK(buf && buf2);
    if (me < 2 * half) {
        sizes_both_ways(side, partner, buf);
        busy_sender(side, partner, buf, buf2);
        strided_receive(side, partner, buf);
        truncated(side, partner, buf);
    }
    free(buf);
    free(buf2);
    return mt_finish_and_finalize();
}
