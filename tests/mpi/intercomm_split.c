/*
 * intercomm_split: MPI_Comm_split, MPI_Comm_create and MPI_Comm_split_type
 * on an inter-communicator between groups of unequal sizes (world ranks
 * below size / 3, at least one, and the rest).  Split by colors (with
 * MPI_UNDEFINED for some ranks) and keys that reverse the order: each
 * result joins the ranks of one color in each group, in key order, and
 * is MPI_COMM_NULL where either side has none; a split that leaves one
 * side empty gives MPI_COMM_NULL everywhere.  Each result is used: its
 * remote group in order, an MPI_Allreduce, a message to every remote
 * rank.  MPI_Comm_create_group stays MPI_ERR_COMM.  Needs two ranks.
 */
#include "mpitest.h"

#include <stdlib.h>

typedef struct side {
    MPI_Comm ic;
    int low; /* in the low group */
    int w, nlow, size;
} side_t;

/* The world ranks of group low whose colour is color, in the order key
 * gives (then world rank): *n of them into out. */
typedef int (*colour_fn_t)(int w);

static int members(const side_t *s, int low, colour_fn_t colour, int color,
                   int reverse, int *out)
{
    int first = low ? 0 : s->nlow, end = low ? s->nlow : s->size, n = 0;
    for (int i = 0; i < end - first; i++) {
        int w = reverse ? end - 1 - i : first + i;
        if (colour(w) == color)
            out[n++] = w;
    }
    return n;
}

/* comm (from a split of s->ic by colour, keys reversing the order when
 * reverse): the expected groups, and it works. */
static void check_result(const side_t *s, MPI_Comm comm, colour_fn_t colour,
                         int reverse)
{
    int color = colour(s->w);
    int *mine = malloc(sizeof(int) * (size_t)s->size);
    int *theirs = malloc(sizeof(int) * (size_t)s->size);
    int n = color == MPI_UNDEFINED
                ? 0
                : members(s, s->low, colour, color, reverse, mine);
    int rn = color == MPI_UNDEFINED
                 ? 0
                 : members(s, !s->low, colour, color, reverse, theirs);
    if (n == 0 || rn == 0) {
        MT_CHECK(comm == MPI_COMM_NULL);
        free(theirs);
        free(mine);
        return;
    }
    MT_CHECK(comm != MPI_COMM_NULL);
    if (comm == MPI_COMM_NULL)
        return;
    int flag, size, rsize, rank;
    MPI_Comm_test_inter(comm, &flag);
    MT_CHECK(flag);
    MPI_Comm_size(comm, &size);
    MPI_Comm_remote_size(comm, &rsize);
    MPI_Comm_rank(comm, &rank);
    MT_CHECK_INT_EQ(size, n);
    MT_CHECK_INT_EQ(rsize, rn);
    MT_CHECK(rank < n && mine[rank] == s->w);
    /* The remote group, in order, in world ranks. */
    MPI_Group rg, wg;
    MPI_Comm_remote_group(comm, &rg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int *idx = malloc(sizeof(int) * (size_t)rn);
    int *tw = malloc(sizeof(int) * (size_t)rn);
    for (int i = 0; i < rn; i++)
        idx[i] = i;
    MPI_Group_translate_ranks(rg, rn, idx, wg, tw);
    for (int i = 0; i < rn; i++)
        MT_CHECK_INT_EQ(tw[i], theirs[i]);
    /* Collective and point-to-point traffic over it. */
    int x = s->w, sum = -1;
    long long want = 0;
    for (int i = 0; i < rn; i++)
        want += theirs[i];
    MT_CHECK_MPI(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, comm));
    MT_CHECK_INT_EQ(sum, want);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)rn);
    for (int i = 0; i < rn; i++) {
        MPI_Irecv(&tw[i], 1, MPI_INT, i, 3, comm, &reqs[i]);
        MPI_Isend(&s->w, 1, MPI_INT, i, 3, comm, &reqs[rn + i]);
    }
    MT_CHECK_MPI(MPI_Waitall(2 * rn, reqs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < rn; i++)
        MT_CHECK_INT_EQ(tw[i], theirs[i]);
    free(reqs);
    free(tw);
    free(idx);
    MPI_Group_free(&wg);
    MPI_Group_free(&rg);
    free(theirs);
    free(mine);
}

