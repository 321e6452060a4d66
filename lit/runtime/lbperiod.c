// +lbperiod: a program that never calls AMPI_Migrate is balanced at the
// first blocking collective over MPI_COMM_WORLD after each period (here
// its allreduce), in one process and across two.  With "pending", rank 0
// keeps a nonblocking barrier of another communicator open all along: it
// cannot move then, stays where it is and is counted, while the others are
// balanced.  The answer is the same with and without balancing.
// REQUIRES: ampi-runtime, openmpi-mpirun
// RUN: %ampicc -O1 %s -o %t
// RUN: %t +vp 8 +p 2 +nosteal +balancer GreedyLB +lbperiod 0.005 +lbdebug 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: %t pending +vp 8 +p 2 +nosteal +balancer RefineLB +lbperiod 0.005 +lbdebug 2>&1 | FileCheck %s --check-prefix=PENDING
// RUN: env AMPI_LBPERIOD=0.005 AMPI_BALANCER=GreedyLB AMPI_LBDEBUG=1 %t +vp 8 +p 2 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: %mpirun -np 2 %t +vp 8 +p 1 +balancer GreedyLB +lbperiod 0.005 +lbdebug 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: %t +vp 8 +p 2 | FileCheck %s --check-prefix=NONE --implicit-check-not=lb:
// RUN: not %t +vp 2 +balancer GreedyLB +lbperiod soon 2>&1 | FileCheck %s --check-prefix=BAD --implicit-check-not={{.}}
// RUN: not %t +vp 2 +balancer GreedyLB +lbmingain 1 2>&1 | FileCheck %s --check-prefix=BADGAIN --implicit-check-not={{.}}

// ONE: ampi: lb: step 1 in this process: the busiest PE's load {{[0-9.e+-]+}} s before, {{[0-9.e+-]+}} s planned; the mean {{[0-9.e+-]+}} s
// ONE: ampi: lb: step 1, GreedyLB, {{[0-9]+}} of 8 ranks move, 0 cannot move now; decided in {{[0-9.]+}} ms
// ONE: result 4800000 ok
// PENDING: ampi: lb: step 1, RefineLB, {{[0-9]+}} of 8 ranks move, 1 cannot move now
// PENDING: result 4800000 ok
// TWO-DAG: ampi: lb: step 1, GreedyLB, {{[0-9]+}} of {{[0-9]+}} ranks move, 0 cannot move now
// TWO-DAG: ampi: lb: step 1: the busiest PE's load {{[0-9.e+-]+}} s before, {{[0-9.e+-]+}} s planned; the mean {{[0-9.e+-]+}} s
// TWO-DAG: result 4800000 ok
// NONE: result 4800000 ok
// BAD: ampi: +lbperiod: expected a positive number of seconds, got 'soon'
// BADGAIN: ampi: +lbmingain: expected a fraction from 0 to below 1, got '1'

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "Inputs/work.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int pending = argc > 1 && strcmp(argv[1], "pending") == 0;
    MPI_Comm other;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &other);
    if (pending && rank == 0)
        MPI_Ibarrier(other, &req);
    long mine = 0, total = 0;
    for (int it = 0; it < 60; it++) {
        mine += work(rank < size / 2 ? 16000 : 4000);
        MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    }
    if (pending && rank != 0)
        MPI_Ibarrier(other, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Comm_free(&other);
    long want = 60L * (size / 2) * 16000 + 60L * (size - size / 2) * 4000;
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
