// A deadlock in a job of several processes is reported, not hung on: the
// processes find together that every rank is blocked and no message is in
// flight, each one lists its own ranks, and the job fails.  Also when the
// ranks of one process have all ended (process 1's in "tail", process 0's
// in "head") and those of the other wait forever.  Before they block, the
// ranks exchange enough messages that the counts the detection compares are
// not trivially zero.
// REQUIRES: ampi-runtime, openmpi-mpirun
// RUN: %ampicc %s -o %t
// RUN: %status %mpirun -np 2 %t cycle +vp 4 2>&1 | grep -v "^ampi: PMIx" \
// RUN:   | grep "ampi\|exit status" | env LC_ALL=C sort | FileCheck %s --check-prefix=CYCLE
// RUN: %status %mpirun -np 2 %t tail +vp 4 2>&1 | grep -v "^ampi: PMIx" \
// RUN:   | grep "ampi\|exit status" | env LC_ALL=C sort | FileCheck %s --check-prefix=TAIL
// RUN: %status %mpirun -np 2 %t head +vp 4 2>&1 | grep -v "^ampi: PMIx" \
// RUN:   | grep "ampi\|exit status" | env LC_ALL=C sort | FileCheck %s --check-prefix=HEAD
// RUN: %mpirun -np 2 %t none +vp 4 2>&1 | FileCheck %s --check-prefix=NONE

#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, x = 0, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "none";
    for (int i = 0; i < 50; i++)
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (strcmp(mode, "cycle") == 0)
        MPI_Recv(&x, 1, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (strcmp(mode, "tail") == 0 && rank < 2)
        MPI_Recv(&x, 1, MPI_INT, 1 - rank, 8, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (strcmp(mode, "head") == 0 && rank >= 2)
        MPI_Recv(&x, 1, MPI_INT, 5 - rank, 9, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (rank == 0)
        printf("finished: sum %d\n", sum);
    MPI_Finalize();
    return 0;
}

// CYCLE: ampi:     receive from source 0, tag 7 (MPI_COMM_WORLD)
// CYCLE-NEXT: ampi:     receive from source 1, tag 7 (MPI_COMM_WORLD)
// CYCLE-NEXT: ampi:     receive from source 2, tag 7 (MPI_COMM_WORLD)
// CYCLE-NEXT: ampi:     receive from source 3, tag 7 (MPI_COMM_WORLD)
// CYCLE-NEXT: ampi:   rank 0: blocked in MPI_Recv
// CYCLE-NEXT: ampi:   rank 1: blocked in MPI_Recv
// CYCLE-NEXT: ampi:   rank 2: blocked in MPI_Recv
// CYCLE-NEXT: ampi:   rank 3: blocked in MPI_Recv
// CYCLE-NEXT: ampi: deadlock: every rank is blocked and no message is in flight (ranks of process 0 of 2)
// CYCLE-NEXT: ampi: deadlock: every rank is blocked and no message is in flight (ranks of process 1 of 2)
// CYCLE-NEXT: exit status 1

// TAIL: ampi:     receive from source 0, tag 8 (MPI_COMM_WORLD)
// TAIL-NEXT: ampi:     receive from source 1, tag 8 (MPI_COMM_WORLD)
// TAIL-NEXT: ampi:   rank 0: blocked in MPI_Recv
// TAIL-NEXT: ampi:   rank 1: blocked in MPI_Recv
// TAIL-NEXT: ampi: deadlock: every rank is blocked and no message is in flight (ranks of process 0 of 2)
// TAIL-NEXT: exit status 1

// HEAD: ampi:     receive from source 2, tag 9 (MPI_COMM_WORLD)
// HEAD-NEXT: ampi:     receive from source 3, tag 9 (MPI_COMM_WORLD)
// HEAD-NEXT: ampi:   2 ranks have already finished
// HEAD-NEXT: ampi:   rank 2: blocked in MPI_Recv
// HEAD-NEXT: ampi:   rank 3: blocked in MPI_Recv
// HEAD-NEXT: ampi: deadlock: every rank is blocked and no message is in flight (ranks of process 0 of 2)
// HEAD-NEXT: ampi: deadlock: every rank is blocked and no message is in flight (ranks of process 1 of 2)
// HEAD-NEXT: exit status 1

// NONE: finished: sum 6