static int two_colours(int w)
{
    return w % 5 == 3 ? MPI_UNDEFINED : w % 2;
}

/* AMPI_COMM_TYPE_PROCESS: the ranks of one process. */
static int process_colour(int w)
{
    return mt_process_of(w);
}

static int lows_only(int w)
{
    return w == 0 ? 0 : MPI_UNDEFINED;
}

static void check_split(const side_t *s)
{
    MPI_Comm c;
    int color = two_colours(s->w);
    MT_CHECK_MPI(MPI_Comm_split(s->ic, color, -s->w, &c));
    check_result(s, c, two_colours, 1);
    if (c != MPI_COMM_NULL)
        MPI_Comm_free(&c);
    /* Only world rank 0 (low) has a colour: nobody gets a communicator. */
    MT_CHECK_MPI(MPI_Comm_split(s->ic, lows_only(s->w), 0, &c));
    MT_CHECK(c == MPI_COMM_NULL);
    MT_CHECK_MPI(MPI_Comm_split_type(s->ic, AMPI_COMM_TYPE_PROCESS, 0,
                                     MPI_INFO_NULL, &c));
    check_result(s, c, process_colour, 0);
    if (c != MPI_COMM_NULL)
        MPI_Comm_free(&c);
}

/* Members of MPI_Comm_create's group: the local group but its first rank
 * (all of a group of one). */
static int created(int w, int nlow, int size)
{
    if (w < nlow)
        return nlow == 1 || w != 0 ? 0 : MPI_UNDEFINED;
    return size - nlow == 1 || w != nlow ? 0 : MPI_UNDEFINED;
}

static void check_create(const side_t *s)
{
    MPI_Group local, sub;
    MPI_Comm_group(s->ic, &local);
    int lsize;
    MPI_Group_size(local, &lsize);
    int first = 0;
    if (lsize > 1)
        MPI_Group_excl(local, 1, &first, &sub);
    else
        MPI_Group_incl(local, 1, &first, &sub);
    MPI_Comm c;
    MT_CHECK_MPI(MPI_Comm_create(s->ic, sub, &c));
    int color = created(s->w, s->nlow, s->size);
    MT_CHECK(color == MPI_UNDEFINED ? c == MPI_COMM_NULL : c != MPI_COMM_NULL);
    if (c != MPI_COMM_NULL) {
        int size, rsize;
        MPI_Comm_size(c, &size);
        MPI_Comm_remote_size(c, &rsize);
        int mine = s->low ? s->nlow : s->size - s->nlow;
        int theirs = s->size - mine;
        MT_CHECK_INT_EQ(size, mine > 1 ? mine - 1 : 1);
        MT_CHECK_INT_EQ(rsize, theirs > 1 ? theirs - 1 : 1);
        int x = 1, n = 0;
        MT_CHECK_MPI(MPI_Allreduce(&x, &n, 1, MPI_INT, MPI_SUM, c));
        MT_CHECK_INT_EQ(n, rsize);
        MPI_Comm_free(&c);
    }
    /* The high group passes MPI_GROUP_EMPTY: MPI_COMM_NULL everywhere. */
    MT_CHECK_MPI(MPI_Comm_create(s->ic, s->low ? local : MPI_GROUP_EMPTY, &c));
    MT_CHECK(c == MPI_COMM_NULL);
    MPI_Comm_set_errhandler(s->ic, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(MPI_Comm_create_group(s->ic, local, 0, &c),
                       MPI_ERR_COMM);
    MT_CHECK_ERR_CLASS(MPI_Comm_split(s->ic, -2, 0, &c), MPI_ERR_ARG);
    MPI_Group_free(&sub);
    MPI_Group_free(&local);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK(size >= 2);
    if (size >= 2) {
        int nlow = size / 3 > 0 ? size / 3 : 1;
        side_t s = {.low = rank < nlow, .w = rank, .nlow = nlow, .size = size};
        MPI_Comm local;
        MPI_Comm_split(MPI_COMM_WORLD, s.low, rank, &local);
        MT_CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD,
                                          s.low ? nlow : 0, 7, &s.ic));
        check_split(&s);
        check_create(&s);
        MPI_Comm_free(&s.ic);
        MPI_Comm_free(&local);
    }
    return mt_finish_and_finalize();
}
