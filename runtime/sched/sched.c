#include "sched/sched.h"

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { PE_AWAKE = 0, PE_ASLEEP = 1 };

/* How long an idle PE polls before it sleeps, and how long it sleeps before
 * looking again on its own. */
#define IDLE_SPIN_NS 200000L
#define IDLE_SLEEP_NS 50000000L
/* How often an idle PE yields its core while the node's PEs outnumber its
 * cores (amp_sched_set_crowded). */
#define CROWDED_YIELD_NS 2000L
/* For so long at first an idle PE polls without pausing between looks:
 * what it waits for (the answer to a message just sent) often comes then,
 * and a pause (tens of nanoseconds) would only delay seeing it. */
#define IDLE_HOT_NS 20000L
/* Fruitless polls in a row that only yield; the sleep of a PE between two
 * poll rounds while nothing happens; how long nothing may happen while
 * every thread is blocked or polling before that is a deadlock (unless
 * the layer above sets poll_deadlock_ns). */
#define POLL_YIELDS 64
#define POLL_SLEEP_NS 1000000L
#define POLL_DEADLOCK_NS 10000000000L
/* Lending: how long a PE idles before it asks a busy PE for work, and how
 * long it waits for an answer before it asks another. */
#define STEAL_IDLE_NS 20000L
#define STEAL_RETRY_NS 200000L

__thread amp_pe_t *amp_sched_self_pe
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

__attribute__((noinline)) amp_pe_t *amp_pe_self(void)
{
    return amp_sched_self_pe;
}

void amp_pe_set_self(amp_pe_t *pe)
{
    amp_sched_self_pe = pe;
}

amp_status_t amp_sched_init(amp_sched_t *sched, int npes,
                            const amp_sched_hooks_t *hooks)
{
    memset(sched, 0, sizeof(*sched));
    sched->pes = calloc((size_t)npes, sizeof(*sched->pes));
    if (!sched->pes)
        return AMP_ERR_NOMEM;
    sched->npes = npes;
    sched->on_item = hooks->on_item;
    sched->on_poll = hooks->on_poll;
    sched->pending = hooks->pending;
    sched->on_deadlock = hooks->on_deadlock;
    sched->on_quiet = hooks->on_quiet;
    sched->on_sleep = hooks->on_sleep;
    sched->on_wake = hooks->on_wake;
    sched->may_lend = hooks->may_lend;
    sched->steal_idle_ns = STEAL_IDLE_NS;
    for (int i = 0; i < npes; i++) {
        amp_pe_t *pe = aligned_alloc(64, AMP_ROUND_UP(sizeof(*pe), 64));
        if (!pe) {
            amp_sched_cleanup(sched);
            return AMP_ERR_NOMEM;
        }
        memset(pe, 0, sizeof(*pe));
        amp_inbox_init(&pe->inbox);
        amp_inbox_init(&pe->arrivals);
        amp_inbox_init(&pe->tasks);
        atomic_init(&pe->sleep_state, PE_AWAKE);
        pe->sched = sched;
        pe->id = i;
        sched->pes[i] = pe;
    }
    return AMP_OK;
}

void amp_sched_cleanup(amp_sched_t *sched)
{
    if (sched->pes) {
        for (int i = 0; i < sched->npes; i++)
            free(sched->pes[i]);
        free(sched->pes);
    }
    sched->pes = NULL;
}

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void runq_push(amp_pe_t *pe, amp_thread_t *thr)
{
    thr->next = NULL;
    if (pe->runq_tail)
        pe->runq_tail->next = thr;
    else
        pe->runq_head = thr;
    pe->runq_tail = thr;
}

/* A thread back from a lend runs before those ready here: it left for a
 * call that other threads may be waiting on. */
static void runq_push_front(amp_pe_t *pe, amp_thread_t *thr)
{
    thr->next = pe->runq_head;
    pe->runq_head = thr;
    if (!pe->runq_tail)
        pe->runq_tail = thr;
}

static amp_thread_t *runq_pop(amp_pe_t *pe)
{
    amp_thread_t *thr = pe->runq_head;
    if (thr) {
        pe->runq_head = thr->next;
        if (!pe->runq_head)
            pe->runq_tail = NULL;
    }
    return thr;
}

void amp_sched_thread_init(amp_thread_t *thr, amp_pe_t *pe, void *stack,
                           size_t size, void *tls, amp_ult_entry_fn_t fn,
                           void *arg)
{
    memset(thr, 0, sizeof(*thr));
    thr->pe = pe;
    thr->tls = tls;
    thr->state = AMP_THREAD_READY;
    amp_ult_ctx_make(&thr->ctx, stack, size, fn, arg);
}

