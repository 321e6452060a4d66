// Processes of one node left free to use every core (ampirun starts them
// with mpirun --bind-to none) share the cores out instead of all pinning
// their PE 0 to the first core: process k starts at core slot k * share,
// and +p defaults to the share (cores / processes on the node).
// REQUIRES: ampi-runtime, openmpi-mpirun, taskset-cpus-0-1
// RUN: %ampicc %s -o %t
// RUN: env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
// RUN:   %ampirun -n 2 --launcher-arg --oversubscribe %t +vp 4 +showmap 2>&1 \
// RUN:   | sort | FileCheck %s

#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}

// CHECK: ampi: PE 0: core 0 {{.*}}: ranks 0-1
// CHECK: ampi: PE 0: core {{[1-9][0-9]*}} {{.*}}: ranks 2-3
// CHECK: ampi: process 0 of 2 on {{.*}}: placement of 2 ranks on 1 PE
// CHECK: ampi: process 1 of 2 on {{.*}}: placement of 2 ranks on 1 PE
