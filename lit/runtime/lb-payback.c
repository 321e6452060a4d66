// Moves between processes are weighed against what they cost, over the
// time a plan has to pay them back: the next period, and at least a second
// (a gain lasts as long as the loads do).  Ranks of 8 MiB cost about 10 ms
// each to move; ranks 0-3 of process 0 work four times what ranks 4-7 of
// process 1 do, and a step every 20 ms would gain about 7 ms a period:
// weighed over one period no plan ever paid for its moves, and the job
// ran unbalanced to its end.  Over a second the first step moves ranks.
// REQUIRES: ampi-runtime, openmpi-mpirun
// RUN: %ampicc -O1 %s -o %t
// RUN: %mpirun -np 2 %t +vp 8 +p 1 +balancer GreedyLB +lbperiod 0.02 +lbearly 0 +lbdebug 2>&1 | FileCheck %s

// CHECK: ampi: lb: step {{[0-9]+}}: process {{[01]}} sent {{[1-9][0-9]*}} ranks
// CHECK: result {{[0-9]+}} ok

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BYTES (8 << 20)

#include "Inputs/work.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *mem = malloc(BYTES); /* moves with the rank */
    if (!mem)
        MPI_Abort(MPI_COMM_WORLD, 2);
    memset(mem, 1 + rank, BYTES);
    long mine = 0, total = 0;
    for (int it = 0; it < 150; it++) {
        mine += work(rank < size / 2 ? 40000 : 10000);
        MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    }
    long want = 150L * (size / 2) * 40000 + 150L * (size - size / 2) * 10000;
    if (total != want || mem[BYTES - 1] != 1 + rank) {
        fprintf(stderr, "rank %d: total %ld, expected %ld\n", rank, total,
                want);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0)
        printf("result %ld ok\n", total);
    free(mem);
    MPI_Finalize();
    return 0;
}
