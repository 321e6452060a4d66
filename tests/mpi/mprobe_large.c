/*
 * MPI_Mrecv of messages above the eager size, from a rank of the same PE,
 * another PE or another process: the blocking call returns with the data
 * in the buffer (contiguous and strided receive types), and the status is
 * right.  Every rank sends to its partner and receives from it; the sizes
 * span the eager threshold and the rendezvous protocols.
 */
#include "mpitest.h"

#include <stdlib.h>

static const int sizes[] = {4000, 4097, 65536, 1 << 20};
#define NSIZES (int)(sizeof(sizes) / sizeof(sizes[0]))

/* n bytes from partner into a contiguous buffer. */
static void contiguous(int partner, int n, unsigned seed, int tag)
{
    unsigned char *in = malloc((size_t)n);
    memset(in, 0, (size_t)n);
    MPI_Message msg;
    MPI_Status st;
    MT_CHECK_MPI(MPI_Mprobe(partner, tag, MPI_COMM_WORLD, &msg, &st));
    MT_CHECK_MPI(MPI_Mrecv(in, n, MPI_BYTE, &msg, &st));
    MT_CHECK(msg == MPI_MESSAGE_NULL);
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    MT_CHECK_INT_EQ(count, n);
    MT_CHECK_INT_EQ(st.MPI_SOURCE, partner);
    MT_CHECK_INT_EQ(st.MPI_TAG, tag);
    MT_CHECK_PATTERN(in, (size_t)n, seed);
    free(in);
}

/* n / 4 ints from partner into every other int of a buffer. */
static void strided(int partner, int n, unsigned seed, int tag)
{
    int k = n / 4;
    int *in = calloc((size_t)k * 2, sizeof(int));
    unsigned char *packed = malloc((size_t)k * 4);
    MPI_Datatype every_other;
    MPI_Type_vector(k, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Message msg;
    MPI_Status st;
    MT_CHECK_MPI(MPI_Mprobe(partner, tag, MPI_COMM_WORLD, &msg, &st));
    MT_CHECK_MPI(MPI_Mrecv(in, 1, every_other, &msg, &st));
    for (int i = 0; i < k; i++) {
        memcpy(packed + 4 * i, &in[2 * i], 4);
        if (in[2 * i + 1] != 0) {
            MT_FAIL("gap %d written", i);
            break;
        }
    }
    MT_CHECK_PATTERN(packed, (size_t)k * 4, seed);
    MPI_Type_free(&every_other);
    free(packed);
    free(in);
}

/* Rank r and r + size / 2 are partners (across processes when there are
 * several); the last of an odd number talks to itself. */
static int far_partner(int rank, int size)
{
    int half = size / 2;
    if (rank < half)
        return rank + half;
    return rank < 2 * half ? rank - half : rank;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int partner = far_partner(rank, size);
    for (int i = 0; i < NSIZES; i++) {
        int n = sizes[i];
        unsigned char *out = malloc((size_t)n);
        MPI_Request sreq[2];
        mt_fill(out, (size_t)n, (unsigned)(rank * 16 + i));
        MPI_Isend(out, n, MPI_BYTE, partner, 2 * i, MPI_COMM_WORLD, &sreq[0]);
        MPI_Isend(out, n / 4 * 4, MPI_BYTE, partner, 2 * i + 1, MPI_COMM_WORLD,
                  &sreq[1]);
        unsigned seed = (unsigned)(partner * 16 + i);
        contiguous(partner, n, seed, 2 * i);
        strided(partner, n, seed, 2 * i + 1);
        MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE);
        free(out);
    }
    return mt_finish_and_finalize();
}
