// A program written for Charm++'s AMPI: its entry is MPI_Main, not main,
// and every rank enters it with the program's arguments.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: %t +vp 3 +p 2 alpha | FileCheck %s
// RUN: %ampicc -privatize=pie %s -o %t.pie
// RUN: %t.pie +vp 4 +p 2 alpha | FileCheck %s --check-prefix=PIE

#include <mpi.h>
#include <stdio.h>

int MPI_Main(int argc, char **argv)
{
    int rank, size, one = 1, entered = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Reduce(&one, &entered, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("entered=%d of %d argc=%d [%s]\n", entered, size, argc,
               argc > 1 ? argv[1] : "");
    MPI_Finalize();
    return 0;
}

// CHECK: entered=3 of 3 argc=2 [alpha]
// PIE: entered=4 of 4 argc=2 [alpha]
