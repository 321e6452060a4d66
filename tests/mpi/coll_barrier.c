/*
 * coll_barrier: MPI_Barrier on MPI_COMM_WORLD, a dup and MPI_COMM_SELF.
 * In round k, rank k % size checks (MPI_Iprobe, repeatedly) that no
 * message has arrived before it enters the barrier; every other rank sends
 * it one message only after leaving the barrier. A barrier that let a rank
 * out before the checking rank came in is likely, though not certain, to be
 * caught. The checker then receives exactly size - 1 messages.
 */
#include "mpitest.h"

enum { NPROBES = 200 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int rounds = size < 16 ? 2 * size : size;

    for (int k = 0; k < rounds; k++) {
        MPI_Comm comm = k % 2 ? dup : MPI_COMM_WORLD;
        int checker = k % size, flag = 0;
        if (rank == checker) {
            /* Probing repeatedly gives an early leaver's message time to
             * arrive (and other ranks time to run); a correct barrier
             * never lets one through, however long this takes. */
            for (int j = 0; j < NPROBES && !flag; j++)
                MT_CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, k, comm, &flag,
                                        MPI_STATUS_IGNORE));
            if (!MT_CHECK_INT_EQ(flag, 0))
                MT_FAIL("round %d: a message arrived before the barrier", k);
        }
        MT_CHECK_MPI(MPI_Barrier(comm));
        if (rank != checker) {
            MT_CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, checker, k, comm));
        } else {
            int sum = 0;
            for (int i = 0; i < size - 1; i++) {
                int from = -1;
                MPI_Recv(&from, 1, MPI_INT, MPI_ANY_SOURCE, k, comm,
                         MPI_STATUS_IGNORE);
                sum += from;
            }
            MT_CHECK_INT_EQ(sum, size * (size - 1) / 2 - rank);
        }
    }

    for (int k = 0; k < 10; k++)
        MT_CHECK_MPI(MPI_Barrier(MPI_COMM_SELF));
    MPI_Comm_free(&dup);

    return mt_finish_and_finalize();
}
