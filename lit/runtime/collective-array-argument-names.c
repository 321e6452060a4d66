// A bad element of a collective's array argument is named with its index
// in the error message (the name is made only when the element is bad).
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: %t +vp 2 2>&1 | FileCheck %s

#include <mpi.h>
#include <stdio.h>

static void report(int rc)
{
    char text[MPI_MAX_ERROR_STRING];
    int len, cls;
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, text, &len);
    printf("class %d: %s\n", cls, text);
}

int main(int argc, char **argv)
{
    int rank, buf[4] = {0}, counts[2] = {1, 1}, bad[2] = {1, -1},
              displs[2] = {0, 1}, bdispls[2] = {0, 4};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT}, badtypes[2] = {MPI_INT, 0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 0) {
        // CHECK: class [[COUNT:[0-9]+]]: MPI_Alltoallv: {{.*}}recvcounts[1]
        report(MPI_Alltoallv(buf, counts, displs, MPI_INT, buf + 2, bad,
                             displs, MPI_INT, MPI_COMM_WORLD));
        // CHECK: class [[TYPE:[0-9]+]]: MPI_Alltoallw: {{.*}}sendtypes[1]
        report(MPI_Alltoallw(buf, counts, bdispls, badtypes, buf + 2, counts,
                             bdispls, types, MPI_COMM_WORLD));
        // CHECK: class [[COUNT]]: MPI_Gatherv: {{.*}}recvcounts[1]
        report(MPI_Gatherv(buf, 1, MPI_INT, buf + 2, bad, displs, MPI_INT, 0,
                           MPI_COMM_WORLD));
        printf("count %d type %d\n", MPI_ERR_COUNT, MPI_ERR_TYPE);
        // CHECK: count [[COUNT]] type [[TYPE]]
    }
    MPI_Finalize();
    return 0;
}
