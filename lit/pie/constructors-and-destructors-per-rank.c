// Under -privatize=pie the program's initializers (constructor functions,
// .init_array) run once in every rank, on the rank's copy, before its
// main, and its finalizers (destructor functions, .fini_array) when the
// rank ends; the loaded original's ran once as usual, before the ranks.
// REQUIRES: ampi-runtime
// RUN: %ampicc -privatize=pie -O2 %s -o %t
// RUN: %t +vp 4 +p 2 | FileCheck %s

// CHECK-COUNT-4: rank {{[0-3]}}: constructed once, before main
// CHECK-NOT: constructed
// CHECK-COUNT-4: destructor of rank {{[0-3]}}
// CHECK-NOT: destructor

#include <mpi.h>
#include <stdio.h>

static int constructed;
static int in_main;
static int my_rank = -1;

__attribute__((constructor)) static void init(void)
{
    constructed += 1 + in_main;
}

__attribute__((destructor)) static void fini(void)
{
    if (my_rank >= 0)
        printf("destructor of rank %d\n", my_rank);
}

int main(int argc, char **argv)
{
    in_main = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    if (constructed == 1)
        printf("rank %d: constructed once, before main\n", my_rank);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
