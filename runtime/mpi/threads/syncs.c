/*
 * A rank's own thread waiting on its other threads in a semaphore, a
 * read-write lock or a barrier (MPI_THREAD_MULTIPLE, threads.h), the way
 * waits.c has it for mutexes and condition variables: such a wait of the
 * rank's ULT would keep its PE, which runs the MPI calls of the threads
 * it waits for.  While the rank has threads (amp_mt_waiting_rank, busy
 * 1), sem_wait, sem_timedwait, sem_clockwait and the read-write locks'
 * rdlock and wrlock (plain, timed, clock) try between rounds of the PE;
 * the timed ones end with ETIMEDOUT once their time has come.  While a
 * call of one of its threads is under way (busy 0), sem_trywait, the
 * locks' tryrdlock and trywrlock and their unlock let the PE run first,
 * for loops of them.  A barrier cannot be tried: its wait is made by a
 * kernel thread of the rank (amp_mt_run_aside), the ULT waiting in the
 * scheduler meanwhile.
 *
 * As in waits.c, only the program's own calls are these: the runtime's
 * and other libraries' go to the C library as they are.
 */
#define _GNU_SOURCE 1
#include "mpi/threads/threads.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>
#include <unistd.h>

typedef int (*sem_fn_t)(sem_t *);
typedef int (*sem_timed_fn_t)(sem_t *, const struct timespec *);
typedef int (*sem_clock_fn_t)(sem_t *, clockid_t, const struct timespec *);
typedef int (*rwlock_fn_t)(pthread_rwlock_t *);
typedef int (*rwlock_timed_fn_t)(pthread_rwlock_t *, const struct timespec *);
typedef int (*rwlock_clock_fn_t)(pthread_rwlock_t *, clockid_t,
                                 const struct timespec *);
typedef int (*barrier_fn_t)(pthread_barrier_t *);

/* A timed wait's end: the clock and the time, or none (clock -1). */
typedef struct {
    clockid_t clock;
    const struct timespec *until;
} deadline_t;

static const deadline_t never = {-1, NULL};

static int valid_clock(clockid_t clock)
{
    return clock == CLOCK_REALTIME || clock == CLOCK_MONOTONIC;
}

/* ---- semaphores: 0, or -1 with errno ---- */

static int libc_sem_trywait(sem_t *s)
{
    return ((sem_fn_t)amp_mt_libc(AMP_MT_LIBC_SEM_TRYWAIT))(s);
}

/* Takes one of s, letting the PE run between tries, until end. */
static int sem_yielding(sem_t *s, deadline_t end)
{
    for (;;) {
        if (libc_sem_trywait(s) == 0)
            return 0;
        if (errno != EAGAIN)
            return -1;
        int rc = end.until ? amp_mt_expired(end.clock, end.until) : 0;
        if (rc) {
            errno = rc;
            return -1;
        }
        amp_sched_yield();
    }
}

AMPI_API int sem_wait(sem_t *s)
{
    if (!amp_mt_waiting_rank(__builtin_return_address(0), 1))
        return ((sem_fn_t)amp_mt_libc(AMP_MT_LIBC_SEM_WAIT))(s);
    return sem_yielding(s, never);
}

AMPI_API int sem_timedwait(sem_t *s, const struct timespec *until)
{
    if (!amp_mt_waiting_rank(__builtin_return_address(0), 1))
        return ((sem_timed_fn_t)amp_mt_libc(AMP_MT_LIBC_SEM_TIMEDWAIT))(s,
                                                                        until);
    return sem_yielding(s, (deadline_t){CLOCK_REALTIME, until});
}

AMPI_API int sem_clockwait(sem_t *s, clockid_t clock,
                           const struct timespec *until)
{
    if (!amp_mt_waiting_rank(__builtin_return_address(0), 1))
        return ((sem_clock_fn_t)amp_mt_libc(AMP_MT_LIBC_SEM_CLOCKWAIT))(
            s, clock, until);
    if (!valid_clock(clock)) {
        errno = EINVAL;
        return -1;
    }
    return sem_yielding(s, (deadline_t){clock, until});
}

AMPI_API int sem_trywait(sem_t *s)
{
    if (amp_mt_waiting_rank(__builtin_return_address(0), 0))
        amp_sched_yield();
    return libc_sem_trywait(s);
}

/* ---- read-write locks: 0 or an error number ---- */

/* Takes l for writing (write) or reading, letting the PE run between
 * tries, until end.  A lock the caller holds for writing itself goes to
 * the C library, which says EDEADLK. */
