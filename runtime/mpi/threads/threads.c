/*
 * MPI_THREAD_MULTIPLE (threads.h): kernel threads bound to ranks, their
 * calls run by helper ULTs on the rank's PE, and the ways a rank's thread
 * waits for its kernel threads without blocking its PE: pthread_join, and
 * OpenMP parallel regions (start/omp.c) and barrier waits (syncs.c) run by
 * a runner thread while the rank's ULT waits in the scheduler.
 *
 * Counting for deadlock detection (sched.outside): a bound thread
 * that runs the program's code may still send to the ranks that wait, so
 * while it does, idle PEs are not a deadlock.  A thread the rank created
 * is counted from before pthread_create until it ends; a runner from
 * before it is handed a region until it has handed the rank's ULT its
 * wake-up; during a forwarded call a counted thread is not (its helper
 * ULT is a thread the scheduler sees), the helper counts it again before
 * it returns.  OpenMP workers are covered by their region's master.
 */
#define _GNU_SOURCE 1
#include "mpi/threads/threads.h"

#include <dlfcn.h>
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* A call of a bound thread, on the thread's stack until done. */
typedef struct amp_mt_call {
    amp_sched_task_t task; /* posted to the rank's PE */
    void (*fn)(void *);
    void *arg;
    amp_rank_t *rank;
    int counted; /* the caller is counted in sched.outside */
    _Atomic int done;
} amp_mt_call_t;

/* A helper ULT: runs one call at a time for any rank of its PE. */
typedef struct amp_mt_helper {
    amp_thread_t thr;
    amp_call_ctx_t ctx;
    amp_mt_call_t *call;
    void *stack;
    size_t size;
    struct amp_mt_helper *next; /* every helper of the PE */
} amp_mt_helper_t;

/* Per PE, touched by that PE only. */
typedef struct amp_mt_pe {
    _Alignas(64) amp_mt_helper_t *helpers;
} amp_mt_pe_t;

/* Runner threads for the OpenMP regions ranks start (amp_omp_run). */
typedef struct amp_mt_runner {
    pthread_t th;
    _Atomic int go; /* futex: a region was handed over */
    struct omp_job *job;
    struct amp_mt_runner *next; /* idle list */
} amp_mt_runner_t;

typedef int (*create_fn_t)(pthread_t *, const pthread_attr_t *,
                           void *(*)(void *), void *);
typedef int (*join_fn_t)(pthread_t, void **);

struct amp_mt {
    amp_mt_pe_t *pes;
    pthread_mutex_t lock; /* the idle runners and the bound threads */
    amp_mt_runner_t *idle;
    struct bound_thread *bound; /* joinable bound threads */
};

static void futex_wait(_Atomic int *word, int value)
{
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
}

