/* Host buffers through every call that stages device buffers (with a GPU,
 * each classifies its buffers first; without one, host-only): the results
 * are those of the host path. */
#include "../mpi/mpitest.h"

#include <stdlib.h>

#define K 32

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (me + 1) % size, left = (me + size - 1) % size;
    int n = K * size;
    int *a = malloc(n * sizeof(int)), *b = malloc(n * sizeof(int));
    MPI_Status st;
    MPI_Request req;

    for (int i = 0; i < K; i++)
        a[i] = me * K + i;
    MT_CHECK_MPI(MPI_Sendrecv(a, K, MPI_INT, right, 1, b, K, MPI_INT, left, 1,
                              MPI_COMM_WORLD, &st));
    MT_CHECK_INT_EQ(b[K - 1], left * K + K - 1);
    MT_CHECK_MPI(MPI_Sendrecv_replace(b, K, MPI_INT, left, 2, right, 2,
                                      MPI_COMM_WORLD, &st));
    MT_CHECK_INT_EQ(b[0], me * K); /* back from the right neighbor */
    MT_CHECK_MPI(MPI_Isendrecv(a, K, MPI_INT, right, 3, b, K, MPI_INT, left, 3,
                               MPI_COMM_WORLD, &req));
    MT_CHECK_MPI(MPI_Wait(&req, &st));
    MT_CHECK_INT_EQ(st.MPI_SOURCE, left);
    MT_CHECK_INT_EQ(b[1], left * K + 1);

    MPI_Message msg;
    MT_CHECK_MPI(MPI_Isend(a, K, MPI_INT, right, 4, MPI_COMM_WORLD, &req));
    MT_CHECK_MPI(MPI_Mprobe(left, 4, MPI_COMM_WORLD, &msg, &st));
    MT_CHECK_MPI(MPI_Mrecv(b, K, MPI_INT, &msg, &st));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(b[2], left * K + 2);

    int bsize = K * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
    char *attached = malloc((size_t)bsize);
    MT_CHECK_MPI(MPI_Buffer_attach(attached, bsize));
    MT_CHECK_MPI(MPI_Ibsend(a, K, MPI_INT, right, 5, MPI_COMM_WORLD, &req));
    MT_CHECK_MPI(MPI_Recv(b, K, MPI_INT, left, 5, MPI_COMM_WORLD, &st));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(b[3], left * K + 3);
    void *old;
    MT_CHECK_MPI(MPI_Buffer_detach(&old, &bsize));
    free(attached);

    MT_CHECK_MPI(MPI_Allgather(a, K, MPI_INT, b, K, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        if (!MT_CHECK_INT_EQ(b[i], i))
            break;
    for (int i = 0; i < n; i++)
        a[i] = me * n + i;
    MT_CHECK_MPI(MPI_Alltoall(a, K, MPI_INT, b, K, MPI_INT, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(b[(size - 1) * K], (size - 1) * n + me * K);
    MT_CHECK_MPI(
        MPI_Iallreduce(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(b[n - 1], n * size * (size - 1) / 2 + size * (n - 1));
    MT_CHECK_MPI(MPI_Scan(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(b[0], n * me * (me + 1) / 2);
    MT_CHECK_MPI(MPI_Reduce_local(a, b, 1, MPI_INT, MPI_SUM));
    MT_CHECK_INT_EQ(b[0], n * me * (me + 1) / 2 + me * n);

    int pos = 0;
    MT_CHECK_MPI(
        MPI_Pack(a, K, MPI_INT, b, n * (int)sizeof(int), &pos, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(pos, K * (int)sizeof(int));
    MT_CHECK_INT_EQ(b[K - 1], me * n + K - 1);

    int *w = calloc(K, sizeof(int));
    MPI_Win win;
    MT_CHECK_MPI(MPI_Win_create(w, K * sizeof(int), sizeof(int), MPI_INFO_NULL,
                                MPI_COMM_WORLD, &win));
    MT_CHECK_MPI(MPI_Win_fence(0, win));
    MT_CHECK_MPI(MPI_Put(a, K, MPI_INT, right, 0, K, MPI_INT, win));
    MT_CHECK_MPI(MPI_Win_fence(0, win));
    MT_CHECK_INT_EQ(w[K - 1], left * n + K - 1);
    MT_CHECK_MPI(MPI_Get(b, K, MPI_INT, left, 0, K, MPI_INT, win));
    MT_CHECK_MPI(MPI_Win_fence(0, win));
    MT_CHECK_INT_EQ(b[0], ((left + size - 1) % size) * n);
    MT_CHECK_MPI(MPI_Win_free(&win));
    free(w);
    free(a);
    free(b);
    return mt_finish_and_finalize();
}
