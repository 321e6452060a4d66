/*
 * topo_neighbor_cart: neighborhood collectives on Cartesian grids of all
 * ranks (MPI_Dims_create), a 2-D torus and a 2-D non-periodic grid, and a
 * 3-D torus.  Neighbor order: per dimension, the negative then the
 * positive direction.  Every value names its sender and the sender's
 * slot, so a block from the wrong neighbor or the wrong direction shows
 * (on 1 or 2 ranks both neighbors of a periodic dimension are one rank:
 * the block sent toward the negative side arrives in the positive slot).
 * On the non-periodic grid the MPI_PROC_NULL slots keep their contents.
 *  - MPI_Neighbor_allgather, _allgatherv (blocks in reverse order with
 *    gaps), _alltoall, _alltoallv (counts differ by slot), _alltoallw (a
 *    strided receive type whose holes stay untouched);
 *  - the nonblocking versions, two at once on the grid, overlapped with a
 *    ring exchange on MPI_COMM_WORLD, completed by one MPI_Waitall;
 *  - blocks of 20 000 bytes (past the eager limit), blocking and not.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { MAXN = 6, BLK = 3, SENTINEL = -7 };

/* The value of element i of the block that rank r sends from out-slot k. */
static int val(int r, int k, int i)
{
    return r * 1000 + k * 10 + i;
}

typedef struct grid {
    MPI_Comm comm;
    int me, n;    /* rank, neighbors (2 * ndims) */
    int nb[MAXN]; /* neighbor per slot, MPI_PROC_NULL off an edge */
} grid_t;

static void grid_make(grid_t *g, int ndims, int periodic)
{
    int size, dims[3] = {0, 0, 0}, periods[3] = {periodic, periodic, periodic};
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, ndims, dims);
    MT_CHECK_MPI(
        MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &g->comm));
    MPI_Comm_rank(g->comm, &g->me);
    g->n = 2 * ndims;
    for (int d = 0; d < ndims; d++)
        MPI_Cart_shift(g->comm, d, 1, &g->nb[2 * d], &g->nb[2 * d + 1]);
}

/* Block j of a receive buffer: from nb[j]'s slot j ^ 1, or untouched. */
static void check_block(const grid_t *g, const int *buf, int j, int count,
                        int slot_in_value, const char *what)
{
    for (int i = 0; i < count; i++) {
        int want = g->nb[j] == MPI_PROC_NULL
                       ? SENTINEL
                       : val(g->nb[j], slot_in_value ? j ^ 1 : 0, i);
        if (!MT_CHECK_INT_EQ(buf[i], want)) {
            MT_FAIL("%s: slot %d element %d", what, j, i);
            return;
        }
    }
}

static void fill(int *buf, int n, int v)
{
    for (int i = 0; i < n; i++)
        buf[i] = v;
}

static void allgathers(const grid_t *g, int *sbuf, int *rbuf)
{
    for (int i = 0; i < BLK; i++)
        sbuf[i] = val(g->me, 0, i);
    fill(rbuf, MAXN * BLK, SENTINEL);
    MT_CHECK_MPI(MPI_Neighbor_allgather(sbuf, BLK, MPI_INT, rbuf, BLK, MPI_INT,
                                        g->comm));
    for (int j = 0; j < g->n; j++)
        check_block(g, rbuf + j * BLK, j, BLK, 0, "allgather");

    /* Blocks in reverse slot order, one int of gap after each. */
    int counts[MAXN], displs[MAXN];
    for (int j = 0; j < g->n; j++) {
        counts[j] = BLK;
        displs[j] = (g->n - 1 - j) * (BLK + 1);
    }
    fill(rbuf, MAXN * (BLK + 1), SENTINEL);
    MT_CHECK_MPI(MPI_Neighbor_allgatherv(sbuf, BLK, MPI_INT, rbuf, counts,
                                         displs, MPI_INT, g->comm));
    for (int j = 0; j < g->n; j++) {
        check_block(g, rbuf + displs[j], j, BLK, 0, "allgatherv");
        MT_CHECK_INT_EQ(rbuf[displs[j] + BLK], SENTINEL);
    }
}