void amp_sched_thread_resume(amp_thread_t *thr, amp_pe_t *pe, void *sp,
                             void *stack, size_t size, void *tls)
{
    memset(thr, 0, sizeof(*thr));
    thr->pe = pe;
    thr->tls = tls;
    thr->state = AMP_THREAD_READY;
    amp_ult_ctx_resume(&thr->ctx, sp, stack, size);
}

void amp_sched_spawn(amp_thread_t *thr)
{
    atomic_fetch_add(&thr->pe->sched->live, 1);
    thr->state = AMP_THREAD_READY;
    runq_push(thr->pe, thr);
}

/* Threads that migrated here join the run queue. */
static void take_arrivals(amp_pe_t *pe)
{
    amp_inbox_item_t *item = amp_inbox_take_all(&pe->arrivals);
    while (item) {
        amp_inbox_item_t *next = item->next;
        amp_thread_t *thr = AMP_CONTAINER_OF(item, amp_thread_t, arrival);
        pe->moved_in += thr->moved;
        thr->moved = 0;
        thr->away = thr->pe != pe;
        if (thr->returning) {
            thr->returning = 0;
            runq_push_front(pe, thr);
        } else {
            if (thr->pe != pe)
                pe->guests++;
            runq_push(pe, thr);
        }
        item = next;
    }
}

/* The tasks other kernel threads posted, oldest first. */
static void run_tasks(amp_pe_t *pe)
{
    amp_inbox_item_t *item = amp_inbox_take_all(&pe->tasks);
    while (item) {
        amp_inbox_item_t *next = item->next;
        amp_sched_task_t *t = AMP_CONTAINER_OF(item, amp_sched_task_t, item);
        t->fn(pe, t);
        item = next;
    }
}

void amp_sched_poll(amp_pe_t *pe)
{
    if (!amp_inbox_is_empty(&pe->arrivals))
        take_arrivals(pe);
    if (!amp_inbox_is_empty(&pe->tasks))
        run_tasks(pe);
    if (pe->sched->on_poll)
        pe->sched->on_poll(pe);
    if (amp_inbox_is_empty(&pe->inbox))
        return;
    amp_sched_activity(pe);
    amp_inbox_item_t *item = amp_inbox_take_all(&pe->inbox);
    while (item) {
        amp_inbox_item_t *next = item->next;
        pe->sched->on_item(pe, item);
        item = next;
    }
}

/* +trace: thr begins running on pe (kind AMP_TRACE_RUN) or stops
 * (AMP_TRACE_STOP, how: amp_trace_stop_t, with the call it is in). */
static __attribute__((noinline)) void
trace_switch(amp_pe_t *pe, amp_thread_t *thr, int kind, int how)
{
    int why = 0;
    if (kind == AMP_TRACE_STOP && thr->trace_why)
        why = amp_trace_name_id(pe->trace, *thr->trace_why);
    amp_trace_put(pe->trace, kind, how, thr->trace_id, why, 0, 0);
}

/* Why thr, in state, stops: amp_trace_stop_t. */
static int stop_how(amp_thread_state_t state)
{
    return state == AMP_THREAD_BLOCKED ? AMP_TRACE_STOP_BLOCK
           : state == AMP_THREAD_READY ? AMP_TRACE_STOP_YIELD
           : state == AMP_THREAD_DONE  ? AMP_TRACE_STOP_DONE
                                       : AMP_TRACE_STOP_MOVE;
}

/* Switches from the context in from to thread next, with next's TLS. */
static void switch_to(amp_pe_t *pe, amp_ult_ctx_t *from, amp_thread_t *next)
{
    if (__builtin_expect(pe->trace != NULL, 0))
        trace_switch(pe, next, AMP_TRACE_RUN, 0);
    next->state = AMP_THREAD_RUNNING;
    next->resumes++;
    pe->switches++;
    pe->current = next;
    amp_tls_set(next->tls ? next->tls : pe->kernel_tls);
    amp_ult_switch(from, &next->ctx);
}

/* Leaves thr (blocked, yielding or done) for the next ready thread, or for
 * the scheduler loop when there is none. */
static void idle(amp_pe_t *pe, long sleep_ns);
static amp_thread_t *poll_round(amp_pe_t *pe);

