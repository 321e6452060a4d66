/*
 * Many ranks in one process (docs/isomalloc.md, "How many ranks fit"):
 * what every program does, each answer checked.  MPI_Init, the rank and
 * size, a barrier, an 8-byte allreduce, a ring exchange with both
 * neighbours, MPI_Comm_split into up to 1,000 colours (rank % colours,
 * keyed by rank), MPI_Comm_dup of the result, a sum over it, and each
 * rank's own global.  Run with 100,000 ranks in CI (more than the
 * kernel's limit on mappings allows with guard pages).  "nosplit" leaves
 * the split out (to time the rest alone).  From 10,000 ranks on, the
 * kernel's page tables of the process take under 1 KiB a rank: the
 * ranks' stacks and states lie side by side, and a rank that allocates
 * nothing touches no page of its heap (docs/isomalloc.md); each rank used
 * to cost a page of them (4 KiB).  A load-balancing step (AMPI_Migrate;
 * run with a balancer across processes) keeps them so: only the ranks
 * that leave their process describe their objects in their heap, where
 * every rank that might leave did.  The step adds under 1 KiB a rank of
 * resident memory: AMPI_Migrate(AMPI_INFO_LB_SYNC) looks nothing up in
 * its info, whose buffers took every rank a page further down its stack.
 */
#include "mpitest.h"

#include <string.h>

static long counter; /* privatized: one per rank */

/* From 10,000 ranks on: under 1 KiB of page tables a rank here. */
static void check_page_tables(int rank, int size)
{
    MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank != 0 || size < 10000)
        return;
    long kib = mt_status_kib("VmPTE");
    if (kib >= size)
        fprintf(stderr, "scale_ranks: %ld KiB of page tables\n", kib);
    MT_CHECK(kib >= 0 && kib < size);
}

static void ring(int rank, int size)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int got[2] = {-1, -1};
    MPI_Request req[4];
    MPI_Irecv(&got[0], 1, MPI_INT, left, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&got[1], 1, MPI_INT, right, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&rank, 1, MPI_INT, right, 1, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&rank, 1, MPI_INT, left, 2, MPI_COMM_WORLD, &req[3]);
    MT_CHECK_MPI(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
    MT_CHECK_INT_EQ(got[0], left);
    MT_CHECK_INT_EQ(got[1], right);
}

static void split(int rank, int size)
{
    int colours = size < 1000 ? size : 1000;
    int colour = rank % colours;
    MPI_Comm part, dup;
    MT_CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, colour, rank, &part));
    MT_CHECK_MPI(MPI_Comm_dup(part, &dup));
    int prank, psize;
    MPI_Comm_rank(dup, &prank);
    MPI_Comm_size(dup, &psize);
    /* colour c holds c, c + colours, ...: rank's place is rank / colours */
    MT_CHECK_INT_EQ(prank, rank / colours);
    MT_CHECK_INT_EQ(psize, (size - colour + colours - 1) / colours);
    long mine = rank, sum = 0;
    MT_CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, dup));
    /* colour + (colour + colours) + ... over psize members */
    long want =
        (long)psize * colour + (long)colours * ((long)psize * (psize - 1) / 2);
    MT_CHECK_INT_EQ(sum, want);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&part);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    counter += rank + 1;
    MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    check_page_tables(rank, size);
    double one = 1.0, total = 0.0;
    MT_CHECK_MPI(
        MPI_Allreduce(&one, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    MT_CHECK_DBL_EQ(total, (double)size);
    ring(rank, size);
    if (!(argc > 1 && strcmp(argv[1], "nosplit") == 0))
        split(rank, size);
    MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    long before = rank == 0 ? mt_status_kib("VmRSS") : 0;
    MT_CHECK_MPI(AMPI_Migrate(AMPI_INFO_LB_SYNC));
    check_page_tables(rank, size);
    long grew = rank == 0 ? mt_status_kib("VmRSS") - before : 0;
    if (rank == 0 && size >= 10000 && grew >= size)
        fprintf(stderr, "scale_ranks: the step took %ld KiB\n", grew);
    if (rank == 0 && size >= 10000)
        MT_CHECK(grew < size);
    MT_CHECK_INT_EQ(counter, rank + 1);
    return mt_finish_and_finalize();
}
