/* Device buffers around a ring: nonblocking, blocking (with two ranks or
 * more: one rank alone would send to itself before its receive is posted),
 * and a strided type whose gaps on the device must keep their values. */
#include "gpu_test.h"

#define N 4096

static void ring_nonblocking(int me, int size, int *sd, int *rd, int *h)
{
    int right = (me + 1) % size, left = (me + size - 1) % size;
    for (int i = 0; i < N; i++)
        h[i] = me * N + i;
    gpu_put_ints(sd, h, N);
    gpu_set(rd, 0xff, N * sizeof(int));
    MPI_Request req[2];
    MT_CHECK_MPI(MPI_Irecv(rd, N, MPI_INT, left, 1, MPI_COMM_WORLD, &req[0]));
    MT_CHECK_MPI(MPI_Isend(sd, N, MPI_INT, right, 1, MPI_COMM_WORLD, &req[1]));
    MPI_Status st[2];
    MT_CHECK_MPI(MPI_Waitall(2, req, st));
    MT_CHECK_INT_EQ(st[0].MPI_SOURCE, left);
    gpu_get_ints(h, rd, N);
    for (int i = 0; i < N; i++)
        if (!MT_CHECK_INT_EQ(h[i], left * N + i))
            break;
}

static void ring_blocking(int me, int size, int *sd, int *rd, int *h)
{
    int right = (me + 1) % size, left = (me + size - 1) % size;
    for (int i = 0; i < N; i++)
        h[i] = -(me * N + i);
    gpu_put_ints(sd, h, N);
    MPI_Status st;
    if (me % 2 == 0) {
        MT_CHECK_MPI(MPI_Send(sd, N, MPI_INT, right, 2, MPI_COMM_WORLD));
        MT_CHECK_MPI(MPI_Recv(rd, N, MPI_INT, left, 2, MPI_COMM_WORLD, &st));
    } else {
        MT_CHECK_MPI(MPI_Recv(rd, N, MPI_INT, left, 2, MPI_COMM_WORLD, &st));
        MT_CHECK_MPI(MPI_Send(sd, N, MPI_INT, right, 2, MPI_COMM_WORLD));
    }
    int count = 0;
    MT_CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    MT_CHECK_INT_EQ(count, N);
    gpu_get_ints(h, rd, N);
    for (int i = 0; i < N; i++)
        if (!MT_CHECK_INT_EQ(h[i], -(left * N + i)))
            break;
}

/* Every other int, into every other int: the others stay as they were. */
static void ring_strided(int me, int size, int *sd, int *rd, int *h)
{
    int right = (me + 1) % size, left = (me + size - 1) % size;
    MPI_Datatype every_other;
    MT_CHECK_MPI(MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other));
    MT_CHECK_MPI(MPI_Type_commit(&every_other));
    for (int i = 0; i < N; i++)
        h[i] = me * N + i;
    gpu_put_ints(sd, h, N);
    for (int i = 0; i < N; i++)
        h[i] = -1;
    gpu_put_ints(rd, h, N);
    MPI_Request req[2];
    MT_CHECK_MPI(
        MPI_Irecv(rd, 1, every_other, left, 3, MPI_COMM_WORLD, &req[0]));
    MT_CHECK_MPI(
        MPI_Isend(sd, 1, every_other, right, 3, MPI_COMM_WORLD, &req[1]));
    MT_CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    gpu_get_ints(h, rd, N);
    for (int i = 0; i < N; i++)
        if (!MT_CHECK_INT_EQ(h[i], i % 2 ? -1 : left * N + i))
            break;
    MT_CHECK_MPI(MPI_Type_free(&every_other));
}

int main(int argc, char **argv)
{
    gpu_skip_without_device();
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *sd = NULL, *rd = NULL, *h = malloc(N * sizeof(int));
    GPU_CHECK(cudaMalloc((void **)&sd, N * sizeof(int)));
    GPU_CHECK(cudaMalloc((void **)&rd, N * sizeof(int)));
    ring_nonblocking(me, size, sd, rd, h);
    if (size > 1)
        ring_blocking(me, size, sd, rd, h);
    /* freed and allocated again: the classification cache must notice */
    GPU_CHECK(cudaFree(rd));
    GPU_CHECK(cudaMalloc((void **)&rd, N * sizeof(int)));
    ring_strided(me, size, sd, rd, h);
    GPU_CHECK(cudaFree(sd));
    GPU_CHECK(cudaFree(rd));
    free(h);
    return mt_finish_and_finalize();
}
