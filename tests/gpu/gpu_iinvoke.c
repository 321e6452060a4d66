/* AMPI_GPU_Iinvoke: a request that completes with the kernel queued
 * before it; MPI_Test says not yet while the kernel runs, and the other
 * ranks run while this one waits. */
#include "gpu_test.h"

#define N 1024

int main(int argc, char **argv)
{
    gpu_skip_without_device();
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int *d = NULL, *h = malloc(N * sizeof(int));
    cudaStream_t s;
    GPU_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    GPU_CHECK(cudaMalloc((void **)&d, N * sizeof(int)));
    GPU_CHECK(cudaMemsetAsync(d, 0, N * sizeof(int), s));

    /* a kernel of about 200 ms */
    gpu_iota(d, N, me * 100, 200 * 1000 * 1000LL, s);
    GPU_CHECK(cudaGetLastError());
    MPI_Request req;
    MT_CHECK_MPI(AMPI_GPU_Iinvoke(s, &req));
    int flag = 1;
    MT_CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(flag, 0);
    MPI_Status st;
    MT_CHECK_MPI(MPI_Wait(&req, &st));
    MT_CHECK_INT_EQ(req, MPI_REQUEST_NULL);
    MT_CHECK_INT_EQ(cudaStreamQuery(s), cudaSuccess);
    GPU_CHECK(cudaMemcpy(h, d, N * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        if (!MT_CHECK_INT_EQ(h[i], me * 100 + i))
            break;

    /* then the result goes around as any device buffer */
    MT_CHECK_MPI(
        MPI_Allreduce(MPI_IN_PLACE, d, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    GPU_CHECK(cudaMemcpy(h, d, N * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        if (!MT_CHECK_INT_EQ(h[i], (size - 1) * 100 + i))
            break;

    /* the request of an empty stream completes too */
    MT_CHECK_MPI(AMPI_GPU_Iinvoke(s, &req));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));

    GPU_CHECK(cudaStreamDestroy(s));
    GPU_CHECK(cudaFree(d));
    free(h);
    return mt_finish_and_finalize();
}
