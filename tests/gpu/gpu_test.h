/*
 * What the GPU tests share: skipping without a device, and the kernels of
 * kernels.cu (called through plain C functions).
 */
#ifndef GPU_TEST_H
#define GPU_TEST_H

#include "../mpi/mpitest.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

/* Exits 77 (ctest: skipped) with the reason when there is no CUDA device;
 * call before MPI_Init. */
static inline void gpu_skip_without_device(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        printf("SKIP: no CUDA device (%s)\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        fflush(stdout);
        exit(77);
    }
}

/* The call returned cudaSuccess. */
#define GPU_CHECK(call) MT_CHECK_INT_EQ((call), cudaSuccess)

/* n ints between host h and device d. */
static inline void gpu_put_ints(int *d, const int *h, int n)
{
    GPU_CHECK(
        cudaMemcpy(d, h, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
}

static inline void gpu_get_ints(int *h, const int *d, int n)
{
    GPU_CHECK(
        cudaMemcpy(h, d, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost));
}

/* h[i] == base + i for the first n; reports the first difference. */
static inline void gpu_check_iota(const int *h, int n, int base)
{
    for (int i = 0; i < n; i++)
        if (!MT_CHECK_INT_EQ(h[i], base + i))
            break;
}

/* A device array of n ints (freed with cudaFree). */
static inline int *gpu_ints(int n)
{
    int *d = NULL;
    GPU_CHECK(cudaMalloc((void **)&d, (size_t)n * sizeof(int)));
    return d;
}

/* kernels.cu: x[i] = base + i for i < n, after spinning about spin_ns on
 * the GPU (a kernel that takes a while); queued on stream. */
void gpu_iota(int *x, int n, int base, long long spin_ns, cudaStream_t stream);

#endif
