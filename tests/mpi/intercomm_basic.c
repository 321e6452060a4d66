/*
 * intercomm_basic: MPI_Intercomm_create between the low and high halves of
 * WORLD (and between the even and odd ranks); sizes, remote groups and
 * MPI_Comm_test_inter; point-to-point between the groups with specific
 * and wildcard sources; MPI_Comm_dup of an inter-communicator is one and
 * keeps its traffic apart; MPI_Comm_compare; MPI_Intercomm_merge with
 * either group high and with equal flags.  Needs two ranks.
 */
#include "mpitest.h"

#include <stdlib.h>

typedef struct side {
    int rank, size;    /* in WORLD */
    int color;         /* which group this rank is in */
    int lsize, rsize;  /* sizes of the local and remote groups */
    const int *local;  /* world ranks of the local group */
    const int *remote; /* world ranks of the remote group */
} side_t;

/* Checks intercomm's groups and sizes against s. */
static void check_shape(MPI_Comm ic, const side_t *s)
{
    int flag = 0, size = -1, rsize = -1, rank = -1;
    MT_CHECK_MPI(MPI_Comm_test_inter(ic, &flag));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK_MPI(MPI_Comm_size(ic, &size));
    MT_CHECK_MPI(MPI_Comm_remote_size(ic, &rsize));
    MT_CHECK_MPI(MPI_Comm_rank(ic, &rank));
    MT_CHECK_INT_EQ(size, s->lsize);
    MT_CHECK_INT_EQ(rsize, s->rsize);
    MT_CHECK(rank >= 0 && rank < size && s->local[rank] == s->rank);

    MPI_Group remote, local, world;
    MT_CHECK_MPI(MPI_Comm_remote_group(ic, &remote));
    MT_CHECK_MPI(MPI_Comm_group(ic, &local));
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    for (int i = 0; i < rsize && i < s->rsize; i++) {
        int w = -1;
        MPI_Group_translate_ranks(remote, 1, &i, world, &w);
        MT_CHECK_INT_EQ(w, s->remote[i]);
    }
    int lrank = -1;
    MPI_Group_rank(local, &lrank);
    MT_CHECK_INT_EQ(lrank, rank);
    MPI_Group_free(&remote);
    MPI_Group_free(&local);
    MPI_Group_free(&world);
}

/* Rank r of each group sends its world rank to remote rank r % rsize;
 * every rank receives what is meant for it, first by source, then (a
 * second round) by MPI_ANY_SOURCE. */
static void check_p2p(MPI_Comm ic, const side_t *s)
{
    int rank;
    MPI_Comm_rank(ic, &rank);
    for (int round = 0; round < 2; round++) {
        MPI_Request req;
        MT_CHECK_MPI(MPI_Isend(&s->rank, 1, MPI_INT, rank % s->rsize,
                               20 + round, ic, &req));
        int expected = 0;
        for (int q = rank; q < s->rsize; q += s->lsize)
            expected++;
        for (int k = 0; k < expected; k++) {
            int got = -1, src = round ? MPI_ANY_SOURCE : rank + k * s->lsize;
            MPI_Status st;
            MT_CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, src, 20 + round, ic, &st));
            MT_CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < s->rsize &&
                     st.MPI_SOURCE % s->lsize == rank);
            if (st.MPI_SOURCE >= 0 && st.MPI_SOURCE < s->rsize)
                MT_CHECK_INT_EQ(got, s->remote[st.MPI_SOURCE]);
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
}

/* A message on a dup does not match a receive on the original. */
static void check_dup(MPI_Comm ic, const side_t *s)
{
    MPI_Comm dup;
    int result = -1, flag = 0, rank;
    MPI_Comm_rank(ic, &rank);
    MT_CHECK_MPI(MPI_Comm_dup(ic, &dup));
    MT_CHECK_MPI(MPI_Comm_test_inter(dup, &flag));
    MT_CHECK_INT_EQ(flag, 1);
    check_shape(dup, s);
    MT_CHECK_MPI(MPI_Comm_compare(ic, dup, &result));
    MT_CHECK_INT_EQ(result, MPI_CONGRUENT);
    MT_CHECK_MPI(MPI_Comm_compare(ic, MPI_COMM_WORLD, &result));
    MT_CHECK_INT_EQ(result, MPI_UNEQUAL);

    if (rank == 0) {
        int a = 1, b = 2, got = -1;
        MPI_Request reqs[2];
        MPI_Isend(&a, 1, MPI_INT, 0, 5, dup, &reqs[0]);
        MPI_Isend(&b, 1, MPI_INT, 0, 5, ic, &reqs[1]);
        MPI_Recv(&got, 1, MPI_INT, 0, 5, ic, MPI_STATUS_IGNORE);
        MT_CHECK_INT_EQ(got, 2);
        MPI_Recv(&got, 1, MPI_INT, 0, 5, dup, MPI_STATUS_IGNORE);
        MT_CHECK_INT_EQ(got, 1);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    }
    MT_CHECK_MPI(MPI_Comm_free(&dup));
    MT_CHECK(dup == MPI_COMM_NULL);
}

