/* Many small messages waiting unexpected at one rank cost what they carry,
 * not an envelope of the eager limit each (runtime/p2p/msg.h): rank 1 sends
 * rank 0 NMSG 8-byte messages, from its PE and through the ring from
 * another, that rank 0 takes only after all were sent; then its process's
 * resident memory may have grown by at most 1 KiB a message (envelopes of
 * the eager limit took over 8 KiB each).  Every message arrives, in order.
 * Run on 2 or more ranks. */
#include "mpitest.h"

#include <stdio.h>
#include <string.h>

#define NMSG 20000
#define MAX_BYTES_PER_MSG 1024

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK(size >= 2);
    long before = rank == 0 ? mt_status_kib("VmRSS") : 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        for (long i = 0; i < NMSG; i++)
            MT_CHECK_MPI(MPI_Send(&i, 1, MPI_LONG, 0, 7, MPI_COMM_WORLD));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        long grown = mt_status_kib("VmRSS") - before;
        MT_CHECK(before > 0);
        MT_CHECK(grown * 1024 <= (long)NMSG * MAX_BYTES_PER_MSG);
        if (grown * 1024 > (long)NMSG * MAX_BYTES_PER_MSG)
            fprintf(stderr, "%d waiting messages took %ld KiB\n", NMSG, grown);
        for (long i = 0; i < NMSG; i++) {
            long got = -1;
            MT_CHECK_MPI(MPI_Recv(&got, 1, MPI_LONG, 1, 7, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE));
            MT_CHECK(got == i);
        }
    }
    return mt_finish_and_finalize();
}
