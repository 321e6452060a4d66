/*
 * sched: processing elements (PEs) and the user-level threads they run.
 *
 * Each PE is one kernel thread with a FIFO run queue of ready threads and a
 * lock-free inbox through which other PEs hand it work.  A thread always
 * runs on its own PE; every operation on a thread (block, wake) happens on
 * that PE, so the run queue needs no lock.  Inbox items are handed to the
 * handler the layer above registers; the scheduler does not look inside.
 * amp_sched_migrate moves a thread to another PE (lb/lb.h says when that
 * is safe); the scheduler charges every thread its running time (busy).
 *
 * An idle PE spins briefly, then sleeps on a futex until something is
 * posted to its inbox.  When every PE is asleep with an empty inbox while
 * threads remain, nothing can ever happen again: that is a deadlock, and the
 * registered deadlock handler is called (it reports and ends the process).
 * Kernel threads outside the scheduler that may still hand PEs work (the
 * threads a rank makes, sched.external) rule a deadlock out while they run.
 *
 * Tasks: any kernel thread, PE or not, may hand a PE a function to run in
 * its scheduler (amp_sched_post_task); the PE runs it at its next poll,
 * between threads, where it may spawn threads on that PE.
 */
#ifndef AMP_SCHED_H
#define AMP_SCHED_H

#include "base/base.h"
#include "sched/inbox.h"
#include "tlsglobals/tls.h"
#include "ult/ult.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

typedef enum amp_thread_state {
    AMP_THREAD_READY,
    AMP_THREAD_RUNNING,
    AMP_THREAD_BLOCKED,
    AMP_THREAD_MIGRATING, /* between two PEs (amp_sched_migrate) */
    AMP_THREAD_DONE
} amp_thread_state_t;

struct amp_pe;

typedef struct amp_thread {
    amp_ult_ctx_t ctx;
    struct amp_thread *next; /* run queue link */
    struct amp_pe *pe;       /* the PE this thread runs on */
    void *tls;               /* its thread pointer (%fs:0), or NULL */
    amp_thread_state_t state;
    unsigned long resumes;    /* times it was switched to (+stats) */
    uint64_t busy;            /* cycle counter ticks spent running */
    amp_inbox_item_t arrival; /* in its new PE's arrivals while migrating */
    void *owner; /* the layer above's object the thread runs for (a rank) */
    void *upper; /* the layer above's state of this thread */
} amp_thread_t;

typedef struct amp_sched amp_sched_t;
typedef struct amp_pe amp_pe_t;

/* A function for a PE to run (amp_sched_post_task); the item is the
 * poster's and must live until fn has started. */
typedef struct amp_sched_task amp_sched_task_t;
struct amp_sched_task {
    amp_inbox_item_t item;
    void (*fn)(amp_pe_t *pe, amp_sched_task_t *task);
};

/* Called on the receiving PE for each inbox item, oldest first. */
typedef void (*amp_sched_item_fn_t)(amp_pe_t *pe, amp_inbox_item_t *item);
/* The layer above's own channels: poll takes what they hold for pe;
 * pending says (from any PE) whether they hold or owe anything for pe. */
typedef void (*amp_sched_poll_fn_t)(amp_pe_t *pe);
typedef int (*amp_sched_pending_fn_t)(amp_pe_t *pe);
/* Called once when a deadlock is detected; must not return. */
typedef void (*amp_sched_deadlock_fn_t)(amp_sched_t *sched);
/* Called, on the PE that found it, each time this process is found quiet
 * (what would be a deadlock in a job of one process); may return. */
typedef void (*amp_sched_quiet_fn_t)(amp_sched_t *sched);
/* An idle PE's sleep of at most ns nanoseconds, and the wake that ends it
 * early (from any PE), when the layer above must sleep on something of its
 * own (a network's file descriptor) instead of the futex. */
typedef void (*amp_sched_sleep_fn_t)(amp_pe_t *pe, long ns);
typedef void (*amp_sched_wake_fn_t)(amp_pe_t *pe);

struct amp_pe {
    /* Touched by other PEs: keep on its own cache line. */
    _Alignas(64) amp_inbox_t inbox;
    _Atomic int sleep_state; /* futex word: AWAKE or ASLEEP */
    amp_inbox_t arrivals;    /* threads migrating to this PE */
    amp_inbox_t tasks;       /* amp_sched_post_task's */
    /* Owned by this PE. */
    _Alignas(64) amp_thread_t *current;
    amp_thread_t *runq_head, *runq_tail;
    amp_ult_ctx_t sched_ctx;
    void *kernel_tls; /* the kernel thread's own thread pointer */
    amp_sched_t *sched;
    uint64_t run_start;    /* cycle count when current began running */
    amp_thread_t *leaving; /* switched out, to be handed to leaving_to */
    struct amp_pe *leaving_to;
    int id;
    pthread_t thread;
    void *upper; /* state of the layers above, per PE */
};