static void switch_away(amp_pe_t *pe, amp_thread_t *thr)
{
    /* Charge thr for its stretch; the next thread's starts now. */
    uint64_t now = amp_sched_cycles();
    uint64_t ran = thr->waiting ? 0 : now - pe->run_start;
    thr->busy += ran;
    pe->busy += ran;
    pe->run_start = now;
    if (__builtin_expect(pe->trace != NULL, 0))
        trace_switch(pe, thr, AMP_TRACE_STOP, stop_how(thr->state));
    amp_sched_poll(pe);
    amp_thread_t *next = runq_pop(pe);
    if (!next && pe->pollers)
        next = poll_round(pe);
    /* A blocked thread with nobody else ready waits for work right here, on
     * its own stack, instead of through the scheduler loop: when its own
     * wake-up is what arrives, no switch happens at all. */
    if (!next && thr->state == AMP_THREAD_BLOCKED) {
        do {
            /* The pending hook that ended idle often delivered what woke
             * a thread already: run it without polling once more. */
            idle(pe, IDLE_SLEEP_NS);
            next = runq_pop(pe);
            if (!next) {
                amp_sched_poll(pe);
                next = runq_pop(pe);
            }
        } while (!next);
        pe->run_start = amp_sched_cycles(); /* idle time is nobody's */
    }
    if (next == thr) {
        if (__builtin_expect(pe->trace != NULL, 0))
            trace_switch(pe, thr, AMP_TRACE_RUN, 0);
        thr->state = AMP_THREAD_RUNNING;
        thr->resumes++;
        return;
    }
    if (next) {
        switch_to(pe, &thr->ctx, next);
    } else {
        pe->current = NULL;
        amp_tls_set(pe->kernel_tls);
        amp_ult_switch(&thr->ctx, &pe->sched_ctx);
    }
}

/* Switches thr out of pe, through the scheduler loop, which hands it to to
 * once nothing runs on its stack any more (hand_off); home: to becomes its
 * home (thr->pe), else it runs there as a guest or goes home. */
static void leave_for(amp_pe_t *pe, amp_thread_t *thr, amp_pe_t *to, int home)
{
    uint64_t now = amp_sched_cycles();
    uint64_t ran = thr->waiting ? 0 : now - pe->run_start;
    thr->busy += ran;
    pe->busy += ran;
    pe->run_start = now;
    if (__builtin_expect(pe->trace != NULL, 0))
        trace_switch(pe, thr, AMP_TRACE_STOP, AMP_TRACE_STOP_MOVE);
    thr->state = AMP_THREAD_MIGRATING;
    pe->leaving = thr;
    pe->leaving_to = to;
    pe->leaving_home = home;
    pe->current = NULL;
    amp_tls_set(pe->kernel_tls);
    amp_ult_switch(&thr->ctx, &pe->sched_ctx);
}

/* ---- lending by call site (sched.h, "Lending") ---- */

#define LEND_RECHECK 8

static struct amp_lend_site *lend_site(amp_thread_t *thr, const void *site)
{
    return &thr->lend_sites[((uintptr_t)site >> 2) % AMP_SCHED_LEND_SITES];
}

/* Whether thr, leaving a call that returns to site, is worth lending. */
static int worth_lending(const amp_sched_t *sched, amp_thread_t *thr,
                         const void *site)
{
    struct amp_lend_site *s = lend_site(thr, site);
    if (s->site != site || s->ran_ns >= sched->steal_idle_ns ||
        ++s->kept >= LEND_RECHECK) {
        s->kept = 0;
        return 1;
    }
    return 0;
}

/* thr's run as a guest ends: how long it was, for its site. */
static void lend_ended(amp_thread_t *thr)
{
    if (!thr->lent_site)
        return;
    long ran = now_ns() - thr->lent_at;
    uint32_t ns = ran < 0 ? 0 : ran > (long)UINT32_MAX ? UINT32_MAX : (uint32_t)ran;
    struct amp_lend_site *s = lend_site(thr, thr->lent_site);
    if (s->site == thr->lent_site)
        ns = (uint32_t)(((uint64_t)s->ran_ns + ns) / 2);
    *s = (struct amp_lend_site){.site = thr->lent_site, .ran_ns = ns};
    thr->lent_site = NULL;
}

/* A lent thread goes home, ahead of the threads ready there. */
static void go_home(amp_pe_t *pe, amp_thread_t *thr)
{
    lend_ended(thr);
    thr->returning = 1;
    leave_for(pe, thr, thr->pe, 0);
}

void amp_sched_go_home(void)
{
    amp_pe_t *pe = amp_pe_self();
    amp_thread_t *thr = pe ? pe->current : NULL;
    if (thr && thr->pe != pe)
        go_home(pe, thr);
}

void amp_sched_block(void)
{
    amp_pe_t *pe = amp_pe_self();
    amp_thread_t *thr = pe->current;
    if (thr->pe != pe) { /* a guest blocks at home: a spurious wake-up */
        go_home(pe, thr);
        return;
    }
    thr->state = AMP_THREAD_BLOCKED;
    switch_away(pe, thr);
}

static void release_pollers(amp_pe_t *pe);

void amp_sched_yield(void)
{
    amp_pe_t *pe = amp_pe_self();
    amp_thread_t *thr = pe->current;
    if (thr->pe != pe) {
        go_home(pe, thr);
        return;
    }
    /* The pollers go first: they run only when nothing else is ready, so
     * a thread that spins yielding (waiting for what a poller would bring)
     * would keep them parked for ever. */
    if (pe->pollers)
        release_pollers(pe);
    thr->state = AMP_THREAD_READY;
    runq_push(pe, thr);
    switch_away(pe, thr);
}

