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
 *
 * Polling.  A thread whose polling call found nothing to do (MPI_Test,
 * MPI_Iprobe, MPI_Win_flush in a loop) calls amp_sched_poll_wait: it
 * yields to the other ready threads of its PE, and after many fruitless
 * polls in a row with nothing happening anywhere (no activity: no request
 * completed, no window changed, no thread woken, no inbox item) it parks
 * as a poller.  A PE releases its pollers to poll again whenever its run
 * queue empties: at once while there is activity somewhere, else after a
 * short sleep in which the PE counts as idle.  So a PE full of pollers
 * neither starves its other threads nor spins forever: when every PE is
 * idle, nothing is in flight and the activity has not changed for
 * poll_deadlock_ns while pollers remain, that too is a deadlock.
 *
 * Kernel threads outside the scheduler that may still hand PEs work (io/'s
 * helper threads, the threads a rank makes: sched.outside) rule a deadlock
 * out while they run.
 *
 * Tasks: any kernel thread, PE or not, may hand a PE a function to run in
 * its scheduler (amp_sched_post_task); the PE runs it at its next poll,
 * between threads, where it may spawn threads on that PE.
 *
 * Lending (work stealing).  A thread's home (thr->pe) is the PE whose
 * channels hold its state (its messages are matched there, it blocks and is
 * woken there); amp_sched_migrate changes it.  A PE that has been idle for a
 * while asks a busy PE for work (amp_pe.thief).  The busy PE answers when
 * a thread of its own leaves its outermost call into the layer above
 * (amp_sched_call_leave) while other threads wait in its run queue: that
 * thread runs on as a guest of the idle PE, where it only computes.  Its
 * next call into the layer above (amp_sched_call_enter), or any block,
 * yield or exit, takes it home first, ahead of the threads ready there.
 * So nothing of the home PE's channels ever sees the thread elsewhere, a
 * lent thread copies nothing (its stack and memory stay where they are),
 * and a thread keeps its PE unless another PE would idle.  The layer above
 * says which threads may never be lent (the may_lend hook).  A lend lasts
 * until the thread's next call, so it pays only where the thread computes
 * long after the call it leaves: each thread remembers, for a few call
 * sites (where the call returns to), how long it last ran as a guest
 * after it, and is kept home after a site whose runs were shorter than
 * an idle PE waits before it asks (the next thread to leave a call may
 * go instead), but for every LEND_RECHECK-th time (sched.c), to look again.
 *
 * Lodging.  A thread may also ask to run on another PE of its own accord
 * (amp_sched_lodge: AMPI_Migrate_to_pe called by one rank alone), which
 * needs none of the other threads: it becomes a guest of that PE, its
 * lodge, and goes back there at the end of each of its outermost calls,
 * instead of being lent; its home keeps its channels as for any guest.
 * A move of its home to its lodge (amp_sched_migrate, from a step where
 * every thread of the process meets) ends the lodging.
 */
#ifndef AMP_SCHED_H
#define AMP_SCHED_H

#include "base/base.h"
#include "sched/inbox.h"
#include "tlsglobals/tls.h"
#include "trace/trace.h"
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

/* Call sites a thread remembers how long it ran as a guest after. */
#define AMP_SCHED_LEND_SITES 4

