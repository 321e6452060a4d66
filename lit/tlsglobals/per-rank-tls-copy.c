// Thread-local variables in code compiled to read the thread pointer from
// %fs:0 get one copy per rank, initialized from the TLS image, because the
// runtime switches %fs:0 with every rank switch.  The same program compiled
// with direct %fs:offset accesses shares them between the ranks of a PE,
// which this test shows too, so it proves something.
// REQUIRES: ampi-runtime
// The program declares its thread-locals itself, so it is built without the
// privatization plugin (-privatize=none): this tests the runtime half alone.
// RUN: %ampicc -privatize=none -O2 -mno-tls-direct-seg-refs %s -o %t
// RUN: %t +vp 4 +p 1 | FileCheck %s --check-prefix=PRIVATE
// RUN: %t +vp 16 +p 2 | FileCheck %s --check-prefix=PRIVATE
// RUN: %ampicc -privatize=none -O2 %s -o %t.shared
// RUN: %t.shared +vp 4 +p 1 | FileCheck %s --check-prefix=SHARED

#include <mpi.h>
#include <stdio.h>
#include <string.h>

_Thread_local int counter = 100;
_Thread_local double table[64];
_Thread_local char name[32] = "initial";
static _Thread_local long hidden = -7;

static int check(int rank)
{
    int bad = counter != rank || hidden != rank;
    for (int i = 0; i < 64; i++)
        bad |= table[i] != rank + i;
    char want[32];
    snprintf(want, sizeof(want), "rank-%d", rank);
    return bad | (strcmp(name, want) != 0);
}

int main(int argc, char **argv)
{
    int rank, size, fresh, bad, total_fresh, total_bad;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Every rank starts from the initialization image. */
    fresh = counter == 100 && hidden == -7 && strcmp(name, "initial") == 0;
    MPI_Barrier(MPI_COMM_WORLD);
    counter = rank;
    hidden = rank;
    for (int i = 0; i < 64; i++)
        table[i] = rank + i;
    snprintf(name, sizeof(name), "rank-%d", rank);
    /* Let every other rank write its values before reading ours back. */
    MPI_Barrier(MPI_COMM_WORLD);
    bad = check(rank);
    MPI_Allreduce(&fresh, &total_fresh, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&bad, &total_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d of %d ranks saw the initial values; %d saw another "
               "rank's\n",
               total_fresh, size, total_bad);
    MPI_Finalize();
    return 0;
}

// PRIVATE: [[N:[0-9]+]] of [[N]] ranks saw the initial values; 0 saw another rank's
// SHARED: 4 of 4 ranks saw the initial values; 3 saw another rank's
