/*
 * MPI_Comm_split meets the parent's members of each process on one board
 * and sends one message per process to the parent's rank 0
 * (mpi/comm/split.c).  The parents here make that hard: rank 0 of a parent
 * that is the last world rank (keys reversed), a parent that lives in some
 * processes only, two disjoint parents splitting at once, colours with
 * members in every process and MPI_UNDEFINED among them.  Every answer is
 * checked against the order the standard gives (key, then parent rank).
 *
 * With many ranks in one process (size >= 10,000), the split into 1,000
 * colours must not leave the process a list of its colour per member:
 * its resident memory grows by less than 2 KiB a rank (a list of 1,000
 * world ranks is 4 KB).  A duplicate of MPI_COMM_WORLD grows it by less
 * than 1 KiB a rank: its context agreed through the process's shared
 * memory, where a tree of messages through the ranks touched a page of
 * each rank's stack.  (Not under AddressSanitizer, whose red zones and
 * shadow cost more.)
 */
#include "mpitest.h"

#include <stdlib.h>
#include <string.h>

/* Checks that comm holds the world ranks want[0..n) in that order, and that
 * an allreduce over it sums them. */
static void check_members(MPI_Comm comm, const int *want, int n)
{
    int size = -1, r = -1, world;
    MT_CHECK_MPI(MPI_Comm_size(comm, &size));
    MT_CHECK_INT_EQ(size, n);
    MT_CHECK_MPI(MPI_Comm_rank(comm, &r));
    MPI_Group g, wg;
    MT_CHECK_MPI(MPI_Comm_group(comm, &g));
    MT_CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    for (int i = 0; i < n && i < size; i += n > 64 ? n / 64 : 1) {
        MT_CHECK_MPI(MPI_Group_translate_ranks(g, 1, &i, wg, &world));
        MT_CHECK_INT_EQ(world, want[i]);
    }
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    long mine = r >= 0 && r < n ? want[r] : -1, sum = 0, expect = 0;
    for (int i = 0; i < n; i++)
        expect += want[i];
    MT_CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm));
    MT_CHECK(sum == expect);
}

/* A parent of all ranks in reverse order (its rank 0 is the last world
 * rank), split by world rank % 3 with keys that reverse each colour again
 * for colour 1; colour 2 is MPI_UNDEFINED for odd world ranks. */
static void reversed_parent(int rank, int size)
{
    MPI_Comm rev, part;
    MT_CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev));
    int color = rank % 3, key = color == 1 ? rank : -rank;
    if (color == 2 && rank % 2)
        color = MPI_UNDEFINED;
    MT_CHECK_MPI(MPI_Comm_split(rev, color, key, &part));
    if (color == MPI_UNDEFINED) {
        MT_CHECK(part == MPI_COMM_NULL);
        MT_CHECK_MPI(MPI_Comm_free(&rev));
        return;
    }
    int *want = malloc((size_t)size * sizeof(int)), n = 0;
    /* Colour 1 ascending by world rank; colours 0 and 2 descending (keys
     * -rank), without the odd ranks of colour 2. */
    for (int i = 0; i < size; i++) {
        int w = color == 1 ? i : size - 1 - i;
        if (w % 3 == color && !(color == 2 && w % 2))
            want[n++] = w;
    }
    check_members(part, want, n);
    free(want);
    MT_CHECK_MPI(MPI_Comm_free(&part));
    MT_CHECK_MPI(MPI_Comm_free(&rev));
}

/* The first and the second half of the world split, each into colours by
 * rank % 4, at the same time: two parents, each in some processes only. */
static void halves(int rank, int size)
{
    MPI_Comm half, part;
    int lo = rank < size / 2, first = lo ? 0 : size / 2;
    int n_half = lo ? size / 2 : size - size / 2;
    MT_CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, lo, rank, &half));
    MT_CHECK_MPI(MPI_Comm_split(half, rank % 4, rank, &part));
    int *want = malloc((size_t)n_half * sizeof(int)), n = 0;
    for (int w = first; w < first + n_half; w++)
        if (w % 4 == rank % 4)
            want[n++] = w;
    check_members(part, want, n);
    free(want);
    MT_CHECK_MPI(MPI_Comm_free(&part));
    MT_CHECK_MPI(MPI_Comm_free(&half));
}

/* 1,000 colours (fewer with fewer ranks): colour rank % colours, ordered by
 * rank; many splits in a row, freed as they go. */
static void many_colours(int rank, int size, int rounds)
{
    int colours = size < 1000 ? size : 1000;
    for (int i = 0; i < rounds; i++) {
        MPI_Comm part;
        MT_CHECK_MPI(
            MPI_Comm_split(MPI_COMM_WORLD, rank % colours, rank, &part));
        int r, n;
        MT_CHECK_MPI(MPI_Comm_rank(part, &r));
        MT_CHECK_MPI(MPI_Comm_size(part, &n));
        MT_CHECK_INT_EQ(r, rank / colours);
        MT_CHECK_INT_EQ(n, size / colours + (rank % colours < size % colours));
        MT_CHECK_MPI(MPI_Comm_free(&part));
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Under AddressSanitizer every allocation and frame has red zones and
     * shadow: the memory bounds are the plain build's. */
    if (size >= 10000 && !MT_ASAN) {
        MPI_Comm dup;
        MPI_Barrier(MPI_COMM_WORLD);
        long before = rank == 0 ? mt_status_kib("VmRSS") : 0;
        MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        MPI_Barrier(MPI_COMM_WORLD);
        long dup_grew = rank == 0 ? mt_status_kib("VmRSS") - before : 0;
        if (rank == 0 && dup_grew * 1024 >= 1024L * size)
            fprintf(stderr, "comm_split_procs: the duplicate took %ld KiB\n",
                    dup_grew);
        if (rank == 0)
            MT_CHECK(dup_grew * 1024 < 1024L * size);
        MT_CHECK_MPI(MPI_Comm_free(&dup));
        MPI_Barrier(MPI_COMM_WORLD);
        before = rank == 0 ? mt_status_kib("VmRSS") : 0;
        MPI_Comm part;
        MT_CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 1000, rank, &part));
        MPI_Barrier(MPI_COMM_WORLD);
        long grew = rank == 0 ? mt_status_kib("VmRSS") - before : 0;
        if (rank == 0 && grew * 1024 >= 2048L * size)
            fprintf(stderr,
                    "comm_split_procs: the split took %ld KiB for "
                    "%d ranks\n",
                    grew, size);
        if (rank == 0)
            MT_CHECK(grew * 1024 < 2048L * size);
        MT_CHECK_MPI(MPI_Comm_free(&part));
    } else {
        reversed_parent(rank, size);
        halves(rank, size);
    }
    many_colours(rank, size, size >= 10000 ? 1 : 3);
    return mt_finish_and_finalize();
}
