// Unbounded recursion in one rank hits the guard page below its stack; the
// runtime names the rank and the option that gives it more stack.
// REQUIRES: ampi-runtime
// RUN: %ampicc -O0 %s -o %t
// RUN: %status %t +vp 4 +p 2 +stacksize 256K 2>&1 | FileCheck %s

#include <mpi.h>
#include <string.h>

static int deep(int n)
{
    volatile char pad[1024];
    memset((char *)pad, n, sizeof(pad));
    return deep(n + 1) + pad[n % 1024];
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 3)
        deep(0);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}

// CHECK: ampi: rank 3 overflowed its 262144-byte stack; raise it with +stacksize
// CHECK: killed by signal SIGSEGV
