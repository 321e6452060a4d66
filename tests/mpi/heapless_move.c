/*
 * A rank makes its heap at its first allocation (mpi/proc.h,
 * amp_rank_heap), so a rank that has allocated nothing has none.  Such
 * ranks are checkpointed (with a directory argument) and move between PEs
 * and processes (run with +balancer RotateLB, which moves every rank),
 * and come back with their stack, their global and their communicators;
 * their first malloc after the move lands in their own slot.  Odd ranks
 * allocate before the checkpoint and the move, even ranks only after.
 * The stack and the heap lie in different parts of the range: both are
 * the rank's (AMPI_Isomalloc_rank).
 */
#include "mpitest.h"

#include <stdlib.h>

static int counter; /* privatized: one per rank */

static void checkpoint(const char *dir)
{
    char value[MPI_MAX_INFO_VAL];
    MPI_Info info;
    snprintf(value, sizeof(value), "to_file=%s", dir);
    MT_CHECK_MPI(MPI_Info_create(&info));
    MT_CHECK_MPI(MPI_Info_set(info, "ampi_checkpoint", value));
    MT_CHECK_MPI(AMPI_Migrate(info));
    MT_CHECK_MPI(MPI_Info_free(&info));
}

static void check_owner(const void *p, int rank)
{
    int owner = -1;
    MT_CHECK_MPI(AMPI_Isomalloc_rank(p, &owner));
    MT_CHECK_INT_EQ(owner, rank);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm half;
    MT_CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    counter = 1000 + rank;
    int vals[16];
    for (int i = 0; i < 16; i++)
        vals[i] = rank * 100 + i;
    check_owner(vals, rank);
    int *early = NULL;
    if (rank % 2) {
        early = malloc(32 * sizeof(int));
        for (int i = 0; i < 32; i++)
            early[i] = rank + i;
        check_owner(early, rank);
    }
    if (argc > 1)
        checkpoint(argv[1]);
    MT_CHECK_MPI(AMPI_Migrate(AMPI_INFO_LB_SYNC));
    MT_CHECK_INT_EQ(counter, 1000 + rank);
    for (int i = 0; i < 16; i++)
        MT_CHECK_INT_EQ(vals[i], rank * 100 + i);
    check_owner(vals, rank);
    if (early) {
        for (int i = 0; i < 32; i++)
            MT_CHECK_INT_EQ(early[i], rank + i);
        free(early);
    }
    char *late = malloc(100000);
    MT_CHECK(late != NULL);
    if (late) {
        memset(late, rank & 0xff, 100000);
        check_owner(late, rank);
        check_owner(late + 99999, rank);
        free(late);
    }
    int hsize, sum = 0, one = 1;
    MT_CHECK_MPI(MPI_Comm_size(half, &hsize));
    MT_CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, half));
    MT_CHECK_INT_EQ(sum, hsize);
    MT_CHECK_MPI(MPI_Comm_free(&half));
    return mt_finish_and_finalize();
}