static void futex_wake(_Atomic int *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

amp_status_t amp_mt_init(int npes)
{
    amp_proc.mt = calloc(1, sizeof(*amp_proc.mt));
    if (!amp_proc.mt)
        return AMP_ERR_NOMEM;
    amp_proc.mt->pes =
        aligned_alloc(64, AMP_ROUND_UP((size_t)npes * sizeof(amp_mt_pe_t), 64));
    if (!amp_proc.mt->pes)
        return AMP_ERR_NOMEM;
    memset(amp_proc.mt->pes, 0, (size_t)npes * sizeof(amp_mt_pe_t));
    pthread_mutex_init(&amp_proc.mt->lock, NULL);
    return AMP_OK;
}

void amp_mt_bind(amp_mt_bind_t *b, amp_rank_t *rank, int main, int inherit,
                 int counted)
{
    b->rank = rank;
    b->main = main;
    b->inherit = inherit;
    b->counted = counted;
    b->own_tp = amp_tls_get();
    b->prev = amp_mt_bound;
    amp_mt_bound = b;
    atomic_fetch_add(&rank->mt_threads, 1);
    if (rank->thr.tls) /* privatized globals: the rank's (tlsglobals/) */
        amp_tls_set(rank->thr.tls);
}

void amp_mt_unbind(amp_mt_bind_t *b)
{
    amp_tls_set(b->own_tp);
    amp_mt_bound = b->prev;
    atomic_fetch_sub(&b->rank->mt_threads, 1);
    if (b->counted)
        amp_sched_outside_end(&amp_proc.sched);
}

/* ---- helpers ---- */

static amp_mt_helper_t *helper_new(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t size = AMP_ROUND_UP(amp_proc.opts.stacksize, page);
    amp_mt_helper_t *h = calloc(1, sizeof(*h));
    char *mem = mmap(NULL, size + page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (!h || mem == MAP_FAILED) {
        free(h);
        if (mem != MAP_FAILED)
            munmap(mem, size + page);
        return NULL;
    }
    mprotect(mem, page, PROT_NONE); /* guard page below the stack */
    h->stack = mem + page;
    h->size = size;
    return h;
}

/* A helper of pe free to run a call: one whose last call has ended (it is
 * off its stack once another thread or the scheduler runs), or a new one. */
static amp_mt_helper_t *helper_get(amp_pe_t *pe)
{
    amp_mt_pe_t *me = &amp_proc.mt->pes[pe->id];
    for (amp_mt_helper_t *h = me->helpers; h; h = h->next)
        if (h->thr.state == AMP_THREAD_DONE && pe->current != &h->thr)
            return h;
    amp_mt_helper_t *h = helper_new();
    if (h) {
        h->thr.state = AMP_THREAD_DONE;
        h->next = me->helpers;
        me->helpers = h;
    }
    return h;
}

static void helper_main(void *arg)
{
    amp_mt_helper_t *h = arg;
    amp_mt_call_t *c = h->call;
    c->fn(c->arg);
    atomic_fetch_sub(&c->rank->mt_calls, 1);
    h->call = NULL;
    /* The caller runs the program's code again: counted before it can. */
    if (c->counted)
        amp_sched_outside_begin(&amp_proc.sched);
    atomic_store(&c->done, 1);
    futex_wake(&c->done); /* c may be gone by now: only its address */
    amp_sched_exit();
}

/* The task of a call, on the rank's PE: a helper ULT runs it. */
static void start_call(amp_pe_t *pe, amp_sched_task_t *task)
{
    amp_mt_call_t *c = AMP_CONTAINER_OF(task, amp_mt_call_t, task);
    amp_mt_helper_t *h = helper_get(pe);
    if (!h)
        amp_fatal("out of memory for a thread of rank %d that runs an MPI "
                  "call of another thread; lower +stacksize",
                  c->rank->world_rank);
    amp_sched_thread_init(&h->thr, pe, h->stack, h->size, c->rank->thr.tls,
                          helper_main, h);
    memset(&h->ctx, 0, sizeof(h->ctx));
    h->thr.owner = c->rank;
    h->thr.upper = &h->ctx;
    h->call = c;
    amp_sched_spawn(&h->thr);
}

void amp_mt_forward(void (*fn)(void *), void *arg)
{
    amp_mt_bind_t *b = amp_mt_bound;
    amp_mt_call_t c = {
        .task.fn = start_call, .fn = fn, .arg = arg, .rank = b->rank};
    /* A rank with bound threads stays on its PE (migrate.c). */
    amp_pe_t *pe = b->rank->thr.pe;
    c.counted = b->counted;
    atomic_fetch_add(&b->rank->mt_calls, 1);
    amp_sched_post_task(pe, &c.task);
    if (c.counted) /* after the post: the task is work the PE sees */
        amp_sched_outside_end(&amp_proc.sched);
    while (!atomic_load(&c.done))
        futex_wait(&c.done, 0);
}

/* ---- threads a rank creates ---- */

/* A bound thread, for pthread_join and pthread_detach: its state moves
 * from RUNNING to WAITING (a rank's ULT blocks in pthread_join on it) or
 * DETACHED, and to ENDED when its start routine is over and it is
 * unbound; whichever of the thread and pthread_join/pthread_detach comes
 * last frees it.  A joinable one is on the list in struct amp_mt from
 * pthread_create's return until it is joined or detached. */
enum { T_RUNNING, T_WAITING, T_DETACHED, T_ENDED };

typedef struct bound_thread {
    void *(*fn)(void *);
    void *arg;
    amp_rank_t *rank;
    pthread_t th;
    _Atomic int state;
    amp_thread_t *waiter;  /* T_WAITING: the ULT in pthread_join */
    amp_sched_task_t wake; /* posted to the waiter's PE at T_ENDED */
    struct bound_thread *next;
} bound_thread_t;

static void join_wake(amp_pe_t *pe, amp_sched_task_t *task)
{
    (void)pe;
    bound_thread_t *t = AMP_CONTAINER_OF(task, bound_thread_t, wake);
    amp_sched_wake(t->waiter);
}

/* At the end of a bound thread (or its pthread_exit or cancellation): the
 * rank's ULT that joins it wakes up, and only then is the thread no more
 * counted (the task is work the PE sees). */
static void bound_end(void *p)
{
    bound_thread_t *t = p;
    amp_mt_bind_t *b = amp_mt_bound;
    b->counted = 0;
    amp_mt_unbind(b);
    int old = atomic_exchange(&t->state, T_ENDED);
    if (old == T_WAITING)
        amp_sched_post_task(t->waiter->pe, &t->wake); /* t may go now */
    else if (old == T_DETACHED)
        free(t);
    amp_sched_outside_end(&amp_proc.sched);
}

static void *bound_main(void *p)
{
    bound_thread_t *t = p;
    void *(*fn)(void *) = t->fn;
    void *arg = t->arg;
    amp_mt_bind_t b;
    amp_mt_bind(&b, t->rank, 0, 1, 1);
    atomic_fetch_sub(&t->rank->mt_threads, 1); /* pthread_create's */
    void *ret;
    pthread_cleanup_push(bound_end, t);
    ret = fn(arg);
    pthread_cleanup_pop(1);
    return ret;
}

/* The C library's pthread_create and pthread_join. */
static void *libc_fn(const char *name)
{
    void *fn = dlsym(RTLD_NEXT, name);
    if (!fn)
        amp_fatal("cannot find the C library's %s", name);
    return fn;
}

/* The rank whose threads the caller's new threads are: the rank of the
 * ULT that runs, or of a thread bound to inherit; else none. */
static amp_rank_t *creator_rank(void)
{
    amp_rank_t *rank = amp_rank_self();
    if (rank)
        return rank;
    amp_mt_bind_t *b = amp_mt_bound;
    return b && b->inherit ? b->rank : NULL;
}

/* Takes thread's record off the list (NULL: not a joinable bound one). */
static bound_thread_t *bound_take(pthread_t thread)
{
    struct amp_mt *mt = amp_proc.mt;
    bound_thread_t *t = NULL;
    pthread_mutex_lock(&mt->lock);
    for (bound_thread_t **p = &mt->bound; *p; p = &(*p)->next)
        if (pthread_equal((*p)->th, thread)) {
            t = *p;
            *p = t->next;
            break;
        }
    pthread_mutex_unlock(&mt->lock);
    return t;
}

AMPI_API int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                            void *(*fn)(void *), void *arg)
{
    create_fn_t create = (create_fn_t)libc_fn("pthread_create");
    amp_rank_t *rank = creator_rank();
    if (!rank)
        return create(thread, attr, fn, arg);
    bound_thread_t *t = calloc(1, sizeof(*t));
    if (!t)
        return EAGAIN;
    int detached = PTHREAD_CREATE_JOINABLE;
    if (attr)
        pthread_attr_getdetachstate(attr, &detached);
    t->fn = fn;
    t->arg = arg;
    t->rank = rank;
    t->wake.fn = join_wake;
    t->state = detached == PTHREAD_CREATE_DETACHED ? T_DETACHED : T_RUNNING;
    amp_sched_outside_begin(&amp_proc.sched); /* counted from now on */
    /* A thread of the rank from now on, before it is bound (waits.c). */
    atomic_fetch_add(&rank->mt_threads, 1);
    pthread_t th;
    int rc = create(&th, attr, bound_main, t);
    if (rc != 0) {
        atomic_fetch_sub(&rank->mt_threads, 1);
        amp_sched_outside_end(&amp_proc.sched);
        free(t);
        return rc;
    }
    *thread = th;
    if (detached != PTHREAD_CREATE_DETACHED) { /* t stays until joined */
        struct amp_mt *mt = amp_proc.mt;
        t->th = th;
        pthread_mutex_lock(&mt->lock);
        t->next = mt->bound;
        mt->bound = t;
        pthread_mutex_unlock(&mt->lock);
    }
    return 0;
}

/* A rank's ULT that joins a thread must not block its PE, which runs the
 * calls of that very thread: it blocks in the scheduler until the thread
 * has unbound itself (bound_end), then joins it (the thread is on its way
 * out, having left the program's code).  A thread the runtime did not bind
 * (created before MPI_Init's rank existed...) is polled for, the PE
 * running the other ranks meanwhile. */
AMPI_API int pthread_join(pthread_t thread, void **retval)
{
    join_fn_t join = (join_fn_t)libc_fn("pthread_join");
    amp_pe_t *pe = amp_pe_self();
    if (!pe || !pe->current) { /* a kernel thread: it may block */
        bound_thread_t *t = amp_proc.mt ? bound_take(thread) : NULL;
        int rc = join(thread, retval);
        if (t && rc == 0)
            free(t); /* the thread is gone, bound_end over */
        return rc;
    }
    bound_thread_t *t = bound_take(thread);
    if (t) {
        t->waiter = pe->current;
        int expect = T_RUNNING;
        if (atomic_compare_exchange_strong(&t->state, &expect, T_WAITING))
            while (atomic_load(&t->state) != T_ENDED)
                amp_sched_block(); /* join_wake, on this PE */
        free(t);
    }
    for (unsigned spins = 0;; spins++) {
        int rc = pthread_tryjoin_np(thread, retval);
        if (rc != EBUSY)
            return rc;
        if (t) { /* moments away: the C library's exit of the thread */
            sched_yield();
            continue;
        }
        amp_sched_yield();
        pe = amp_pe_self();
        if (pe->runq_head)
            continue;
        if (spins < 1000) {
            sched_yield();
        } else {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
    }
}

/* A detached bound thread frees its own record when it ends. */
AMPI_API int pthread_detach(pthread_t thread)
{
    int (*detach)(pthread_t) = (int (*)(pthread_t))libc_fn("pthread_detach");
    bound_thread_t *t = amp_proc.mt ? bound_take(thread) : NULL;
    if (t) {
        int expect = T_RUNNING;
        if (!atomic_compare_exchange_strong(&t->state, &expect, T_DETACHED))
            free(t); /* already ended */
    }
    return detach(thread);
}

/* ---- OpenMP regions of a rank (start/omp.c) ---- */

/* A region handed to a runner: on the waiting ULT's stack. */
struct omp_job {
    void (*fn)(void *);
    void *arg;
    amp_rank_t *rank;
    amp_thread_t *waiter;
    amp_sched_task_t wake; /* posted to the waiter's PE at the end */
    int done;              /* set by the wake task, on that PE */
};

/* On the waiter's PE: the region is over. */
static void job_wake(amp_pe_t *pe, amp_sched_task_t *task)
{
    (void)pe;
    struct omp_job *job = AMP_CONTAINER_OF(task, struct omp_job, wake);
    job->done = 1;
    amp_sched_wake(job->waiter);
}

static void runner_idle(amp_mt_runner_t *r)
{
    struct amp_mt *mt = amp_proc.mt;
    pthread_mutex_lock(&mt->lock);
    r->next = mt->idle;
    mt->idle = r;
    pthread_mutex_unlock(&mt->lock);
}

static void *runner_main(void *arg)
{
    amp_mt_runner_t *r = arg;
    for (;;) {
        while (!atomic_load(&r->go))
            futex_wait(&r->go, 0);
        atomic_store(&r->go, 0);
        struct omp_job *job = r->job;
        amp_pe_t *pe = job->waiter->pe;
        amp_mt_bind_t b;
        amp_mt_bind(&b, job->rank, 1, 1, 0);
        job->fn(job->arg);
        amp_tls_set(b.own_tp);
        amp_mt_bound = b.prev;
        atomic_fetch_sub(&job->rank->mt_threads, 1);
        runner_idle(r);
        /* The job is gone once its ULT wakes: posted last, then uncounted
         * (the task is work the PE sees). */
        amp_sched_post_task(pe, &job->wake);
        amp_sched_outside_end(&amp_proc.sched);
    }
    return NULL;
}

static amp_mt_runner_t *runner_get(void)
{
    struct amp_mt *mt = amp_proc.mt;
    pthread_mutex_lock(&mt->lock);
    amp_mt_runner_t *r = mt->idle;
    if (r)
        mt->idle = r->next;
    pthread_mutex_unlock(&mt->lock);
    if (r)
        return r;
    r = calloc(1, sizeof(*r));
    create_fn_t create = (create_fn_t)libc_fn("pthread_create");
    if (!r || create(&r->th, NULL, runner_main, r) != 0)
        amp_fatal("cannot start a thread for an OpenMP parallel region of a "
                  "rank");
    /* The C library's, as for the creation: an interposer of its own
     * (AddressSanitizer's) would not know the thread. */
    ((int (*)(pthread_t))libc_fn("pthread_detach"))(r->th);
    return r;
}

/* Whether the caller is a rank's user-level thread (the rank's own or a
 * helper running a call for it). */
AMPI_API int amp_omp_on_rank_ult(void)
{
    return amp_rank_self() != NULL;
}

/* fn(arg) on a runner thread bound to the calling ULT's rank (threads.h). */
void amp_mt_run_aside(void (*fn)(void *), void *arg)
{
    amp_pe_t *pe = amp_pe_self();
    struct omp_job job = {.fn = fn,
                          .arg = arg,
                          .rank = pe->current->owner,
                          .waiter = pe->current,
                          .wake.fn = job_wake};
    amp_mt_runner_t *r = runner_get();
    r->job = &job;
    amp_sched_outside_begin(&amp_proc.sched); /* for the runner */
    atomic_store(&r->go, 1);
    futex_wake(&r->go);
    while (!job.done)
        amp_sched_block();
}

/* Runs an OpenMP region of the calling ULT's rank (start/omp_fork.c). */
AMPI_API void amp_omp_run(void (*fn)(void *), void *arg)
{
    amp_mt_run_aside(fn, arg);
}

/* Binds an OpenMP thread of a region of rank's (the rank of the region's
 * master, which amp_omp_bound_rank gave) for the region; b is the
 * caller's, until amp_omp_leave. */
AMPI_API void *amp_omp_bound_rank(void)
{
    return amp_mt_rank();
}

AMPI_API void amp_omp_enter(void *b, size_t size, void *rank)
{
    amp_assert(size >= sizeof(amp_mt_bind_t));
    /* The master of the team stays the rank's main thread. */
    amp_mt_bind_t *now = amp_mt_bound;
    amp_mt_bind(b, rank, now && now->rank == rank && now->main, 0, 0);
}

AMPI_API void amp_omp_leave(void *b)
{
    amp_mt_unbind(b);
}

/* The calling rank's OpenMP settings (start/omp_fork.c, omp_icv.c), kept
 * per rank since the ranks of a PE share one OpenMP thread there:
 * omp_set_num_threads's value, the num_threads and proc_bind clauses
 * pushed for the next fork (0: none); NULL outside a rank. */
AMPI_API int *amp_omp_state(void)
{
    amp_rank_t *rank = amp_mt_rank();
    return rank ? rank->omp : NULL;
}
