/*
 * coll_allgather_alltoall: MPI_Allgather, MPI_Allgatherv, MPI_Alltoall,
 * MPI_Alltoallv, MPI_Alltoallw and their nonblocking forms: regular and
 * irregular counts (gaps between blocks stay untouched), MPI_IN_PLACE, a
 * non-contiguous receive type (every other int) against contiguous sends,
 * and alltoallw with a different type per peer.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { N = 2, HOLE = -7 };

#define RUN(nb, blocking, nonblocking)                                         \
    do {                                                                       \
        if (nb) {                                                              \
            MPI_Request rq = MPI_REQUEST_NULL;                                 \
            MT_CHECK_MPI(nonblocking);                                         \
            MT_CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));                    \
        } else {                                                               \
            MT_CHECK_MPI(blocking);                                            \
        }                                                                      \
    } while (0)

/* Element j of what rank r sends to rank d. */
static int val(int r, int d, int j)
{
    return r * 10000 + d * 10 + j;
}

static void allgather(int rank, int size, int nb, MPI_Datatype every2)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int send[N], *recv = malloc((size_t)size * 3 * sizeof(int));
    int *counts = malloc((size_t)size * sizeof(int));
    int *displs = malloc((size_t)size * sizeof(int));
    for (int j = 0; j < N; j++)
        send[j] = val(rank, 0, j);
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < size * N; i++)
            recv[i] = pass && i / N == rank ? val(rank, 0, i % N) : HOLE;
        const void *sb = pass ? MPI_IN_PLACE : send;
        RUN(nb, MPI_Allgather(sb, N, MPI_INT, recv, N, MPI_INT, w),
            MPI_Iallgather(sb, N, MPI_INT, recv, N, MPI_INT, w, &rq));
        for (int i = 0; i < size * N; i++)
            if (!MT_CHECK_INT_EQ(recv[i], val(i / N, 0, i % N)))
                break;
    }
    /* Into every other int. */
    for (int i = 0; i < size * 3; i++)
        recv[i] = HOLE;
    RUN(nb, MPI_Allgather(send, 2, MPI_INT, recv, 1, every2, w),
        MPI_Iallgather(send, 2, MPI_INT, recv, 1, every2, w, &rq));
    for (int i = 0; i < size * 3; i++) {
        int k = i % 3, want = k == 1 ? HOLE : val(i / 3, 0, k / 2);
        if (!MT_CHECK_INT_EQ(recv[i], want))
            break;
    }
    /* Irregular: rank r gives r % 3 ints (0 included), blocks in reverse
     * order with a hole after each. */
    int off = 0;
    for (int r = size - 1; r >= 0; r--) {
        counts[r] = r % 3;
        displs[r] = off;
        off += counts[r] + 1;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < off; i++)
            recv[i] = HOLE;
        for (int j = 0; pass && j < counts[rank]; j++)
            recv[displs[rank] + j] = val(rank, 0, j);
        const void *sb = pass ? MPI_IN_PLACE : send;
        RUN(nb,
            MPI_Allgatherv(sb, counts[rank], MPI_INT, recv, counts, displs,
                           MPI_INT, w),
            MPI_Iallgatherv(sb, counts[rank], MPI_INT, recv, counts, displs,
                            MPI_INT, w, &rq));
        for (int r = 0; r < size; r++) {
            for (int j = 0; j < counts[r]; j++)
                MT_CHECK_INT_EQ(recv[displs[r] + j], val(r, 0, j));
            MT_CHECK_INT_EQ(recv[displs[r] + counts[r]], HOLE);
        }
    }
    free(displs);
    free(counts);
    free(recv);
}

static void alltoall(int rank, int size, int nb, MPI_Datatype every2)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int *send = malloc((size_t)size * 3 * sizeof(int));
    int *recv = malloc((size_t)size * 3 * sizeof(int));
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < size * N; i++) {
            send[i] = val(rank, i / N, i % N);
            recv[i] = pass ? send[i] : HOLE;
        }
        const void *sb = pass ? MPI_IN_PLACE : send;
        RUN(nb, MPI_Alltoall(sb, N, MPI_INT, recv, N, MPI_INT, w),
            MPI_Ialltoall(sb, N, MPI_INT, recv, N, MPI_INT, w, &rq));
        for (int i = 0; i < size * N; i++)
            if (!MT_CHECK_INT_EQ(recv[i], val(i / N, rank, i % N)))
                break;
    }
    for (int i = 0; i < size * 3; i++)
        recv[i] = HOLE;
    RUN(nb, MPI_Alltoall(send, 2, MPI_INT, recv, 1, every2, w),
        MPI_Ialltoall(send, 2, MPI_INT, recv, 1, every2, w, &rq));
    for (int i = 0; i < size * 3; i++) {
        int k = i % 3, want = k == 1 ? HOLE : val(i / 3, rank, k / 2);
        if (!MT_CHECK_INT_EQ(recv[i], want))
            break;
    }
    free(recv);
    free(send);
}

