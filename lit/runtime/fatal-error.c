// With the default handler (MPI_ERRORS_ARE_FATAL) a bad argument ends the
// job with one message naming the call, the argument and the rank.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: %status %t +vp 2 +p 1 rank 2>&1 | FileCheck %s --check-prefix=RANK
// RUN: %status %t +vp 2 +p 1 tag 2>&1 | FileCheck %s --check-prefix=TAG
// RUN: %status %t +vp 2 +p 1 type 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: %status %t +vp 2 +p 1 trunc 2>&1 | FileCheck %s --check-prefix=TRUNC
// RUN: %status %t +vp 2 +p 1 init 2>&1 | FileCheck %s --check-prefix=INIT

#include <mpi.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, buf[8] = {0};
    const char *what = argv[1];
    if (strcmp(what, "init") == 0)
        MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        if (strcmp(what, "rank") == 0)
            MPI_Send(buf, 1, MPI_INT, 5, 0, MPI_COMM_WORLD);
        if (strcmp(what, "tag") == 0)
            MPI_Send(buf, 1, MPI_INT, 0, -4, MPI_COMM_WORLD);
        if (strcmp(what, "type") == 0)
            MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD);
        if (strcmp(what, "trunc") == 0)
            MPI_Send(buf, 8, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else if (strcmp(what, "trunc") == 0) {
        MPI_Recv(buf, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}

// RANK: ampi: rank 1: MPI_Send: invalid rank 5 (argument dest): the communicator has 2 ranks (invalid rank)
// RANK-NEXT: exit status 6
// TAG: ampi: rank 1: MPI_Send: invalid tag -4 (argument tag): tags are 0..1073741823 (invalid tag)
// TYPE: ampi: rank 1: MPI_Send: MPI_DATATYPE_NULL is not a valid datatype (argument datatype)
// TRUNC: ampi: rank 0: MPI_Recv: message from rank 1 with tag 0 is longer than the receive buffer (16 bytes) (message truncated)
// TRUNC-NEXT: exit status 15
// INIT: ampi: rank {{[01]}}: MPI_Send: called before MPI_Init
