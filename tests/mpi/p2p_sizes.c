/*
 * p2p_sizes: messages of 0, 1, 8, 16, 17, 24, 4095, 4096, 4097 bytes, 64
 * KiB and 4 MiB between partners (rank ^ 1, or self), to cross the
 * transports' thresholds: one line of a node ring (up to 16 bytes of a
 * plain eager message), eager and rendezvous. Each size goes twice: receive
 * posted first (MPI_Irecv, barrier, MPI_Send) and sender first (MPI_Isend,
 * barrier, MPI_Recv). Contents are checked byte by byte, the count in the
 * status is the message size, and guard bytes past the message stay untouched,
 * also when the receive buffer is longer than the message. 4 MiB goes only
 * between the first four ranks: ranks may share memory.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { GUARD = 64, GUARD_BYTE = 0xa5 };

static const int sizes[] = {0,    1,    8,    16,      17,     24,
                            4095, 4096, 4097, 1 << 16, 4 << 20};
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

static void check_received(const unsigned char *rbuf, int n, int seed,
                           const MPI_Status *st, int partner, int tag)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    MT_CHECK_INT_EQ(count, n);
    MT_CHECK_INT_EQ(st->MPI_SOURCE, partner);
    MT_CHECK_INT_EQ(st->MPI_TAG, tag);
    if (!MT_CHECK_PATTERN(rbuf, (size_t)n, (unsigned)seed))
        MT_FAIL("message of %d bytes", n);
    for (int i = 0; i < GUARD; i++) {
        if (!MT_CHECK_INT_EQ(rbuf[n + i], GUARD_BYTE)) {
            MT_FAIL("message of %d bytes overwrote guard byte %d", n, i);
            break;
        }
    }
}

/* The receive buffer has room for n + GUARD bytes. The posted-first receive
 * is for exactly n; the sender-first one for n + GUARD, and a message
 * shorter than the receive buffer modifies only its own bytes. */
static void one_size(int rank, int partner, int n, int active,
                     unsigned char *sbuf, unsigned char *rbuf)
{
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    int seed = rank * 31 + n, pseed = partner * 31 + n;

    if (active) {
        mt_fill(sbuf, (size_t)n, (unsigned)seed);
        memset(rbuf, GUARD_BYTE, (size_t)n + GUARD);
        MPI_Irecv(rbuf, n, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &req);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (active) {
        MT_CHECK_MPI(MPI_Send(sbuf, n, MPI_BYTE, partner, 1, MPI_COMM_WORLD));
        MT_CHECK_MPI(MPI_Wait(&req, &st));
        check_received(rbuf, n, pseed, &st, partner, 1);

        memset(rbuf, GUARD_BYTE, (size_t)n + GUARD);
        MPI_Isend(sbuf, n, MPI_BYTE, partner, 2, MPI_COMM_WORLD, &req);
    }
    /* Every send is under way before any of these receives is posted. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (active) {
        MT_CHECK_MPI(MPI_Recv(rbuf, n + GUARD, MPI_BYTE, partner, 2,
                              MPI_COMM_WORLD, &st));
        check_received(rbuf, n, pseed, &st, partner, 2);
        MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int partner = mt_partner(MPI_COMM_WORLD);

    for (int k = 0; k < NSIZES; k++) {
        int n = sizes[k];
        /* Partners are both below 4 or both at or above it. */
        int active = n <= (1 << 16) || rank < 4;
        unsigned char *sbuf = active ? malloc((size_t)n + 1) : NULL;
        unsigned char *rbuf = active ? malloc((size_t)n + GUARD) : NULL;
        one_size(rank, partner, n, active, sbuf, rbuf);
        free(sbuf);
        free(rbuf);
    }

    return mt_finish_and_finalize();
}
