/*
 * MPI_Comm_disconnect: this rank's pending operations on the communicator
 * (nonblocking sends and receives, one freed with MPI_Request_free, a
 * started persistent receive, nonblocking collectives) are complete when
 * it returns, before any wait; the handle becomes MPI_COMM_NULL and the
 * requests are then completed or freed as usual.  It works on an
 * inter-communicator too, and refuses MPI_COMM_WORLD, MPI_COMM_SELF and
 * MPI_COMM_NULL with MPI_ERR_COMM.
 */
#include "mpitest.h"

#include <stdlib.h>

#define N 4096 /* ints: more than an eager message */

static void intra(int rank, int size)
{
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int *out = malloc(N * sizeof(int)), *in = malloc(N * sizeof(int));
    int *out2 = malloc(N * sizeof(int)), *in2 = malloc(N * sizeof(int));
    for (int i = 0; i < N; i++) {
        out[i] = rank * N + i;
        out2[i] = -rank * N - i;
        in[i] = in2[i] = -1;
    }
    int mine = rank + 1, sum = 0, small = -1, smallout = 7 * rank;
    MPI_Request r[6], freed;
    MPI_Irecv(in, N, MPI_INT, from, 1, dup, &r[0]);
    MPI_Recv_init(in2, N, MPI_INT, from, 2, dup, &r[1]);
    MPI_Start(&r[1]);
    MPI_Irecv(&small, 1, MPI_INT, to, 3, dup, &r[2]);
    MPI_Issend(out, N, MPI_INT, to, 1, dup, &r[3]);
    MPI_Iallreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, dup, &r[4]);
    MPI_Ibarrier(dup, &r[5]);
    MPI_Isend(out2, N, MPI_INT, to, 2, dup, &freed);
    MPI_Request_free(&freed);
    MPI_Send(&smallout, 1, MPI_INT, from, 3, dup);

    MT_CHECK_INT_EQ(MPI_Comm_disconnect(&dup), MPI_SUCCESS);
    MT_CHECK(dup == MPI_COMM_NULL);
    /* Complete before any wait: the data is there. */
    MT_CHECK_INT_EQ(in[0], from * N);
    MT_CHECK_INT_EQ(in[N - 1], from * N + N - 1);
    MT_CHECK_INT_EQ(in2[N - 1], -from * N - (N - 1));
    MT_CHECK_INT_EQ(small, 7 * to);
    MT_CHECK_INT_EQ(sum, size * (size + 1) / 2);
    for (int i = 0; i < 6; i++) {
        int flag = 0;
        MT_CHECK_INT_EQ(MPI_Request_get_status(r[i], &flag, MPI_STATUS_IGNORE),
                        MPI_SUCCESS);
        MT_CHECK_INT_EQ(flag, 1);
    }
    MT_CHECK_INT_EQ(MPI_Waitall(6, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    MT_CHECK_INT_EQ(MPI_Request_free(&r[1]), MPI_SUCCESS);
    free(out);
    free(in);
    free(out2);
    free(in2);
}

/* The two halves of the world, each sending to its partner. */
static void inter(int rank, int size)
{
    if (size < 2)
        return;
    MPI_Comm half, ic;
    int color = rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 4, &ic);
    int lrank, rsize;
    MPI_Comm_rank(half, &lrank);
    MPI_Comm_remote_size(ic, &rsize);
    int peer = lrank < rsize ? lrank : -1, got = -1, out = 100 + rank;
    MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (peer >= 0) {
        MPI_Irecv(&got, 1, MPI_INT, peer, 0, ic, &r[0]);
        MPI_Isend(&out, 1, MPI_INT, peer, 0, ic, &r[1]);
    }
    MT_CHECK_INT_EQ(MPI_Comm_disconnect(&ic), MPI_SUCCESS);
    MT_CHECK(ic == MPI_COMM_NULL);
    if (peer >= 0)
        MT_CHECK_INT_EQ(got, 100 + 2 * peer + (1 - color));
    MT_CHECK_INT_EQ(MPI_Waitall(2, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    MPI_Comm_free(&half);
}

static void errors(void)
{
    MPI_Comm c = MPI_COMM_WORLD;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(MPI_Comm_disconnect(&c), MPI_ERR_COMM);
    MT_CHECK(c == MPI_COMM_WORLD);
    c = MPI_COMM_SELF;
    MT_CHECK_ERR_CLASS(MPI_Comm_disconnect(&c), MPI_ERR_COMM);
    c = MPI_COMM_NULL;
    MT_CHECK_ERR_CLASS(MPI_Comm_disconnect(&c), MPI_ERR_COMM);
    MT_CHECK_ERR_CLASS(MPI_Comm_disconnect(NULL), MPI_ERR_ARG);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    intra(rank, size);
    inter(rank, size);
    errors();
    return mt_finish_and_finalize();
}