/* Rank r sends (r + d) % 3 ints to rank d; blocks in reverse order with a
 * hole after each.  Sets counts and displs for the sends (from r) or the
 * receives (at r), returns the buffer length. */
static int v_layout(int r, int size, int sending, int *counts, int *displs)
{
    int off = 0;
    for (int p = size - 1; p >= 0; p--) {
        counts[p] = (r + p) % 3;
        displs[p] = off;
        off += counts[p] + 1;
    }
    (void)sending;
    return off;
}

static void alltoallv(int rank, int size, int nb)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int *sc = malloc((size_t)size * 4 * sizeof(int));
    int *sd = sc + size, *rc = sc + 2 * size, *rd = sc + 3 * size;
    int slen = v_layout(rank, size, 1, sc, sd);
    int rlen = v_layout(rank, size, 0, rc, rd);
    int *send = malloc((size_t)slen * sizeof(int));
    int *recv = malloc((size_t)rlen * sizeof(int));
    for (int d = 0; d < size; d++)
        for (int j = 0; j < sc[d]; j++)
            send[sd[d] + j] = val(rank, d, j);
    for (int pass = 0; pass < 2; pass++) {
        /* In place: the send blocks are the receive blocks, and counts
         * agree since (r + d) % 3 is symmetric. */
        for (int i = 0; i < rlen; i++)
            recv[i] = HOLE;
        for (int d = 0; pass && d < size; d++)
            for (int j = 0; j < rc[d]; j++)
                recv[rd[d] + j] = val(rank, d, j);
        const void *sb = pass ? MPI_IN_PLACE : send;
        RUN(nb, MPI_Alltoallv(sb, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, w),
            MPI_Ialltoallv(sb, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, w, &rq));
        for (int s = 0; s < size; s++) {
            for (int j = 0; j < rc[s]; j++)
                MT_CHECK_INT_EQ(recv[rd[s] + j], val(s, rank, j));
            MT_CHECK_INT_EQ(recv[rd[s] + rc[s]], HOLE);
        }
    }
    free(recv);
    free(send);
    free(sc);
}

/* Value j of a block of type ints (0) or doubles (1). */
static void put(char *b, int dbl, int j, int v)
{
    if (dbl)
        ((double *)b)[j] = v + 0.5;
    else
        ((int *)b)[j] = v;
}

static void check_block(const char *b, int dbl, int j, int v)
{
    if (dbl)
        MT_CHECK_DBL_EQ(((const double *)b)[j], v + 0.5);
    else
        MT_CHECK_INT_EQ(((const int *)b)[j], v);
}

/* Alltoallw with byte displacements in reverse order and a type per peer:
 * rank r sends two ints to even ranks and two doubles to odd ones (each
 * receiver names the type it gets from everyone).  In place, the block for
 * peer p holds type (r + p) % 2, which is the same on both sides. */
static void alltoallw(int rank, int size, int nb)
{
    MPI_Comm w = MPI_COMM_WORLD;
    size_t slot = 2 * sizeof(double);
    int *counts = malloc((size_t)size * 2 * sizeof(int));
    int *dis = counts + size;
    MPI_Datatype *st = malloc((size_t)size * 2 * sizeof(MPI_Datatype));
    MPI_Datatype *rt = st + size;
    char *send = malloc((size_t)size * slot);
    char *recv = malloc((size_t)size * slot);
    for (int pass = 0; pass < 2; pass++) {
        memset(recv, 0, (size_t)size * slot);
        for (int p = 0; p < size; p++) {
            counts[p] = 2;
            dis[p] = (int)((size_t)(size - 1 - p) * slot);
            int sdbl = pass ? (rank + p) % 2 : p % 2;
            st[p] = sdbl ? MPI_DOUBLE : MPI_INT;
            rt[p] = pass ? st[p] : rank % 2 ? MPI_DOUBLE : MPI_INT;
            for (int j = 0; j < 2; j++)
                put((pass ? recv : send) + dis[p], sdbl, j, val(rank, p, j));
        }
        const void *sb = pass ? MPI_IN_PLACE : send;
        RUN(nb, MPI_Alltoallw(sb, counts, dis, st, recv, counts, dis, rt, w),
            MPI_Ialltoallw(sb, counts, dis, st, recv, counts, dis, rt, w, &rq));
        for (int p = 0; p < size; p++) {
            int dbl = pass ? (rank + p) % 2 : rank % 2;
            for (int j = 0; j < 2; j++)
                check_block(recv + dis[p], dbl, j, val(p, rank, j));
        }
    }
    free(recv);
    free(send);
    free(st);
    free(counts);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype every2;
    MPI_Type_vector(2, 1, 2, MPI_INT, &every2);
    MPI_Type_commit(&every2);
    for (int nb = 0; nb < 2; nb++) {
        allgather(rank, size, nb, every2);
        alltoall(rank, size, nb, every2);
        alltoallv(rank, size, nb);
        alltoallw(rank, size, nb);
    }
    MPI_Type_free(&every2);
    return mt_finish_and_finalize();
}
