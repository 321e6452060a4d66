/*
 * A rank's own thread waiting on its other threads (MPI_THREAD_MULTIPLE,
 * threads.h).  The calls of a rank's other threads run on the rank's PE,
 * by helper ULTs, and only while the rank's ULT lets the PE go.  A ULT
 * that waits for those threads outside MPI (a loop of mutex locks and
 * unlocks, sched_yield, a condition variable) would keep the PE, and the
 * threads wait in their calls for ever.  So the rank's ULT lets its PE
 * run the helpers at the program's pthread_mutex_trylock and _unlock and
 * sched_yield while a call of one of its threads is under way
 * (rank->mt_calls), and at pthread_mutex_lock, pthread_cond_wait,
 * _timedwait and _clockwait, which would block the PE, while it has
 * threads at all (rank->mt_threads): a lock is then tried between rounds
 * of the PE, and a condition wait is one round (it returns early: a
 * spurious wake-up, which POSIX allows and programs loop on).  syncs.c
 * does the same for semaphores, read-write locks and barriers.
 *
 * Only calls from the program (its executable, and the copies of it under
 * pie privatization) count: the runtime and the libraries it uses may
 * hold locks of their own there.  A wait that calls none of these (a spin
 * on a plain variable) still keeps the PE (docs/mpi-support.md).
 */
#define _GNU_SOURCE 1
#include "mpi/threads/threads.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

/* The C library's own entry points: glibc exports them under these
 * names too, of a version that only a reference naming it binds to. */
int libc_mutex_lock(pthread_mutex_t *m);
int libc_mutex_trylock(pthread_mutex_t *m);
int libc_mutex_unlock(pthread_mutex_t *m);
__asm__(".symver libc_mutex_lock, __pthread_mutex_lock@GLIBC_2.2.5");
__asm__(".symver libc_mutex_trylock, __pthread_mutex_trylock@GLIBC_2.2.5");
__asm__(".symver libc_mutex_unlock, __pthread_mutex_unlock@GLIBC_2.2.5");
int __sched_yield(void);

typedef int (*cond_wait_fn_t)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*cond_timedwait_fn_t)(pthread_cond_t *, pthread_mutex_t *,
                                   const struct timespec *);
typedef int (*cond_clockwait_fn_t)(pthread_cond_t *, pthread_mutex_t *,
                                   clockid_t, const struct timespec *);

/* The C library's names of amp_mt_libc_t, and the versions of those the
 * C library has two of (NULL: its default). */
static const struct {
    const char *name, *version;
} libc_names[AMP_MT_LIBC_COUNT] = {
    [AMP_MT_LIBC_COND_WAIT] = {"pthread_cond_wait", "GLIBC_2.3.2"},
    [AMP_MT_LIBC_COND_TIMEDWAIT] = {"pthread_cond_timedwait", "GLIBC_2.3.2"},
    [AMP_MT_LIBC_COND_CLOCKWAIT] = {"pthread_cond_clockwait", NULL},
    [AMP_MT_LIBC_SEM_WAIT] = {"sem_wait", NULL},
    [AMP_MT_LIBC_SEM_TIMEDWAIT] = {"sem_timedwait", NULL},
    [AMP_MT_LIBC_SEM_CLOCKWAIT] = {"sem_clockwait", NULL},
    [AMP_MT_LIBC_SEM_TRYWAIT] = {"sem_trywait", NULL},
    [AMP_MT_LIBC_RWLOCK_RDLOCK] = {"pthread_rwlock_rdlock", NULL},
    [AMP_MT_LIBC_RWLOCK_WRLOCK] = {"pthread_rwlock_wrlock", NULL},
    [AMP_MT_LIBC_RWLOCK_TIMEDRDLOCK] = {"pthread_rwlock_timedrdlock", NULL},
    [AMP_MT_LIBC_RWLOCK_TIMEDWRLOCK] = {"pthread_rwlock_timedwrlock", NULL},
    [AMP_MT_LIBC_RWLOCK_CLOCKRDLOCK] = {"pthread_rwlock_clockrdlock", NULL},
    [AMP_MT_LIBC_RWLOCK_CLOCKWRLOCK] = {"pthread_rwlock_clockwrlock", NULL},
    [AMP_MT_LIBC_RWLOCK_TRYRDLOCK] = {"pthread_rwlock_tryrdlock", NULL},
    [AMP_MT_LIBC_RWLOCK_TRYWRLOCK] = {"pthread_rwlock_trywrlock", NULL},
    [AMP_MT_LIBC_RWLOCK_UNLOCK] = {"pthread_rwlock_unlock", NULL},
    [AMP_MT_LIBC_BARRIER_WAIT] = {"pthread_barrier_wait", NULL},
};

/* Kept in amp_proc after the first look-up (dlsym takes the dynamic
 * linker's lock: not on every wait). */
void *amp_mt_libc(amp_mt_libc_t which)
{
    _Atomic(void *) *cache = &amp_proc.libc_waits[which];
    void *fn = atomic_load_explicit(cache, memory_order_acquire);
    if (fn)
        return fn;
    const char *name = libc_names[which].name;
    const char *version = libc_names[which].version;
    fn = version ? dlvsym(RTLD_NEXT, name, version) : dlsym(RTLD_NEXT, name);
    if (!fn)
        amp_fatal("cannot find the C library's %s", name);
    atomic_store_explicit(cache, fn, memory_order_release);
    return fn;
}

