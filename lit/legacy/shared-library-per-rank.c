// A shared library with globals, built with the wrapper (-shared -fPIC),
// linked into a program built with it: the library's globals are private
// to each rank too (initial-exec TLS in the library, copied per rank by the
// runtime).
// REQUIRES: ampi-runtime, clang-plugin
// RUN: rm -rf %t && split-file %s %t
// RUN: %ampicc -shared -fPIC -O2 %t/lib.c -o %t/libstate.so
// RUN: %ampicc -O2 %t/main.c -L%t -lstate -Wl,-rpath,%t -o %t/app
// RUN: %t/app +vp 4 +p 1 | FileCheck %s --check-prefix=PRIVATE
// RUN: %t/app +vp 16 +p 2 | FileCheck %s --check-prefix=PRIVATE
// RUN: %ampicc -privatize=none -shared -fPIC -O2 %t/lib.c -o %t/libshared.so
// RUN: %ampicc -privatize=none -O2 %t/main.c -L%t -lshared -Wl,-rpath,%t -o %t/shared
// RUN: %t/shared +vp 4 +p 1 | FileCheck %s --check-prefix=SHARED

// PRIVATE: 0 rank(s) saw another rank's library state
// SHARED: {{[1-9][0-9]*}} rank(s) saw another rank's library state

//--- lib.c
static int state = 3;
int exported[4] = {1, 2, 3, 4};

void lib_set(int v)
{
    state = v;
    for (int i = 0; i < 4; i++)
        exported[i] = v + i;
}

int lib_ok(int v)
{
    int ok = state == v;
    for (int i = 0; i < 4; i++)
        ok &= exported[i] == v + i;
    return ok;
}

//--- main.c
#include <mpi.h>
#include <stdio.h>

void lib_set(int v);
int lib_ok(int v);

int main(int argc, char **argv)
{
    int rank, bad, all_bad;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    lib_set(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    bad = !lib_ok(rank);
    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d rank(s) saw another rank's library state\n", all_bad);
    MPI_Finalize();
    return 0;
}
