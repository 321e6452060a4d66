/*
 * coll_persistent: MPI-4.0 persistent collectives.  Every _init form
 * (neighborhood ones on a periodic ring) is started several times with
 * the data changing in between; two persistent allreduces are started in
 * opposite orders on odd and even ranks, with other collectives between;
 * a derived datatype freed after the _init call still serves the starts;
 * MPI_Startall, MPI_Test to completion, an inter-communicator; errors name
 * the _init call and an active request cannot be freed.
 */
#include "mpitest.h"

#include <stdlib.h>
#include <string.h>

enum { ITERS = 3, K = 3 };

static int val(int rank, int it, int i)
{
    return rank * 1000 + it * 100 + i;
}

/* Starts *r, waits (or tests to completion when test) and checks. */
static void run(MPI_Request *r, int test)
{
    MT_CHECK_MPI(MPI_Start(r));
    if (!test) {
        MT_CHECK_MPI(MPI_Wait(r, MPI_STATUS_IGNORE));
        return;
    }
    int flag = 0;
    while (!flag)
        MT_CHECK_MPI(MPI_Test(r, &flag, MPI_STATUS_IGNORE));
}

static void rooted(MPI_Comm comm, int rank, int size)
{
    int root = size - 1;
    int *sb = malloc(size * K * sizeof(int)),
        *rb = malloc(size * K * sizeof(int));
    int *counts = malloc(size * sizeof(int)),
        *displs = malloc(size * sizeof(int));
    for (int i = 0; i < size; i++) {
        counts[i] = K;
        displs[i] = (size - 1 - i) * K;
    }
    MPI_Request bc, ga, gv, sc, sv, re;
    int b[K];
    MT_CHECK_MPI(MPI_Bcast_init(b, K, MPI_INT, root, comm, MPI_INFO_NULL, &bc));
    MT_CHECK_MPI(MPI_Gather_init(sb, K, MPI_INT, rb, K, MPI_INT, root, comm,
                                 MPI_INFO_NULL, &ga));
    MT_CHECK_MPI(MPI_Gatherv_init(sb, K, MPI_INT, rb, counts, displs, MPI_INT,
                                  root, comm, MPI_INFO_NULL, &gv));
    MT_CHECK_MPI(MPI_Scatter_init(sb, K, MPI_INT, rb, K, MPI_INT, root, comm,
                                  MPI_INFO_NULL, &sc));
    MT_CHECK_MPI(MPI_Scatterv_init(sb, counts, displs, MPI_INT, rb, K, MPI_INT,
                                   root, comm, MPI_INFO_NULL, &sv));
    MT_CHECK_MPI(MPI_Reduce_init(sb, rb, K, MPI_INT, MPI_SUM, root, comm,
                                 MPI_INFO_NULL, &re));
    /* The arrays belong to the requests now. */
    memset(counts, 0, size * sizeof(int));
    memset(displs, 0, size * sizeof(int));
    for (int it = 0; it < ITERS; it++) {
        for (int i = 0; i < K; i++)
            b[i] = rank == root ? val(root, it, i) : -1;
        run(&bc, it & 1);
        for (int i = 0; i < K; i++)
            MT_CHECK_INT_EQ(b[i], val(root, it, i));
        for (int i = 0; i < K; i++)
            sb[i] = val(rank, it, i);
        run(&ga, 0);
        for (int r = 0; rank == root && r < size; r++)
            for (int i = 0; i < K; i++)
                MT_CHECK_INT_EQ(rb[r * K + i], val(r, it, i));
        run(&gv, 1);
        for (int r = 0; rank == root && r < size; r++)
            for (int i = 0; i < K; i++)
                MT_CHECK_INT_EQ(rb[(size - 1 - r) * K + i], val(r, it, i));
        run(&re, 0);
        for (int i = 0; rank == root && i < K; i++)
            MT_CHECK_INT_EQ(rb[i], size * (size - 1) / 2 * 1000 +
                                       size * (it * 100 + i));
        for (int j = 0; j < size * K; j++)
            sb[j] = val(root, it, j);
        run(&sc, 0);
        for (int i = 0; i < K; i++)
            MT_CHECK_INT_EQ(rb[i], val(root, it, rank * K + i));
        run(&sv, 1);
        for (int i = 0; i < K; i++)
            MT_CHECK_INT_EQ(rb[i], val(root, it, (size - 1 - rank) * K + i));
    }
    MPI_Request all[6] = {bc, ga, gv, sc, sv, re};
    for (int i = 0; i < 6; i++)
        MT_CHECK_MPI(MPI_Request_free(&all[i]));
    free(sb);
    free(rb);
    free(counts);
    free(displs);
}

