// A program that reads a C library variable the library may change later
// (environ: setenv replaces it) through a copy relocation (clang's
// -fdirect-access-external-data; GCC's default for -fPIE) cannot be copied
// per rank exactly: each copy would read its own snapshot of the variable.
// The loader names every such relocation, says what to do, and the program
// stops before any rank runs.  The standard streams never change after
// startup, so a copy relocation of stdout is no problem.
// REQUIRES: ampi-runtime
// RUN: %ampicc -privatize=pie -fdirect-access-external-data %s -o %t
// RUN: not %t +vp 2 2>&1 | FileCheck %s

// CHECK-NOT: 'stdout'
// CHECK: ampi: pie: {{.*}}: R_X86_64_COPY (type 5) at offset 0x{{[0-9a-f]+}} against '{{(__)?}}environ': {{.*}}the library may change it later{{.*}}-mno-direct-extern-access
// CHECK-NOT: 'stdout'
// CHECK: ampi: pie: {{.*}} cannot be copied per rank: 1 problem above
// CHECK-NOT: ran

#include <mpi.h>
#include <stdio.h>

extern char **environ;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fprintf(stdout, "ran %d\n", environ != NULL);
    MPI_Finalize();
    return 0;
}