void amp_sched_wake(amp_thread_t *thr)
{
    if (thr->state != AMP_THREAD_BLOCKED)
        return;
    if (thr->polling) { /* stays listed; the next round skips it */
        thr->polling = 0;
        atomic_fetch_sub(&thr->pe->sched->npollers, 1);
    }
    amp_sched_activity(thr->pe);
    thr->state = AMP_THREAD_READY;
    runq_push(thr->pe, thr);
}

/* thr, of this PE, runs nowhere else now (it cannot leave meanwhile: a
 * thread leaves a PE only by itself, and the caller runs instead). */
static int here(const amp_pe_t *pe, const amp_thread_t *thr)
{
    return thr->pe == pe && !thr->away &&
           (thr->state == AMP_THREAD_READY || thr->state == AMP_THREAD_BLOCKED);
}

int amp_sched_may_act(const amp_thread_t *thr)
{
    amp_pe_t *pe = amp_pe_self();
    return pe && (thr == pe->current || here(pe, thr));
}

void amp_sched_act_begin(amp_thread_t *thr, amp_sched_act_t *saved)
{
    amp_pe_t *pe = amp_pe_self();
    saved->current = pe->current;
    saved->acting = pe->acting;
    saved->tls = amp_tls_get();
    void *tls = thr->tls ? thr->tls : pe->kernel_tls;
    if (tls != saved->tls)
        amp_tls_set(tls);
    if (thr == pe->current || !here(pe, thr))
        return;
    pe->current = thr;
    pe->acting = 1;
    /* Calls made meanwhile are nested ones: none of them ends by lending
     * thr (amp_sched_call_leave). */
    thr->depth++;
}

void amp_sched_act_end(const amp_sched_act_t *saved)
{
    amp_pe_t *pe = amp_pe_self();
    if (pe->current != saved->current) {
        pe->current->depth--;
        pe->current = saved->current;
        pe->acting = saved->acting;
    }
    if (amp_tls_get() != saved->tls)
        amp_tls_set(saved->tls);
}

/* ---- polling ---------------------------------------------------------- */

unsigned long amp_sched_activity_sum(amp_sched_t *sched)
{
    unsigned long sum = 0;
    for (int i = 0; i < sched->npes; i++)
        sum += atomic_load_explicit(&sched->pes[i]->activity,
                                    memory_order_relaxed);
    return sum;
}

int amp_sched_poll_skip(void)
{
    amp_pe_t *pe = amp_pe_self();
    if (pe->runq_head || pe->pollers || !amp_inbox_is_empty(&pe->inbox) ||
        !amp_inbox_is_empty(&pe->arrivals) || !amp_inbox_is_empty(&pe->tasks) ||
        ++pe->poll_skips >= AMP_SCHED_POLL_SKIPS) {
        pe->poll_skips = 0;
        return 0;
    }
    return 1;
}

void amp_sched_poll_wait(unsigned polls)
{
    amp_pe_t *pe = amp_pe_self();
    amp_thread_t *thr = pe->current;
    if (polls < POLL_YIELDS || thr->pe != pe) {
        amp_sched_yield();
        return;
    }
    /* Listed once; a thread woken early is still listed (polling 0). */
    int listed = 0;
    for (amp_thread_t *t = pe->pollers; t && !listed; t = t->poll_next)
        listed = t == thr;
    if (!listed) {
        thr->poll_next = pe->pollers;
        pe->pollers = thr;
    }
    thr->polling = 1;
    atomic_fetch_add(&pe->sched->npollers, 1);
    thr->state = AMP_THREAD_BLOCKED;
    switch_away(pe, thr);
}

/* Makes the pollers of pe ready to poll again. */
static void release_pollers(amp_pe_t *pe)
{
    amp_thread_t *thr = pe->pollers;
    pe->pollers = NULL;
    while (thr) {
        amp_thread_t *next = thr->poll_next;
        thr->poll_next = NULL;
        if (thr->polling) {
            thr->polling = 0;
            atomic_fetch_sub(&pe->sched->npollers, 1);
            thr->state = AMP_THREAD_READY;
            runq_push(pe, thr);
        }
        thr = next;
    }
}

/* Nothing else to run on pe but its pollers: their next round, at once
 * when something happened since the last one, else after a sleep in which
 * pe counts as idle (work that arrives ends it).  NULL: nothing to run. */
static amp_thread_t *poll_round(amp_pe_t *pe)
{
    unsigned long act = amp_sched_activity_sum(pe->sched);
    if (act == pe->poll_seen) {
        idle(pe, POLL_SLEEP_NS);
        pe->run_start = amp_sched_cycles(); /* idle time is nobody's */
    }
    pe->poll_seen = amp_sched_activity_sum(pe->sched);
    amp_sched_poll(pe);
    release_pollers(pe);
    return runq_pop(pe);
}

