// Windows live in one process's address space: creating one over a
// communicator whose ranks run in several processes answers
// MPI_ERR_UNSUPPORTED_OPERATION (MPI_ERR_RMA_SHARED for
// MPI_Win_allocate_shared) through the error handler, naming the call and
// the argument, while a window over the ranks of one process
// (MPI_COMM_TYPE_SHARED) works as usual.
// REQUIRES: ampi-runtime, openmpi-mpirun
// RUN: %ampicc %s -o %t
// RUN: %status %mpirun -np 2 %t +vp 4 2>&1 | sort | FileCheck %s

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, cls, *base, one = 1;
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Win win;
    MPI_Comm shared;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL,
                              MPI_COMM_WORLD, &base, &win);
    MPI_Error_class(rc, &cls);
    int len;
    MPI_Error_string(rc, msg, &len);
    if (rank == 0)
        printf("world: unsupported %d: %s\n",
               cls == MPI_ERR_UNSUPPORTED_OPERATION, msg);
    rc = MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL,
                                 MPI_COMM_WORLD, &base, &win);
    MPI_Error_class(rc, &cls);
    if (rank == 0)
        printf("world shared: rma_shared %d\n", cls == MPI_ERR_RMA_SHARED);

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                        &shared);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, shared, &base,
                     &win);
    *base = 0;
    MPI_Win_fence(0, win);
    MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    int srank, ssize;
    MPI_Comm_rank(shared, &srank);
    MPI_Comm_size(shared, &ssize);
    if (srank == 0)
        printf("process window of rank %d: %d of %d\n", rank, *base, ssize);
    MPI_Win_free(&win);
    MPI_Comm_free(&shared);
    MPI_Finalize();
    return 0;
}

// CHECK: exit status 0
// CHECK-NEXT: process window of rank 0: 2 of 2
// CHECK-NEXT: process window of rank 2: 2 of 2
// CHECK-NEXT: world shared: rma_shared 1
// CHECK-NEXT: world: unsupported 1: {{.*}}MPI_Win_allocate: the communicator's ranks run in more than one process; windows across processes are not implemented yet (argument comm)
