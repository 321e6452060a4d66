/*
 * MPI_THREAD_MULTIPLE (threads.h): kernel threads bound to ranks, their
 * calls run by helper ULTs on the rank's PE, and the ways a rank's thread
 * waits for its kernel threads without blocking its PE: pthread_join, and
 * OpenMP parallel regions run by a runner thread (start/omp.c) while the
 * rank's ULT waits in the scheduler.
 *
 * Counting for deadlock detection (amp_sched_external): a bound thread
 * that runs the program's code may still send to the ranks that wait, so
 * while it does, idle PEs are not a deadlock.  A thread the rank created
 * is counted from before pthread_create until it ends; a runner from
 * before it is handed a region until it has handed the rank's ULT its
 * wake-up; during a forwarded call a counted thread is not (its helper
 * ULT is a thread the scheduler sees), the helper counts it again before
 * it returns.  OpenMP workers are covered by their region's master.
 */
#define _GNU_SOURCE 1
#include "mpi/threads.h"

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

__thread amp_mt_bind_t *amp_mt_bound
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* A call of a bound thread, on the thread's stack until done. */
typedef struct amp_mt_call {
    amp_sched_task_t task; /* posted to the rank's PE */
    void (*fn)(void *);
    void *arg;
    amp_rank_t *rank;
    int counted; /* the caller is counted in sched.external */
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
    pthread_mutex_t lock; /* the idle runners */
    amp_mt_runner_t *idle;
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

amp_rank_t *amp_mt_rank(void)
{
    amp_rank_t *rank = amp_rank_self();
    if (rank)
        return rank;
    return amp_mt_bound ? amp_mt_bound->rank : NULL;
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
        amp_sched_external(&amp_proc.sched, -1);
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
    h->call = NULL;
    /* The caller runs the program's code again: counted before it can. */
    if (c->counted)
        amp_sched_external(&amp_proc.sched, 1);
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
    amp_sched_post_task(pe, &c.task);
    if (c.counted) /* after the post: the task is work the PE sees */
        amp_sched_external(&amp_proc.sched, -1);
    while (!atomic_load(&c.done))
        futex_wait(&c.done, 0);
}

/* ---- threads a rank creates ---- */

/* What pthread_create hands the new thread. */
typedef struct bound_start {
    void *(*fn)(void *);
    void *arg;
    amp_rank_t *rank;
} bound_start_t;

static void unbind_at_exit(void *b)
{
    amp_mt_unbind(b);
}

static void *bound_main(void *p)
{
    bound_start_t s = *(bound_start_t *)p;
    free(p);
    amp_mt_bind_t b;
    amp_mt_bind(&b, s.rank, 0, 1, 1);
    void *ret;
    pthread_cleanup_push(unbind_at_exit, &b);
    ret = s.fn(s.arg);
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

AMPI_API int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                            void *(*fn)(void *), void *arg)
{
    create_fn_t create = (create_fn_t)libc_fn("pthread_create");
    amp_rank_t *rank = creator_rank();
    if (!rank)
        return create(thread, attr, fn, arg);
    bound_start_t *s = malloc(sizeof(*s));
    if (!s)
        return EAGAIN;
    *s = (bound_start_t){fn, arg, rank};
    amp_sched_external(&amp_proc.sched, 1); /* counted from now on */
    int rc = create(thread, attr, bound_main, s);
    if (rc != 0) {
        amp_sched_external(&amp_proc.sched, -1);
        free(s);
    }
    return rc;
}

/* A rank's ULT that joins a thread must not block its PE, which runs the
 * calls of that very thread: it lets the PE run the others and the OS run
 * the thread until the thread has ended. */
AMPI_API int pthread_join(pthread_t thread, void **retval)
{
    join_fn_t join = (join_fn_t)libc_fn("pthread_join");
    amp_pe_t *pe = amp_pe_self();
    if (!pe || !pe->current)
        return join(thread, retval);
    for (unsigned spins = 0;; spins++) {
        int rc = pthread_tryjoin_np(thread, retval);
        if (rc != EBUSY)
            return rc;
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
        amp_sched_external(&amp_proc.sched, -1);
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
    pthread_detach(r->th);
    return r;
}

/* Whether the caller is a rank's user-level thread (the rank's own or a
 * helper running a call for it). */
AMPI_API int amp_omp_on_rank_ult(void)
{
    return amp_rank_self() != NULL;
}

/* Runs fn(arg) on a runner thread bound to the calling ULT's rank (as its
 * main thread), the ULT waiting in the scheduler meanwhile. */
AMPI_API void amp_omp_run(void (*fn)(void *), void *arg)
{
    amp_pe_t *pe = amp_pe_self();
    struct omp_job job = {.fn = fn,
                          .arg = arg,
                          .rank = pe->current->owner,
                          .waiter = pe->current,
                          .wake.fn = job_wake};
    amp_mt_runner_t *r = runner_get();
    r->job = &job;
    amp_sched_external(&amp_proc.sched, 1); /* for the runner */
    atomic_store(&r->go, 1);
    futex_wake(&r->go);
    while (!job.done)
        amp_sched_block();
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