/* With every PE idle and nothing in flight: whether the pollers (if any)
 * have waited in vain long enough for that to be a deadlock.  The clock
 * starts again whenever the activity has changed. */
static int polls_hopeless(amp_sched_t *sched)
{
    if (!atomic_load(&sched->npollers))
        return 1;
    unsigned long act = amp_sched_activity_sum(sched);
    long now = now_ns();
    if (act != atomic_load(&sched->poll_act) ||
        !atomic_load(&sched->poll_since)) {
        atomic_store(&sched->poll_act, act);
        atomic_store(&sched->poll_since, now);
        return 0;
    }
    long limit =
        sched->poll_deadlock_ns ? sched->poll_deadlock_ns : POLL_DEADLOCK_NS;
    return now - atomic_load(&sched->poll_since) >= limit;
}

static void pe_wake(amp_pe_t *pe)
{
    if (atomic_load(&pe->sleep_state) != PE_ASLEEP)
        return;
    if (atomic_exchange(&pe->sleep_state, PE_AWAKE) != PE_ASLEEP)
        return;
    if (pe->sched->on_wake)
        pe->sched->on_wake(pe);
    else
        syscall(SYS_futex, &pe->sleep_state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL,
                0);
}

static void wake_all(amp_sched_t *sched)
{
    for (int i = 0; i < sched->npes; i++)
        pe_wake(sched->pes[i]);
}

void amp_sched_exit(void)
{
    amp_sched_go_home();
    amp_pe_t *pe = amp_pe_self();
    amp_thread_t *thr = pe->current;
    thr->state = AMP_THREAD_DONE;
    if (atomic_fetch_sub(&pe->sched->live, 1) == 1) {
        atomic_store(&pe->sched->done, 1);
        wake_all(pe->sched);
    }
    switch_away(pe, thr);
    amp_assert(!"a finished thread was resumed");
    abort();
}

void amp_sched_vanish(void)
{
    amp_pe_t *pe = amp_pe_self();
    pe->moved_out++;
    pe->aside = NULL;
    pe->vanished = (amp_thread_t){.pe = pe, .state = AMP_THREAD_RUNNING};
    pe->current = &pe->vanished;
    amp_sched_exit();
}

void amp_sched_aside(void *stack, size_t size, amp_ult_entry_fn_t fn, void *arg)
{
    amp_pe_t *pe = amp_pe_self();
    amp_thread_t *thr = pe->current;
    /* On the caller's stack: a copy resumed elsewhere never looks at it. */
    amp_ult_ctx_t aside;
    amp_ult_ctx_make(&aside, stack, size, fn, arg);
    pe->aside = &aside;
    amp_ult_switch(&thr->ctx, &aside);
}

void amp_sched_aside_end(void)
{
    amp_pe_t *pe = amp_pe_self();
    amp_ult_ctx_t *aside = pe->aside;
    pe->aside = NULL;
    amp_ult_switch(aside, &pe->current->ctx);
    amp_assert(!"an aside context was resumed");
    abort();
}

void amp_sched_post(amp_pe_t *pe, amp_inbox_item_t *item)
{
    amp_inbox_push(&pe->inbox, item);
    pe_wake(pe);
}

void amp_sched_notify(amp_pe_t *pe)
{
    pe_wake(pe);
}

void amp_sched_post_task(amp_pe_t *pe, amp_sched_task_t *task)
{
    amp_inbox_push(&pe->tasks, &task->item);
    pe_wake(pe);
}

static AMP_POLL_PATH int has_work(amp_pe_t *pe)
{
    amp_sched_t *sched = pe->sched;
    return !amp_inbox_is_empty(&pe->inbox) ||
           !amp_inbox_is_empty(&pe->arrivals) ||
           !amp_inbox_is_empty(&pe->tasks) || atomic_load(&sched->done) ||
           (sched->pending && sched->pending(pe));
}

/* Every PE idle, every inbox and channel empty, nothing under way outside
 * the PEs, and no PE woke up meanwhile: nothing can make progress any more.  (A
 * PE leaves the idle count before it bumps the epoch and before it drains its
 * inbox.) */
static int deadlocked(amp_sched_t *sched, long *seen)
{
    long epoch = *seen = atomic_load(&sched->epoch);
    if (atomic_load(&sched->idle) != sched->npes ||
        atomic_load(&sched->outside) > 0)
        return 0;
    for (int i = 0; i < sched->npes; i++) {
        amp_pe_t *pe = sched->pes[i];
        if (!amp_inbox_is_empty(&pe->inbox) ||
            !amp_inbox_is_empty(&pe->arrivals) ||
            !amp_inbox_is_empty(&pe->tasks) ||
            (sched->pending && sched->pending(pe)))
            return 0;
    }
    if (atomic_load(&sched->done))
        return 0;
    return atomic_load(&sched->epoch) == epoch &&
           atomic_load(&sched->idle) == sched->npes &&
           atomic_load(&sched->outside) == 0;
}

