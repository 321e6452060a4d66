// A shared library built with the wrapper that parses options with getopt
// (reading optarg and optind), draws with rand and splits with strtok gets
// each rank's own state, as the program does: its references to getopt's
// variables are renamed to the rank's own like the program's, and the
// functions are the runtime's in every lookup.
// REQUIRES: ampi-runtime, clang-plugin
// RUN: rm -rf %t && split-file %s %t
// RUN: %ampicc -shared -fPIC -O2 %t/lib.c -o %t/libopts.so
// RUN: %ampicc -O2 %t/main.c -L%t -lopts -Wl,-rpath,%t -o %t/app
// RUN: %t/app +vp 4 +p 2 -n 7 -q tail | FileCheck %s
// RUN: %t/app +vp 9 +p 2 -n 7 -q tail | FileCheck %s

// CHECK: 0 rank(s) saw another rank's state

//--- lib.c
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int lib_parse(int argc, char **argv)
{
    int c, n = -1, quiet = 0;
    while ((c = getopt(argc, argv, "n:q")) != -1) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (c == 'n')
            n = atoi(optarg);
        else if (c == 'q')
            quiet = 1;
    }
    return n == 7 && quiet && optind == argc - 1;
}

int lib_draw(void)
{
    int a = rand();
    MPI_Barrier(MPI_COMM_WORLD);
    return a == 1804289383 && rand() == 846930886;
}

int lib_split(int rank)
{
    char line[32], want[8];
    snprintf(line, sizeof(line), "x%d,y%d", rank, rank);
    strtok(line, ",");
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(want, sizeof(want), "y%d", rank);
    return strcmp(strtok(NULL, ","), want) == 0;
}

//--- main.c
#include <mpi.h>
#include <stdio.h>

int lib_parse(int argc, char **argv);
int lib_draw(void);
int lib_split(int rank);

int main(int argc, char **argv)
{
    int rank, bad, nbad;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    bad = !lib_parse(argc, argv) + !lib_draw() + !lib_split(rank) != 0;
    MPI_Reduce(&bad, &nbad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d rank(s) saw another rank's state\n", nbad);
    MPI_Finalize();
    return 0;
}
