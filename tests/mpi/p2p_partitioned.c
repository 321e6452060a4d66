/*
 * p2p_partitioned: MPI-4.0 partitioned communication between partners
 * (rank ^ 1, or self).  The partitions are marked ready one by one in
 * reverse order, by ranges and by lists, over several starts; the two
 * sides partition the same buffer size differently; MPI_Parrived says
 * false before the data can have come and true once it has; a wildcard
 * receive of ordinary messages posted meanwhile never gets a partitioned
 * message; MPI_PROC_NULL; the errors of MPI_Pready and MPI_Parrived, and
 * MPI_Parrived on an inactive request and on MPI_REQUEST_NULL (true).
 * Requests of one peer and tag pair in the order of their _init calls,
 * whatever order they are started in (MPICH's part/multipart).
 */
#include "mpitest.h"

#include <stdlib.h>
#include <string.h>

enum { SPARTS = 4, SCOUNT = 6, RPARTS = 3, RCOUNT = 8, N = 24, ITERS = 4 };

static int val(int rank, int it, int i)
{
    return rank * 10000 + it * 100 + i;
}

static void exchange(int rank, int partner)
{
    int *out = malloc(N * sizeof(int)), *in = malloc(N * sizeof(int));
    MPI_Request s, r, any;
    int any_buf = -1;
    MT_CHECK_MPI(MPI_Psend_init(out, SPARTS, SCOUNT, MPI_INT, partner, 5,
                                MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    MT_CHECK_MPI(MPI_Precv_init(in, RPARTS, RCOUNT, MPI_INT, partner, 5,
                                MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    /* Must get the ordinary message sent at the end, nothing else. */
    MT_CHECK_MPI(MPI_Irecv(&any_buf, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                           MPI_COMM_WORLD, &any));
    for (int it = 0; it < ITERS; it++) {
        for (int i = 0; i < N; i++) {
            out[i] = val(rank, it, i);
            in[i] = -1;
        }
        MT_CHECK_MPI(MPI_Start(&r));
        MT_CHECK_MPI(MPI_Start(&s));
        int flag = 1;
        MT_CHECK_MPI(MPI_Parrived(r, 0, &flag));
        if (partner != rank)
            MT_CHECK_INT_EQ(flag, 0); /* nothing was sent yet */
        MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (it % 3 == 0) {
            for (int p = SPARTS - 1; p >= 0; p--)
                MT_CHECK_MPI(MPI_Pready(p, s));
        } else if (it % 3 == 1) {
            MT_CHECK_MPI(MPI_Pready_range(1, SPARTS - 1, s));
            MT_CHECK_MPI(MPI_Pready_range(0, 0, s));
        } else {
            int list[SPARTS] = {2, 0, 3, 1};
            MT_CHECK_MPI(MPI_Pready_list(2, list, s));
            MT_CHECK_MPI(MPI_Pready_list(2, list + 2, s));
        }
        flag = 0;
        while (!flag)
            MT_CHECK_MPI(MPI_Parrived(r, RPARTS - 1, &flag));
        for (int i = 0; i < N; i++)
            MT_CHECK_INT_EQ(in[i], val(partner, it, i));
        MPI_Status st[2];
        MPI_Request both[2] = {s, r};
        MT_CHECK_MPI(MPI_Waitall(2, both, st));
        MT_CHECK_INT_EQ(st[1].MPI_SOURCE, partner);
        MT_CHECK_INT_EQ(st[1].MPI_TAG, 5);
        int count = -1;
        MT_CHECK_MPI(MPI_Get_count(&st[1], MPI_INT, &count));
        MT_CHECK_INT_EQ(count, N);
    }
    int flag = 1;
    MT_CHECK_MPI(MPI_Test(&any, &flag, MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(flag, 0);
    MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* everyone has tested */
    int v = 77;
    MT_CHECK_MPI(MPI_Send(&v, 1, MPI_INT, partner, 9, MPI_COMM_WORLD));
    MT_CHECK_MPI(MPI_Wait(&any, MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(any_buf, 77);
    MT_CHECK_MPI(MPI_Request_free(&s));
    MT_CHECK_MPI(MPI_Request_free(&r));
    free(out);
    free(in);
}

static void proc_null(void)
{
    int buf[4];
    MPI_Request s, r;
    MPI_Status st;
    MT_CHECK_MPI(MPI_Psend_init(buf, 2, 2, MPI_INT, MPI_PROC_NULL, 0,
                                MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    MT_CHECK_MPI(MPI_Precv_init(buf, 2, 2, MPI_INT, MPI_PROC_NULL, 0,
                                MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    MT_CHECK_MPI(MPI_Start(&s));
    MT_CHECK_MPI(MPI_Start(&r));
    MT_CHECK_MPI(MPI_Pready_range(0, 1, s));
    MT_CHECK_MPI(MPI_Wait(&s, &st));
    MT_CHECK_MPI(MPI_Wait(&r, &st));
    MT_CHECK_EMPTY_STATUS(st, MPI_PROC_NULL);
    MT_CHECK_MPI(MPI_Request_free(&s));
    MT_CHECK_MPI(MPI_Request_free(&r));
}

static void errors(int rank)
{
    int buf[4];
    MPI_Request s, r;
    MT_CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MT_CHECK_ERR_CLASS(MPI_Psend_init(buf, 0, 2, MPI_INT, rank, 0,
                                      MPI_COMM_WORLD, MPI_INFO_NULL, &s),
                       MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Precv_init(buf, 2, 2, MPI_INT, MPI_ANY_SOURCE, 0,
                                      MPI_COMM_WORLD, MPI_INFO_NULL, &r),
                       MPI_ERR_RANK);
    MT_CHECK_ERR_CLASS(MPI_Precv_init(buf, 2, 2, MPI_INT, rank, MPI_ANY_TAG,
                                      MPI_COMM_WORLD, MPI_INFO_NULL, &r),
                       MPI_ERR_TAG);
    MT_CHECK_MPI(MPI_Psend_init(buf, 2, 2, MPI_INT, rank, 3, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &s));
    MT_CHECK_MPI(MPI_Precv_init(buf, 2, 2, MPI_INT, rank, 3, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &r));
    MT_CHECK_ERR_CLASS(MPI_Pready(0, s), MPI_ERR_REQUEST); /* not started */
    MT_CHECK_MPI(MPI_Start(&s));
    MT_CHECK_MPI(MPI_Start(&r));
    MT_CHECK_ERR_CLASS(MPI_Pready(2, s), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Pready_range(1, 0, s), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Pready(0, r), MPI_ERR_REQUEST);
    MT_CHECK_ERR_CLASS(MPI_Parrived(s, 0, NULL), MPI_ERR_REQUEST);
    MT_CHECK_MPI(MPI_Pready(0, s));
    MT_CHECK_ERR_CLASS(MPI_Pready(0, s), MPI_ERR_ARG); /* twice */
    MT_CHECK_MPI(MPI_Pready(1, s));
    int flag;
    MT_CHECK_ERR_CLASS(MPI_Parrived(r, 5, &flag), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Cancel(&r), MPI_ERR_REQUEST);
    MT_CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
    MT_CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    /* MPI-4.0 4.2.2: a null or inactive request has arrived. */
    flag = 0;
    MT_CHECK_MPI(MPI_Parrived(r, 1, &flag));
    MT_CHECK_INT_EQ(flag, 1);
    flag = 0;
    MT_CHECK_MPI(MPI_Parrived(MPI_REQUEST_NULL, 0, &flag));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK_ERR_CLASS(MPI_Parrived(MPI_REQUEST_NULL, 0, NULL), MPI_ERR_ARG);
    MT_CHECK_MPI(MPI_Request_free(&s));
    MT_CHECK_MPI(MPI_Request_free(&r));
    MT_CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Three sends and three receives of one (partner, tag), made in the
 * same order on both sides; the sends started in the order 2, 0, 1, the
 * receives 0, 1, 2: the k-th send's data goes to the k-th receive. */
static void init_order(int rank, int partner)
{
    enum { K = 3, M = 8 };
    int out[K][M], in[K][M];
    MPI_Request s[K], r[K];
    for (int k = 0; k < K; k++) {
        MT_CHECK_MPI(MPI_Psend_init(out[k], 2, M / 2, MPI_INT, partner, 9,
                                    MPI_COMM_WORLD, MPI_INFO_NULL, &s[k]));
        MT_CHECK_MPI(MPI_Precv_init(in[k], 1, M, MPI_INT, partner, 9,
                                    MPI_COMM_WORLD, MPI_INFO_NULL, &r[k]));
    }
    for (int k = 0; k < K; k++) {
        memset(in[k], 0xff, sizeof(in[k]));
        MT_CHECK_MPI(MPI_Start(&r[k]));
    }
    const int order[K] = {2, 0, 1};
    for (int j = 0; j < K; j++) {
        int k = order[j];
        for (int i = 0; i < M; i++)
            out[k][i] = val(rank, k, i);
        MT_CHECK_MPI(MPI_Start(&s[k]));
        MT_CHECK_MPI(MPI_Pready_range(0, 1, s[k]));
    }
    MT_CHECK_MPI(MPI_Waitall(K, s, MPI_STATUSES_IGNORE));
    MT_CHECK_MPI(MPI_Waitall(K, r, MPI_STATUSES_IGNORE));
    for (int k = 0; k < K; k++) {
        for (int i = 0; i < M; i++)
            if (!MT_CHECK_INT_EQ(in[k][i], val(partner, k, i)))
                break;
        MPI_Request_free(&s[k]);
        MPI_Request_free(&r[k]);
    }
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    exchange(rank, mt_partner(MPI_COMM_WORLD));
    init_order(rank, mt_partner(MPI_COMM_WORLD));
    proc_null();
    errors(rank);
    return mt_finish_and_finalize();
}
