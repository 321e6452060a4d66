/*
 * Ping-pong latency and bandwidth between ranks 0 and 1 on CUDA device
 * buffers (docs/gpu.md): the staged path, through pinned host copies.
 * Exits 77 with "SKIP: no CUDA device (...)" without a device.
 *
 * Output: one line per size on rank 0,
 *   size=8 lat_us=... bw_MBps=... iters=...
 */
#include <mpi.h>

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        printf("SKIP: no CUDA device (%s)\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        return 77;
    }
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t max = (size_t)1 << 24;
    char *d = NULL;
    if (cudaMalloc((void **)&d, max) != cudaSuccess ||
        cudaMemset(d, me + 1, max) != cudaSuccess) {
        fprintf(stderr, "gpu_pingpong: cannot allocate %zu device bytes\n",
                max);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (me == 0)
        printf("# device-buffer ping-pong, staged path, %d ranks\n", size);
    for (size_t bytes = 8; bytes <= max; bytes *= 4) {
        int iters = bytes <= 65536 ? 1000 : 50;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters && me < 2; i++) {
            if (me == 0) {
                MPI_Send(d, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(d, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(d, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                MPI_Send(d, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
        }
        double one_way = (MPI_Wtime() - t0) / iters / 2;
        if (me == 0)
            printf("size=%zu lat_us=%.3f bw_MBps=%.1f iters=%d\n", bytes,
                   one_way * 1e6, (double)bytes / one_way / 1e6, iters);
    }
    cudaFree(d);
    MPI_Finalize();
    return 0;
}
