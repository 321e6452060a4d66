/*
 * A user reduction function of a nonblocking collective sees the globals of
 * the rank that started the collective, even when the runtime applies it
 * while that rank waits elsewhere (here: in MPI_Barrier and MPI_Recv).
 * Built with ampicc's default privatization, so `calls` is per rank; each
 * call is also counted in `all_calls`, which the ranks share.
 *
 * The function also calls MPI, as user functions may (MPICH's
 * coll/nonblocking2 asks its datatype's extent): those calls act for the
 * rank that started the collective.  The ranks number their datatypes
 * differently (each makes rank % 3 others first), so that a call made as
 * another rank finds another type, or none, and one made as the scheduler
 * is refused.
 */
#include "mpitest.h"

#include <stdatomic.h>
#include <string.h>

static int calls;
static int me;
static MPI_Datatype one_int;
static atomic_int all_calls __attribute__((annotate("ampi_shared")));

static void add(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    MT_CHECK_INT_EQ(*dt, one_int);
    MPI_Aint lb, extent;
    MT_CHECK_MPI(MPI_Type_get_extent(*dt, &lb, &extent));
    MT_CHECK_INT_EQ((int)extent, (int)sizeof(int));
    int who = -1;
    MT_CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &who));
    MT_CHECK_INT_EQ(who, me);
    calls++;
    atomic_fetch_add(&all_calls, 1);
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((const int *)in)[i];
}

/* Computes for about t seconds. */
static void spin_for(double t)
{
    double until = MPI_Wtime() + t;
    volatile unsigned x = 1;
    while (MPI_Wtime() < until)
        for (int i = 0; i < 1000; i++)
            x = x * 1664525u + 1013904223u;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    me = rank;
    MPI_Op op;
    MPI_Op_create(add, 1, &op);
    MPI_Datatype others[2];
    for (int i = 0; i < rank % 3; i++)
        MPI_Type_contiguous(i + 2, MPI_INT, &others[i]);
    MPI_Type_contiguous(1, MPI_INT, &one_int);
    MPI_Type_commit(&one_int);

    /* "compute": the ranks also compute between their calls, where an
     * idle PE of a crowded process runs them as guests (stealing): a round
     * that applies the function then waits for its rank to come home. */
    int compute = argc > 1 && strcmp(argv[1], "compute") == 0;
    enum { ROUNDS = 20 };
    int in[ROUNDS], out[ROUNDS];
    MPI_Request reqs[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
        in[i] = rank + i;
        MPI_Iallreduce(&in[i], &out[i], 1, one_int, op, MPI_COMM_WORLD,
                       &reqs[i]);
        /* Wait somewhere else while the reductions progress. */
        if (i % 2)
            MPI_Barrier(MPI_COMM_WORLD);
        else if (size > 1) {
            int t = i, got;
            MPI_Sendrecv(&t, 1, MPI_INT, (rank + 1) % size, 3, &got, 1, MPI_INT,
                         (rank + size - 1) % size, 3, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        }
        if (compute)
            spin_for(rank % 2 ? 50e-6 : 300e-6);
    }
    MPI_Waitall(ROUNDS, reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < ROUNDS; i++)
        MT_CHECK_INT_EQ(out[i], size * (size - 1) / 2 + size * i);

    /* MPI_Iallreduce reduces over a binomial tree to rank 0 (coll/sched.c):
     * rank r combines once per child, so its own count is known.  A call
     * under another rank's globals moves a count; one under the scheduler's
     * loses it. */
    int children = 0;
    for (int mask = 1; mask < size && !(rank & mask); mask <<= 1)
        children += rank + mask < size;
    MT_CHECK_INT_EQ(calls, ROUNDS * children);
    /* all_calls counts the calls of this process's ranks. */
    int mine = calls, sum = 0;
    MPI_Comm shared;
    MPI_Comm_split_type(MPI_COMM_WORLD, AMPI_COMM_TYPE_PROCESS, 0,
                        MPI_INFO_NULL, &shared);
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, shared);
    MT_CHECK_INT_EQ(sum, atomic_load(&all_calls));
    MPI_Comm_free(&shared);
    for (int i = 0; i < rank % 3; i++)
        MPI_Type_free(&others[i]);
    MPI_Type_free(&one_int);
    MPI_Op_free(&op);
    return mt_finish_and_finalize();
}
