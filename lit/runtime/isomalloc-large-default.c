// Without +isomalloc_slot, the slot is sized from the address space the
// job has: each rank of a small job mallocs 3 GiB (and touches both ends),
// in one process and across two; a block of 2 TiB is beyond its slot.
// Under a limit on the address space (ulimit -v, 4 GB) the slots share
// half of it: 8 ranks start (8 slots of the old default, 1 GiB, did not
// fit) and each mallocs less.
// REQUIRES: ampi-runtime, openmpi-mpirun
// RUN: %ampicc %s -o %t
// RUN: %t +vp 2 +p 1 2>&1 | FileCheck %s
// RUN: %mpirun -np 2 %t +vp 4 +p 1 2>&1 | FileCheck %s
// RUN: bash -c 'ulimit -v 4000000 && exec %t +vp 8 +p 1' 2>&1 | FileCheck %s --check-prefix=LIMIT

// CHECK-DAG: rank 0: 3 GiB ok, 2 TiB NULL
// CHECK-DAG: rank 1: 3 GiB ok, 2 TiB NULL
// CHECK: done
// LIMIT-DAG: rank 0: 3 GiB NULL, 2 TiB NULL
// LIMIT-DAG: rank 1: 3 GiB NULL, 2 TiB NULL
// LIMIT: done

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    size_t n = (size_t)3 << 30;
    char *p = malloc(n);
    if (p) {
        p[0] = 1;
        p[n - 1] = 2;
    }
    void *huge = malloc((size_t)2 << 40);
    if (rank < 2)
        printf("rank %d: 3 GiB %s, 2 TiB %s\n", rank, p ? "ok" : "NULL",
               huge ? "allocated" : "NULL");
    fflush(stdout);
    free(p);
    free(huge);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("done\n");
    MPI_Finalize();
    return 0;
}
