/* MPI_Pack / MPI_Unpack (and external32) with device buffers on either
 * side, and one-sided operations with device origin and result buffers
 * on a host window; a window on device memory is refused. */
#include "gpu_test.h"

#define N 256

int main(int argc, char **argv)
{
    gpu_skip_without_device();
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *h = malloc(2 * N * sizeof(int)), *d = gpu_ints(2 * N);
    int *pd = gpu_ints(N);

    /* pack every other int of device memory into a device buffer */
    MPI_Datatype strided;
    MPI_Type_vector(N, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    for (int i = 0; i < 2 * N; i++)
        h[i] = i;
    gpu_put_ints(d, h, 2 * N);
    int pos = 0;
    MT_CHECK_MPI(MPI_Pack(d, 1, strided, pd, N * (int)sizeof(int), &pos,
                          MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(pos, N * (int)sizeof(int));
    gpu_get_ints(h, pd, N);
    for (int i = 0; i < N; i++)
        if (!MT_CHECK_INT_EQ(h[i], 2 * i))
            break;
    /* unpack it (device) into the odd slots of d: the even ones stay */
    pos = 0;
    MT_CHECK_MPI(MPI_Unpack(pd, N * (int)sizeof(int), &pos, (int *)d + 1, 1,
                            strided, MPI_COMM_WORLD));
    gpu_get_ints(h, d, 2 * N);
    for (int i = 0; i < N; i++)
        if (!MT_CHECK_INT_EQ(h[2 * i], 2 * i) ||
            !MT_CHECK_INT_EQ(h[2 * i + 1], 2 * i))
            break;
    /* external32 from device memory into host memory and back */
    char *x = malloc(N * 4);
    MPI_Aint xpos = 0;
    MT_CHECK_MPI(
        MPI_Pack_external("external32", d, N, MPI_INT, x, N * 4, &xpos));
    MT_CHECK_INT_EQ(x[11], 2); /* d[2] == 2, big-endian */
    gpu_set(pd, 0, N * sizeof(int));
    xpos = 0;
    MT_CHECK_MPI(
        MPI_Unpack_external("external32", x, N * 4, &xpos, pd, N, MPI_INT));
    gpu_get_ints(h, pd, N);
    MT_CHECK_INT_EQ(h[2], 2);
    MT_CHECK_INT_EQ(h[3], 2);
    free(x);
    MPI_Type_free(&strided);

    /* RMA: a host window of N ints per rank; device origin buffers */
    int *wmem = calloc(N, sizeof(int));
    MPI_Win win;
    MT_CHECK_MPI(MPI_Win_create(wmem, N * sizeof(int), sizeof(int),
                                MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    int right = (me + 1) % size, left = (me + size - 1) % size;
    for (int i = 0; i < N; i++)
        h[i] = 1000 * me + i;
    gpu_put_ints(d, h, N);
    MT_CHECK_MPI(MPI_Win_fence(0, win));
    MT_CHECK_MPI(MPI_Put(d, N, MPI_INT, right, 0, N, MPI_INT, win));
    MT_CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++)
        if (!MT_CHECK_INT_EQ(wmem[i], 1000 * left + i))
            break;
    gpu_set(pd, 0, N * sizeof(int));
    MT_CHECK_MPI(MPI_Get(pd, N, MPI_INT, left, 0, N, MPI_INT, win));
    MT_CHECK_MPI(MPI_Win_fence(0, win));
    gpu_get_ints(h, pd, N);
    int ll = (left + size - 1) % size;
    for (int i = 0; i < N; i++)
        if (!MT_CHECK_INT_EQ(h[i], 1000 * ll + i))
            break;
    MT_CHECK_MPI(
        MPI_Accumulate(d, N, MPI_INT, right, 0, N, MPI_INT, MPI_SUM, win));
    MT_CHECK_MPI(MPI_Win_fence(0, win));
    MT_CHECK_INT_EQ(wmem[5], 2 * (1000 * left + 5));
    MT_CHECK_MPI(MPI_Win_fence(0, win));
    MT_CHECK_MPI(MPI_Win_free(&win));
    free(wmem);

    /* window memory on the device: refused */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(MPI_Win_create(d, N * sizeof(int), sizeof(int),
                                      MPI_INFO_NULL, MPI_COMM_WORLD, &win),
                       MPI_ERR_BUFFER);

    GPU_CHECK(cudaFree(d));
    GPU_CHECK(cudaFree(pd));
    free(h);
    return mt_finish_and_finalize();
}
