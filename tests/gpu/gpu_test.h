/*
 * What the GPU tests share: skipping without a device, filling and reading
 * device buffers, and the kernels of kernels.cu (called through plain C
 * functions).
 *
 * The fills wait until the device has done them (gpu_sync): a test's
 * answer must not hang on synchronization it does not do itself.  The
 * runtime promises more (its copies follow the work queued before on the
 * legacy default stream, docs/gpu.md); gpu_order tests exactly that, with
 * no wait of its own.
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

/* Waits until the device has done everything queued so far. */
static inline void gpu_sync(void)
{
    GPU_CHECK(cudaDeviceSynchronize());
}

/* bytes from host h to device d, done when it returns (a cudaMemcpy from
 * pageable memory may return before its DMA is). */
static inline void gpu_put(void *d, const void *h, size_t bytes)
{
    GPU_CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    gpu_sync();
}

/* bytes of device memory d set to byte, done when it returns. */
static inline void gpu_set(void *d, int byte, size_t bytes)
{
    GPU_CHECK(cudaMemset(d, byte, bytes));
    gpu_sync();
}

/* n ints between host h and device d. */
static inline void gpu_put_ints(int *d, const int *h, int n)
{
    gpu_put(d, h, (size_t)n * sizeof(int));
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
