// A legacy C program keeps its state in globals, file statics, function
// statics, arrays, structures and pointers initialized with addresses of
// other globals (int *p = &x;).  Built with -privatize=pie every rank runs
// its own relocated copy of the program image: each starts from the
// initial values, writes its rank into every variable, lets the others run
// (a barrier) and reads its own values back.  Built with -privatize=none
// the ranks of a worker thread share them, which the test shows too, so it
// proves something.
// REQUIRES: ampi-runtime
// RUN: %ampicc -privatize=pie -O2 %s -o %t
// RUN: %t +vp 4 +p 1 | FileCheck %s --check-prefix=PRIVATE
// RUN: %t +vp 4 +p 2 | FileCheck %s --check-prefix=PRIVATE
// RUN: %t +vp 16 +p 2 | FileCheck %s --check-prefix=PRIVATE
// RUN: %ampicc -privatize=none -O2 %s -o %t.shared
// RUN: %t.shared +vp 4 +p 1 | FileCheck %s --check-prefix=SHARED

// PRIVATE: [[N:[0-9]+]] of [[N]] ranks saw the initial values; 0 saw another rank's
// SHARED: 4 of 4 ranks saw the initial values; 4 saw another rank's

#include <mpi.h>
#include <stdio.h>
#include <string.h>

struct cell {
    int id;
    double weight[4];
    const char *name;
};

int counter = 100;
static long hidden = -7;
double table[16384]; /* 128 KiB of .bss: whole zero pages too */
char label[32] = "initial";
struct cell origin = {-1, {0.5, 0.5, 0.5, 0.5}, "origin"};
int *counter_ptr = &counter;
char *label_ptr = label;
struct cell *cells[2] = {&origin, NULL};

/* A function-local static: 0 calls so far in this rank. */
static int calls(int add)
{
    static int n;
    n += add;
    return n;
}

static int fresh(void)
{
    return counter == 100 && hidden == -7 && table[16383] == 0 &&
           table[700] == 0 && strcmp(label, "initial") == 0 &&
           origin.id == -1 && origin.weight[3] == 0.5 &&
           strcmp(origin.name, "origin") == 0 && counter_ptr == &counter &&
           label_ptr == label && cells[0] == &origin && calls(0) == 0;
}

static void set_all(int rank)
{
    counter = rank;
    hidden = rank;
    for (int i = 0; i < 16384; i++)
        table[i] = rank + i;
    snprintf(label, sizeof(label), "rank-%d", rank);
    origin.id = rank;
    origin.weight[3] = rank * 2.0;
    calls(rank + 1);
}

static int mine(int rank)
{
    char want[32];
    int bad = *counter_ptr != rank || hidden != rank || cells[0]->id != rank ||
              origin.weight[3] != rank * 2.0 || calls(0) != rank + 1;
    for (int i = 0; i < 16384; i++)
        bad |= table[i] != rank + i;
    snprintf(want, sizeof(want), "rank-%d", rank);
    return !bad && strcmp(label_ptr, want) == 0;
}

int main(int argc, char **argv)
{
    int rank, size, counts[2], totals[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    counts[0] = fresh();
    MPI_Barrier(MPI_COMM_WORLD);
    set_all(rank);
    /* Let every other rank write its values before reading ours back. */
    MPI_Barrier(MPI_COMM_WORLD);
    counts[1] = !mine(rank);
    MPI_Allreduce(counts, totals, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d of %d ranks saw the initial values; %d saw another "
               "rank's\n",
               totals[0], size, totals[1]);
    MPI_Finalize();
    return 0;
}
