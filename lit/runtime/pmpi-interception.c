// A profiling layer that defines MPI_Send itself and forwards to PMPI_Send
// takes over every MPI_Send call of the program; the runtime's own traffic
// (here, inside MPI_Allreduce) does not go through it.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: %t +vp 4 +p 2 | FileCheck %s

#include <mpi.h>
#include <stdio.h>

/* One counter for the process: the ranks share it on purpose, so it opts
 * out of privatization. */
static int sends __attribute__((annotate("ampi_shared")));

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
             MPI_Comm comm)
{
    __atomic_add_fetch(&sends, 1, __ATOMIC_RELAXED);
    return PMPI_Send(buf, count, type, dest, tag, comm);
}

int main(int argc, char **argv)
{
    int rank, size, x = 1, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank > 0)
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    else
        for (int r = 1; r < size; r++)
            MPI_Recv(&x, 1, MPI_INT, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("intercepted %d sends, sum %d\n", sends, sum);
    MPI_Finalize();
    return 0;
}

// CHECK: intercepted 3 sends, sum 4