static void everyone(MPI_Comm comm, int rank, int size)
{
    int n = size * K;
    int *sb = malloc(n * sizeof(int)), *rb = malloc(n * sizeof(int));
    int *counts = malloc(size * sizeof(int)),
        *displs = malloc(size * sizeof(int));
    MPI_Datatype *types = malloc(size * sizeof(MPI_Datatype));
    for (int i = 0; i < size; i++) {
        counts[i] = K;
        displs[i] = i * K;
        types[i] = MPI_INT;
    }
    int *bdispls = malloc(size * sizeof(int));
    for (int i = 0; i < size; i++)
        bdispls[i] = i * K * (int)sizeof(int);
    MPI_Request ag, agv, a2a, a2av, a2aw, rsb, rs, sc, ex, ba;
    MT_CHECK_MPI(MPI_Allgather_init(sb, K, MPI_INT, rb, K, MPI_INT, comm,
                                    MPI_INFO_NULL, &ag));
    MT_CHECK_MPI(MPI_Allgatherv_init(sb, K, MPI_INT, rb, counts, displs,
                                     MPI_INT, comm, MPI_INFO_NULL, &agv));
    MT_CHECK_MPI(MPI_Alltoall_init(sb, K, MPI_INT, rb, K, MPI_INT, comm,
                                   MPI_INFO_NULL, &a2a));
    MT_CHECK_MPI(MPI_Alltoallv_init(sb, counts, displs, MPI_INT, rb, counts,
                                    displs, MPI_INT, comm, MPI_INFO_NULL,
                                    &a2av));
    MT_CHECK_MPI(MPI_Alltoallw_init(sb, counts, bdispls, types, rb, counts,
                                    bdispls, types, comm, MPI_INFO_NULL,
                                    &a2aw));
    MT_CHECK_MPI(MPI_Reduce_scatter_block_init(sb, rb, K, MPI_INT, MPI_SUM,
                                               comm, MPI_INFO_NULL, &rsb));
    MT_CHECK_MPI(MPI_Reduce_scatter_init(sb, rb, counts, MPI_INT, MPI_SUM, comm,
                                         MPI_INFO_NULL, &rs));
    MT_CHECK_MPI(
        MPI_Scan_init(sb, rb, K, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &sc));
    MT_CHECK_MPI(
        MPI_Exscan_init(sb, rb, K, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &ex));
    MT_CHECK_MPI(MPI_Barrier_init(comm, MPI_INFO_NULL, &ba));
    free(counts);
    free(displs);
    free(types);
    free(bdispls);
    for (int it = 0; it < ITERS; it++) {
        for (int i = 0; i < K; i++)
            sb[i] = val(rank, it, i);
        run(&ag, it & 1);
        for (int j = 0; j < n; j++)
            MT_CHECK_INT_EQ(rb[j], val(j / K, it, j % K));
        memset(rb, 0, n * sizeof(int));
        run(&agv, 0);
        for (int j = 0; j < n; j++)
            MT_CHECK_INT_EQ(rb[j], val(j / K, it, j % K));
        for (int j = 0; j < n; j++)
            sb[j] = val(rank, it, j);
        MPI_Request a3[3] = {a2a, a2av, a2aw};
        for (int f = 0; f < 3; f++) {
            memset(rb, 0, n * sizeof(int));
            run(&a3[f], f == 1);
            for (int j = 0; j < n; j++)
                MT_CHECK_INT_EQ(rb[j], val(j / K, it, rank * K + j % K));
        }
        run(&rsb, 0);
        for (int i = 0; i < K; i++)
            MT_CHECK_INT_EQ(rb[i], size * (size - 1) / 2 * 1000 +
                                       size * (it * 100 + rank * K + i));
        run(&rs, 1);
        for (int i = 0; i < K; i++)
            MT_CHECK_INT_EQ(rb[i], size * (size - 1) / 2 * 1000 +
                                       size * (it * 100 + rank * K + i));
        run(&sc, 0);
        for (int i = 0; i < K; i++)
            MT_CHECK_INT_EQ(rb[i], rank * (rank + 1) / 2 * 1000 +
                                       (rank + 1) * (it * 100 + i));
        rb[0] = -7;
        run(&ex, 0);
        if (rank == 0)
            MT_CHECK_INT_EQ(rb[0], -7);
        for (int i = 0; rank > 0 && i < K; i++)
            MT_CHECK_INT_EQ(rb[i], rank * (rank - 1) / 2 * 1000 +
                                       rank * (it * 100 + i));
        run(&ba, 1);
    }
    MPI_Request all[10] = {ag, agv, a2a, a2av, a2aw, rsb, rs, sc, ex, ba};
    for (int i = 0; i < 10; i++)
        MT_CHECK_MPI(MPI_Request_free(&all[i]));
    free(sb);
    free(rb);
}