/* The deadlock that deadlocked() found at epoch holds still once the
 * other PEs are stopped: no PE woke meanwhile (one that wakes from now on
 * stops, see sleep_until_posted).  Else they go on. */
static int halt_if_unchanged(amp_sched_t *sched, long epoch)
{
    int none = 0;
    if (!atomic_compare_exchange_strong(&sched->halted, &none, 1))
        return 0; /* another PE reports */
    if (atomic_load(&sched->idle) == sched->npes &&
        atomic_load(&sched->epoch) == epoch)
        return 1;
    atomic_store(&sched->halted, 0);
    return 0;
}

/* pe, awake, waits while the PEs are halted. */
static void stop_while_halted(amp_pe_t *pe)
{
    atomic_store(&pe->still, 1);
    while (atomic_load(&pe->sched->halted)) {
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
    }
    atomic_store(&pe->still, 0);
}

static void sleep_until_posted(amp_pe_t *pe, long sleep_ns)
{
    amp_sched_t *sched = pe->sched;
    atomic_store(&pe->still, 1);
    atomic_store(&pe->sleep_state, PE_ASLEEP);
    int nidle = atomic_fetch_add(&sched->idle, 1) + 1;
    if (!has_work(pe)) {
        long epoch;
        if ((sched->on_deadlock || sched->on_quiet) && nidle == sched->npes &&
            deadlocked(sched, &epoch) && polls_hopeless(sched)) {
            if (!sched->on_deadlock) {
                sched->on_quiet(sched);
            } else if (halt_if_unchanged(sched, epoch)) {
                sched->on_deadlock(sched); /* the report: the PEs stand */
                amp_sched_resume(sched);
            }
        }
        struct timespec ts = {sleep_ns / 1000000000L, sleep_ns % 1000000000L};
        if (sched->on_sleep)
            sched->on_sleep(pe, sleep_ns);
        else
            syscall(SYS_futex, &pe->sleep_state, FUTEX_WAIT_PRIVATE, PE_ASLEEP,
                    &ts, NULL, 0);
    }
    atomic_store(&pe->sleep_state, PE_AWAKE);
    /* Leaves the idle count, then looks for a halt: a halter that set it
     * after this PE looked sees this PE gone from the count. */
    atomic_fetch_sub(&sched->idle, 1);
    atomic_store(&pe->still, 0);
    if (atomic_load(&sched->halted))
        stop_while_halted(pe);
    atomic_fetch_add(&sched->epoch, 1);
}

int amp_sched_halt(amp_sched_t *sched)
{
    int none = 0;
    int own = atomic_compare_exchange_strong(&sched->halted, &none, 1);
    amp_pe_t *self = amp_pe_self();
    long until = now_ns() + 1000000000L;
    for (int i = 0; i < sched->npes; i++) {
        amp_pe_t *pe = sched->pes[i];
        while (pe != self && !atomic_load(&pe->still) && now_ns() < until) {
            struct timespec ts = {0, 100000L};
            nanosleep(&ts, NULL);
        }
    }
    return own;
}

void amp_sched_resume(amp_sched_t *sched)
{
    atomic_store(&sched->halted, 0);
}

/* ---- lending (see sched.h) ------------------------------------------ */

int amp_sched_lending;

void amp_sched_set_steal(amp_sched_t *sched, int on, long idle_ns)
{
    sched->steal = on && sched->npes > 1;
    amp_sched_lending =
        (sched->steal ? AMP_SCHED_LENDS : 0) |
        (amp_sched_lending & (AMP_SCHED_TRACED | AMP_SCHED_LODGES));
    sched->steal_idle_ns = idle_ns > 0 ? idle_ns : STEAL_IDLE_NS;
}

/* pe no longer waits for an answer from the PE it asked. */
static void steal_withdraw(amp_pe_t *pe)
{
    if (!pe->asked)
        return;
    int me = pe->id + 1;
    atomic_compare_exchange_strong(&pe->asked->thief, &me, 0);
    pe->asked = NULL;
}

/* pe, idle for spun ns, asks a busy PE for a thread (one at a time; after
 * STEAL_RETRY_NS without an answer, the next busy one). */
