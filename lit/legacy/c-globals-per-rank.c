// An unmodified legacy C program keeps its state in dozens of globals:
// file-scope variables (initialized, tentative, static), function-local
// statics, arrays, structs, a pointer initialized with another global's
// address, and variables shared with a second translation unit through
// extern.  Built with ampicc (privatization is the default) every rank has
// its own copy of each: it writes its rank into all of them, lets the other
// ranks run (a barrier), and checks it reads its own values back.  Built
// with -privatize=none the ranks of a PE share them, which the test shows
// too, so it proves something.
// REQUIRES: ampi-runtime, clang-plugin
// RUN: rm -rf %t && split-file %s %t
// RUN: %ampicc -O2 %t/main.c %t/other.c -o %t/app
// RUN: %t/app +vp 4 +p 1 | FileCheck %s --check-prefix=PRIVATE
// RUN: %t/app +vp 4 +p 2 | FileCheck %s --check-prefix=PRIVATE
// RUN: %t/app +vp 16 +p 2 | FileCheck %s --check-prefix=PRIVATE
// RUN: %ampicc -privatize=none -O2 %t/main.c %t/other.c -o %t/shared
// RUN: %t/shared +vp 4 +p 1 | FileCheck %s --check-prefix=SHARED

// PRIVATE: 0 rank(s) saw another rank's values
// PRIVATE: every rank saw the initial values
// SHARED: {{[1-9][0-9]*}} rank(s) saw another rank's values

//--- shared.h
extern int counter;
extern double weights[8];
extern struct config {
    int id;
    char name[16];
    double scale;
} config;
int bump_other(int rank);
int other_ok(int rank);

//--- other.c
#include "shared.h"

int counter = 5;
static int other_private = -1;

int bump_other(int rank)
{
    static int calls;
    calls = rank;
    other_private = rank;
    return calls;
}

int other_ok(int rank)
{
    static int calls_seen = 0;
    calls_seen = rank;
    return other_private == rank && calls_seen == rank;
}

//--- main.c
#include "shared.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

double weights[8] = {1, 2, 3, 4, 5, 6, 7, 8};
struct config config = {42, "initial", 0.5};
int tentative;
int tentative;
static long file_static = 100;
char message[32] = "hello";
int table[4][4];
int *cursor = &tentative;
struct config *current = &config;
static const int limit = 7; /* constant: stays shared, and that is fine */
unsigned char flags[3] = {1, 2, 3};
float ratio = 1.5f;
long long big = 1LL << 40;
short small = 3;
struct {
    int a, b;
} pair = {1, 2};

static int local_static(int rank)
{
    static int seen = -1;
    int before = seen;
    seen = rank;
    return before;
}

static int fresh(void)
{
    return counter == 5 && weights[7] == 8 && config.id == 42 &&
           strcmp(config.name, "initial") == 0 && file_static == 100 &&
           strcmp(message, "hello") == 0 && cursor == &tentative &&
           current == &config && flags[2] == 3 && ratio == 1.5f &&
           big == 1LL << 40 && small == 3 && pair.b == 2 && limit == 7;
}

static void write_all(int r)
{
    counter = r;
    for (int i = 0; i < 8; i++)
        weights[i] = r + i;
    config.id = r;
    snprintf(config.name, sizeof(config.name), "rank%d", r);
    config.scale = r * 0.5;
    tentative = r;
    file_static = r;
    snprintf(message, sizeof(message), "from %d", r);
    for (int i = 0; i < 16; i++)
        table[i / 4][i % 4] = r * 16 + i;
    *cursor += 1000; /* cursor points at this rank's tentative */
    current->scale += 1;
    flags[0] = (unsigned char)r;
    ratio = (float)r;
    big = r;
    small = (short)r;
    pair.a = r;
    local_static(r);
    bump_other(r);
}

static int check_all(int r)
{
    char want[32];
    int ok = counter == r && config.id == r && tentative == r + 1000 &&
             file_static == r && flags[0] == r && ratio == (float)r &&
             big == r && small == r && pair.a == r &&
             config.scale == r * 0.5 + 1 && local_static(r) == r &&
             other_ok(r) && cursor == &tentative && current == &config;
    for (int i = 0; i < 8; i++)
        ok &= weights[i] == r + i;
    for (int i = 0; i < 16; i++)
        ok &= table[i / 4][i % 4] == r * 16 + i;
    snprintf(want, sizeof(want), "rank%d", r);
    ok &= strcmp(config.name, want) == 0;
    snprintf(want, sizeof(want), "from %d", r);
    return ok && strcmp(message, want) == 0;
}

int main(int argc, char **argv)
{
    int rank, initial, bad, all_initial, all_bad;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    initial = fresh();
    MPI_Barrier(MPI_COMM_WORLD);
    write_all(rank);
    MPI_Barrier(MPI_COMM_WORLD); /* the other ranks write theirs */
    bad = !check_all(rank);
    MPI_Allreduce(&initial, &all_initial, 1, MPI_INT, MPI_LAND,
                  MPI_COMM_WORLD);
    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%d rank(s) saw another rank's values\n", all_bad);
        printf("%s\n", all_initial ? "every rank saw the initial values"
                                   : "some rank did not see the initial "
                                     "values");
    }
    MPI_Finalize();
    return 0;
}
