/*
 * coll_gather_scatter: MPI_Gather, MPI_Gatherv, MPI_Scatter, MPI_Scatterv
 * and their nonblocking forms, for every root: regular blocks, MPI_IN_PLACE
 * at the root, irregular counts with displacements in reverse order and
 * gaps (which must stay untouched), and a non-contiguous receive type
 * (every other int) against a contiguous send type of the same size.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { N = 3, HOLE = -7 };

#define RUN(nb, blocking, nonblocking)                                         \
    do {                                                                       \
        if (nb) {                                                              \
            MPI_Request rq = MPI_REQUEST_NULL;                                 \
            MT_CHECK_MPI(nonblocking);                                         \
            MT_CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));                    \
            MT_CHECK(rq == MPI_REQUEST_NULL);                                  \
        } else {                                                               \
            MT_CHECK_MPI(blocking);                                            \
        }                                                                      \
    } while (0)

static int val(int r, int j)
{
    return r * 1000 + j;
}

/* Irregular layout: rank r has r % 4 + 1 elements; blocks in reverse rank
 * order with one hole between each. */
static void layout(int size, int *counts, int *displs, int *total)
{
    int off = 0;
    for (int r = size - 1; r >= 0; r--) {
        counts[r] = r % 4 + 1;
        displs[r] = off;
        off += counts[r] + 1;
    }
    *total = off;
}

static void gather(int rank, int size, int root, int nb, MPI_Datatype every2)
{
    int send[N], *recv = malloc((size_t)size * 2 * N * sizeof(int));
    for (int j = 0; j < N; j++)
        send[j] = val(rank, j);
    for (int i = 0; i < size * 2 * N; i++)
        recv[i] = HOLE;
    RUN(nb,
        MPI_Gather(send, N, MPI_INT, recv, N, MPI_INT, root, MPI_COMM_WORLD),
        MPI_Igather(send, N, MPI_INT, recv, N, MPI_INT, root, MPI_COMM_WORLD,
                    &rq));
    for (int i = 0; rank == root && i < size * N; i++)
        if (!MT_CHECK_INT_EQ(recv[i], val(i / N, i % N)))
            break;
    /* In place: the root's own block is already where it belongs. */
    for (int i = 0; i < size * N; i++)
        recv[i] = rank == root && i / N == root ? val(root, i % N) : HOLE;
    const void *sb = rank == root ? MPI_IN_PLACE : send;
    RUN(nb, MPI_Gather(sb, N, MPI_INT, recv, N, MPI_INT, root, MPI_COMM_WORLD),
        MPI_Igather(sb, N, MPI_INT, recv, N, MPI_INT, root, MPI_COMM_WORLD,
                    &rq));
    for (int i = 0; rank == root && i < size * N; i++)
        if (!MT_CHECK_INT_EQ(recv[i], val(i / N, i % N)))
            break;
    /* Two ints from each rank into every other int of a 2x stride. */
    for (int i = 0; i < size * 4; i++)
        recv[i] = HOLE;
    RUN(nb, MPI_Gather(send, 2, MPI_INT, recv, 1, every2, root, MPI_COMM_WORLD),
        MPI_Igather(send, 2, MPI_INT, recv, 1, every2, root, MPI_COMM_WORLD,
                    &rq));
    for (int i = 0; rank == root && i < size * 3; i++) {
        int r = i / 3, k = i % 3;
        int want = k == 0 ? val(r, 0) : k == 2 ? val(r, 1) : HOLE;
        if (!MT_CHECK_INT_EQ(recv[i], want))
            break;
    }
    free(recv);
}

static void gatherv(int rank, int size, int root, int nb)
{
    int *counts = malloc((size_t)size * sizeof(int));
    int *displs = malloc((size_t)size * sizeof(int));
    int total, send[4];
    layout(size, counts, displs, &total);
    int *recv = malloc((size_t)total * sizeof(int));
    for (int j = 0; j < counts[rank]; j++)
        send[j] = val(rank, j);
    for (int pass = 0; pass < 2; pass++) {
        int in_place = pass == 1 && rank == root;
        for (int i = 0; i < total; i++)
            recv[i] = HOLE;
        if (in_place)
            for (int j = 0; j < counts[root]; j++)
                recv[displs[root] + j] = val(root, j);
        const void *sb = in_place ? MPI_IN_PLACE : send;
        RUN(nb,
            MPI_Gatherv(sb, counts[rank], MPI_INT, recv, counts, displs,
                        MPI_INT, root, MPI_COMM_WORLD),
            MPI_Igatherv(sb, counts[rank], MPI_INT, recv, counts, displs,
                         MPI_INT, root, MPI_COMM_WORLD, &rq));
        if (rank != root)
            continue;
        for (int r = 0; r < size; r++) {
            for (int j = 0; j < counts[r]; j++)
                MT_CHECK_INT_EQ(recv[displs[r] + j], val(r, j));
            if (displs[r] > 0)
                MT_CHECK_INT_EQ(recv[displs[r] - 1], HOLE);
        }
    }
    free(recv);
    free(displs);
    free(counts);
}

