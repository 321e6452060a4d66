/*
 * coll_levels: the blocking collectives that run in two levels across
 * processes (runtime/coll/levels.c) on communicators whose ranks map
 * to the world differently: MPI_COMM_WORLD, the world in reverse order
 * (each process's ranks are still one block) and the world without its
 * last rank.  Gather(v) and scatter(v) with every root, allgather(v),
 * alltoall (small blocks: two levels; large: one), reduce and
 * reduce-scatter(_block), in place too; the reductions give the bits of
 * MPI_Allreduce.
 */
#include "mpitest.h"

#include <stdlib.h>

static int val(int r, int j)
{
    return r * 1000 + j;
}

/* Rank r's count in the v forms: 0 for every third rank. */
static int vcount(int r)
{
    return r % 3 == 1 ? 0 : r % 4 + 1;
}

static void gathers(MPI_Comm comm, int me, int n, int root)
{
    int send[4], *recv = malloc(sizeof(int) * (size_t)(8 * n + 8));
    int *counts = malloc(sizeof(int) * (size_t)n),
        *displs = malloc(sizeof(int) * (size_t)n);
    for (int j = 0; j < 4; j++)
        send[j] = val(me, j);
    for (int i = 0; i < 8 * n + 8; i++)
        recv[i] = -1;
    MT_CHECK_MPI(MPI_Gather(send, 2, MPI_INT, recv, 2, MPI_INT, root, comm));
    for (int r = 0; me == root && r < n; r++)
        for (int j = 0; j < 2; j++)
            MT_CHECK_INT_EQ(recv[2 * r + j], val(r, j));
    /* v: reversed places with a gap of one between blocks */
    int at = 0;
    for (int r = n - 1; r >= 0; r--) {
        counts[r] = vcount(r);
        displs[r] = at;
        at += counts[r] + 1;
    }
    for (int i = 0; i < 8 * n + 8; i++)
        recv[i] = -1;
    MT_CHECK_MPI(MPI_Gatherv(send, vcount(me), MPI_INT, recv, counts, displs,
                             MPI_INT, root, comm));
    for (int r = 0; me == root && r < n; r++) {
        for (int j = 0; j < counts[r]; j++)
            MT_CHECK_INT_EQ(recv[displs[r] + j], val(r, j));
        MT_CHECK_INT_EQ(recv[displs[r] + counts[r]], -1);
    }
    /* scatter(v) back what was gathered */
    int got[4] = {-1, -1, -1, -1};
    MT_CHECK_MPI(MPI_Scatterv(recv, counts, displs, MPI_INT, got, vcount(me),
                              MPI_INT, root, comm));
    for (int j = 0; j < vcount(me); j++)
        MT_CHECK_INT_EQ(got[j], val(me, j));
    for (int r = 0; me == root && r < n; r++)
        for (int j = 0; j < 2; j++)
            recv[2 * r + j] = val(r, j + 10);
    MT_CHECK_MPI(MPI_Scatter(recv, 2, MPI_INT, me == root ? MPI_IN_PLACE : got,
                             2, MPI_INT, root, comm));
    for (int j = 0; me != root && j < 2; j++)
        MT_CHECK_INT_EQ(got[j], val(me, j + 10));
    free(recv);
    free(counts);
    free(displs);
}

static void allgathers(MPI_Comm comm, int me, int n, MPI_Datatype every2)
{
    int *recv = malloc(sizeof(int) * (size_t)(8 * n + 8));
    int *counts = malloc(sizeof(int) * (size_t)n),
        *displs = malloc(sizeof(int) * (size_t)n);
    int send[2] = {val(me, 0), val(me, 1)};
    /* into every other int of the result (a non-contiguous receive) */
    for (int i = 0; i < 4 * n; i++)
        recv[i] = -1;
    MT_CHECK_MPI(MPI_Allgather(send, 2, MPI_INT, recv, 1, every2, comm));
    for (int r = 0; r < n; r++) {
        MT_CHECK_INT_EQ(recv[4 * r], val(r, 0));
        MT_CHECK_INT_EQ(recv[4 * r + 1], -1);
        MT_CHECK_INT_EQ(recv[4 * r + 2], val(r, 1));
    }
    /* in place */
    for (int i = 0; i < 2 * n; i++)
        recv[i] = i / 2 == me ? val(me, i % 2) : -1;
    MT_CHECK_MPI(
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_INT, recv, 2, MPI_INT, comm));
    for (int i = 0; i < 2 * n; i++)
        MT_CHECK_INT_EQ(recv[i], val(i / 2, i % 2));
    int at = 0;
    for (int r = n - 1; r >= 0; r--) {
        counts[r] = vcount(r);
        displs[r] = at;
        at += counts[r] + 1;
    }
    int sendv[4];
    for (int j = 0; j < 4; j++)
        sendv[j] = val(me, j);
    for (int i = 0; i < at; i++)
        recv[i] = -1;
    MT_CHECK_MPI(MPI_Allgatherv(sendv, vcount(me), MPI_INT, recv, counts,
                                displs, MPI_INT, comm));
    for (int r = 0; r < n; r++) {
        for (int j = 0; j < counts[r]; j++)
            MT_CHECK_INT_EQ(recv[displs[r] + j], val(r, j));
        MT_CHECK_INT_EQ(recv[displs[r] + counts[r]], -1);
    }
    free(recv);
    free(counts);
    free(displs);
}

