/*
 * threads_comm_create: threads of every rank create communicators at the
 * same time (MPI_THREAD_MULTIPLE): MPI_Comm_dup of their own parents,
 * MPI_Comm_split, and MPI_Comm_create_group on one parent told apart by
 * the tag, and inter-communicators between the halves of the parent
 * (MPI_Intercomm_create, then MPI_Intercomm_merge and MPI_Comm_dup of
 * them).  Each new communicator must have a context of its own: a
 * collective on it sums what its thread brings, and a ring of messages
 * carries the thread's number, so that two communicators given the same
 * context (their messages mixed) show as wrong sums or values.
 */
#include "mpitest.h"

#include <pthread.h>

enum { NT = 4, ROUNDS = 10 };

static MPI_Comm parents[NT];
static int me, np;

/* Sum of (t + 1) over the members and a ring of t: both per thread. */
static void check_comm(MPI_Comm c, int t)
{
    int size, r, in = -1, sum = 0, mine = t + 1;
    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &r);
    MT_CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c));
    MT_CHECK_INT_EQ(sum, size * (t + 1));
    MT_CHECK_MPI(MPI_Sendrecv(&t, 1, MPI_INT, (r + 1) % size, t, &in, 1,
                              MPI_INT, (r + size - 1) % size, t, c,
                              MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(in, t);
}

/* An inter-communicator between the even and the odd ranks of parent
 * (tag t), checked, merged and checked again. */
static void check_inter(MPI_Comm parent, int t)
{
    MPI_Comm half, inter, dup, merged;
    int size, lsize, rsize, sum = 0, mine = t + 1;
    MPI_Comm_size(parent, &size);
    if (size < 2)
        return;
    MT_CHECK_MPI(MPI_Comm_split(parent, me % 2, me, &half));
    MT_CHECK_MPI(
        MPI_Intercomm_create(half, 0, parent, me % 2 ? 0 : 1, t, &inter));
    MT_CHECK_MPI(MPI_Comm_dup(inter, &dup));
    MPI_Comm_size(dup, &lsize);
    MPI_Comm_remote_size(dup, &rsize);
    MT_CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, dup));
    MT_CHECK_INT_EQ(sum, rsize * (t + 1));
    MT_CHECK_MPI(MPI_Intercomm_merge(inter, me % 2, &merged));
    check_comm(merged, t);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    (void)lsize;
}

static void *creator(void *p)
{
    int t = (int)(long)p;
    MPI_Group world_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Comm c;
        MT_CHECK_MPI(MPI_Comm_dup(parents[t], &c));
        check_comm(c, t);
        MT_CHECK_MPI(MPI_Comm_free(&c));
        MT_CHECK_MPI(MPI_Comm_split(parents[t], me % 2, me, &c));
        check_comm(c, t);
        MT_CHECK_MPI(MPI_Comm_free(&c));
        MT_CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, world_group, t, &c));
        check_comm(c, t);
        MT_CHECK_MPI(MPI_Comm_free(&c));
        check_inter(parents[t], t);
    }
    MPI_Group_free(&world_group);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MT_CHECK_INT_EQ(provided, MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int t = 0; t < NT; t++)
        MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]));
    pthread_t th[NT];
    for (int t = 0; t < NT; t++)
        MT_CHECK_INT_EQ(pthread_create(&th[t], NULL, creator, (void *)(long)t),
                        0);
    for (int t = 0; t < NT; t++)
        MT_CHECK_INT_EQ(pthread_join(th[t], NULL), 0);
    for (int t = 0; t < NT; t++)
        MPI_Comm_free(&parents[t]);
    return mt_finish_and_finalize();
}
