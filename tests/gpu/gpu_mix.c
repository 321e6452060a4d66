/* Host and device buffers mixed in one exchange: device to host, host to
 * device, nonblocking and persistent. */
#include "gpu_test.h"

#define N 2048

static int check(const int *h, int from)
{
    for (int i = 0; i < N; i++)
        if (!MT_CHECK_INT_EQ(h[i], from * 10000 + i))
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    gpu_skip_without_device();
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (me + 1) % size, left = (me + size - 1) % size;
    size_t bytes = N * sizeof(int);
    int *hs = malloc(bytes), *hr = malloc(bytes), *d = NULL, *dr = NULL;
    GPU_CHECK(cudaMalloc((void **)&d, bytes));
    GPU_CHECK(cudaMalloc((void **)&dr, bytes));
    for (int i = 0; i < N; i++)
        hs[i] = me * 10000 + i;
    gpu_put(d, hs, bytes);

    /* device send, host receive */
    MPI_Request req[2];
    MT_CHECK_MPI(MPI_Irecv(hr, N, MPI_INT, left, 1, MPI_COMM_WORLD, &req[0]));
    MT_CHECK_MPI(MPI_Isend(d, N, MPI_INT, right, 1, MPI_COMM_WORLD, &req[1]));
    MT_CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    check(hr, left);

    /* host send, device receive */
    MT_CHECK_MPI(MPI_Irecv(dr, N, MPI_INT, left, 2, MPI_COMM_WORLD, &req[0]));
    MT_CHECK_MPI(MPI_Send(hs, N, MPI_INT, right, 2, MPI_COMM_WORLD));
    MT_CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    GPU_CHECK(cudaMemcpy(hr, dr, bytes, cudaMemcpyDeviceToHost));
    check(hr, left);

    /* persistent, started three times, device on both sides */
    MT_CHECK_MPI(
        MPI_Recv_init(dr, N, MPI_INT, left, 3, MPI_COMM_WORLD, &req[0]));
    MT_CHECK_MPI(
        MPI_Send_init(d, N, MPI_INT, right, 3, MPI_COMM_WORLD, &req[1]));
    for (int k = 0; k < 3; k++) {
        gpu_set(dr, 0, bytes);
        MT_CHECK_MPI(MPI_Startall(2, req));
        MT_CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        GPU_CHECK(cudaMemcpy(hr, dr, bytes, cudaMemcpyDeviceToHost));
        check(hr, left);
    }
    MT_CHECK_MPI(MPI_Request_free(&req[0]));
    MT_CHECK_MPI(MPI_Request_free(&req[1]));

    /* a shorter message than the device buffer: only its part changes */
    for (int i = 0; i < N; i++)
        hr[i] = -5;
    gpu_put(dr, hr, bytes);
    MT_CHECK_MPI(MPI_Irecv(dr, N, MPI_INT, left, 4, MPI_COMM_WORLD, &req[0]));
    MT_CHECK_MPI(MPI_Send(d, N / 2, MPI_INT, right, 4, MPI_COMM_WORLD));
    MPI_Status st;
    MT_CHECK_MPI(MPI_Wait(&req[0], &st));
    int count = 0;
    MT_CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    MT_CHECK_INT_EQ(count, N / 2);
    GPU_CHECK(cudaMemcpy(hr, dr, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        if (!MT_CHECK_INT_EQ(hr[i], i < N / 2 ? left * 10000 + i : -5))
            break;

    GPU_CHECK(cudaFree(d));
    GPU_CHECK(cudaFree(dr));
    free(hs);
    free(hr);
    return mt_finish_and_finalize();
}