static void alltoalls(const grid_t *g, int *sbuf, int *rbuf)
{
    for (int k = 0; k < g->n; k++)
        for (int i = 0; i < BLK; i++)
            sbuf[k * BLK + i] = val(g->me, k, i);
    fill(rbuf, MAXN * BLK, SENTINEL);
    MT_CHECK_MPI(
        MPI_Neighbor_alltoall(sbuf, BLK, MPI_INT, rbuf, BLK, MPI_INT, g->comm));
    for (int j = 0; j < g->n; j++)
        check_block(g, rbuf + j * BLK, j, BLK, 1, "alltoall");

    /* Out-slot k carries k + 1 ints; in-slot j gets (j ^ 1) + 1. */
    int scounts[MAXN], sdispls[MAXN], rcounts[MAXN], rdispls[MAXN];
    for (int k = 0; k < g->n; k++) {
        scounts[k] = k + 1;
        sdispls[k] = k * MAXN;
        for (int i = 0; i <= k; i++)
            sbuf[k * MAXN + i] = val(g->me, k, i);
        rcounts[k] = (k ^ 1) + 1;
        rdispls[k] = (g->n - 1 - k) * (MAXN + 1);
    }
    fill(rbuf, MAXN * (MAXN + 1), SENTINEL);
    MT_CHECK_MPI(MPI_Neighbor_alltoallv(sbuf, scounts, sdispls, MPI_INT, rbuf,
                                        rcounts, rdispls, MPI_INT, g->comm));
    for (int j = 0; j < g->n; j++) {
        check_block(g, rbuf + rdispls[j], j, rcounts[j], 1, "alltoallv");
        MT_CHECK_INT_EQ(rbuf[rdispls[j] + rcounts[j]], SENTINEL);
    }
}

/* Alltoallw: two ints per slot sent as MPI_INT at byte displacements,
 * received as one element of a vector type (ints 0 and 2 of three). */
