// A slot too small for a rank's heap is refused at
// startup with one line giving the least size that works.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: not %t +vp 2 +isomalloc_slot 64K 2>&1 | FileCheck %s --implicit-check-not={{.}}
// RUN: env AMPI_ISOMALLOC_SLOT=junk not %t 2>&1 | FileCheck %s --check-prefix=BAD --implicit-check-not={{.}}

#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}

// CHECK: ampi: +isomalloc_slot: 65536 bytes do not hold a rank's heap; use at least {{[0-9]+}}
// BAD: ampi: AMPI_ISOMALLOC_SLOT: expected a size in bytes (K, M or G suffix allowed), got 'junk'
