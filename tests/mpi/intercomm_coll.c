/*
 * intercomm_coll: blocking collectives on an inter-communicator between
 * the low and high halves of WORLD.  MPI_Bcast from MPI_ROOT (the other
 * ranks of the root's group pass MPI_PROC_NULL) in both directions, also
 * with a strided type; MPI_Allreduce gives each group the other group's
 * reduction; MPI_Reduce to an MPI_ROOT; MPI_Barrier; a bad root is
 * MPI_ERR_ROOT, MPI_IN_PLACE is MPI_ERR_BUFFER, and MPI_Scan (no
 * inter-communicator form) is MPI_ERR_COMM.  Needs two ranks.
 */
#include "mpitest.h"

typedef struct side {
    int high;         /* 1 in the high half */
    int lrank, lsize; /* in the local group */
    int rsize;
    int lsum, rsum; /* sums of the world ranks of each group */
} side_t;

/* The group with the root sends; root is local rank `from` of it. */
static void check_bcast(MPI_Comm ic, const side_t *s, int sender, int from)
{
    int data[3] = {-1, -1, -1};
    int root;
    if (s->high == sender) {
        root = s->lrank == from ? MPI_ROOT : MPI_PROC_NULL;
        if (root == MPI_ROOT)
            for (int i = 0; i < 3; i++)
                data[i] = 100 * sender + i;
    } else {
        root = from;
    }
    MT_CHECK_MPI(MPI_Bcast(data, 3, MPI_INT, root, ic));
    if (root == MPI_PROC_NULL) {
        MT_CHECK_INT_EQ(data[0], -1);
        return;
    }
    for (int i = 0; i < 3; i++)
        MT_CHECK_INT_EQ(data[i], 100 * sender + i);
}

/* Every other int of 6 (a vector type): the gaps stay as they were. */
static void check_bcast_strided(MPI_Comm ic, const side_t *s)
{
    MPI_Datatype every_other;
    MPI_Type_vector(3, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int data[6] = {-1, -1, -1, -1, -1, -1};
    int root = s->high ? 0 : (s->lrank == 0 ? MPI_ROOT : MPI_PROC_NULL);
    if (root == MPI_ROOT)
        for (int i = 0; i < 6; i++)
            data[i] = 10 + i;
    MT_CHECK_MPI(MPI_Bcast(data, 1, every_other, root, ic));
    if (s->high)
        for (int i = 0; i < 6; i++)
            MT_CHECK_INT_EQ(data[i], i % 2 ? -1 : 10 + i);
    MPI_Type_free(&every_other);
}

static void check_reductions(MPI_Comm ic, const side_t *s, int me)
{
    int sum = -1;
    MT_CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, ic));
    MT_CHECK_INT_EQ(sum, s->rsum);
    int pair[2] = {me, -me}, max[2] = {0, 0};
    MT_CHECK_MPI(MPI_Allreduce(pair, max, 2, MPI_INT, MPI_MAX, ic));
    MT_CHECK_INT_EQ(max[1], -(s->high ? 0 : s->lsize));

    /* Reduce to the high group's last rank. */
    int root = s->high ? (s->lrank == s->lsize - 1 ? MPI_ROOT : MPI_PROC_NULL)
                       : s->rsize - 1;
    sum = -1;
    MT_CHECK_MPI(MPI_Reduce(&me, &sum, 1, MPI_INT, MPI_SUM, root, ic));
    MT_CHECK_INT_EQ(sum, root == MPI_ROOT ? s->rsum : -1);
}

static void check_errors(MPI_Comm ic, int me)
{
    int x = me, y = 0;
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(MPI_Bcast(&x, 1, MPI_INT, -7, ic), MPI_ERR_ROOT);
    MT_CHECK_ERR_CLASS(MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 9999, ic),
                       MPI_ERR_ROOT);
    MT_CHECK_ERR_CLASS(MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, ic),
                       MPI_ERR_BUFFER);
    MT_CHECK_ERR_CLASS(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_COMM);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK(size >= 2);
    if (size >= 2) {
        int half = size / 2;
        side_t s = {.high = rank >= half};
        s.lsize = s.high ? size - half : half;
        s.rsize = size - s.lsize;
        int low_sum = half * (half - 1) / 2;
        int high_sum = size * (size - 1) / 2 - low_sum;
        s.lsum = s.high ? high_sum : low_sum;
        s.rsum = s.high ? low_sum : high_sum;
        MPI_Comm local, ic;
        MPI_Comm_split(MPI_COMM_WORLD, s.high, rank, &local);
        MPI_Comm_rank(local, &s.lrank);
        MT_CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD,
                                          s.high ? 0 : half, 5, &ic));
        MT_CHECK_MPI(MPI_Barrier(ic));
        check_bcast(ic, &s, 0, 0);
        check_bcast(ic, &s, 1, s.high ? s.lsize - 1 : s.rsize - 1);
        check_bcast_strided(ic, &s);
        check_reductions(ic, &s, rank);
        MT_CHECK_MPI(MPI_Barrier(ic));
        check_errors(ic, rank);
        MPI_Comm_free(&ic);
        MPI_Comm_free(&local);
    }
    return mt_finish_and_finalize();
}
