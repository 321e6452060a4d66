// A rank that asks for more than its isomalloc slot holds gets NULL from
// malloc, after one line that names the option raising the slot size.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: %t +vp 2 +p 1 +isomalloc_slot 8M 2>&1 | FileCheck %s
// RUN: env AMPI_ISOMALLOC_SLOT=8M %t +vp 2 +p 1 2>&1 | FileCheck %s

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        void *small = malloc(1000);
        void *big = malloc(64u << 20);
        printf("small %s, big %s\n", small ? "allocated" : "NULL",
               big ? "allocated" : "NULL");
        free(small);
    }
    MPI_Finalize();
    return 0;
}

// CHECK: ampi: rank 1 is out of memory in its 10485760-byte isomalloc slot (67108864 bytes asked for); raise the slot size with +isomalloc_slot BYTES or AMPI_ISOMALLOC_SLOT
// CHECK-NEXT: small allocated, big NULL
