/*
 * threads_user_syncs: a rank's own thread waits for the threads it created
 * in a pthread barrier, a semaphore, a read-write lock, pthread_join or a
 * timed condition wait while those threads are in MPI calls
 * (MPI_THREAD_MULTIPLE).  The threads' calls run on the rank's PE, so the
 * rank's thread must let the PE go where it waits.  In each case every
 * thread marks its partition of a partitioned send to the partner rank
 * ready (MPI_Pready), polls its partition of the partitioned receive
 * (MPI_Parrived) and checks it, and then tells the rank's thread, which
 * waits for it one way.  Timed waits that expire say ETIMEDOUT; a lock the
 * rank's thread holds itself and an empty semaphore behave as the C
 * library says.
 */
#define _GNU_SOURCE 1
#include "mpitest.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <time.h>

enum { NTHR = 3, COUNT = 64 };

enum {
    BARRIER,
    SEM_WAIT,
    SEM_TIMEDWAIT,
    SEM_CLOCKWAIT,
    SEM_TRYWAIT,
    RDLOCK,
    WRLOCK,
    TIMEDRDLOCK,
    TIMEDWRLOCK,
    CLOCKRDLOCK,
    CLOCKWRLOCK,
    JOIN,
    COND_TIMEDWAIT,
    COND_CLOCKWAIT,
    NCASES
};

typedef struct {
    int how, rank, partner;
    int *in;
    MPI_Request send, recv;
    pthread_barrier_t barrier;
    _Atomic int serial; /* barrier waits that returned the serial value */
    sem_t sem;
    pthread_rwlock_t rwlock;
    _Atomic int held;    /* thread 0 holds rwlock for writing */
    _Atomic int release; /* thread 0 may let rwlock go */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done; /* under lock */
} shared_t;

typedef struct {
    shared_t *s;
    int t;
} worker_t;

static int val(int rank, int i)
{
    return rank * 100000 + i;
}