typedef struct amp_thread {
    amp_ult_ctx_t ctx;
    struct amp_thread *next; /* run queue link */
    amp_thread_state_t state;
    int polling;                  /* parked as a poller (amp_sched_poll_wait) */
    struct amp_thread *poll_next; /* its PE's pollers */
    unsigned long resumes;        /* times it was switched to (+stats) */
    uint64_t busy;                /* cycle counter ticks spent running */
    int waiting;    /* in a wait that is not load (amp_sched_wait_begin) */
    unsigned depth; /* calls into the layer above under way */
    struct amp_pe *lodge;     /* where it runs between calls, or NULL (top) */
    int returning;            /* on its way home from a lend */
    int away;                 /* lent: runs or waits as a guest */
    amp_inbox_item_t arrival; /* in its new PE's arrivals while migrating */
    unsigned long lent;       /* times it ran as a guest (+lbdebug, +stats) */
    int moved;                /* arriving at a new home (a PE's moved_in) */
    /* Read by other PEs for every message to the thread (where it lives),
     * written only when it moves: after what the thread writes at each
     * switch and call, on the next cache line. */
    struct amp_pe *pe; /* its home: the PE it runs on, but while lent */
    void *owner; /* the layer above's object the thread runs for (a rank) */
    void *upper; /* the layer above's state of this thread */
    void *tls;   /* its thread pointer (%fs:0), or NULL */
    /* +trace: its id in the records (world rank + 1; 0: not a rank), and
     * where the layer above keeps the name of the call it is in. */
    int trace_id;
    const char *const *trace_why;
    /* Lending by call site (amp_sched_lend), touched at lends only: how
     * long its last runs as a guest after a call that returned to site
     * lasted (ns, smoothed), and how often since it was kept home there;
     * the lend under way's site and start (CLOCK_MONOTONIC ns). */
    struct amp_lend_site {
        const void *site;
        uint32_t ran_ns;
        uint32_t kept;
    } lend_sites[AMP_SCHED_LEND_SITES];
    const void *lent_site;
    long lent_at;
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
/* Whether thr (leaving a call, at home, others waiting) may run as a
 * guest of another PE now. */
typedef int (*amp_sched_may_lend_fn_t)(amp_thread_t *thr);

struct amp_pe {
    /* Touched by other PEs: keep on its own cache line. */
    _Alignas(64) amp_inbox_t inbox;
    _Atomic int sleep_state; /* futex word: AWAKE or ASLEEP */
    _Atomic int still;       /* asleep, stopped or ended: runs no thread now */
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
    void *upper;             /* state of the layers above, per PE */
    amp_trace_pe_t *trace;   /* +trace: its buffer; NULL: not traced */
    amp_thread_t *pollers;   /* parked pollers (amp_sched_poll_wait) */
    unsigned long poll_seen; /* the job's activity at its last poll round */
    unsigned poll_skips;     /* polls skipped in a row (amp_sched_poll_skip) */
    amp_thread_t vanished;   /* amp_sched_vanish's stand-in */
    amp_ult_ctx_t *aside;    /* amp_sched_aside's context, while it runs */
    int leaving_home;        /* leaving_to becomes the thread's home too */
    int acting;              /* current stands for a thread that does not
                                run (amp_sched_act_begin) */
    struct amp_pe *asked;    /* the PE this one asked for work, or NULL */
    long asked_at;           /* when (CLOCK_MONOTONIC ns) */
    unsigned long lent_out;  /* threads it lent (+lbdebug) */
    unsigned long guests;    /* guests it ran */
    /* +stats: threads whose home became this PE and stopped being it
     * (amp_sched_migrate, amp_sched_spawn_expected, amp_sched_vanish),
     * the cycle counter ticks its threads ran (idle time is nobody's),
     * and amp_sched_run's first and last tick; MPI_T: the switches from
     * one context to a thread (a thread that goes on after a yield with
     * nobody else ready is not switched to). */
    unsigned long moved_in, moved_out, switches;
    uint64_t busy, run_from, run_until;
    /* Lending: written by other PEs now and then, read by this one at
     * every outermost call's end and by idle PEs choosing whom to ask. */
    _Alignas(64) _Atomic int thief; /* id + 1 of a PE asking, or 0 */
    _Atomic int idling;             /* in idle(): has nothing to lend */
    /* Things done on this PE that may end another thread's polling (see
     * amp_sched_activity); written by this PE only. */
    _Alignas(64) _Atomic unsigned long activity;
};

struct amp_sched {
    amp_pe_t **pes;
    int npes;
    _Atomic int live;               /* threads not yet done */
    _Atomic int idle;               /* PEs between going idle and waking */
    _Atomic long epoch;             /* bumped on every wake from sleep */
    _Atomic int done;               /* every thread has finished */
    _Atomic int npollers;           /* threads parked as pollers */
    _Atomic int halted;             /* amp_sched_halt: PEs stop on waking */
    long poll_deadlock_ns;          /* see the top; 0: the default */
    _Atomic unsigned long poll_act; /* activity when last seen to change */
    _Atomic long poll_since;        /* ... and when (CLOCK_MONOTONIC ns) */
    /* Kernel threads outside the PEs that may still post work to them
     * (io/'s helper threads at work, the threads a rank makes): while any
     * is counted, an idle process is waiting, not deadlocked
     * (amp_sched_outside_begin/end). */
    _Atomic int outside;
    amp_sched_item_fn_t on_item;
    amp_sched_poll_fn_t on_poll;
    amp_sched_pending_fn_t pending;
    amp_sched_deadlock_fn_t on_deadlock;
    amp_sched_quiet_fn_t on_quiet;
    amp_sched_sleep_fn_t on_sleep;
    amp_sched_wake_fn_t on_wake;
    amp_sched_may_lend_fn_t may_lend;
    int steal;          /* idle PEs ask for work (amp_sched_set_steal) */
    long steal_idle_ns; /* after so long idle */
    /* The node runs more PEs than it has cores (amp_sched_set_crowded):
     * a PE with nothing to do gives its core to the kernel's other
     * threads while it waits, instead of spinning on it. */
    _Atomic int crowded;
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
    amp_sched_sleep_fn_t on_sleep;    /* NULL: the futex */
    amp_sched_wake_fn_t on_wake;      /* with on_sleep */
    amp_sched_may_lend_fn_t may_lend; /* NULL: any thread */
} amp_sched_hooks_t;

AMP_MUST_USE amp_status_t amp_sched_init(amp_sched_t *sched, int npes,
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
/* Counts n threads that another process will hand this one (ranks that
 * move here) as live from now on, so that the process does not end while
 * they are on their way; each then comes through amp_sched_spawn_expected. */
void amp_sched_expect(amp_sched_t *sched, int n);
/* amp_sched_spawn_remote for a thread amp_sched_expect counted already. */
void amp_sched_spawn_expected(amp_thread_t *thr);
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
/* After the calling thread's polls failed polls in a row (counted by the
 * caller, from 1, reset when amp_sched_activity_sum changes): yields, or
 * parks it as a poller until its PE's next poll round (see the top).  The
 * caller polls again after it returns. */
void amp_sched_poll_wait(unsigned polls);
/* Whether the calling thread is parked as a poller right now (for the
 * deadlock report, from any thread while every PE is idle). */
static inline int amp_sched_is_polling(const amp_thread_t *thr)
{
    return thr->polling;
}
/* Stops the PEs of sched other than the caller's where they are, so that
 * a report reads threads that stand still: each PE stops when it next
 * goes to sleep or wakes (at once if asleep), and stays stopped until
 * amp_sched_resume.  Waits at most about a second for the busy ones.
 * Returns whether this call stopped them (0: they were stopped already, by
 * the scheduler when it found a deadlock, or by another caller). */
int amp_sched_halt(amp_sched_t *sched);
void amp_sched_resume(amp_sched_t *sched);
/* Records something done on the calling PE that may end another thread's
 * polling: a request completed, window memory or state changed. */
static inline void amp_sched_activity(amp_pe_t *pe)
{
    atomic_store_explicit(
        &pe->activity,
        atomic_load_explicit(&pe->activity, memory_order_relaxed) + 1,
        memory_order_relaxed);
}
/* The job's activity so far (this process's PEs). */
unsigned long amp_sched_activity_sum(amp_sched_t *sched);
/* Whether a poll of the calling thread may be left out: nothing else on
 * its PE waits to run (no thread ready, no poller parked, nothing in its
 * inboxes) and fewer than AMP_SCHED_POLL_SKIPS polls in a row were left
 * out.  For polls after the caller made progress of its own (a one-sided
 * flush after a store into another process's window): a round of the
 * transports' progress each time would cost more than the store, and one
 * in AMP_SCHED_POLL_SKIPS keeps them going. */
#define AMP_SCHED_POLL_SKIPS 16
int amp_sched_poll_skip(void);
/* Whether PEs with nothing to do yield their core to the kernel's other
 * threads (sched_yield) while they wait: on when the node's PEs outnumber
 * its cores (one process's PEs waiting spin would hold a core another
 * process needs for the very work they wait for). */
void amp_sched_set_crowded(amp_sched_t *sched, int crowded);
/* One step of a wait that spins on memory another PE or process writes:
 * a pause, or, when the PEs are crowded, a yield of the core. */
void amp_sched_relax(void);
/* Whether idle PEs ask busy ones for threads to run (see the top); off
 * at first.  idle_ns: how long a PE idles before it asks (0: default). */
void amp_sched_set_steal(amp_sched_t *sched, int on, long idle_ns);
/* Around each call into the layer above: enter takes a lent thread home
 * first and returns the calling thread (NULL outside the PEs); leave, at
 * the end of the outermost call, lends it to a PE that asked when others
 * wait here (its caller then runs on that PE). */
extern __thread amp_pe_t *amp_sched_self_pe
    __attribute__((tls_model("initial-exec"), visibility("hidden")));
/* Whether the process lends at all (stealing on, more than one PE): set
 * once before the PEs start; without it the calls skip enter and leave. */
extern int amp_sched_lending __attribute__((visibility("hidden")));
/* Bits of amp_sched_lending: the process lends; it traces (+trace: the
 * calls go through the same detour, which records them); a thread lodged
 * (set by the first amp_sched_lodge, never cleared). */
#define AMP_SCHED_LENDS 1
#define AMP_SCHED_TRACED 2
#define AMP_SCHED_LODGES 4
void amp_sched_call_home(amp_pe_t *pe, amp_thread_t *thr);
/* site: where the call returns to (its caller's next instruction). */
void amp_sched_lend(amp_thread_t *thr, const void *site);
/* Inline: the entry points of every MPI call run it.  The thread pointer
 * is read once, before anything may switch threads. */
static inline __attribute__((always_inline)) amp_thread_t *
amp_sched_call_enter(void)
{
    if (!amp_sched_lending)
        return NULL;
    amp_pe_t *pe = amp_sched_self_pe;
    amp_thread_t *thr = pe ? pe->current : NULL;
    if (!thr)
        return NULL;
    if (__builtin_expect(thr->pe != pe, 0))
        amp_sched_call_home(pe, thr);
    thr->depth++;
    return thr;
}
static inline __attribute__((always_inline)) void
amp_sched_call_leave(amp_thread_t *thr)
{
    if (!thr)
        return;
    /* 0 already: the thread was resumed from a copy inside the call
     * (amp_sched_thread_resume starts it afresh). */
    unsigned depth = thr->depth;
    thr->depth = depth ? depth - 1 : 0;
    if (depth <= 1 &&
        (thr->lodge ||
         atomic_load_explicit(&thr->pe->thief, memory_order_relaxed)))
        amp_sched_lend(thr, __builtin_return_address(0));
}
/* Takes the calling thread home if it runs as a guest (before it touches
 * anything its home PE's channels hold, outside a call). */
void amp_sched_go_home(void);
/* The calling thread, at home, runs on PE to from now on between its
 * calls (see "Lodging" above), and goes there now; to its home: it stays
 * home from now on. */
void amp_sched_lodge(amp_pe_t *to);
/* The PE thr runs on between its calls: its lodge, else its home. */
static inline amp_pe_t *amp_sched_where(const amp_thread_t *thr)
{
    return thr->lodge ? thr->lodge : thr->pe;
}

/* Makes a blocked thread ready.  Must run on thr's PE. */
void amp_sched_wake(amp_thread_t *thr);

/* Acting for another thread: what the PE ran before. */
typedef struct amp_sched_act {
    amp_thread_t *current;
    void *tls;
    int acting;
} amp_sched_act_t;
/* Runs what follows, up to amp_sched_act_end, as thr: a thread at home on
 * this PE that waits or is ready here (the owner of a collective schedule
 * that another thread or the scheduler progresses, coll/nbc.c).  The PE's
 * current thread and the thread pointer become thr's, so that a user
 * function called meanwhile sees its rank (amp_rank_self) and its
 * privatized globals.  What runs meanwhile must not block or yield.
 * Where thr is not here (lent, moving), only its thread pointer is taken. */
void amp_sched_act_begin(amp_thread_t *thr, amp_sched_act_t *saved);
/* Whether the caller can act for thr now (it runs it, or thr is here). */
int amp_sched_may_act(const amp_thread_t *thr);
void amp_sched_act_end(const amp_sched_act_t *saved);
/* Ends the calling thread. */
_Noreturn void amp_sched_exit(void);
/* Leaves this PE for good: ends the calling thread without touching its
 * amp_thread_t again, which may be gone already (a rank whose memory went
 * to another process): the PE finishes it through a stand-in of its own,
 * owned by no rank.  May run on another stack than the thread's (the
 * function amp_sched_aside runs); the thread's saved context may then be
 * resumed elsewhere (amp_sched_thread_resume). */
_Noreturn void amp_sched_vanish(void);

/* ---- a thread stopped and resumed from its saved context ----
 * A thread's memory may be copied while it is stopped (a checkpoint, a
 * rank shipped to another process) and resumed from the copy, at the same
 * addresses, in this process or another. */

/* Stops the calling thread where it is (its context saved in its
 * amp_thread_t, amp_sched_saved_sp) and runs fn(arg) in its place on
 * [stack, stack + size), on the same PE: the PE's current thread stays the
 * caller, whose stack and memory nothing changes meanwhile.  fn never
 * returns: it ends with amp_sched_aside_end (the caller resumes here) or
 * amp_sched_vanish (the caller leaves this PE).  Returns when the caller
 * resumes: here, or as a copy (amp_sched_thread_resume). */
void amp_sched_aside(void *stack, size_t size, amp_ult_entry_fn_t fn,
                     void *arg);
/* In the function amp_sched_aside runs: resumes the thread it stands in
 * for, from its saved context. */
_Noreturn void amp_sched_aside_end(void);
/* Where thr's context was saved (its stack pointer) while it does not
 * run: in amp_sched_aside's function, or a thread blocked or ready. */
static inline void *amp_sched_saved_sp(const amp_thread_t *thr)
{
    return thr->ctx.sp;
}
/* Sets up thr, whose memory holds a context saved at sp on
 * [stack, stack + size) (amp_sched_aside's, in this process or copied from
 * another at the same addresses), to resume there on pe with thread
 * pointer tls: it returns from amp_sched_aside.  thr's other fields start
 * afresh (owner and upper: NULL); then amp_sched_spawn or
 * amp_sched_spawn_expected makes it ready. */
void amp_sched_thread_resume(amp_thread_t *thr, amp_pe_t *pe, void *sp,
                             void *stack, size_t size, void *tls);

/* Moves the calling thread to PE to (of the same scheduler): it switches
 * out here and resumes on to, without copying its stack.  The caller makes
 * sure nothing of its PE's channels still refers to it (see lb/lb.h);
 * to becomes its home.  Returns on the new PE (re-read amp_pe_self()). */
void amp_sched_migrate(amp_pe_t *to);
/* Whether every PE's inbox, arrivals and the layer above's channels
 * (the pending hook) are empty, seen from any PE. */
int amp_sched_quiet(amp_sched_t *sched);

/* The cycle counter the scheduler charges running time with (the TSC on
 * x86-64, the virtual counter on aarch64, else nanoseconds). */
static inline uint64_t amp_sched_cycles(void)
{
    return amp_cycles();
}
/* +trace: PE i of sched records into t->pes[i] from now on (before the
 * PEs start), and the calls into the layer above are recorded
 * (amp_sched_trace_call). */
void amp_sched_set_traced(amp_sched_t *sched, amp_trace_t *t);
/* +trace: thr enters (leave 0) or leaves the call named name (a string
 * that lives on); nothing when the calling PE does not trace. */
void amp_sched_trace_call(amp_thread_t *thr, const char *name, int leave);
/* Ticks the calling thread has run so far, the current stretch included. */
uint64_t amp_sched_self_busy(void);
/* Ticks the threads of the calling thread's PE have run so far there, the
 * current stretch included (what the PE did not idle). */
uint64_t amp_sched_pe_busy(void);
/* The calling thread waits for other threads or processes (a collective
 * whose peers have not all arrived): what it runs from wait_begin to
 * wait_end, its spins, yields and polls, is charged neither to it nor to
 * its PE, as a blocked thread's idle PE is not (a balancer reads the
 * charges as load).  What it ran before wait_begin is charged. */
void amp_sched_wait_begin(void);
void amp_sched_wait_end(void);

/* Counts a kernel thread outside the PEs that may post work to them later
 * (begin: before it starts; end: once what it posted back has been handled,
 * or it has ended): meanwhile idle PEs sleep as usual but no deadlock is
 * reported.  Any kernel thread may call these. */
static inline void amp_sched_outside_begin(amp_sched_t *sched)
{
    atomic_fetch_add(&sched->outside, 1);
}
static inline void amp_sched_outside_end(amp_sched_t *sched)
{
    atomic_fetch_sub(&sched->outside, 1);
    atomic_fetch_add(&sched->epoch, 1); /* a detector looks again */
}

/* Hands item to pe (any PE may call this). */
void amp_sched_post(amp_pe_t *pe, amp_inbox_item_t *item);
/* Has pe run task->fn(pe, task) in its scheduler soon, and wakes it; from
 * any kernel thread. */
void amp_sched_post_task(amp_pe_t *pe, amp_sched_task_t *task);
/* Wakes pe if it sleeps: call after giving it work through the layer
 * above's channels (after a sequentially consistent store). */
void amp_sched_notify(amp_pe_t *pe);
/* Handles what is in the calling PE's inbox. */
void amp_sched_poll(amp_pe_t *pe);

#endif