static void steal_ask(amp_pe_t *pe, long spun)
{
    amp_sched_t *sched = pe->sched;
    if (!sched->steal || spun < sched->steal_idle_ns)
        return;
    long now = now_ns();
    if (pe->asked && now - pe->asked_at < STEAL_RETRY_NS)
        return;
    int from = pe->asked ? pe->asked->id : pe->id;
    steal_withdraw(pe);
    for (int k = 1; k < sched->npes; k++) {
        amp_pe_t *v = sched->pes[(from + k) % sched->npes];
        int none = 0;
        if (v == pe || atomic_load_explicit(&v->idling, memory_order_relaxed))
            continue;
        if (atomic_compare_exchange_strong(&v->thief, &none, pe->id + 1)) {
            pe->asked = v;
            pe->asked_at = now;
            return;
        }
    }
    pe->asked_at = now; /* nobody busy: look again later */
}

void amp_sched_call_home(amp_pe_t *pe, amp_thread_t *thr)
{
    go_home(pe, thr);
}

/* A lodged thread leaving its outermost call at home goes back to its
 * lodge (not while a PE acts for it: it is not the one running). */
static void back_to_lodge(amp_pe_t *pe, amp_thread_t *thr)
{
    if (thr != pe->current || amp_pe_self() != pe)
        return;
    thr->away = 1;
    leave_for(pe, thr, thr->lodge, 0);
}

void amp_sched_lend(amp_thread_t *thr, const void *site)
{
    amp_pe_t *pe = thr->pe;
    if (thr->lodge) {
        back_to_lodge(pe, thr);
        return;
    }
    amp_sched_t *sched = pe->sched;
    int want = atomic_load(&pe->thief);
    if (!want)
        return;
    if (!pe->runq_head) { /* nobody waits here: nothing to gain */
        atomic_compare_exchange_strong(&pe->thief, &want, 0);
        return;
    }
    if (thr->pe != pe || thr != pe->current ||
        (sched->may_lend && !sched->may_lend(thr)))
        return; /* the next thread to leave a call may go */
    if (!worth_lending(sched, thr, site))
        return; /* as short as it ran here before: the next may go */
    if (!atomic_compare_exchange_strong(&pe->thief, &want, 0))
        return;
    amp_pe_t *to = sched->pes[want - 1];
    if (!atomic_load(&to->idling))
        return; /* it found work meanwhile */
    thr->lent_site = site;
    thr->lent++;
    thr->away = 1;
    pe->lent_out++;
    leave_for(pe, thr, to, 0);
    thr->lent_at = now_ns(); /* running on to (after its wake-up) */
}

void amp_sched_lodge(amp_pe_t *to)
{
    amp_pe_t *pe = amp_pe_self();
    amp_thread_t *thr = pe->current;
    amp_assert(thr->pe == pe);
    if (to == pe) {
        thr->lodge = NULL;
        return;
    }
    __atomic_fetch_or(&amp_sched_lending, AMP_SCHED_LODGES, __ATOMIC_RELAXED);
    thr->lodge = to;
    back_to_lodge(pe, thr);
}

static AMP_POLL_PATH void idle(amp_pe_t *pe, long sleep_ns)
{
    if (__builtin_expect(pe->trace != NULL, 0))
        amp_trace_put(pe->trace, AMP_TRACE_IDLE, 0, 0, 0, 0, 0);
    long start = now_ns(), spun = 0, yielded = start;
    int crowded =
        atomic_load_explicit(&pe->sched->crowded, memory_order_relaxed);
    atomic_store_explicit(&pe->idling, 1, memory_order_relaxed);
    do {
        int hot = spun < IDLE_HOT_NS && !crowded;
        for (int i = 0; i < (crowded ? 1 : 64); i++) {
            if (has_work(pe))
                goto out;
            if (!hot)
                __builtin_ia32_pause();
        }
        long now = now_ns();
        /* Another process's PE may need this core: yield it every
         * CROWDED_YIELD_NS, however long a look takes (a system call for
         * a network polled through its sockets). */
        if (crowded && now - yielded >= CROWDED_YIELD_NS) {
            sched_yield();
            now = yielded = now_ns();
        }
        spun = now - start;
        steal_ask(pe, spun);
    } while (spun < IDLE_SPIN_NS);
    sleep_until_posted(pe, sleep_ns);
out:
    steal_withdraw(pe);
    atomic_store_explicit(&pe->idling, 0, memory_order_relaxed);
    if (__builtin_expect(pe->trace != NULL, 0))
        amp_trace_put(pe->trace, AMP_TRACE_BUSY, 0, 0, 0, 0, 0);
}

void amp_sched_set_traced(amp_sched_t *sched, amp_trace_t *t)
{
    for (int i = 0; i < sched->npes; i++)
        sched->pes[i]->trace = t->pes[i];
    amp_sched_lending |= AMP_SCHED_TRACED;
}

void amp_sched_trace_call(amp_thread_t *thr, const char *name, int leave)
{
    amp_pe_t *pe = amp_pe_self();
    if (!thr || !pe || !pe->trace)
        return;
    amp_trace_put(pe->trace, leave ? AMP_TRACE_LEAVE : AMP_TRACE_ENTER, 0,
                  thr->trace_id, amp_trace_name_id(pe->trace, name), 0, 0);
}

