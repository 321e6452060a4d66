// +showmap (AMPI_SHOWMAP=1) prints, on stderr before the ranks start, the
// cores the process may use, then per PE its core and its ranks, following
// +mapping.  Without it nothing is printed.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// Pinned, the cores depend on the machine (pin-within-process-cpus.c
// fixes them with taskset); a machine with one core adds a warning line.
// RUN: %t +vp 8 +p 2 +showmap 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: env AMPI_SHOWMAP=1 %t +vp 8 +p 2 +mapping rr 2>&1 | FileCheck %s --check-prefix=RR
// RUN: %t +vp 8 +p 2 +mapping rr +nopin +showmap 2>&1 | FileCheck %s --check-prefix=NOPIN --implicit-check-not={{.}}
// RUN: %t +vp 5 +p 3 +mapping list:2,0,2 +nopin +showmap 2>&1 | FileCheck %s --check-prefix=LIST --implicit-check-not={{.}}
// RUN: env AMPI_SHOWMAP=0 %t +vp 8 +p 1 2>&1 | FileCheck %s --check-prefix=OFF --implicit-check-not={{.}}

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        printf("size=%d\n", size);
    MPI_Finalize();
    return 0;
}

// BLOCK:      ampi: placement of 8 ranks on 2 PEs (mapping block); this process may use {{[0-9]+}} core{{s?}}: {{[-,0-9]+}} (PU{{s?}} {{[-,0-9]+}})
// BLOCK-NEXT: ampi: PE 0: core {{[0-9]+}} (PU {{[0-9]+}}): ranks 0-3
// BLOCK-NEXT: ampi: PE 1: core {{[0-9]+}} (PU {{[0-9]+}}): ranks 4-7
// BLOCK-NEXT: size=8

// RR:      ampi: placement of 8 ranks on 2 PEs (mapping rr); this process may use {{.+}}
// RR-NEXT: ampi: PE 0: core {{[0-9]+}} (PU {{[0-9]+}}): ranks 0,2,4,6
// RR-NEXT: ampi: PE 1: core {{[0-9]+}} (PU {{[0-9]+}}): ranks 1,3,5,7
// RR-NEXT: size=8

// NOPIN:      ampi: placement of 8 ranks on 2 PEs (mapping rr); this process may use {{.+}}
// NOPIN-NEXT: ampi: PE 0: not bound: ranks 0,2,4,6
// NOPIN-NEXT: ampi: PE 1: not bound: ranks 1,3,5,7
// NOPIN-NEXT: size=8

// LIST:      ampi: placement of 5 ranks on 3 PEs (mapping list); this process may use {{.+}}
// LIST-NEXT: ampi: PE 0: not bound: ranks 1,4
// LIST-NEXT: ampi: PE 1: not bound: no ranks
// LIST-NEXT: ampi: PE 2: not bound: ranks 0,2-3
// LIST-NEXT: size=5

// OFF: size=8
