/*
 * threads_pthread: MPI_THREAD_MULTIPLE with pthreads.  Each rank asks for
 * MPI_THREAD_MULTIPLE and starts NT threads; thread t of every rank talks
 * to thread t of its partner (tag t, messages in order), runs collectives
 * on a communicator of its own, and sits in a blocking receive while the
 * other threads and the rank's own thread call MPI too, so that two threads
 * of a rank are in MPI at once.  The threads see the rank's globals (they
 * are privatized per rank), MPI_Is_thread_main is false in them, and the
 * rank's thread joins them with pthread_join.  Then the threads' ends:
 * pthread_exit's value through pthread_join (a thread joined while it
 * runs, and one that has ended before), threads detached at creation and
 * with pthread_detach that still call MPI, and a thread that starts and
 * joins one of its own.
 */
#include "mpitest.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

enum { NT = 2, NMSG = 50 };

/* Privatized per rank: the threads must see their own rank's value. */
static int my_rank_global = -1;

typedef struct {
    int t, rank, partner;
    MPI_Comm comm;   /* this thread's own duplicate of MPI_COMM_WORLD */
    MPI_Comm shared; /* where the threads meet their partners */
} arg_t;

static void *thread_main(void *p)
{
    arg_t *a = p;
    int flag = 1, size;
    MT_CHECK_INT_EQ(my_rank_global, a->rank);
    MT_CHECK_MPI(MPI_Is_thread_main(&flag));
    MT_CHECK_INT_EQ(flag, 0);
    MPI_Comm_size(a->comm, &size);
    /* In order, from the partner's thread t. */
    MPI_Request reqs[NMSG];
    int out[NMSG], in[NMSG];
    for (int i = 0; i < NMSG; i++) {
        out[i] = a->rank * 1000 + a->t * 100 + i;
        MT_CHECK_MPI(MPI_Isend(&out[i], 1, MPI_INT, a->partner, a->t, a->shared,
                               &reqs[i]));
    }
    for (int i = 0; i < NMSG; i++) {
        MT_CHECK_MPI(MPI_Recv(&in[i], 1, MPI_INT, a->partner, a->t, a->shared,
                              MPI_STATUS_IGNORE));
        MT_CHECK_INT_EQ(in[i], a->partner * 1000 + a->t * 100 + i);
    }
    MT_CHECK_MPI(MPI_Waitall(NMSG, reqs, MPI_STATUSES_IGNORE));
    /* Collectives on the thread's own communicator. */
    int sum = 0, one = a->t + 1;
    MT_CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, a->comm));
    MT_CHECK_INT_EQ(sum, size * (a->t + 1));
    MT_CHECK_MPI(MPI_Barrier(a->comm));
    /* Blocks until the partner's rank sends it from its own thread, after
     * its threads have done the above: meanwhile this rank's other thread
     * and its own thread are in MPI too. */
    int late = -1;
    MT_CHECK_MPI(MPI_Recv(&late, 1, MPI_INT, a->partner, 100 + a->t, a->shared,
                          MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(late, a->partner + a->t);
    return NULL;
}

static void *exit_with(void *p)
{
    int r;
    MT_CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    pthread_exit((char *)p + r);
}

/* Sends its rank to the rank itself (tag 200), then ends. */
static void *send_self(void *p)
{
    (void)p;
    int r;
    MT_CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    MT_CHECK_MPI(MPI_Send(&r, 1, MPI_INT, r, 200, MPI_COMM_WORLD));
    return NULL;
}

static void *nested(void *p)
{
    pthread_t th;
    void *ret = NULL;
    MT_CHECK_INT_EQ(pthread_create(&th, NULL, exit_with, p), 0);
    MT_CHECK_INT_EQ(pthread_join(th, &ret), 0);
    return ret;
}

static void thread_ends(int rank)
{
    static char base[64];
    pthread_t th;
    void *ret = NULL;
    MT_CHECK_INT_EQ(pthread_create(&th, NULL, exit_with, base), 0);
    MT_CHECK_INT_EQ(pthread_join(th, &ret), 0);
    MT_CHECK(ret == base + rank);
    MT_CHECK_INT_EQ(pthread_create(&th, NULL, exit_with, base), 0);
    usleep(20000); /* most likely over by now */
    MT_CHECK_INT_EQ(pthread_join(th, &ret), 0);
    MT_CHECK(ret == base + rank);
    MT_CHECK_INT_EQ(pthread_create(&th, NULL, nested, base), 0);
    MT_CHECK_INT_EQ(pthread_join(th, &ret), 0);
    MT_CHECK(ret == base + rank);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    MT_CHECK_INT_EQ(pthread_create(&th, &attr, send_self, NULL), 0);
    pthread_attr_destroy(&attr);
    MT_CHECK_INT_EQ(pthread_create(&th, NULL, send_self, NULL), 0);
    MT_CHECK_INT_EQ(pthread_detach(th), 0);
    for (int i = 0; i < 2; i++) {
        int got = -1;
        MT_CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, rank, 200, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
        MT_CHECK_INT_EQ(got, rank);
    }
}

int main(int argc, char **argv)
{
    int provided = -1, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MT_CHECK_INT_EQ(provided, MPI_THREAD_MULTIPLE);
    MT_CHECK_MPI(MPI_Query_thread(&provided));
    MT_CHECK_INT_EQ(provided, MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    my_rank_global = rank;
    int flag = 0;
    MT_CHECK_MPI(MPI_Is_thread_main(&flag));
    MT_CHECK_INT_EQ(flag, 1);
    int partner = mt_partner(MPI_COMM_WORLD);
    MPI_Comm shared;
    MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &shared));
    pthread_t th[NT];
    arg_t args[NT];
    for (int t = 0; t < NT; t++) {
        args[t] = (arg_t){t, rank, partner, MPI_COMM_NULL, shared};
        MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &args[t].comm));
    }
    for (int t = 0; t < NT; t++)
        MT_CHECK_INT_EQ(pthread_create(&th[t], NULL, thread_main, &args[t]), 0);
    /* The rank's own thread: its own traffic meanwhile, then the late
     * messages the partner's threads are blocked on. */
    int mine = rank, theirs = -1;
    MT_CHECK_MPI(MPI_Sendrecv(&mine, 1, MPI_INT, partner, 99, &theirs, 1,
                              MPI_INT, partner, 99, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(theirs, partner);
    usleep(20000);
    for (int t = 0; t < NT; t++) {
        int late = rank + t;
        MT_CHECK_MPI(MPI_Send(&late, 1, MPI_INT, partner, 100 + t, shared));
    }
    for (int t = 0; t < NT; t++) {
        MT_CHECK_INT_EQ(pthread_join(th[t], NULL), 0);
        MT_CHECK_MPI(MPI_Comm_free(&args[t].comm));
    }
    MT_CHECK_MPI(MPI_Comm_free(&shared));
    thread_ends(rank);
    return mt_finish_and_finalize();
}