void amp_sched_set_crowded(amp_sched_t *sched, int crowded)
{
    atomic_store_explicit(&sched->crowded, crowded, memory_order_relaxed);
}

void amp_sched_relax(void)
{
    if (atomic_load_explicit(&amp_pe_self()->sched->crowded,
                             memory_order_relaxed))
        sched_yield();
    else
        __builtin_ia32_pause();
}

/* The thread that switched out to migrate is off its stack now: hand it
 * to its new PE. */
static void hand_off(amp_pe_t *pe)
{
    amp_thread_t *thr = pe->leaving;
    amp_pe_t *to = pe->leaving_to;
    pe->leaving = NULL;
    if (pe->leaving_home) {
        thr->pe = to;
        thr->moved = 1;
        pe->moved_out++;
        if (thr->lodge == to) /* at home where it lodged */
            thr->lodge = NULL;
    }
    thr->state = AMP_THREAD_READY;
    amp_inbox_push(&to->arrivals, &thr->arrival);
    pe_wake(to);
}

void amp_sched_expect(amp_sched_t *sched, int n)
{
    atomic_fetch_add(&sched->live, n);
}

void amp_sched_spawn_expected(amp_thread_t *thr)
{
    thr->state = AMP_THREAD_READY;
    thr->moved = 1;
    amp_pe_t *pe = thr->pe; /* once pushed, thr may run, move or end */
    amp_inbox_push(&pe->arrivals, &thr->arrival);
    pe_wake(pe);
}

void amp_sched_spawn_remote(amp_thread_t *thr)
{
    atomic_fetch_add(&thr->pe->sched->live, 1);
    amp_sched_spawn_expected(thr);
}

void amp_sched_migrate(amp_pe_t *to)
{
    amp_pe_t *pe = amp_pe_self();
    amp_thread_t *thr = pe->current;
    if (to == pe)
        return;
    leave_for(pe, thr, to, 1);
}

/* The current stretch of pe's running thread, as charged so far. */
static uint64_t stretch(const amp_pe_t *pe)
{
    const amp_thread_t *thr = pe->current;
    return thr && !thr->waiting ? amp_sched_cycles() - pe->run_start : 0;
}

uint64_t amp_sched_self_busy(void)
{
    amp_pe_t *pe = amp_pe_self();
    return pe->current->busy + stretch(pe);
}

uint64_t amp_sched_pe_busy(void)
{
    amp_pe_t *pe = amp_pe_self();
    return pe->busy + stretch(pe);
}

void amp_sched_wait_begin(void)
{
    amp_pe_t *pe = amp_pe_self();
    amp_thread_t *thr = pe->current;
    if (!thr || thr->waiting)
        return;
    uint64_t now = amp_sched_cycles();
    thr->busy += now - pe->run_start;
    pe->busy += now - pe->run_start;
    pe->run_start = now;
    thr->waiting = 1;
}

void amp_sched_wait_end(void)
{
    amp_pe_t *pe = amp_pe_self();
    amp_thread_t *thr = pe->current;
    if (!thr || !thr->waiting)
        return;
    pe->run_start = amp_sched_cycles();
    thr->waiting = 0;
}

int amp_sched_quiet(amp_sched_t *sched)
{
    for (int i = 0; i < sched->npes; i++) {
        amp_pe_t *pe = sched->pes[i];
        if (!amp_inbox_is_empty(&pe->inbox) ||
            !amp_inbox_is_empty(&pe->arrivals) ||
            !amp_inbox_is_empty(&pe->tasks) ||
            (sched->pending && sched->pending(pe)))
            return 0;
    }
    return 1;
}

void amp_sched_run(amp_pe_t *pe)
{
    amp_pe_set_self(pe);
    pe->kernel_tls = amp_tls_get();
    pe->run_from = amp_sched_cycles();
    for (;;) {
        amp_sched_poll(pe);
        amp_thread_t *next = runq_pop(pe);
        if (next) {
            pe->run_start = amp_sched_cycles();
            switch_to(pe, &pe->sched_ctx, next);
            pe = amp_pe_self();
            if (pe->leaving)
                hand_off(pe);
            continue;
        }
        if (atomic_load(&pe->sched->done)) {
            pe->run_until = amp_sched_cycles();
            atomic_store(&pe->still, 1);
            break;
        }
        if (pe->pollers && (next = poll_round(pe))) {
            pe->run_start = amp_sched_cycles();
            switch_to(pe, &pe->sched_ctx, next);
            pe = amp_pe_self();
            if (pe->leaving)
                hand_off(pe);
            continue;
        }
        idle(pe, IDLE_SLEEP_NS);
    }
}
