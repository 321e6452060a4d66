/*
 * Ping-pong latency and bandwidth between ranks 0 and 1 on CUDA device
 * buffers (docs/gpu.md), on the path AMPI_GPU_PATH selects: "auto" (the
 * GPU-aware path: inside one process p2p copies device to device with one
 * cudaMemcpyAsync for messages past the eager limit) or "staged" (through
 * pinned host copies).  bench/run_gpu.sh runs it both ways and prints the
 * ratio.  Exits 77 with "SKIP: no CUDA device (...)" without a device.
 *
 * Output: a header naming the path, then one line per size on rank 0,
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
    if (size < 2) {
        if (me == 0)
            fprintf(stderr, "gpu_pingpong: needs 2 ranks (+vp 2)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t max = (size_t)1 << 24;
    char *d = NULL;
    if (cudaMalloc((void **)&d, max) != cudaSuccess ||
        cudaMemset(d, me + 1, max) != cudaSuccess ||
        cudaDeviceSynchronize() != cudaSuccess) {
        fprintf(stderr, "gpu_pingpong: cannot allocate %zu device bytes\n",
                max);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const char *path = getenv("AMPI_GPU_PATH");
    if (me == 0)
        printf("# device-buffer ping-pong, AMPI_GPU_PATH=%s, %d ranks\n",
               path && *path ? path : "auto", size);
    for (size_t bytes = 8; bytes <= max; bytes *= 4) {
        int iters = bytes <= 65536 ? 1000 : 50;
        for (int warm = 1; warm >= 0; warm--) {
            int reps = warm ? iters / 10 + 1 : iters;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < reps && me < 2; i++) {
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
            double one_way = (MPI_Wtime() - t0) / reps / 2;
            if (me == 0 && !warm)
                printf("size=%zu lat_us=%.3f bw_MBps=%.1f iters=%d\n", bytes,
                       one_way * 1e6, (double)bytes / one_way / 1e6, iters);
        }
    }
    cudaFree(d);
    MPI_Finalize();
    return 0;
}
