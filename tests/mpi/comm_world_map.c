/*
 * The members of a communicator in one process share its map of ranks to
 * world ranks (mpi/comm/world_map.c): a split of MPI_COMM_WORLD into two
 * halves and a duplicate of each add far less to the runtime's own memory
 * (the C library's heap, where a rank's own allocations do not go) than
 * a map of each half for every member would, 4 bytes a member per
 * communicator: 16 KiB a rank at 4,000 ranks.  The communicators still
 * name the right world ranks, and a free gives the maps back.
 */
#include "mpitest.h"

#include <malloc.h>

/* Bytes the C library's heap hands out now, on rank 0 between barriers
 * (0 under AddressSanitizer, whose allocator replaces the C library's:
 * mallinfo2 then reads arenas nothing set up, and may crash). */
static long heap_in_use(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    long bytes = MT_ASAN ? 0 : (long)mallinfo2().uordblks;
    MPI_Barrier(MPI_COMM_WORLD);
    return bytes;
}

static void check_members(MPI_Comm comm, int rank, int size)
{
    int r, n, world;
    MPI_Group g, wg;
    MT_CHECK_MPI(MPI_Comm_rank(comm, &r));
    MT_CHECK_MPI(MPI_Comm_size(comm, &n));
    MT_CHECK_INT_EQ(r, rank / 2);
    MT_CHECK_INT_EQ(n, (size - rank % 2 + 1) / 2);
    MT_CHECK_MPI(MPI_Comm_group(comm, &g));
    MT_CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int last = n - 1;
    MT_CHECK_MPI(MPI_Group_translate_ranks(g, 1, &last, wg, &world));
    MT_CHECK_INT_EQ(world, rank % 2 + 2 * last);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm half, dup;
    long before = heap_in_use();
    MT_CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    MT_CHECK_MPI(MPI_Comm_dup(half, &dup));
    long after = heap_in_use();
    check_members(half, rank, size);
    check_members(dup, rank, size);
    /* A map of each half for every member: 4 bytes a member of its half,
     * twice over.  Shared, what is left is each member's own objects. */
    long unshared = 2L * 4 * (size / 2);
    if (!MT_ASAN && rank == 0 && size >= 1000)
        MT_CHECK((after - before) / size < unshared / 2);
    MT_CHECK_MPI(MPI_Comm_free(&dup));
    MT_CHECK_MPI(MPI_Comm_free(&half));
    return mt_finish_and_finalize();
}