/* Two persistent allreduces started in either order, a regular
 * collective between them, a derived type freed after the _init, and
 * MPI_Startall. */
static void ordering(MPI_Comm comm, int rank, int size)
{
    MPI_Datatype pair;
    MT_CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    MT_CHECK_MPI(MPI_Type_commit(&pair));
    int a[2], b[2], ra[2], rb[2];
    MPI_Request r[2];
    MT_CHECK_MPI(MPI_Allreduce_init(a, ra, 1, pair, MPI_SUM, comm,
                                    MPI_INFO_NULL, &r[0]));
    MT_CHECK_MPI(MPI_Allreduce_init(b, rb, 2, MPI_INT, MPI_MAX, comm,
                                    MPI_INFO_NULL, &r[1]));
    MT_CHECK_MPI(MPI_Type_free(&pair));
    for (int it = 0; it < ITERS; it++) {
        a[0] = rank + it;
        a[1] = 1;
        b[0] = rank * it;
        b[1] = -rank;
        int first = rank & 1;
        MT_CHECK_MPI(MPI_Start(&r[first]));
        int x = rank, sum = 0;
        MT_CHECK_MPI(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, comm));
        MT_CHECK_INT_EQ(sum, size * (size - 1) / 2);
        MT_CHECK_MPI(MPI_Start(&r[!first]));
        MT_CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        MT_CHECK_INT_EQ(ra[0], size * (size - 1) / 2 + size * it);
        MT_CHECK_INT_EQ(ra[1], size);
        MT_CHECK_INT_EQ(rb[0], (size - 1) * it);
        MT_CHECK_INT_EQ(rb[1], 0);
        MT_CHECK_MPI(MPI_Startall(2, r));
        MT_CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        MT_CHECK_INT_EQ(ra[1], size);
    }
    MT_CHECK_MPI(MPI_Request_free(&r[0]));
    MT_CHECK_MPI(MPI_Request_free(&r[1]));
}

