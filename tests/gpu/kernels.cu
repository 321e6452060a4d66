// Kernels of the GPU tests, behind plain C functions (gpu_test.h).
#include <cuda_runtime.h>

__global__ static void iota(int *x, int n, int base, long long spin_ns)
{
    if (spin_ns > 0 && threadIdx.x == 0 && blockIdx.x == 0) {
        unsigned long long start = 0, now = 0;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
        do {
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        } while (now - start < (unsigned long long)spin_ns);
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x)
        x[i] = base + i;
}

extern "C" void gpu_iota(int *x, int n, int base, long long spin_ns,
                         cudaStream_t stream)
{
    iota<<<1, 256, 0, stream>>>(x, n, base, spin_ns);
}