/* Merging: the group with high = 0 first; equal flags put first the group
 * whose rank 0 has the lower world rank. */
static void check_merge(MPI_Comm ic, const side_t *s, int high, int *buf)
{
    int rank, lrank, first;
    MPI_Comm_rank(ic, &lrank);
    if (high < 0) {
        first = s->local[0] < s->remote[0];
        high = 0;
    } else {
        first = !high;
    }
    MPI_Comm merged;
    MT_CHECK_MPI(MPI_Intercomm_merge(ic, high, &merged));
    const int *a = first ? s->local : s->remote,
              *b = first ? s->remote : s->local;
    int na = first ? s->lsize : s->rsize, nb = first ? s->rsize : s->lsize;
    for (int i = 0; i < na; i++)
        buf[i] = a[i];
    for (int i = 0; i < nb; i++)
        buf[na + i] = b[i];
    int size = -1, flag = 1;
    MPI_Comm_size(merged, &size);
    MPI_Comm_rank(merged, &rank);
    MPI_Comm_test_inter(merged, &flag);
    MT_CHECK_INT_EQ(flag, 0);
    MT_CHECK_INT_EQ(size, s->size);
    MT_CHECK_INT_EQ(rank, (first ? 0 : s->rsize) + lrank);
    MT_CHECK_INT_EQ(buf[rank], s->rank);
    /* Everyone agrees on the order: a ring and a sum over merged. */
    int got = -1, left = (rank + size - 1) % size;
    MPI_Sendrecv(&s->rank, 1, MPI_INT, (rank + 1) % size, 0, &got, 1, MPI_INT,
                 left, 0, merged, MPI_STATUS_IGNORE);
    MT_CHECK_INT_EQ(got, buf[left]);
    int sum = 0;
    MPI_Allreduce(&s->rank, &sum, 1, MPI_INT, MPI_SUM, merged);
    MT_CHECK_INT_EQ(sum, s->size * (s->size - 1) / 2);
    MPI_Comm_free(&merged);
}

/* An inter-communicator between the ranks with color 0 and those with
 * color 1 (world rank r is in group color_of[r]), leaders their lowest
 * world ranks. */
static void run(const int *color_of, int rank, int size, int *lists, int *buf)
{
    side_t s = {.rank = rank, .size = size, .color = color_of[rank]};
    int *local = lists, *remote = lists + size;
    for (int r = 0; r < size; r++) {
        if (color_of[r] == s.color)
            local[s.lsize++] = r;
        else
            remote[s.rsize++] = r;
    }
    s.local = local;
    s.remote = remote;
    MPI_Comm half, ic;
    MPI_Comm_split(MPI_COMM_WORLD, s.color, rank, &half);
    MT_CHECK_MPI(
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, remote[0], 77, &ic));
    check_shape(ic, &s);
    check_p2p(ic, &s);
    check_dup(ic, &s);
    check_merge(ic, &s, s.color, buf);
    check_merge(ic, &s, !s.color, buf);
    check_merge(ic, &s, -1, buf);
    MT_CHECK_MPI(MPI_Comm_free(&ic));
    MT_CHECK(ic == MPI_COMM_NULL);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK(size >= 2);
    if (size >= 2) {
        int *color_of = malloc((size_t)size * sizeof(int));
        int *lists = malloc(2 * (size_t)size * sizeof(int));
        int *buf = malloc((size_t)size * sizeof(int));
        for (int r = 0; r < size; r++)
            color_of[r] = r >= size / 2;
        run(color_of, rank, size, lists, buf);
        for (int r = 0; r < size; r++)
            color_of[r] = r % 2;
        run(color_of, rank, size, lists, buf);
        free(color_of);
        free(lists);
        free(buf);
    }
    return mt_finish_and_finalize();
}
