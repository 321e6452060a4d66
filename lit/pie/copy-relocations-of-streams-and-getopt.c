// Copy relocations of variables that never change after startup (the
// standard streams, C and C++) or that each rank has its own of (getopt's)
// are taken: every copy starts from the original's bytes.  Such a program
// is what GCC builds without -mno-direct-extern-access, e.g. when CMake's
// FindMPI hands the wrappers' flags to gcc (it drops -m flags).  Each rank
// parses its own options.
// REQUIRES: ampi-runtime
// RUN: %ampicc -privatize=pie -fdirect-access-external-data %s -o %t
// RUN: llvm-readelf -r %t | FileCheck %s --check-prefix=COPY
// RUN: %t +vp 4 +p 2 -n 7 -v tail | FileCheck %s
// RUN: %ampirun -n 2 --launcher-arg --allow-run-as-root --launcher-arg --oversubscribe %t +vp 3 -n 7 -v tail | FileCheck %s
// RUN: gcc -fPIE -I%ampi_prefix/include -c %s -o %t.o
// RUN: env AMPI_CC=gcc %ampicc %t.o -o %t.gcc 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: llvm-readelf -r %t.gcc | FileCheck %s --check-prefix=COPY
// RUN: %t.gcc +vp 4 +p 2 -n 7 -v tail | FileCheck %s

// NOTE: ampicc: gcc cannot load the privatization plugin; building with -privatize=pie (each rank gets its own copy of the program)

// COPY-DAG: R_X86_64_COPY {{.*}} stdout
// COPY-DAG: R_X86_64_COPY {{.*}} optind
// COPY-DAG: R_X86_64_COPY {{.*}} optarg

// CHECK: rank {{[0-9]}}: n 7 verbose 1 rest tail
// CHECK: [[N:[0-9]+]] of [[N]] ranks parsed every option

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int n = -1, verbose;

int main(int argc, char **argv)
{
    int rank, size, c, ok, total;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((c = getopt(argc, argv, "n:v")) != -1) {
        MPI_Barrier(MPI_COMM_WORLD); /* other ranks run between calls */
        if (c == 'n')
            n = atoi(optarg);
        else if (c == 'v')
            verbose = 1;
    }
    ok = n == 7 && verbose && optind == argc - 1;
    fprintf(stdout, "rank %d: n %d verbose %d rest %s\n", rank, n, verbose,
            optind < argc ? argv[optind] : "-");
    MPI_Reduce(&ok, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d of %d ranks parsed every option\n", total, size);
    MPI_Finalize();
    return 0;
}
