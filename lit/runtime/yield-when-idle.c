// PEs with nothing to do yield their core to the kernel's other threads
// while they wait when the PEs outnumber the cores: this process's PEs
// those it may use, or the PEs of the job's processes on the node its
// hardware threads (several single-rank processes on few cores would
// otherwise wait out each other's time slices). AMPI_YIELD_WHEN_IDLE=1
// or 0 decides instead; +showmap says which.
// REQUIRES: ampi-runtime, openmpi-mpirun, taskset-cpus-0-1
// RUN: %ampicc %s -o %t
// RUN: taskset -c 0,1 %t +vp 4 +p 2 +showmap 2>&1 | FileCheck %s --check-prefix=ROOMY
// RUN: taskset -c 0 %t +vp 4 +p 2 +nopin +showmap 2>&1 | FileCheck %s --check-prefix=CROWDED
// RUN: env AMPI_YIELD_WHEN_IDLE=1 taskset -c 0,1 %t +vp 4 +p 2 +showmap 2>&1 | FileCheck %s --check-prefix=CROWDED
// RUN: env AMPI_YIELD_WHEN_IDLE=0 taskset -c 0 %t +vp 4 +p 2 +nopin +showmap 2>&1 | FileCheck %s --check-prefix=ROOMY
// RUN: env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
// RUN:   taskset -c 0,1 %ampirun -n 3 --launcher-arg --oversubscribe %t +vp 6 +showmap 2>&1 \
// RUN:   | sort | FileCheck %s --check-prefix=NODE
// RUN: env AMPI_YIELD_WHEN_IDLE=sometimes %status %t +vp 2 2>&1 | FileCheck %s --check-prefix=BAD

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    long mine, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 2000; i++) { /* many waits, each a yield or not */
        mine = rank + i;
        MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (sum != (long)size * (size - 1) / 2 + (long)size * i) {
            printf("rank %d: round %d: sum %ld\n", rank, i, sum);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    if (rank == 0)
        printf("sums right: %d ranks\n", size);
    MPI_Finalize();
    return 0;
}

// ROOMY:     ampi: placement of 4 ranks on 2 PEs {{.*}} (PU{{s?}} {{[-,0-9]+}}){{$}}
// ROOMY:     sums right: 4 ranks

// CROWDED:   ampi: placement of 4 ranks on 2 PEs {{.*}}; idle PEs yield their cores{{$}}
// CROWDED:   sums right: 4 ranks

// Three processes of one PE each on two cores.
// NODE:      ampi: process 0 of 3 on {{.*}}; idle PEs yield their cores
// NODE-NEXT: ampi: process 1 of 3 on {{.*}}; idle PEs yield their cores
// NODE-NEXT: ampi: process 2 of 3 on {{.*}}; idle PEs yield their cores
// NODE-NEXT: sums right: 6 ranks

// BAD: ampi: AMPI_YIELD_WHEN_IDLE: expected 0 or 1, got 'sometimes'
// BAD: exit status 1