static void alltoalls(MPI_Comm comm, int me, int n)
{
    for (int k = 1; k <= 512; k *= 8) { /* ints per pair: 1, 8, 64, 512 */
        int *send = malloc(sizeof(int) * (size_t)(k * n));
        int *recv = malloc(sizeof(int) * (size_t)(k * n));
        for (int d = 0; d < n; d++)
            for (int j = 0; j < k; j++)
                send[d * k + j] = val(me, d * 7 + j);
        MT_CHECK_MPI(MPI_Alltoall(send, k, MPI_INT, recv, k, MPI_INT, comm));
        for (int s = 0; s < n; s++)
            for (int j = 0; j < k; j++)
                if (!MT_CHECK_INT_EQ(recv[s * k + j], val(s, me * 7 + j)))
                    break;
        MT_CHECK_MPI(
            MPI_Alltoall(MPI_IN_PLACE, 0, MPI_INT, send, k, MPI_INT, comm));
        for (int s = 0; s < n; s++)
            MT_CHECK_INT_EQ(send[s * k + k - 1], val(s, me * 7 + k - 1));
        free(send);
        free(recv);
    }
}

/* Sums of values that round differently in different orders: reduce and
 * reduce-scatter must give allreduce's bits. */
static void reductions(MPI_Comm comm, int me, int n)
{
    enum { C = 5 };
    double in[C * 64], all[C * 64], out[C * 64];
    for (int i = 0; i < C * n; i++)
        in[i] = 1.0 / (3 + me) + (double)i * 1e-7 + (me % 2 ? 1e12 : -1e12);
    MT_CHECK_MPI(MPI_Allreduce(in, all, C * n, MPI_DOUBLE, MPI_SUM, comm));
    for (int root = 0; root < n; root++) {
        MT_CHECK_MPI(
            MPI_Reduce(in, out, C * n, MPI_DOUBLE, MPI_SUM, root, comm));
        for (int i = 0; me == root && i < C * n; i++)
            MT_CHECK(out[i] == all[i]);
    }
    MT_CHECK_MPI(
        MPI_Reduce_scatter_block(in, out, C, MPI_DOUBLE, MPI_SUM, comm));
    for (int i = 0; i < C; i++)
        MT_CHECK(out[i] == all[me * C + i]);
    int *counts = malloc(sizeof(int) * (size_t)n);
    int off = 0;
    for (int r = 0; r < n; r++) {
        counts[r] = r % C;
        off += r < me ? counts[r] : 0;
    }
    for (int i = 0; i < C * n; i++)
        out[i] = in[i];
    MT_CHECK_MPI(MPI_Reduce_scatter(MPI_IN_PLACE, out, counts, MPI_DOUBLE,
                                    MPI_SUM, comm));
    for (int i = 0; i < counts[me]; i++)
        MT_CHECK(out[i] == all[off + i]);
    free(counts);
}

static void run(MPI_Comm comm, MPI_Datatype every2)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    if (n > 64)
        return;
    for (int root = 0; root < n; root++)
        gathers(comm, me, n, root);
    allgathers(comm, me, n, every2);
    alltoalls(comm, me, n);
    reductions(comm, me, n);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype every2;
    MPI_Type_vector(2, 1, 2, MPI_INT, &every2);
    MPI_Type_create_resized(every2, 0, 4 * sizeof(int), &every2);
    MPI_Type_commit(&every2);
    run(MPI_COMM_WORLD, every2);
    MPI_Comm reversed, fewer;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
    run(reversed, every2);
    MPI_Comm_split(MPI_COMM_WORLD, rank < size - 1 || size == 1 ? 0 : 1, rank,
                   &fewer);
    run(fewer, every2);
    MPI_Comm_free(&reversed);
    MPI_Comm_free(&fewer);
    MPI_Type_free(&every2);
    return mt_finish_and_finalize();
}
