// A rank that crashes in its copy of the program: the runtime's message
// gives the faulting instruction's address in the copy, in the loaded
// original and in the program file, so addr2line (or a debugger) finds
// the source line.
// REQUIRES: ampi-runtime
// RUN: %ampicc -privatize=pie -g -O1 %s -o %t
// RUN: %status %t +vp 2 2>&1 | FileCheck %s

// CHECK: ampi: rank 1: fatal signal 11 (Segmentation fault) at address 0x10
// CHECK-NEXT: ampi: the instruction is at 0x{{[0-9a-f]+}} in the rank's copy of the program: 0x{{[0-9a-f]+}} in the original (addr2line -e {{.*}} 0x{{[0-9a-f]+}})
// CHECK: killed by signal SIGSEGV

#include <mpi.h>

int *volatile target = (int *)0x10;

__attribute__((noinline)) static void crash_here(void)
{
    *target = 1;
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1)
        crash_here();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
