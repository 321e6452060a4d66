// Work stealing: ranks 0-3 (PE 0, block mapping) compute four times as
// long as ranks 4-7 (PE 1) between two allreduces.  PE 1, idle, asks PE 0
// for work, and PE 0 lends it ranks of its own as they leave an MPI call;
// +lbdebug counts both sides.  +nosteal and +pinmap with a +mapping keep
// every rank on its PE; so do kernel threads bound to a rank
// (lend-threads.c).  The answer is the same whoever ran what.
// REQUIRES: ampi-runtime
// RUN: %ampicc -O1 %s -o %t
// RUN: %t +vp 8 +p 2 +lbdebug 2>&1 | FileCheck %s --check-prefix=LEND
// RUN: env AMPI_STEAL_IDLE=0.00001 %t +vp 8 +p 2 +lbdebug 2>&1 | FileCheck %s --check-prefix=LEND
// RUN: %t +vp 8 +p 2 +stats 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %t +vp 8 +p 2 +nosteal +lbdebug 2>&1 | FileCheck %s --check-prefix=OFF --implicit-check-not=lent
// RUN: env AMPI_STEAL=0 %t +vp 8 +p 2 +lbdebug 2>&1 | FileCheck %s --check-prefix=OFF --implicit-check-not=lent
// RUN: %t +vp 8 +p 2 +pinmap +mapping block +lbdebug 2>&1 | FileCheck %s --check-prefix=PINNED
// RUN: %t +vp 8 +p 2 +nosteal +steal +lbdebug 2>&1 | FileCheck %s --check-prefix=LEND
// With as many ranks as PEs there is nothing to steal: stealing stays off.
// RUN: %t +vp 2 +p 2 +lbdebug 2>&1 | FileCheck %s --check-prefix=ONEAPE --implicit-check-not=lent
// RUN: not %t +nosteal=1 2>&1 | FileCheck %s --check-prefix=BADFLAG --implicit-check-not={{.}}

// LEND-DAG: result 1600000 ok
// LEND-DAG: ampi: lb: process 0 PE 0 lent ranks {{[1-9][0-9]*}} times, ran others' ranks {{[0-9]+}} times
// LEND-DAG: ampi: lb: process 0 PE 1 lent ranks {{[0-9]+}} times, ran others' ranks {{[1-9][0-9]*}} times
// STATS: ampi: stats: rank 0 on PE 0 resumed {{[0-9]+}} times, lent {{[0-9]+}} times
// OFF: result 1600000 ok
// PINNED: result 1600000 ok
// PINNED: ampi: lb: process 0 PE 0 lent ranks 0 times, ran others' ranks 0 times
// PINNED: ampi: lb: process 0 PE 1 lent ranks 0 times, ran others' ranks 0 times
// ONEAPE: result 400000 ok
// BADFLAG: ampi: +nosteal: takes no value, got '+nosteal=1'

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "Inputs/work.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long mine = 0, total = 0;
    for (int it = 0; it < 40; it++) {
        mine += work(rank < size / 2 ? 8000 : 2000);
        long step = 0;
        MPI_Allreduce(&mine, &step, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        total = step;
    }
    long want = 40L * (size / 2) * 8000 + 40L * (size - size / 2) * 2000;
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
