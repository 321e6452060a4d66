/*
 * comm_basic: MPI_Comm_rank/size on MPI_COMM_WORLD and MPI_COMM_SELF;
 * MPI_Comm_compare gives IDENT for a communicator with itself, CONGRUENT
 * for a dup (and for WORLD vs SELF on one rank, UNEQUAL otherwise);
 * MPI_Comm_dup keeps rank and size but isolates traffic; MPI_Comm_free
 * sets the handle to MPI_COMM_NULL; many dup/free cycles do not run out.
 */
#include "mpitest.h"

enum { NCYCLES = 100 };

static void check_rank_size(void)
{
    int rank = -1, size = -1, sum = 0;
    MT_CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_CHECK(size >= 1);
    MT_CHECK(rank >= 0 && rank < size);
    /* Ranks are 0..size-1, each once. */
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MT_CHECK_INT_EQ(sum, size * (size - 1) / 2);

    MT_CHECK_MPI(MPI_Comm_size(MPI_COMM_SELF, &size));
    MT_CHECK_MPI(MPI_Comm_rank(MPI_COMM_SELF, &rank));
    MT_CHECK_INT_EQ(size, 1);
    MT_CHECK_INT_EQ(rank, 0);
}

static void check_compare(void)
{
    int size, result = -1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MT_CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result));
    MT_CHECK_INT_EQ(result, MPI_IDENT);
    MT_CHECK_MPI(MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_SELF, &result));
    MT_CHECK_INT_EQ(result, MPI_IDENT);
    MT_CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &result));
    MT_CHECK_INT_EQ(result, size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL);

    MPI_Comm dup, dup2;
    MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MT_CHECK_MPI(MPI_Comm_dup(dup, &dup2));
    MT_CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, dup, &result));
    MT_CHECK_INT_EQ(result, MPI_CONGRUENT);
    MT_CHECK_MPI(MPI_Comm_compare(dup, dup2, &result));
    MT_CHECK_INT_EQ(result, MPI_CONGRUENT);
    MT_CHECK_MPI(MPI_Comm_compare(dup2, dup2, &result));
    MT_CHECK_INT_EQ(result, MPI_IDENT);

    int rank, drank = -1, dsize = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MT_CHECK_MPI(MPI_Comm_rank(dup2, &drank));
    MT_CHECK_MPI(MPI_Comm_size(dup2, &dsize));
    MT_CHECK_INT_EQ(drank, rank);
    MT_CHECK_INT_EQ(dsize, size);

    MT_CHECK_MPI(MPI_Comm_free(&dup));
    MT_CHECK(dup == MPI_COMM_NULL);
    /* Freeing the parent leaves the child usable. */
    MPI_Barrier(dup2);
    MT_CHECK_MPI(MPI_Comm_free(&dup2));
    MT_CHECK(dup2 == MPI_COMM_NULL);
}

/*
 * Each rank sends one message on a dup and then one on MPI_COMM_WORLD, same
 * destination and tag; receiving on WORLD first (with wildcards) must take
 * WORLD's message although the dup's was sent first.
 */
static void check_isolation(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);

    int on_dup = 1000 + rank, on_world = 2000 + rank;
    MPI_Request reqs[2];
    MPI_Isend(&on_dup, 1, MPI_INT, right, 7, dup, &reqs[0]);
    MPI_Isend(&on_world, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &reqs[1]);
    /* Both sends are under way everywhere before anyone receives. */
    MPI_Barrier(MPI_COMM_WORLD);

    int got = -1;
    MPI_Status st;
    MT_CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                          MPI_COMM_WORLD, &st));
    MT_CHECK_INT_EQ(got, 2000 + left);
    MT_CHECK_INT_EQ(st.MPI_SOURCE, left);
    MT_CHECK_INT_EQ(st.MPI_TAG, 7);
    got = -1;
    MT_CHECK_MPI(
        MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &st));
    MT_CHECK_INT_EQ(got, 1000 + left);
    MT_CHECK_INT_EQ(st.MPI_SOURCE, left);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);

    /* Nothing left over on either communicator. */
    int flag = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &flag, MPI_STATUS_IGNORE);
    MT_CHECK_INT_EQ(flag, 0);
    MPI_Comm_free(&dup);
}

/* Communicators are recycled: many dup/free cycles, each dup working. */
static void check_cycles(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < NCYCLES; i++) {
        MPI_Comm dup;
        if (!MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup)))
            return;
        int sum = 0;
        MPI_Allreduce(&i, &sum, 1, MPI_INT, MPI_SUM, dup);
        MT_CHECK_INT_EQ(sum, i * size);
        MT_CHECK_MPI(MPI_Comm_free(&dup));
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    check_rank_size();
    check_compare();
    check_isolation();
    check_cycles();
    return mt_finish_and_finalize();
}