int amp_mt_expired(clockid_t clock, const struct timespec *until)
{
    if (until->tv_nsec < 0 || until->tv_nsec >= 1000000000L)
        return EINVAL;
    struct timespec now;
    clock_gettime(clock, &now);
    if (now.tv_sec > until->tv_sec ||
        (now.tv_sec == until->tv_sec && now.tv_nsec >= until->tv_nsec))
        return ETIMEDOUT;
    return 0;
}

/* Whether an object is a sanitizer's run-time library (AddressSanitizer's
 * libclang_rt.asan-*.so or GCC's libasan.so): its interceptors of sem_wait,
 * sem_timedwait and sem_trywait hand the program's calls on to ours, as the
 * caller we see.  The runtime itself never makes these calls. */
static int sanitizer_runtime(const char *file)
{
    const char *base = file ? strrchr(file, '/') : NULL;
    base = base ? base + 1 : file;
    return base && (strncmp(base, "libclang_rt.", 12) == 0 ||
                    strncmp(base, "libasan.", 8) == 0);
}

/* Whether code at caller belongs to the program: its executable, no
 * object the dynamic linker knows (a rank's copy of the program), or a
 * sanitizer's interceptor passing the program's call on. */
static int from_program(const void *caller)
{
    Dl_info at, exe;
    if (!dladdr(caller, &at))
        return 1;
    const void *phdr = (const void *)getauxval(AT_PHDR);
    if (phdr && dladdr(phdr, &exe) && exe.dli_fbase == at.dli_fbase)
        return 1;
    return sanitizer_runtime(at.dli_fname);
}

/* The rank whose own ULT makes this call from the program while calls of
 * its other threads are under way (busy: any of them may call MPI, for
 * the calls that may block the caller); else NULL. */
amp_rank_t *amp_mt_waiting_rank(const void *caller, int busy)
{
    if (amp_mt_bound)
        return NULL;
    amp_pe_t *pe = amp_pe_self();
    amp_thread_t *thr = pe ? pe->current : NULL;
    amp_rank_t *rank = thr ? thr->owner : NULL;
    if (!rank || &rank->thr != thr)
        return NULL;
    _Atomic int *n = busy ? &rank->mt_threads : &rank->mt_calls;
    if (!atomic_load_explicit(n, memory_order_relaxed))
        return NULL;
    return from_program(caller) ? rank : NULL;
}

/* Takes m, letting the PE run the helpers while another thread has it.
 * A mutex the caller holds itself goes to the C library (a recursive one
 * counts up, an error-checking one says EDEADLK). */
static int lock_yielding(pthread_mutex_t *m)
{
    int rc;
    while ((rc = libc_mutex_trylock(m)) == EBUSY) {
        if (m->__data.__owner == (int)gettid())
            return libc_mutex_lock(m);
        amp_sched_yield();
    }
    return rc;
}

AMPI_API int pthread_mutex_lock(pthread_mutex_t *m)
{
    if (!amp_mt_waiting_rank(__builtin_return_address(0), 1))
        return libc_mutex_lock(m);
    amp_sched_yield();
    return lock_yielding(m);
}

AMPI_API int pthread_mutex_trylock(pthread_mutex_t *m)
{
    if (amp_mt_waiting_rank(__builtin_return_address(0), 0))
        amp_sched_yield();
    return libc_mutex_trylock(m);
}

AMPI_API int pthread_mutex_unlock(pthread_mutex_t *m)
{
    int rc = libc_mutex_unlock(m);
    if (rc == 0 && amp_mt_waiting_rank(__builtin_return_address(0), 0))
        amp_sched_yield();
    return rc;
}

AMPI_API int sched_yield(void)
{
    if (!amp_mt_waiting_rank(__builtin_return_address(0), 0))
        return __sched_yield();
    amp_sched_yield();
    return 0;
}

/* One round of a condition wait of the rank's ULT: m let go, the PE's
 * other threads run, m taken again. */
static int cond_round(pthread_mutex_t *m)
{
    int rc = libc_mutex_unlock(m);
    if (rc)
        return rc;
    amp_sched_yield();
    return lock_yielding(m);
}

/* A round of a timed wait, and whether its time has come since. */
static int timed_round(pthread_mutex_t *m, clockid_t clock,
                       const struct timespec *until)
{
    int rc = cond_round(m);
    return rc ? rc : amp_mt_expired(clock, until);
}

AMPI_API int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    if (amp_mt_waiting_rank(__builtin_return_address(0), 1))
        return cond_round(m);
    return ((cond_wait_fn_t)amp_mt_libc(AMP_MT_LIBC_COND_WAIT))(c, m);
}

AMPI_API int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                    const struct timespec *until)
{
    if (!amp_mt_waiting_rank(__builtin_return_address(0), 1))
        return ((cond_timedwait_fn_t)amp_mt_libc(AMP_MT_LIBC_COND_TIMEDWAIT))(
            c, m, until);
    /* The condition's clock (glibc keeps the monotonic mark in __wrefs). */
    return timed_round(
        m, c->__data.__wrefs & 2 ? CLOCK_MONOTONIC : CLOCK_REALTIME, until);
}

AMPI_API int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
                                    clockid_t clock,
                                    const struct timespec *until)
{
    if (!amp_mt_waiting_rank(__builtin_return_address(0), 1))
        return ((cond_clockwait_fn_t)amp_mt_libc(AMP_MT_LIBC_COND_CLOCKWAIT))(
            c, m, clock, until);
    if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC)
        return EINVAL;
    return timed_round(m, clock, until);
}
