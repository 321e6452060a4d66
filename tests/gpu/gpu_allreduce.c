/* Blocking collectives on device buffers: allreduce (also in place),
 * reduce and bcast. */
#include "gpu_test.h"

#define N 1000

int main(int argc, char **argv)
{
    gpu_skip_without_device();
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t bytes = N * sizeof(int);
    int *h = malloc(bytes), *sd = NULL, *rd = NULL;
    GPU_CHECK(cudaMalloc((void **)&sd, bytes));
    GPU_CHECK(cudaMalloc((void **)&rd, bytes));
    for (int i = 0; i < N; i++)
        h[i] = me + i;
    gpu_put(sd, h, bytes);
    /* sum over ranks of (r + i) = size * i + size * (size - 1) / 2 */
    int tri = size * (size - 1) / 2;

    MT_CHECK_MPI(MPI_Allreduce(sd, rd, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    GPU_CHECK(cudaMemcpy(h, rd, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        if (!MT_CHECK_INT_EQ(h[i], size * i + tri))
            break;

    /* in place: rd holds the sums; take their maximum over ranks */
    MT_CHECK_MPI(
        MPI_Allreduce(MPI_IN_PLACE, rd, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    GPU_CHECK(cudaMemcpy(h, rd, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        if (!MT_CHECK_INT_EQ(h[i], size * i + tri))
            break;

    int root = size - 1;
    gpu_set(rd, 0, bytes);
    MT_CHECK_MPI(MPI_Reduce(sd, rd, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
    GPU_CHECK(cudaMemcpy(h, rd, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        if (!MT_CHECK_INT_EQ(h[i], me == root ? size * i + tri : 0))
            break;

    for (int i = 0; i < N; i++)
        h[i] = me == 0 ? 7 * i : -1;
    gpu_put(rd, h, bytes);
    MT_CHECK_MPI(MPI_Bcast(rd, N, MPI_INT, 0, MPI_COMM_WORLD));
    GPU_CHECK(cudaMemcpy(h, rd, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        if (!MT_CHECK_INT_EQ(h[i], 7 * i))
            break;

    GPU_CHECK(cudaFree(sd));
    GPU_CHECK(cudaFree(rd));
    free(h);
    return mt_finish_and_finalize();
}
