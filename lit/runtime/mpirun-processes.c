// A job of several processes from a PMIx launcher: the +vp ranks are
// spread over the processes in blocks (process p starts at rank
// floor(p * vp / processes)), each rank knows its process through
// AMPI_MY_PROCESS / AMPI_NUM_PROCESSES, MPI_COMM_TYPE_SHARED groups the
// ranks of every process of the node (one node here) and
// AMPI_COMM_TYPE_PROCESS those of one process (they share its address
// space), and messages and collectives cross processes.  +showmap prints
// each process's placement.
// REQUIRES: ampi-runtime, openmpi-mpirun
// RUN: %ampicc %s -o %t
// RUN: %status %mpirun -np 2 %t +vp 5 +p 2 2>&1 | sort | FileCheck %s
// RUN: %status %mpirun -np 2 %t +vp 5 +p 2 +showmap 2>&1 | sort \
// RUN:   | FileCheck %s --check-prefix=MAP
// RUN: %status %mpirun -np 3 %t 2>&1 | sort | FileCheck %s --check-prefix=DEFAULT
// RUN: %status %mpirun -np 2 %t +vp 1 2>&1 | FileCheck %s --check-prefix=FEW

#include <mpi.h>
#include <stdio.h>

static int attr(int key)
{
    int *v, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, key, &v, &flag);
    return flag ? *v : -1;
}

int main(int argc, char **argv)
{
    int rank, size, nrank, nsize, prank, psize, sum = 0;
    MPI_Comm node, proc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                        MPI_INFO_NULL, &node);
    MPI_Comm_split_type(MPI_COMM_WORLD, AMPI_COMM_TYPE_PROCESS, 0,
                        MPI_INFO_NULL, &proc);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    MPI_Comm_rank(proc, &prank);
    MPI_Comm_size(proc, &psize);
    /* The members of proc are the ranks of this process: their sum. */
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, proc);
    printf("rank %d of %d: process %d of %d, node rank %d of %d, "
           "process rank %d of %d, sum %d\n",
           rank, size, attr(AMPI_MY_PROCESS), attr(AMPI_NUM_PROCESSES),
           nrank, nsize, prank, psize, sum);
    MPI_Comm_free(&node);
    MPI_Comm_free(&proc);
    MPI_Finalize();
    return 0;
}

// CHECK: exit status 0
// CHECK-NEXT: rank 0 of 5: process 0 of 2, node rank 0 of 5, process rank 0 of 2, sum 1
// CHECK-NEXT: rank 1 of 5: process 0 of 2, node rank 1 of 5, process rank 1 of 2, sum 1
// CHECK-NEXT: rank 2 of 5: process 1 of 2, node rank 2 of 5, process rank 0 of 3, sum 9
// CHECK-NEXT: rank 3 of 5: process 1 of 2, node rank 3 of 5, process rank 1 of 3, sum 9
// CHECK-NEXT: rank 4 of 5: process 1 of 2, node rank 4 of 5, process rank 2 of 3, sum 9

// MAP: ampi: PE 0: {{.*}}: rank 0
// MAP: ampi: PE 0: {{.*}}: ranks 2-3
// MAP: ampi: PE 1: {{.*}}: rank 1
// MAP: ampi: PE 1: {{.*}}: rank 4
// MAP: ampi: process 0 of 2 on {{.*}}: placement of 2 ranks on 2 PEs
// MAP: ampi: process 1 of 2 on {{.*}}: placement of 3 ranks on 2 PEs

// Without +vp: one rank per process.
// DEFAULT: exit status 0
// DEFAULT-NEXT: rank 0 of 3: process 0 of 3, node rank 0 of 3, process rank 0 of 1, sum 0
// DEFAULT-NEXT: rank 1 of 3: process 1 of 3, node rank 1 of 3, process rank 0 of 1, sum 1
// DEFAULT-NEXT: rank 2 of 3: process 2 of 3, node rank 2 of 3, process rank 0 of 1, sum 2

// FEW: ampi: +vp 1: the job has 2 processes, and each needs at least one rank
// FEW-NOT: rank 0 of
