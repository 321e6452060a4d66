// The loader takes what each PLT slot resolved to from the loaded program,
// so the program must be bound at startup (-Wl,-znow, which ampicc
// -privatize=pie adds).  A program linked for lazy binding is refused with
// one message, unless LD_BIND_NOW makes the dynamic linker bind it all.
// REQUIRES: ampi-runtime
// RUN: %ampicc -privatize=pie -c %s -o %t.o
// RUN: %ampicc -privatize=none %t.o -o %t -pie -Wl,-z,lazy -Wl,--undefined=amp_pie_note
// RUN: not %t +vp 2 2>&1 | FileCheck %s --check-prefix=LAZY
// RUN: env LD_BIND_NOW=1 %t +vp 2 | FileCheck %s --check-prefix=NOW

// LAZY: ampi: pie: {{.*}}: {{[0-9]+}} PLT slots (the first for '{{.+}}') are bound lazily, {{.*}}; link with -Wl,-znow (ampicc -privatize=pie does)
// LAZY-NEXT: ampi: pie: {{.*}} cannot be copied per rank: 1 problem above
// NOW: rank 1 of 2

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 1)
        printf("rank %d of %d\n", rank, size);
    MPI_Finalize();
    return 0;
}
