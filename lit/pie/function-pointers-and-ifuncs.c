// Function pointers in a rank's copy of the program: initialized with the
// program's own function (a relative relocation: the copy's function), with
// a C library function (R_X86_64_64: the library's, as the original
// resolved it) and with an ifunc of the program (R_X86_64_IRELATIVE: the
// resolver ran once, in the original; the copy gets the chosen function in
// the copy).  Calls through them reach the rank's own globals.  Also linked
// with packed relative relocations (DT_RELR).
// REQUIRES: ampi-runtime
// RUN: %ampicc -privatize=pie -O0 %s -o %t
// RUN: %t +vp 4 +p 2 | FileCheck %s
// RUN: %ampicc -privatize=pie -O0 %s -o %t.relr -Wl,-z,pack-relative-relocs
// RUN: %t.relr +vp 4 +p 2 | FileCheck %s

// CHECK: 4 of 4 ranks called their own functions

#include <mpi.h>
#include <stdio.h>

static int calls; /* per rank */

static int add_one(int x)
{
    calls++;
    return x + 1;
}

static int add_two(int x)
{
    return x + 2;
}

static int (*resolve_add(void))(int)
{
    return calls == 0 ? add_one : add_two;
}

int add(int x) __attribute__((ifunc("resolve_add")));

static int count(void)
{
    return ++calls;
}

int (*add_ptr)(int) = add;
int (*puts_ptr)(const char *) = puts;
int (*count_ptr)(void) = count;

int main(int argc, char **argv)
{
    int rank, size, ok, total;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    count_ptr();
    MPI_Barrier(MPI_COMM_WORLD);
    ok = add(rank) == rank + 1 && add_ptr(rank) == rank + 1 &&
         puts_ptr == puts && count_ptr == count && calls == 3;
    MPI_Allreduce(&ok, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d of %d ranks called their own functions\n", total, size);
    MPI_Finalize();
    return 0;
}
