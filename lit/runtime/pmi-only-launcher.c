// A process started by a launcher that speaks PMI but not PMIx (MPICH's
// hydra mpiexec, srun --mpi=pmi2: PMI_SIZE set, PMIX_NAMESPACE not) would
// run a job of its own, as would each of its siblings; it stops with one
// line saying how to start the job instead.  A PMI job of one process runs.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: %status env -u PMIX_NAMESPACE PMI_SIZE=4 PMI_RANK=2 %t +vp 2 2>&1 \
// RUN:   | FileCheck %s
// RUN: env -u PMIX_NAMESPACE PMI_SIZE=1 PMI_RANK=0 %t +vp 2 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ONE

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("ranks %d\n", size);
    MPI_Finalize();
    return 0;
}

// CHECK: ampi: process 2 of 4 was started by a launcher without PMIx (PMI_SIZE is set, PMIX_NAMESPACE is not), so every process would run a job of its own; start the job with ampirun, Open MPI's mpirun or srun --mpi=pmix
// CHECK-NEXT: exit status 1
// CHECK-NOT: ranks

// ONE: ranks 2
// ONE-NEXT: ranks 2
