// A program written for Charm++'s AMPI, where one rank alone may call
// AMPI_Migrate_to_pe: here the call is collective over MPI_COMM_WORLD, so
// the job ends in the deadlock report, which says so for that rank.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: %status %t +vp 2 +p 2 2>&1 | FileCheck %s

// CHECK: ampi: deadlock: every rank is blocked and no message is in flight
// CHECK-DAG: rank 0: blocked in AMPI_Migrate_to_pe
// CHECK-DAG: waiting for every rank to call it: AMPI_Migrate_to_pe is collective over MPI_COMM_WORLD here (docs/load-balancing.md)
// CHECK-DAG: rank 1: blocked in MPI_Allreduce
// CHECK: exit status 1

#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#ifdef AMPI
    if (rank == 0)
        AMPI_Migrate_to_pe(1);
#endif
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
