// Several processes from a PMIx launcher (mpirun -np 2) cannot run one job
// yet (no transport between processes): the program says so once, from
// process 0, before any rank starts, and the job fails instead of running
// one separate job per process.
// REQUIRES: ampi-runtime, openmpi-mpirun
// RUN: %ampicc %s -o %t
// RUN: %status %mpirun -q -np 2 %t +vp 4 2>&1 | FileCheck %s --check-prefix=QUIET \
// RUN:   --implicit-check-not='a rank ran'
// RUN: %status %mpirun -np 2 %t +vp 4 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='a rank ran'

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    printf("a rank ran\n");
    MPI_Finalize();
    return 0;
}

// With -q, mpirun adds nothing: the one line, then the failure.
// QUIET: ampi: this job has 2 processes (started by a PMIx launcher); running across processes needs the UCX transport, which this version does not have yet: run one process with +vp N +p P
// QUIET-NEXT: exit status 1

// Without it, mpirun adds its report of a non-zero exit status (never of an
// abnormal termination), and the line is still there once.
// CHECK: ampi: this job has 2 processes
// CHECK-NOT: ampi:
// CHECK-NOT: improperly
// CHECK: exit status 1
