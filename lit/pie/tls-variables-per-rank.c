// The program's own thread-local variables under -privatize=pie: the
// wrapper compiles TLS accesses through %fs:0, so each rank has its own
// copy (tlsglobals/), initialized from the rank's relocated copy of the
// TLS image: a thread-local pointer to a global points at the rank's
// global.
// REQUIRES: ampi-runtime
// RUN: %ampicc -privatize=pie -O2 %s -o %t
// RUN: %t +vp 4 +p 1 | FileCheck %s
// RUN: %t +vp 16 +p 2 | FileCheck %s

// CHECK: [[N:[0-9]+]] of [[N]] ranks saw the initial values; 0 saw another rank's

#include <mpi.h>
#include <stdio.h>

int global = 5;
_Thread_local int counter = 100;
_Thread_local int *where = &global;

int main(int argc, char **argv)
{
    int rank, size, counts[2], totals[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    counts[0] = counter == 100 && where == &global && *where == 5;
    MPI_Barrier(MPI_COMM_WORLD);
    counter = rank;
    *where = rank;
    MPI_Barrier(MPI_COMM_WORLD);
    counts[1] = counter != rank || global != rank;
    MPI_Allreduce(counts, totals, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d of %d ranks saw the initial values; %d saw another "
               "rank's\n",
               totals[0], size, totals[1]);
    MPI_Finalize();
    return 0;
}