/* An absolute time ms milliseconds from now on clock. */
static struct timespec in_ms(clockid_t clock, long ms)
{
    struct timespec t;
    clock_gettime(clock, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

static int is_lock_case(int how)
{
    return how >= RDLOCK && how <= CLOCKWRLOCK;
}

/* The thread's partition out, the partner's partition in. */
static void partition(shared_t *s, int t)
{
    MT_CHECK_MPI(MPI_Pready(t, s->send));
    int flag = 0;
    while (!flag)
        MT_CHECK_MPI(MPI_Parrived(s->recv, t, &flag));
    for (int i = t * COUNT; i < (t + 1) * COUNT; i++)
        MT_CHECK_INT_EQ(s->in[i], val(s->partner, i));
}

/* Tells the rank's thread that this one is done, the way of s->how (a
 * lock case: thread 0's unlock; JOIN: the thread's end). */
static void tell(shared_t *s)
{
    if (s->how == BARRIER) {
        int rc = pthread_barrier_wait(&s->barrier);
        MT_CHECK(rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD);
        if (rc == PTHREAD_BARRIER_SERIAL_THREAD)
            atomic_fetch_add(&s->serial, 1);
    } else if (s->how >= SEM_WAIT && s->how <= SEM_TRYWAIT) {
        MT_CHECK_INT_EQ(sem_post(&s->sem), 0);
    } else if (s->how == COND_TIMEDWAIT || s->how == COND_CLOCKWAIT) {
        pthread_mutex_lock(&s->lock);
        s->done++;
        pthread_cond_signal(&s->cond);
        pthread_mutex_unlock(&s->lock);
    }
}

static void *work(void *p)
{
    worker_t *w = p;
    shared_t *s = w->s;
    int writer = is_lock_case(s->how) && w->t == 0;
    if (writer) { /* before any MPI call: the rank's thread waits for it */
        MT_CHECK_INT_EQ(pthread_rwlock_wrlock(&s->rwlock), 0);
        atomic_store(&s->held, 1);
    }
    partition(s, w->t);
    if (writer) {
        while (!atomic_load(&s->release))
            sched_yield();
        MT_CHECK_INT_EQ(pthread_rwlock_unlock(&s->rwlock), 0);
    }
    tell(s);
    return NULL;
}

/* The rank's thread waits for the read-write lock that thread 0 holds:
 * the timed ways first once until a moment has passed. */
static void wait_lock(shared_t *s)
{
    int how = s->how, rc;
    clockid_t clock = how >= CLOCKRDLOCK ? CLOCK_MONOTONIC : CLOCK_REALTIME;
    while (!atomic_load(&s->held))
        sched_yield();
    if (how >= TIMEDRDLOCK) {
        struct timespec soon = in_ms(clock, 20);
        if (how == TIMEDRDLOCK)
            rc = pthread_rwlock_timedrdlock(&s->rwlock, &soon);
        else if (how == TIMEDWRLOCK)
            rc = pthread_rwlock_timedwrlock(&s->rwlock, &soon);
        else if (how == CLOCKRDLOCK)
            rc = pthread_rwlock_clockrdlock(&s->rwlock, clock, &soon);
        else
            rc = pthread_rwlock_clockwrlock(&s->rwlock, clock, &soon);
        MT_CHECK_INT_EQ(rc, ETIMEDOUT);
    }
    atomic_store(&s->release, 1);
    struct timespec later = in_ms(clock, 60000);
    if (how == RDLOCK)
        rc = pthread_rwlock_rdlock(&s->rwlock);
    else if (how == WRLOCK)
        rc = pthread_rwlock_wrlock(&s->rwlock);
    else if (how == TIMEDRDLOCK)
        rc = pthread_rwlock_timedrdlock(&s->rwlock, &later);
    else if (how == TIMEDWRLOCK)
        rc = pthread_rwlock_timedwrlock(&s->rwlock, &later);
    else if (how == CLOCKRDLOCK)
        rc = pthread_rwlock_clockrdlock(&s->rwlock, clock, &later);
    else
        rc = pthread_rwlock_clockwrlock(&s->rwlock, clock, &later);
    MT_CHECK_INT_EQ(rc, 0);
    MT_CHECK_INT_EQ(pthread_rwlock_unlock(&s->rwlock), 0);
}

/* One post of a thread, the way of s->how. */
static void wait_post(shared_t *s)
{
    struct timespec later = in_ms(CLOCK_REALTIME, 60000);
    struct timespec mono = in_ms(CLOCK_MONOTONIC, 60000);
    int rc;
    if (s->how == SEM_WAIT) {
        rc = sem_wait(&s->sem);
    } else if (s->how == SEM_TIMEDWAIT) {
        rc = sem_timedwait(&s->sem, &later);
    } else if (s->how == SEM_CLOCKWAIT) {
        rc = sem_clockwait(&s->sem, CLOCK_MONOTONIC, &mono);
    } else {
        while ((rc = sem_trywait(&s->sem)) != 0)
            MT_CHECK_INT_EQ(errno, EAGAIN);
    }
    MT_CHECK_INT_EQ(rc, 0);
}

static void wait_cond(shared_t *s)
{
    int mono = s->how == COND_CLOCKWAIT;
    struct timespec later =
        in_ms(mono ? CLOCK_MONOTONIC : CLOCK_REALTIME, 60000);
    pthread_mutex_lock(&s->lock);
    while (s->done < NTHR) {
        int rc = mono ? pthread_cond_clockwait(&s->cond, &s->lock,
                                               CLOCK_MONOTONIC, &later)
                      : pthread_cond_timedwait(&s->cond, &s->lock, &later);
        MT_CHECK_INT_EQ(rc, 0);
    }
    pthread_mutex_unlock(&s->lock);
}

/* Waits for the threads th, and joins them. */
static void wait_for(shared_t *s, pthread_t *th)
{
    if (s->how == BARRIER) {
        int rc = pthread_barrier_wait(&s->barrier);
        MT_CHECK(rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD);
        if (rc == PTHREAD_BARRIER_SERIAL_THREAD)
            atomic_fetch_add(&s->serial, 1);
    } else if (s->how >= SEM_WAIT && s->how <= SEM_TRYWAIT) {
        for (int t = 0; t < NTHR; t++)
            wait_post(s);
    } else if (is_lock_case(s->how)) {
        wait_lock(s);
    } else if (s->how != JOIN) {
        wait_cond(s);
    }
    for (int t = 0; t < NTHR; t++)
        MT_CHECK_INT_EQ(pthread_join(th[t], NULL), 0);
    if (s->how == BARRIER) /* one of the waits, once all have counted */
        MT_CHECK_INT_EQ(atomic_load(&s->serial), 1);
}

/* Locks and a semaphore of the rank's thread alone, while it has threads:
 * what the C library answers. */
static void own_syncs(void)
{
    pthread_rwlock_t l;
    pthread_rwlock_init(&l, NULL);
    MT_CHECK_INT_EQ(pthread_rwlock_wrlock(&l), 0);
    MT_CHECK_INT_EQ(pthread_rwlock_wrlock(&l), EDEADLK);
    MT_CHECK_INT_EQ(pthread_rwlock_rdlock(&l), EDEADLK);
    MT_CHECK_INT_EQ(pthread_rwlock_trywrlock(&l), EBUSY);
    MT_CHECK_INT_EQ(pthread_rwlock_tryrdlock(&l), EBUSY);
    MT_CHECK_INT_EQ(pthread_rwlock_unlock(&l), 0);
    MT_CHECK_INT_EQ(pthread_rwlock_rdlock(&l), 0);
    MT_CHECK_INT_EQ(pthread_rwlock_tryrdlock(&l), 0);
    MT_CHECK_INT_EQ(pthread_rwlock_trywrlock(&l), EBUSY);
    MT_CHECK_INT_EQ(pthread_rwlock_unlock(&l), 0);
    MT_CHECK_INT_EQ(pthread_rwlock_unlock(&l), 0);
    pthread_rwlock_destroy(&l);

    sem_t sem;
    sem_init(&sem, 0, 0);
    MT_CHECK_INT_EQ(sem_trywait(&sem), -1);
    MT_CHECK_INT_EQ(errno, EAGAIN);
    struct timespec soon = in_ms(CLOCK_REALTIME, 10);
    MT_CHECK_INT_EQ(sem_timedwait(&sem, &soon), -1);
    MT_CHECK_INT_EQ(errno, ETIMEDOUT);
    struct timespec bad = {0, 2000000000L};
    MT_CHECK_INT_EQ(sem_timedwait(&sem, &bad), -1);
    MT_CHECK_INT_EQ(errno, EINVAL);
    sem_destroy(&sem);

    pthread_barrier_t alone;
    pthread_barrier_init(&alone, NULL, 1);
    MT_CHECK_INT_EQ(pthread_barrier_wait(&alone),
                    PTHREAD_BARRIER_SERIAL_THREAD);
    pthread_barrier_destroy(&alone);
}

static void init_syncs(shared_t *s)
{
    pthread_barrier_init(&s->barrier, NULL, NTHR + 1);
    sem_init(&s->sem, 0, 0);
    pthread_rwlock_init(&s->rwlock, NULL);
    pthread_mutex_init(&s->lock, NULL);
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    if (s->how == COND_CLOCKWAIT) /* the clock glibc keeps in the cond */
        pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cond, &a);
    pthread_condattr_destroy(&a);
}

static void destroy_syncs(shared_t *s)
{
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->lock);
    pthread_rwlock_destroy(&s->rwlock);
    sem_destroy(&s->sem);
    pthread_barrier_destroy(&s->barrier);
}