struct amp_sched {
    amp_pe_t **pes;
    int npes;
    _Atomic int live;   /* threads not yet done */
    _Atomic int idle;   /* PEs between going idle and waking */
    _Atomic long epoch; /* bumped on every wake from sleep */
    _Atomic int done;   /* every thread has finished */
    /* Kernel threads outside the scheduler that may still post work (see
     * amp_sched_external): no deadlock while there are any. */
    _Atomic int external;
    amp_sched_item_fn_t on_item;
    amp_sched_poll_fn_t on_poll;
    amp_sched_pending_fn_t pending;
    amp_sched_deadlock_fn_t on_deadlock;
    amp_sched_quiet_fn_t on_quiet;
    amp_sched_sleep_fn_t on_sleep;
    amp_sched_wake_fn_t on_wake;
};

/* Hooks of the layer above; see amp_sched_init. */
typedef struct amp_sched_hooks {
    amp_sched_item_fn_t on_item;
    amp_sched_poll_fn_t on_poll;    /* may be NULL */
    amp_sched_pending_fn_t pending; /* may be NULL */
    /* NULL: a deadlock is not this process's to see (other processes may
     * still send); idle PEs just sleep, telling on_quiet (may be NULL). */
    amp_sched_deadlock_fn_t on_deadlock;
    amp_sched_quiet_fn_t on_quiet;
    amp_sched_sleep_fn_t on_sleep; /* NULL: the futex */
    amp_sched_wake_fn_t on_wake;   /* with on_sleep */
} amp_sched_hooks_t;

amp_status_t amp_sched_init(amp_sched_t *sched, int npes,
                            const amp_sched_hooks_t *hooks);
void amp_sched_cleanup(amp_sched_t *sched);

/* The PE the calling kernel thread runs, or NULL outside the runtime.
 * Not inlined: re-read it after anything that may block or migrate. */
amp_pe_t *amp_pe_self(void);
void amp_pe_set_self(amp_pe_t *pe);

/* Prepares thr to run fn(arg) on the given stack, on pe, with thread
 * pointer tls (its private TLS copy; NULL: the kernel thread's).  fn must
 * end with amp_sched_exit(). */
void amp_sched_thread_init(amp_thread_t *thr, amp_pe_t *pe, void *stack,
                           size_t size, void *tls, amp_ult_entry_fn_t fn,
                           void *arg);
/* Makes a new thread ready; before the PEs start, or on thr's PE. */
void amp_sched_spawn(amp_thread_t *thr);
/* The same from any kernel thread while the PEs run: thr joins its PE's
 * run queue through the PE's arrivals. */
void amp_sched_spawn_remote(amp_thread_t *thr);

/* Runs pe's scheduler on the calling kernel thread until every thread of
 * the process is done. */
void amp_sched_run(amp_pe_t *pe);

/* The calling thread waits until amp_sched_wake(); it may also resume
 * spuriously, so callers re-check their condition in a loop. */
void amp_sched_block(void);
/* Lets the other ready threads of this PE run first. */
void amp_sched_yield(void);
/* Makes a blocked thread ready.  Must run on thr's PE. */
void amp_sched_wake(amp_thread_t *thr);
/* Ends the calling thread. */
_Noreturn void amp_sched_exit(void);

/* Moves the calling thread to PE to (of the same scheduler): it switches
 * out here and resumes on to, without copying its stack.  The caller makes
 * sure nothing of its PE's channels still refers to it (see lb/lb.h);
 * returns on the new PE (re-read amp_pe_self()). */
void amp_sched_migrate(amp_pe_t *to);
/* Whether every PE's inbox, arrivals and the layer above's channels
 * (the pending hook) are empty, seen from any PE. */
int amp_sched_quiet(amp_sched_t *sched);

/* The cycle counter the scheduler charges running time with (the TSC on
 * x86-64, the virtual counter on aarch64, else nanoseconds). */
static inline uint64_t amp_sched_cycles(void)
{
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}
/* Ticks the calling thread has run so far, the current stretch included. */
uint64_t amp_sched_self_busy(void);

/* Hands item to pe (any PE may call this). */
void amp_sched_post(amp_pe_t *pe, amp_inbox_item_t *item);
/* Has pe run task->fn(pe, task) in its scheduler soon, and wakes it; from
 * any kernel thread. */
void amp_sched_post_task(amp_pe_t *pe, amp_sched_task_t *task);
/* Counts (delta 1) or uncounts (-1) a kernel thread outside the scheduler
 * that may post work to the PEs later: while any is counted, idle PEs are
 * not a deadlock, only quiet. */
void amp_sched_external(amp_sched_t *sched, int delta);
/* Wakes pe if it sleeps: call after giving it work through the layer
 * above's channels (after a sequentially consistent store). */
void amp_sched_notify(amp_pe_t *pe);
/* Handles what is in the calling PE's inbox. */
void amp_sched_poll(amp_pe_t *pe);

#endif
