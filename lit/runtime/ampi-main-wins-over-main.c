// A program with both main and AMPI_Main (or MPI_Main) runs AMPI's entry,
// as Charm++'s AMPI does: main is not called.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: %t +vp 2 | FileCheck %s --implicit-check-not=main
// RUN: %ampicc -DWITH_MPI_MAIN %s -o %t.both
// RUN: %t.both +vp 2 | FileCheck %s --check-prefix=MPIMAIN
// --implicit-check-not=main

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("main ran\n");
    return 1;
}

static int entry(const char *name, int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("%s rank %d\n", name, rank);
    MPI_Finalize();
    return 0;
}

int AMPI_Main(int argc, char **argv)
{
    return entry("AMPI_Main", argc, argv);
}

#ifdef WITH_MPI_MAIN
int MPI_Main(int argc, char **argv)
{
    return entry("MPI_Main", argc, argv);
}
#endif

// CHECK-DAG: AMPI_Main rank 0
// CHECK-DAG: AMPI_Main rank 1
// MPIMAIN-DAG: MPI_Main rank 0
// MPIMAIN-DAG: MPI_Main rank 1
