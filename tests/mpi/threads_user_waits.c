/*
 * threads_user_waits: a rank's own thread waits for a thread it created
 * outside MPI while that thread is in MPI calls (MPI_THREAD_MULTIPLE).
 * The thread's calls run on the rank's PE, so the rank's thread must let
 * the PE go where it waits: in a loop of pthread_mutex_lock and _unlock
 * (as MPICH's test suite's thread barrier does), in a loop of
 * sched_yield, and in pthread_cond_wait.  Each way, the thread exchanges
 * messages with its partner rank's thread (half of them received after a
 * loop of MPI_Iprobe, whose calls wait as pollers of the PE while the
 * rank's thread spins) and then raises a flag that the
 * rank's thread waits for; a recursive mutex the rank's thread holds
 * twice and an error-checking one it locks again behave as the C library
 * says.
 */
#include "mpitest.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>

enum { NMSG = 20, LOCKS, YIELDS, COND };

typedef struct {
    int rank, partner, how;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done; /* under lock */
} shared_t;

static void *exchange(void *p)
{
    shared_t *s = p;
    for (int i = 0; i < NMSG; i++) {
        int out = s->rank * 1000 + i, in = -1;
        if (i % 2) {
            MPI_Sendrecv(&out, 1, MPI_INT, s->partner, i, &in, 1, MPI_INT,
                         s->partner, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else { /* a polling loop: its call parks as a poller */
            MPI_Request req;
            int flag = 0;
            MPI_Isend(&out, 1, MPI_INT, s->partner, i, MPI_COMM_WORLD, &req);
            while (!flag)
                MPI_Iprobe(s->partner, i, MPI_COMM_WORLD, &flag,
                           MPI_STATUS_IGNORE);
            MPI_Recv(&in, 1, MPI_INT, s->partner, i, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        MT_CHECK_INT_EQ(in, s->partner * 1000 + i);
    }
    pthread_mutex_lock(&s->lock);
    s->done = 1;
    pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static int done_now(shared_t *s)
{
    pthread_mutex_lock(&s->lock);
    int d = s->done;
    pthread_mutex_unlock(&s->lock);
    return d;
}

static void wait_for(shared_t *s)
{
    switch (s->how) {
    case LOCKS:
        while (!done_now(s))
            ;
        break;
    case YIELDS:
        while (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE))
            sched_yield();
        break;
    default:
        pthread_mutex_lock(&s->lock);
        while (!s->done)
            pthread_cond_wait(&s->cond, &s->lock);
        pthread_mutex_unlock(&s->lock);
    }
}

static void own_mutexes(void)
{
    pthread_mutexattr_t a;
    pthread_mutex_t rec, chk;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&rec, &a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&chk, &a);
    MT_CHECK_INT_EQ(pthread_mutex_lock(&rec), 0);
    MT_CHECK_INT_EQ(pthread_mutex_lock(&rec), 0);
    MT_CHECK_INT_EQ(pthread_mutex_unlock(&rec), 0);
    MT_CHECK_INT_EQ(pthread_mutex_unlock(&rec), 0);
    MT_CHECK_INT_EQ(pthread_mutex_lock(&chk), 0);
    MT_CHECK_INT_EQ(pthread_mutex_lock(&chk), EDEADLK);
    MT_CHECK_INT_EQ(pthread_mutex_trylock(&chk), EBUSY);
    MT_CHECK_INT_EQ(pthread_mutex_unlock(&chk), 0);
    pthread_mutex_destroy(&rec);
    pthread_mutex_destroy(&chk);
    pthread_mutexattr_destroy(&a);
}

int main(int argc, char **argv)
{
    int provided, me, np;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MT_CHECK_INT_EQ(provided, MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int how = LOCKS; how <= COND; how++) {
        /* Pairs of ranks; an odd last one talks to itself. */
        int partner = (me ^ 1) < np ? me ^ 1 : me;
        shared_t s = {.rank = me, .partner = partner, .how = how};
        pthread_mutex_init(&s.lock, NULL);
        pthread_cond_init(&s.cond, NULL);
        pthread_t th;
        MT_CHECK_INT_EQ(pthread_create(&th, NULL, exchange, &s), 0);
        /* The thread's calls are under way (or soon): hold a mutex of the
         * rank's own meanwhile, then wait outside MPI. */
        own_mutexes();
        wait_for(&s);
        MT_CHECK_INT_EQ(pthread_join(th, NULL), 0);
        pthread_cond_destroy(&s.cond);
        pthread_mutex_destroy(&s.lock);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return mt_finish_and_finalize();
}
