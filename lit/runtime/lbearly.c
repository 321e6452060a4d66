// +lbearly: a job whose first placement puts the heavy ranks together does
// not wait a whole +lbperiod for its first step.  Ranks 0-3 work four times
// as much as ranks 4-7, and with two processes of 4 ranks the first
// process holds them all: its PE is busy, the other's waits at every
// allreduce.  The period (60 s) outlasts the run; the early look, an
// eighth of it since the first allreduce, is shortened here with
// +lbearly to 0.001 of it (60 ms), and the job balances there.
// +lbearly 0 keeps the step to the period's end: none in this run.  The
// answer is the same either way.
// REQUIRES: ampi-runtime, openmpi-mpirun
// RUN: %ampicc -O1 %s -o %t
// RUN: %mpirun -np 2 %t +vp 8 +p 1 +balancer GreedyLB +lbperiod 60 +lbearly 0.001 +lbdebug 2>&1 | FileCheck %s --check-prefix=EARLY
// RUN: %mpirun -np 2 %t +vp 8 +p 1 +balancer GreedyLB +lbperiod 60 +lbearly 0 +lbdebug 2>&1 | FileCheck %s --check-prefix=OFF --implicit-check-not="lb: step"
// RUN: env AMPI_LBEARLY=0 %mpirun -np 2 -x AMPI_LBEARLY %t +vp 8 +p 1 +balancer GreedyLB +lbperiod 60 +lbdebug 2>&1 | FileCheck %s --check-prefix=OFF --implicit-check-not="lb: step"
// RUN: not %t +vp 2 +balancer GreedyLB +lbperiod 1 +lbearly 2 2>&1 | FileCheck %s --check-prefix=BAD --implicit-check-not={{.}}

// EARLY: ampi: lb: step 1 comes early: the least busy PE ran threads {{[0-9.]+}}% of the time since the last step, the busiest {{[0-9.]+}}%
// EARLY-DAG: ampi: lb: step 1, GreedyLB, {{[1-9][0-9]*}} of 4 ranks move
// EARLY-DAG: result 24000000 ok
// OFF: result 24000000 ok
// BAD: ampi: +lbearly: expected a fraction from 0 to below 1, got '2'

#include <mpi.h>
#include <stdio.h>

#include "Inputs/work.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long mine = 0, total = 0;
    for (int it = 0; it < 60; it++) {
        mine += work(rank < size / 2 ? 80000 : 20000);
        MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    }
    long want = 60L * (size / 2) * 80000 + 60L * (size - size / 2) * 20000;
    if (total != want) {
        fprintf(stderr, "rank %d: total %ld, expected %ld\n", rank, total,
                want);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0)
        printf("result %ld ok\n", total);
    MPI_Finalize();
    return 0;
}
