// A rank blocked in MPI_Waitall is reported with each request it still
// waits for; completed ones are not listed.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: %status %t +vp 2 +p 2 2>&1 | FileCheck %s

#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, a = 1, b = 0, c = 0;
    MPI_Request reqs[3];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Isend(&a, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(&b, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &reqs[1]);
        MPI_Irecv(&c, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF,
                  &reqs[2]);
        MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
    } else {
        MPI_Recv(&b, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}

// CHECK: ampi:   rank 0: blocked in MPI_Waitall
// CHECK-NEXT: ampi:     receive from source 1, tag 4 (MPI_COMM_WORLD)
// CHECK-NEXT: ampi:     receive from source MPI_ANY_SOURCE, tag MPI_ANY_TAG (MPI_COMM_SELF)
// CHECK-NEXT: ampi:   1 rank has already finished
// CHECK-NEXT: exit status 1