/* The five neighborhood forms on a periodic ring. */
static void neighbors(MPI_Comm comm, int rank, int size)
{
    int dims[1] = {size}, periods[1] = {1};
    MPI_Comm ring;
    MT_CHECK_MPI(MPI_Cart_create(comm, 1, dims, periods, 0, &ring));
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int sb[2], rb[2], counts[2] = {1, 1}, displs[2] = {0, 1};
    MPI_Aint bd[2] = {0, sizeof(int)};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    MPI_Request r[5];
    MT_CHECK_MPI(MPI_Neighbor_allgather_init(sb, 1, MPI_INT, rb, 1, MPI_INT,
                                             ring, MPI_INFO_NULL, &r[0]));
    MT_CHECK_MPI(MPI_Neighbor_allgatherv_init(sb, 1, MPI_INT, rb, counts,
                                              displs, MPI_INT, ring,
                                              MPI_INFO_NULL, &r[1]));
    MT_CHECK_MPI(MPI_Neighbor_alltoall_init(sb, 1, MPI_INT, rb, 1, MPI_INT,
                                            ring, MPI_INFO_NULL, &r[2]));
    MT_CHECK_MPI(MPI_Neighbor_alltoallv_init(sb, counts, displs, MPI_INT, rb,
                                             counts, displs, MPI_INT, ring,
                                             MPI_INFO_NULL, &r[3]));
    MT_CHECK_MPI(MPI_Neighbor_alltoallw_init(sb, counts, bd, types, rb, counts,
                                             bd, types, ring, MPI_INFO_NULL,
                                             &r[4]));
    for (int it = 0; it < ITERS; it++) {
        for (int f = 0; f < 5; f++) {
            /* allgather sends sb[0] both ways; the others sb[0] to the
             * left neighbor and sb[1] to the right. */
            sb[0] = val(rank, it, 0);
            sb[1] = val(rank, it, 1);
            rb[0] = rb[1] = -1;
            run(&r[f], f & 1);
            if (f < 2) {
                MT_CHECK_INT_EQ(rb[0], val(left, it, 0));
                MT_CHECK_INT_EQ(rb[1], val(right, it, 0));
            } else {
                MT_CHECK_INT_EQ(rb[0], val(left, it, 1));
                MT_CHECK_INT_EQ(rb[1], val(right, it, 0));
            }
        }
    }
    for (int f = 0; f < 5; f++)
        MT_CHECK_MPI(MPI_Request_free(&r[f]));
    MT_CHECK_MPI(MPI_Comm_free(&ring));
}

/* An inter-communicator between the even and the odd ranks. */
static void inter(MPI_Comm comm, int rank, int size)
{
    if (size < 2)
        return;
    MPI_Comm half, ic;
    MT_CHECK_MPI(MPI_Comm_split(comm, rank & 1, rank, &half));
    MT_CHECK_MPI(MPI_Intercomm_create(half, 0, comm, !(rank & 1), 5, &ic));
    int hrank, rsize;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_remote_size(ic, &rsize);
    int v = 0, sum = -1;
    MPI_Request r;
    MT_CHECK_MPI(MPI_Allreduce_init(&v, &sum, 1, MPI_INT, MPI_SUM, ic,
                                    MPI_INFO_NULL, &r));
    for (int it = 0; it < ITERS; it++) {
        v = (rank & 1) ? it : 1;
        run(&r, it & 1);
        /* The sum over the other group. */
        MT_CHECK_INT_EQ(sum, (rank & 1) ? rsize : rsize * it);
    }
    MT_CHECK_MPI(MPI_Request_free(&r));
    MT_CHECK_MPI(MPI_Comm_free(&ic));
    MT_CHECK_MPI(MPI_Comm_free(&half));
}

static void errors(MPI_Comm comm, int size)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len, x = 0;
    MPI_Request r = MPI_REQUEST_NULL;
    MT_CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    int rc = MPI_Bcast_init(&x, 1, MPI_INT, size, comm, MPI_INFO_NULL, &r);
    MT_CHECK_ERR_CLASS(rc, MPI_ERR_ROOT);
    MT_CHECK(r == MPI_REQUEST_NULL);
    MPI_Error_string(rc, msg, &len);
    MT_CHECK(strstr(msg, "MPI_Bcast_init") != NULL);
    MT_CHECK_ERR_CLASS(MPI_Barrier_init(comm, MPI_INFO_NULL, NULL),
                       MPI_ERR_ARG);
    MT_CHECK_MPI(MPI_Barrier_init(comm, MPI_INFO_NULL, &r));
    MT_CHECK_MPI(MPI_Start(&r));
    MT_CHECK_ERR_CLASS(MPI_Start(&r), MPI_ERR_REQUEST);
    MT_CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MT_CHECK(r != MPI_REQUEST_NULL);
    MT_CHECK_MPI(MPI_Request_free(&r));
    MT_CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rooted(MPI_COMM_WORLD, rank, size);
    everyone(MPI_COMM_WORLD, rank, size);
    ordering(MPI_COMM_WORLD, rank, size);
    neighbors(MPI_COMM_WORLD, rank, size);
    inter(MPI_COMM_WORLD, rank, size);
    errors(MPI_COMM_WORLD, size);
    return mt_finish_and_finalize();
}
