// Old C that gcc 12 (what mpicc drives on most systems) accepts with
// warnings builds with ampicc too, with the same warnings: calls to
// undeclared functions (strcpy and printf without their headers), implicit
// int, old-style definitions, an integer made a pointer.  -ampi-strict-c or
// AMPI_STRICT_C=1 restores Clang's errors, as does -Werror; gcc behind the
// wrapper gets the same leniency.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: %t +vp 4 +p 2 | FileCheck %s
// RUN: not %ampicc -ampi-strict-c -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: env AMPI_STRICT_C=1 not %ampicc -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: not %ampicc -Werror -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: env AMPI_CC=gcc %ampicc %s -o %t.gcc 2>&1 | FileCheck %s --check-prefix=GCC
// RUN: %t.gcc +vp 4 +p 2 | FileCheck %s

// WARN-DAG: warning: call to undeclared library function 'strcpy'
// WARN-DAG: warning: type specifier missing, defaults to 'int'
// WARN-DAG: warning: incompatible integer to pointer conversion
// WARN-NOT: error:
// STRICT: error: {{.*}}
// GCC-DAG: warning: implicit declaration of function 'strcpy'
// GCC-NOT: error:

// CHECK-COUNT-4: rank {{[0-3]}} of 4 says hi, sum 5
// CHECK-NOT: says

#include <mpi.h>

static rank, size;

add(a, b)
int a, b;
{
    return a + b;
}

main(argc, argv)
int argc;
char **argv;
{
    char buf[32];
    int *none = size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    strcpy(buf, "says hi");
    printf("rank %d of %d %s, sum %d\n", rank, size, buf, add(2, 3));
    MPI_Finalize();
    return none == 0 && 0;
}
