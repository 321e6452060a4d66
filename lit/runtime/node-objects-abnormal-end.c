// A job that ends abnormally leaves nothing of its node in /dev/shm: the
// shared object of a node-level collective that one process never opened
// (it called MPI_Abort first) is removed by the process that ends through
// MPI_Abort and by those that mpirun then ends with SIGTERM.  Process 0,
// the node's first, names the node's objects by its process id.
// REQUIRES: ampi-runtime, openmpi-mpirun
// RUN: %ampicc %s -o %t
// RUN: not %mpirun -np 3 %t +vp 3 +p 1 > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// RUN: %python %S/Inputs/shm_left.py %t.out

#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, sum = 0, one = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        printf("node objects: ampi-%d-\n", (int)getpid());
        fflush(stdout);
    }
    if (rank == 2) { /* the others are in the allreduce by then */
        sleep(2);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}

// CHECK: node objects: ampi-{{[0-9]+}}-
// CHECK: MPI_Abort called by rank 2