static void alltoallw(const grid_t *g, int *sbuf, int *rbuf)
{
    MPI_Datatype strided;
    MPI_Type_vector(2, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    int scounts[MAXN], rcounts[MAXN];
    MPI_Aint sdispls[MAXN], rdispls[MAXN];
    MPI_Datatype stypes[MAXN], rtypes[MAXN];
    for (int k = 0; k < g->n; k++) {
        scounts[k] = 2;
        sdispls[k] = (MPI_Aint)(k * 2 * sizeof(int));
        stypes[k] = MPI_INT;
        sbuf[2 * k] = val(g->me, k, 0);
        sbuf[2 * k + 1] = val(g->me, k, 1);
        rcounts[k] = 1;
        rdispls[k] = (MPI_Aint)(k * 3 * sizeof(int));
        rtypes[k] = strided;
    }
    fill(rbuf, 3 * MAXN, SENTINEL);
    MT_CHECK_MPI(MPI_Neighbor_alltoallw(sbuf, scounts, sdispls, stypes, rbuf,
                                        rcounts, rdispls, rtypes, g->comm));
    MPI_Type_free(&strided);
    for (int j = 0; j < g->n; j++) {
        int got[2] = {rbuf[3 * j], rbuf[3 * j + 2]};
        check_block(g, got, j, 2, 1, "alltoallw");
        MT_CHECK_INT_EQ(rbuf[3 * j + 1], SENTINEL);
    }
}

/* Ineighbor_alltoall and Ineighbor_allgather in flight together with a
 * ring exchange on MPI_COMM_WORLD. */
static void nonblocking(const grid_t *g, int *sbuf, int *rbuf)
{
    int world, wsize, ring_in = -1, ring_out;
    int *rbuf2 = rbuf + MAXN * BLK, *sbuf2 = sbuf + MAXN * BLK;
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    ring_out = world;
    for (int k = 0; k < g->n; k++)
        for (int i = 0; i < BLK; i++)
            sbuf[k * BLK + i] = val(g->me, k, i);
    for (int i = 0; i < BLK; i++)
        sbuf2[i] = val(g->me, 0, i);
    fill(rbuf, 2 * MAXN * BLK, SENTINEL);
    MPI_Request reqs[4];
    MT_CHECK_MPI(MPI_Irecv(&ring_in, 1, MPI_INT, (world + wsize - 1) % wsize, 5,
                           MPI_COMM_WORLD, &reqs[0]));
    MT_CHECK_MPI(MPI_Ineighbor_alltoall(sbuf, BLK, MPI_INT, rbuf, BLK, MPI_INT,
                                        g->comm, &reqs[1]));
    MT_CHECK_MPI(MPI_Ineighbor_allgather(sbuf2, BLK, MPI_INT, rbuf2, BLK,
                                         MPI_INT, g->comm, &reqs[2]));
    MT_CHECK_MPI(MPI_Isend(&ring_out, 1, MPI_INT, (world + 1) % wsize, 5,
                           MPI_COMM_WORLD, &reqs[3]));
    MT_CHECK_MPI(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
    MT_CHECK_INT_EQ(ring_in, (world + wsize - 1) % wsize);
    for (int j = 0; j < g->n; j++) {
        check_block(g, rbuf + j * BLK, j, BLK, 1, "ineighbor_alltoall");
        check_block(g, rbuf2 + j * BLK, j, BLK, 0, "ineighbor_allgather");
    }

    /* The other nonblocking forms, each completed by MPI_Wait. */
    int counts[MAXN], displs[MAXN];
    MPI_Aint bdispls[MAXN];
    MPI_Datatype types[MAXN];
    for (int j = 0; j < g->n; j++) {
        counts[j] = BLK;
        displs[j] = j * BLK;
        bdispls[j] = (MPI_Aint)(j * BLK * sizeof(int));
        types[j] = MPI_INT;
    }
    for (int form = 0; form < 3; form++) {
        MPI_Request req;
        fill(rbuf, MAXN * BLK, SENTINEL);
        if (form == 0)
            MT_CHECK_MPI(MPI_Ineighbor_allgatherv(sbuf2, BLK, MPI_INT, rbuf,
                                                  counts, displs, MPI_INT,
                                                  g->comm, &req));
        else if (form == 1)
            MT_CHECK_MPI(MPI_Ineighbor_alltoallv(sbuf, counts, displs, MPI_INT,
                                                 rbuf, counts, displs, MPI_INT,
                                                 g->comm, &req));
        else
            MT_CHECK_MPI(MPI_Ineighbor_alltoallw(sbuf, counts, bdispls, types,
                                                 rbuf, counts, bdispls, types,
                                                 g->comm, &req));
        MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int j = 0; j < g->n; j++)
            check_block(g, rbuf + j * BLK, j, BLK, form != 0, "ineighbor v/w");
    }
}

/* Blocks past the eager limit (rendezvous), through MPI_Neighbor_alltoall
 * and MPI_Ineighbor_alltoall. */
static void big_blocks(const grid_t *g)
{
    enum { BIG = 5000 };
    int *sbuf = malloc(MAXN * BIG * sizeof(int));
    int *rbuf = malloc(MAXN * BIG * sizeof(int));
    for (int k = 0; k < g->n; k++)
        for (int i = 0; i < BIG; i++)
            sbuf[k * BIG + i] = g->me * 1000000 + k * 100000 + i;
    for (int nb = 0; nb < 2; nb++) {
        fill(rbuf, MAXN * BIG, SENTINEL);
        if (nb) {
            MPI_Request req;
            MT_CHECK_MPI(MPI_Ineighbor_alltoall(sbuf, BIG, MPI_INT, rbuf, BIG,
                                                MPI_INT, g->comm, &req));
            MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            MT_CHECK_MPI(MPI_Neighbor_alltoall(sbuf, BIG, MPI_INT, rbuf, BIG,
                                               MPI_INT, g->comm));
        }
        for (int j = 0; j < g->n; j++) {
            for (int i = 0; i < BIG; i++) {
                int want = g->nb[j] == MPI_PROC_NULL
                               ? SENTINEL
                               : g->nb[j] * 1000000 + (j ^ 1) * 100000 + i;
                if (!MT_CHECK_INT_EQ(rbuf[j * BIG + i], want)) {
                    MT_FAIL("big alltoall: slot %d element %d", j, i);
                    break;
                }
            }
        }
    }
    free(sbuf);
    free(rbuf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int *sbuf = malloc(4 * MAXN * (MAXN + 1) * sizeof(int));
    int *rbuf = malloc(4 * MAXN * (MAXN + 1) * sizeof(int));

    for (int shape = 0; shape < 3; shape++) {
        grid_t g;
        grid_make(&g, shape == 2 ? 3 : 2, shape != 1);
        allgathers(&g, sbuf, rbuf);
        alltoalls(&g, sbuf, rbuf);
        alltoallw(&g, sbuf, rbuf);
        nonblocking(&g, sbuf, rbuf);
        big_blocks(&g);
        MPI_Comm_free(&g.comm);
    }

    free(sbuf);
    free(rbuf);
    return mt_finish_and_finalize();
}
