// A window over ranks of several processes works like one in a process:
// every rank adds to rank 0's counter (a member of the other process for
// half of them), and reads the right neighbour's value through passive
// target.  MPI_COMM_TYPE_SHARED is the node: MPI_Win_allocate_shared over
// the ranks of both processes (one node) gives memory every rank loads and
// stores.  With AMPI_NODE_SHM=0 the processes share no memory: a shared
// window over both answers MPI_ERR_RMA_SHARED through the error handler,
// naming the call and the argument, and MPI_COMM_TYPE_SHARED is the
// process.
// REQUIRES: ampi-runtime, openmpi-mpirun
// RUN: %ampicc %s -o %t
// RUN: %status %mpirun -np 2 %t +vp 4 2>&1 | sort | FileCheck %s
// RUN: %status %mpirun -np 2 -x AMPI_NODE_SHM=0 %t +vp 4 2>&1 | sort \
// RUN:   | FileCheck %s --check-prefix=OFF

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, cls, *base, one = 1, len;
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Win win;
    MPI_Comm shared;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &base, &win);
    base[0] = 0;
    base[1] = 100 + rank;
    MPI_Win_fence(0, win);
    MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    int right = (rank + 1) % size, got = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Get(&got, 1, MPI_INT, right, 1, 1, MPI_INT, win);
    MPI_Win_unlock(right, win);
    printf("world window rank %d: right has %d\n", rank, got);
    if (rank == 0)
        printf("world window: rank 0 counted %d\n", base[0]);
    MPI_Win_free(&win);

    int rc = MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL,
                                     MPI_COMM_WORLD, &base, &win);
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    if (rc != MPI_SUCCESS && rank == 0)
        printf("world shared: rma_shared %d: %s\n", cls == MPI_ERR_RMA_SHARED,
               msg);
    if (rc == MPI_SUCCESS) {
        *base = 10 * rank;
        MPI_Win_fence(0, win);
        if (rank == 0) {
            printf("world shared:");
            for (int r = 0; r < size; r++) {
                MPI_Aint bytes;
                int unit, *other;
                MPI_Win_shared_query(win, r, &bytes, &unit, &other);
                printf(" %d", *other);
            }
            printf("\n");
        }
        MPI_Win_fence(0, win);
        MPI_Win_free(&win);
    }

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                        &shared);
    MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, shared,
                            &base, &win);
    *base = 0;
    MPI_Win_fence(0, win);
    MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    int srank, ssize;
    MPI_Comm_rank(shared, &srank);
    MPI_Comm_size(shared, &ssize);
    if (srank == 0)
        printf("shared window of rank %d: %d of %d\n", rank, *base, ssize);
    MPI_Win_free(&win);
    MPI_Comm_free(&shared);
    MPI_Finalize();
    return 0;
}

// CHECK: exit status 0
// CHECK-NEXT: shared window of rank 0: 4 of 4
// CHECK-NEXT: world shared: 0 10 20 30
// CHECK-NEXT: world window rank 0: right has 101
// CHECK-NEXT: world window rank 1: right has 102
// CHECK-NEXT: world window rank 2: right has 103
// CHECK-NEXT: world window rank 3: right has 100
// CHECK-NEXT: world window: rank 0 counted 4

// OFF: exit status 0
// OFF-NEXT: shared window of rank 0: 2 of 2
// OFF-NEXT: shared window of rank 2: 2 of 2
// OFF-NEXT: world shared: rma_shared 1: {{.*}}MPI_Win_allocate_shared: the communicator's ranks run in processes that share no memory (other nodes, or AMPI_NODE_SHM=0); split it with MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) first (argument comm)
// OFF-NEXT: world window rank 0: right has 101
// OFF-NEXT: world window rank 1: right has 102
// OFF-NEXT: world window rank 2: right has 103
// OFF-NEXT: world window rank 3: right has 100
// OFF-NEXT: world window: rank 0 counted 4