static int rwlock_yielding(pthread_rwlock_t *l, int write, deadline_t end)
{
    amp_mt_libc_t try =
        write ? AMP_MT_LIBC_RWLOCK_TRYWRLOCK : AMP_MT_LIBC_RWLOCK_TRYRDLOCK;
    amp_mt_libc_t wait =
        write ? AMP_MT_LIBC_RWLOCK_WRLOCK : AMP_MT_LIBC_RWLOCK_RDLOCK;
    int rc;
    while ((rc = ((rwlock_fn_t)amp_mt_libc(try))(l)) == EBUSY) {
        if (l->__data.__cur_writer == (int)gettid())
            return ((rwlock_fn_t)amp_mt_libc(wait))(l);
        if (end.until && (rc = amp_mt_expired(end.clock, end.until)))
            return rc;
        amp_sched_yield();
    }
    return rc;
}

AMPI_API int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
    if (!amp_mt_waiting_rank(__builtin_return_address(0), 1))
        return ((rwlock_fn_t)amp_mt_libc(AMP_MT_LIBC_RWLOCK_RDLOCK))(l);
    return rwlock_yielding(l, 0, never);
}

AMPI_API int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
    if (!amp_mt_waiting_rank(__builtin_return_address(0), 1))
        return ((rwlock_fn_t)amp_mt_libc(AMP_MT_LIBC_RWLOCK_WRLOCK))(l);
    return rwlock_yielding(l, 1, never);
}

AMPI_API int pthread_rwlock_timedrdlock(pthread_rwlock_t *l,
                                        const struct timespec *until)
{
    if (!amp_mt_waiting_rank(__builtin_return_address(0), 1))
        return ((rwlock_timed_fn_t)amp_mt_libc(AMP_MT_LIBC_RWLOCK_TIMEDRDLOCK))(
            l, until);
    return rwlock_yielding(l, 0, (deadline_t){CLOCK_REALTIME, until});
}

AMPI_API int pthread_rwlock_timedwrlock(pthread_rwlock_t *l,
                                        const struct timespec *until)
{
    if (!amp_mt_waiting_rank(__builtin_return_address(0), 1))
        return ((rwlock_timed_fn_t)amp_mt_libc(AMP_MT_LIBC_RWLOCK_TIMEDWRLOCK))(
            l, until);
    return rwlock_yielding(l, 1, (deadline_t){CLOCK_REALTIME, until});
}

AMPI_API int pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clock,
                                        const struct timespec *until)
{
    if (!amp_mt_waiting_rank(__builtin_return_address(0), 1))
        return ((rwlock_clock_fn_t)amp_mt_libc(AMP_MT_LIBC_RWLOCK_CLOCKRDLOCK))(
            l, clock, until);
    if (!valid_clock(clock))
        return EINVAL;
    return rwlock_yielding(l, 0, (deadline_t){clock, until});
}

AMPI_API int pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clock,
                                        const struct timespec *until)
{
    if (!amp_mt_waiting_rank(__builtin_return_address(0), 1))
        return ((rwlock_clock_fn_t)amp_mt_libc(AMP_MT_LIBC_RWLOCK_CLOCKWRLOCK))(
            l, clock, until);
    if (!valid_clock(clock))
        return EINVAL;
    return rwlock_yielding(l, 1, (deadline_t){clock, until});
}

AMPI_API int pthread_rwlock_tryrdlock(pthread_rwlock_t *l)
{
    if (amp_mt_waiting_rank(__builtin_return_address(0), 0))
        amp_sched_yield();
    return ((rwlock_fn_t)amp_mt_libc(AMP_MT_LIBC_RWLOCK_TRYRDLOCK))(l);
}

AMPI_API int pthread_rwlock_trywrlock(pthread_rwlock_t *l)
{
    if (amp_mt_waiting_rank(__builtin_return_address(0), 0))
        amp_sched_yield();
    return ((rwlock_fn_t)amp_mt_libc(AMP_MT_LIBC_RWLOCK_TRYWRLOCK))(l);
}

AMPI_API int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
    int rc = ((rwlock_fn_t)amp_mt_libc(AMP_MT_LIBC_RWLOCK_UNLOCK))(l);
    if (rc == 0 && amp_mt_waiting_rank(__builtin_return_address(0), 0))
        amp_sched_yield();
    return rc;
}

/* ---- barriers ---- */

typedef struct {
    pthread_barrier_t *barrier;
    int rc;
} barrier_job_t;

/* On a kernel thread of the rank (amp_mt_run_aside). */
static void barrier_aside(void *arg)
{
    barrier_job_t *job = arg;
    job->rc =
        ((barrier_fn_t)amp_mt_libc(AMP_MT_LIBC_BARRIER_WAIT))(job->barrier);
}

AMPI_API int pthread_barrier_wait(pthread_barrier_t *b)
{
    barrier_job_t job = {.barrier = b};
    if (!amp_mt_waiting_rank(__builtin_return_address(0), 1))
        return ((barrier_fn_t)amp_mt_libc(AMP_MT_LIBC_BARRIER_WAIT))(b);
    amp_mt_run_aside(barrier_aside, &job);
    return job.rc;
}
