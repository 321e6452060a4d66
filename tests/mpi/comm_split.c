/*
 * comm_split: MPI_Comm_split orders each color by key, ties by the parent
 * rank (reversed keys reverse the order); MPI_UNDEFINED gives
 * MPI_COMM_NULL; a split of a split works; every new communicator carries
 * traffic (a ring and an allreduce) of its own.  MPI_Comm_split_type with
 * AMPI_COMM_TYPE_PROCESS keeps the ranks of each process, with
 * MPI_COMM_TYPE_SHARED those of every process of the node (the tests run on
 * one node: all of them); AMPI_COMM_TYPE_WTH parts the ranks by PE, each
 * rank in exactly one part.
 */
#include "mpitest.h"

#include <stdlib.h>
#include <string.h>

/* Checks that comm holds the world ranks want[0..n) in that order. */
static void check_order(MPI_Comm comm, const int *want, int n, int line)
{
    int size = -1;
    MPI_Comm_size(comm, &size);
    if (!mt_check_int_eq(size, n, "size", "n", __FILE__, line))
        return;
    MPI_Group g, world;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int *in = malloc((size_t)n * sizeof(int)),
        *out = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
        in[i] = i;
    MPI_Group_translate_ranks(g, n, in, world, out);
    for (int i = 0; i < n; i++)
        if (!mt_check_int_eq(out[i], want[i], "out[i]", "want[i]", __FILE__,
                             line))
            break;
    free(in);
    free(out);
    MPI_Group_free(&g);
    MPI_Group_free(&world);
}

/* A ring shift and a sum over comm, whose members' world ranks are
 * world[0..n). */
static void check_traffic(MPI_Comm comm, const int *world, int n)
{
    int rank, me;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int right = (rank + 1) % n, left = (rank + n - 1) % n, got = -1;
    MPI_Status st;
    MT_CHECK_MPI(MPI_Sendrecv(&me, 1, MPI_INT, right, 3, &got, 1, MPI_INT,
                              MPI_ANY_SOURCE, 3, comm, &st));
    MT_CHECK_INT_EQ(got, world[left]);
    MT_CHECK_INT_EQ(st.MPI_SOURCE, left);
    long sum = 0, want = 0;
    for (int i = 0; i < n; i++)
        want += world[i];
    long mine = me;
    MT_CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm));
    MT_CHECK_INT_EQ(sum, want);
}

/* Three colors by rank % 3, keys reversed: each color in descending
 * world order. */
static void check_colors(int rank, int size, int *buf)
{
    MPI_Comm c;
    MT_CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 3, -rank, &c));
    int n = 0;
    for (int r = size - 1; r >= 0; r--)
        if (r % 3 == rank % 3)
            buf[n++] = r;
    check_order(c, buf, n, __LINE__);
    check_traffic(c, buf, n);
    int crank = -1;
    MPI_Comm_rank(c, &crank);
    MT_CHECK(crank >= 0 && crank < n && buf[crank] == rank);

    /* Nested: split the color again by parity of the new rank, equal
     * keys, so ties go by the rank in c. */
    MPI_Comm d;
    MT_CHECK_MPI(MPI_Comm_split(c, crank % 2, 0, &d));
    int m = 0;
    for (int i = crank % 2; i < n; i += 2)
        buf[m++] = buf[i];
    check_order(d, buf, m, __LINE__);
    check_traffic(d, buf, m);
    MT_CHECK_MPI(MPI_Comm_free(&d));
    MT_CHECK_MPI(MPI_Comm_free(&c));
    MT_CHECK(c == MPI_COMM_NULL);
}

/* Odd ranks opt out; even ranks, all with the same key, keep world order. */
static void check_undefined(int rank, int size, int *buf)
{
    MPI_Comm c = MPI_COMM_WORLD;
    MT_CHECK_MPI(
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2 ? MPI_UNDEFINED : 5, 7, &c));
    if (rank % 2) {
        MT_CHECK(c == MPI_COMM_NULL);
        return;
    }
    int n = 0;
    for (int r = 0; r < size; r += 2)
        buf[n++] = r;
    check_order(c, buf, n, __LINE__);
    check_traffic(c, buf, n);
    int result = -1;
    MT_CHECK_MPI(MPI_Comm_compare(c, MPI_COMM_WORLD, &result));
    MT_CHECK_INT_EQ(result, size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL);
    MPI_Comm_free(&c);
}