static void run_case(int how, int me, int partner)
{
    int out[NTHR * COUNT], in[NTHR * COUNT];
    shared_t s = {.how = how, .rank = me, .partner = partner, .in = in};
    for (int i = 0; i < NTHR * COUNT; i++) {
        out[i] = val(me, i);
        in[i] = -1;
    }
    init_syncs(&s);
    MT_CHECK_MPI(MPI_Psend_init(out, NTHR, COUNT, MPI_INT, partner, how,
                                MPI_COMM_WORLD, MPI_INFO_NULL, &s.send));
    MT_CHECK_MPI(MPI_Precv_init(in, NTHR, COUNT, MPI_INT, partner, how,
                                MPI_COMM_WORLD, MPI_INFO_NULL, &s.recv));
    MT_CHECK_MPI(MPI_Start(&s.recv));
    MT_CHECK_MPI(MPI_Start(&s.send));
    pthread_t th[NTHR];
    worker_t w[NTHR];
    for (int t = 0; t < NTHR; t++) {
        w[t] = (worker_t){.s = &s, .t = t};
        MT_CHECK_INT_EQ(pthread_create(&th[t], NULL, work, &w[t]), 0);
    }
    /* The threads' calls are under way (or soon): the rank's thread has
     * not let its PE go since. */
    own_syncs();
    wait_for(&s, th);
    MT_CHECK_MPI(MPI_Wait(&s.send, MPI_STATUS_IGNORE));
    MT_CHECK_MPI(MPI_Wait(&s.recv, MPI_STATUS_IGNORE));
    for (int i = 0; i < NTHR * COUNT; i++)
        MT_CHECK_INT_EQ(in[i], val(partner, i));
    MT_CHECK_MPI(MPI_Request_free(&s.send));
    MT_CHECK_MPI(MPI_Request_free(&s.recv));
    destroy_syncs(&s);
}

int main(int argc, char **argv)
{
    int provided, me;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MT_CHECK_INT_EQ(provided, MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int partner = mt_partner(MPI_COMM_WORLD);
    for (int how = 0; how < NCASES; how++) {
        run_case(how, me, partner);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return mt_finish_and_finalize();
}