static void scatter(int rank, int size, int root, int nb, MPI_Datatype every2)
{
    int *send = malloc((size_t)size * 3 * N * sizeof(int)), recv[N];
    for (int i = 0; i < size * N; i++)
        send[i] = val(i / N, i % N);
    for (int j = 0; j < N; j++)
        recv[j] = HOLE;
    RUN(nb,
        MPI_Scatter(send, N, MPI_INT, recv, N, MPI_INT, root, MPI_COMM_WORLD),
        MPI_Iscatter(send, N, MPI_INT, recv, N, MPI_INT, root, MPI_COMM_WORLD,
                     &rq));
    for (int j = 0; j < N; j++)
        MT_CHECK_INT_EQ(recv[j], val(rank, j));
    /* In place at the root: its block of sendbuf stays as it is. */
    void *rb = rank == root ? MPI_IN_PLACE : recv;
    for (int j = 0; j < N; j++)
        recv[j] = HOLE;
    RUN(nb, MPI_Scatter(send, N, MPI_INT, rb, N, MPI_INT, root, MPI_COMM_WORLD),
        MPI_Iscatter(send, N, MPI_INT, rb, N, MPI_INT, root, MPI_COMM_WORLD,
                     &rq));
    for (int j = 0; j < N; j++)
        MT_CHECK_INT_EQ(recv[j], rank == root ? HOLE : val(rank, j));
    for (int i = 0; i < size * N; i++)
        MT_CHECK_INT_EQ(send[i], val(i / N, i % N));
    /* Every other int of the root's buffer, two contiguous ints here. */
    for (int i = 0; i < size * 3; i++)
        send[i] = i % 3 == 1 ? HOLE : val(i / 3, i % 3 / 2);
    RUN(nb,
        MPI_Scatter(send, 1, every2, recv, 2, MPI_INT, root, MPI_COMM_WORLD),
        MPI_Iscatter(send, 1, every2, recv, 2, MPI_INT, root, MPI_COMM_WORLD,
                     &rq));
    MT_CHECK_INT_EQ(recv[0], val(rank, 0));
    MT_CHECK_INT_EQ(recv[1], val(rank, 1));
    free(send);
}

static void scatterv(int rank, int size, int root, int nb)
{
    int *counts = malloc((size_t)size * sizeof(int));
    int *displs = malloc((size_t)size * sizeof(int));
    int total, recv[5];
    layout(size, counts, displs, &total);
    int *send = malloc((size_t)total * sizeof(int));
    for (int i = 0; i < total; i++)
        send[i] = HOLE;
    for (int r = 0; r < size; r++)
        for (int j = 0; j < counts[r]; j++)
            send[displs[r] + j] = val(r, j);
    for (int pass = 0; pass < 2; pass++) {
        int in_place = pass == 1 && rank == root;
        for (int j = 0; j < 5; j++)
            recv[j] = HOLE;
        void *rb = in_place ? MPI_IN_PLACE : recv;
        RUN(nb,
            MPI_Scatterv(send, counts, displs, MPI_INT, rb, counts[rank],
                         MPI_INT, root, MPI_COMM_WORLD),
            MPI_Iscatterv(send, counts, displs, MPI_INT, rb, counts[rank],
                          MPI_INT, root, MPI_COMM_WORLD, &rq));
        for (int j = 0; j < 5; j++) {
            int want = j < counts[rank] && !in_place ? val(rank, j) : HOLE;
            MT_CHECK_INT_EQ(recv[j], want);
        }
    }
    free(send);
    free(displs);
    free(counts);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype every2; /* ints 0 and 2 of 3 (extent 3 ints) */
    MPI_Type_vector(2, 1, 2, MPI_INT, &every2);
    MPI_Type_commit(&every2);
    for (int nb = 0; nb < 2; nb++) {
        for (int root = 0; root < size; root++) {
            gather(rank, size, root, nb, every2);
            gatherv(rank, size, root, nb);
            scatter(rank, size, root, nb, every2);
            scatterv(rank, size, root, nb);
        }
    }
    MPI_Type_free(&every2);
    return mt_finish_and_finalize();
}