/* One color, keys reversed: the same members as WORLD, other order. */
static void check_reverse_all(int rank, int size, int *buf)
{
    MPI_Comm c;
    MT_CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &c));
    for (int i = 0; i < size; i++)
        buf[i] = size - 1 - i;
    check_order(c, buf, size, __LINE__);
    int result = -1;
    MT_CHECK_MPI(MPI_Comm_compare(c, MPI_COMM_WORLD, &result));
    MT_CHECK_INT_EQ(result, size == 1 ? MPI_CONGRUENT : MPI_SIMILAR);
    MPI_Comm_free(&c);
}

/* The world ranks whose processor name is this rank's, highest first,
 * into buf; returns how many. */
static int same_host_reversed(int size, int *buf)
{
    char *names = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    char mine[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0, n = 0;
    MT_CHECK(names != NULL);
    MT_CHECK_MPI(MPI_Get_processor_name(mine, &len));
    MT_CHECK_MPI(MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names,
                               MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                               MPI_COMM_WORLD));
    for (int r = size - 1; r >= 0; r--)
        if (strcmp(names + (size_t)r * MPI_MAX_PROCESSOR_NAME, mine) == 0)
            buf[n++] = r;
    free(names);
    return n;
}

static void check_split_type(int rank, int size, int *buf)
{
    MPI_Comm c;
    MT_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, AMPI_COMM_TYPE_PROCESS,
                                     -rank, MPI_INFO_NULL, &c));
    /* The ranks of this process, reversed by the keys. */
    int p = mt_process_of(rank), pfirst = mt_first_rank_of(p);
    int nproc = mt_first_rank_of(p + 1) - pfirst;
    for (int i = 0; i < nproc; i++)
        buf[i] = pfirst + nproc - 1 - i;
    check_order(c, buf, nproc, __LINE__);
    check_traffic(c, buf, nproc);
    MPI_Comm_free(&c);

    /* The ranks of the node, reversed by the keys: every rank on one host,
     * those whose host name is this rank's across nodes. */
    MT_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED,
                                     -rank, MPI_INFO_NULL, &c));
    int nnode = same_host_reversed(size, buf);
    check_order(c, buf, nnode, __LINE__);
    check_traffic(c, buf, nnode);
    MPI_Comm_free(&c);

    MT_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0,
                                     MPI_INFO_NULL, &c));
    MT_CHECK(c == MPI_COMM_NULL);

    /* Per PE: the parts cover the world once (their sizes, counted once
     * per part through its rank 0, add up to size), each in world order. */
    MT_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, AMPI_COMM_TYPE_WTH, rank,
                                     MPI_INFO_NULL, &c));
    int n = 0, crank = -1, total = 0;
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &crank);
    int counted = crank == 0 ? n : 0;
    MPI_Allreduce(&counted, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MT_CHECK_INT_EQ(total, size);
    MPI_Group g, world;
    MPI_Comm_group(c, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int first = 0, last = n - 1, wfirst = -1, wlast = -1;
    MPI_Group_translate_ranks(g, 1, &first, world, &wfirst);
    MPI_Group_translate_ranks(g, 1, &last, world, &wlast);
    MT_CHECK(wfirst <= rank && rank <= wlast);
    MPI_Group_free(&g);
    MPI_Group_free(&world);
    MPI_Barrier(c);
    MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *buf = malloc((size_t)size * sizeof(int));
    check_colors(rank, size, buf);
    check_undefined(rank, size, buf);
    check_reverse_all(rank, size, buf);
    check_split_type(rank, size, buf);
    free(buf);
    return mt_finish_and_finalize();
}
