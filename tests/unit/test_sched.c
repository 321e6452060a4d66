/* The scheduler without MPI: user-level threads on PEs (kernel threads
 * this test starts), yield, block and wake, tasks, migration between PEs,
 * and deadlock detection (with what each blocked thread waits for, as the
 * deadlock report reads it from p2p's endpoints). */
#include "unit.h"

#include "base/sanitize.h"
#include "p2p/p2p.h"
#include "sched/sched.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define STACK_BYTES (64 * 1024)
#define MAX_PES 4
#define MAX_THREADS 16

static amp_sched_t sched;
static amp_thread_t thr[MAX_THREADS];
static char *stacks[MAX_THREADS];
static pthread_t kernel[MAX_PES];
static atomic_long kernel_tid[MAX_PES]; /* the kernel thread of each PE */

/* The calling kernel thread (a system call: never cached across a switch,
 * as pthread_self(), a const function, may be). */
static long tid(void)
{
    return syscall(SYS_gettid);
}

/* What the threads of a test did, in order (one PE at a time). */
static int events[64];
static int nevents;

static void event(int e)
{
    UNIT_TRUE(nevents < 64);
    events[nevents++] = e;
}

static void expect_events(const int *want, int n)
{
    UNIT_EQ(nevents, n);
    for (int i = 0; i < n; i++)
        UNIT_EQ(events[i], want[i]);
}

/* An inbox item: sets flag on the PE it was posted to and wakes wake. */
typedef struct note {
    amp_inbox_item_t item;
    amp_thread_t *wake;
    atomic_int flag;
    atomic_int seen_pe;
} note_t;

static void on_item(amp_pe_t *pe, amp_inbox_item_t *item)
{
    note_t *n = AMP_CONTAINER_OF(item, note_t, item);
    UNIT_TRUE(amp_pe_self() == pe);
    atomic_store(&n->seen_pe, pe->id);
    atomic_store(&n->flag, 1);
    if (n->wake)
        amp_sched_wake(n->wake);
}

static void no_deadlock(amp_sched_t *s)
{
    (void)s;
    unit_fail(__FILE__, __LINE__, "no deadlock expected", 1, 0);
}

static void start(int npes, amp_sched_deadlock_fn_t on_deadlock)
{
    amp_sched_hooks_t hooks = {.on_item = on_item, .on_deadlock = on_deadlock};
    UNIT_EQ(amp_sched_init(&sched, npes, &hooks), AMP_OK);
}

/* Thread i runs fn((void *)i) on PE pe. */
static void spawn(int i, int pe, amp_ult_entry_fn_t fn)
{
    stacks[i] = malloc(STACK_BYTES);
    UNIT_TRUE(stacks[i] != NULL);
    amp_sched_thread_init(&thr[i], sched.pes[pe], stacks[i], STACK_BYTES, NULL,
                          fn, (void *)(long)i);
    amp_sched_spawn(&thr[i]);
}

static int on_own_stack(int i, const void *p)
{
    return (const char *)p >= stacks[i] &&
           (const char *)p < stacks[i] + STACK_BYTES;
}

static void *pe_main(void *arg)
{
    amp_pe_t *pe = arg;
    atomic_store(&kernel_tid[pe->id], tid());
    amp_sched_run(pe);
    return NULL;
}

/* Runs every PE (PE 0 on the calling thread) until every thread is done. */
static void run(void)
{
    atomic_store(&kernel_tid[0], tid());
    for (int i = 1; i < sched.npes; i++)
        UNIT_EQ(pthread_create(&kernel[i], NULL, pe_main, sched.pes[i]), 0);
    amp_sched_run(sched.pes[0]);
    for (int i = 1; i < sched.npes; i++)
        UNIT_EQ(pthread_join(kernel[i], NULL), 0);
    UNIT_EQ(atomic_load(&sched.live), 0);
    UNIT_EQ(atomic_load(&sched.done), 1);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- yield, block, wake ----------------------------------------------- */

static void yielder(void *arg)
{
    for (int round = 0; round < 3; round++) {
        event((int)(long)arg);
        amp_sched_yield();
    }
    amp_sched_exit();
}

UNIT_TEST(sched_yield_takes_turns_in_fifo_order)
{
    start(1, no_deadlock);
    for (int i = 0; i < 3; i++)
        spawn(i, 0, yielder);
    run();
    expect_events((int[]){0, 1, 2, 0, 1, 2, 0, 1, 2}, 9);
    for (int i = 0; i < 3; i++) {
        UNIT_EQ(thr[i].state, AMP_THREAD_DONE);
        UNIT_EQ(thr[i].resumes, 4); /* its start and three yields */
    }
}

/* A thread alone on its PE gets the PE straight back when it yields. */
UNIT_TEST(sched_yield_alone_returns_at_once)
{
    start(1, no_deadlock);
    spawn(0, 0, yielder);
    run();
    expect_events((int[]){0, 0, 0}, 3);
    UNIT_EQ(thr[0].resumes, 4);
}

static atomic_int ready_flag;

static void sleeper(void *arg)
{
    (void)arg;
    event(10);
    while (!atomic_load(&ready_flag)) {
        amp_sched_block();
        event(11); /* each time it runs again */
    }
    UNIT_EQ(amp_pe_self()->current, &thr[0]);
    amp_sched_exit();
}

static void waker(void *arg)
{
    (void)arg;
    UNIT_EQ(thr[0].state, AMP_THREAD_BLOCKED);
    event(20);
    amp_sched_wake(&thr[0]); /* too early: it must block again */
    UNIT_EQ(thr[0].state, AMP_THREAD_READY);
    amp_sched_yield();
    UNIT_EQ(thr[0].state, AMP_THREAD_BLOCKED);
    event(21);
    atomic_store(&ready_flag, 1);
    amp_sched_wake(&thr[0]);
    /* A ready thread is not queued twice. */
    amp_sched_wake(&thr[0]);
    amp_sched_exit();
}

UNIT_TEST(sched_block_waits_for_wake)
{
    start(1, no_deadlock);
    spawn(0, 0, sleeper);
    spawn(1, 0, waker);
    run();
    expect_events((int[]){10, 20, 11, 21, 11}, 5);
    UNIT_EQ(thr[0].resumes, 3); /* start, the early wake, the real one */
    UNIT_EQ(thr[1].resumes, 2);
}

static note_t note;

static void blocked_on_pe0(void *arg)
{
    (void)arg;
    while (!atomic_load(&note.flag))
        amp_sched_block();
    UNIT_EQ(amp_pe_self()->id, 0);
    UNIT_EQ(tid(), atomic_load(&kernel_tid[0]));
    amp_sched_exit();
}

/* From PE 1, once PE 0 sleeps with its only thread blocked. */
static void poster(void *arg)
{
    (void)arg;
    while (atomic_load(&sched.idle) < 1)
        sleep_ms(1);
    UNIT_EQ(thr[0].state, AMP_THREAD_BLOCKED);
    note.wake = &thr[0];
    amp_sched_post(sched.pes[0], &note.item);
    amp_sched_exit();
}

/* A thread is woken on its own PE by what another PE posts to that PE,
 * which wakes it from its idle sleep. */
UNIT_TEST(sched_post_wakes_a_sleeping_pe)
{
    start(2, no_deadlock);
    atomic_store(&note.seen_pe, -1);
    spawn(0, 0, blocked_on_pe0);
    spawn(1, 1, poster);
    run();
    UNIT_EQ(atomic_load(&note.seen_pe), 0);
    UNIT_EQ(thr[0].state, AMP_THREAD_DONE);
}

static amp_sched_task_t task;
static atomic_int task_pe;

static void spawned_by_task(void *arg)
{
    (void)arg;
    UNIT_EQ(amp_pe_self()->id, 1);
    event(2);
    amp_sched_exit();
}

static void task_fn(amp_pe_t *pe, amp_sched_task_t *t)
{
    UNIT_TRUE(t == &task);
    UNIT_TRUE(amp_pe_self() == pe);
    UNIT_TRUE(pe->current == NULL || pe->current->pe == pe);
    spawn(1, pe->id, spawned_by_task);
    atomic_store(&task_pe, pe->id);
}

static void task_poster(void *arg)
{
    (void)arg;
    task.fn = task_fn;
    event(1);
    amp_sched_post_task(sched.pes[1], &task);
    /* Lives on until the task has started its thread: the process ends
     * when no thread is left. */
    while (atomic_load(&task_pe) < 0)
        sleep_ms(1);
    amp_sched_exit();
}

/* A task runs in its PE's scheduler and may start threads there; the
 * thread it starts keeps the process alive. */
UNIT_TEST(sched_task_runs_on_its_pe)
{
    start(2, no_deadlock);
    atomic_store(&task_pe, -1);
    spawn(0, 0, task_poster);
    run();
    UNIT_EQ(atomic_load(&task_pe), 1);
    expect_events((int[]){1, 2}, 2);
    UNIT_EQ(thr[1].state, AMP_THREAD_DONE);
}

/* ---- migration -------------------------------------------------------- */

static void mover(void *arg)
{
    int i = (int)(long)arg;
    int local = 1234;
    UNIT_EQ(amp_pe_self()->id, 0);
    UNIT_TRUE(on_own_stack(i, &local));
    amp_sched_migrate(sched.pes[1]);
    amp_pe_t *pe = amp_pe_self();
    UNIT_EQ(pe->id, 1);
    UNIT_TRUE(thr[i].pe == pe);
    UNIT_TRUE(pe->current == &thr[i]);
    UNIT_EQ(thr[i].state, AMP_THREAD_RUNNING);
    UNIT_EQ(tid(), atomic_load(&kernel_tid[1]));
    /* The same stack, not a copy. */
    UNIT_TRUE(on_own_stack(i, &local));
    UNIT_EQ(local, 1234);
    amp_sched_migrate(pe); /* to its own PE: nothing happens */
    UNIT_TRUE(amp_pe_self() == pe);
    amp_sched_migrate(sched.pes[0]);
    UNIT_EQ(amp_pe_self()->id, 0);
    UNIT_EQ(tid(), atomic_load(&kernel_tid[0]));
    amp_sched_exit();
}

UNIT_TEST(sched_migrate_moves_a_thread_to_another_pe)
{
    start(2, no_deadlock);
    spawn(0, 0, mover);
    run();
    UNIT_TRUE(thr[0].pe == sched.pes[0]);
    UNIT_EQ(thr[0].state, AMP_THREAD_DONE);
    UNIT_TRUE(thr[0].busy > 0);
}

/* A thread lodged on PE 1 runs there between its calls, goes home to PE 0
 * for each call and back at its end; a move of its home to PE 1 ends the
 * lodging. */
static void lodger(void *arg)
{
    int i = (int)(long)arg;
    amp_pe_t *home = sched.pes[0], *lodge = sched.pes[1];
    amp_sched_lodge(home); /* its own home: nothing happens */
    UNIT_TRUE(amp_pe_self() == home && thr[i].lodge == NULL);
    amp_sched_lodge(lodge);
    UNIT_TRUE(amp_pe_self() == lodge);
    UNIT_EQ(tid(), atomic_load(&kernel_tid[1]));
    UNIT_TRUE(thr[i].pe == home && amp_sched_where(&thr[i]) == lodge);
    for (int k = 0; k < 3; k++) {
        amp_thread_t *self = amp_sched_call_enter();
        UNIT_TRUE(self == &thr[i] && amp_pe_self() == home);
        amp_thread_t *inner = amp_sched_call_enter(); /* nested: stays */
        amp_sched_call_leave(inner);
        UNIT_TRUE(amp_pe_self() == home);
        amp_sched_call_leave(self);
        UNIT_TRUE(amp_pe_self() == lodge);
    }
    amp_thread_t *self = amp_sched_call_enter();
    amp_sched_migrate(lodge);
    UNIT_TRUE(thr[i].pe == lodge && thr[i].lodge == NULL);
    amp_sched_call_leave(self);
    UNIT_TRUE(amp_pe_self() == lodge);
    amp_sched_exit();
}

UNIT_TEST(sched_lodge_runs_a_thread_elsewhere_between_its_calls)
{
    start(2, no_deadlock);
    spawn(0, 0, lodger);
    run();
    UNIT_TRUE(thr[0].pe == sched.pes[1]);
    UNIT_EQ(thr[0].state, AMP_THREAD_DONE);
}

/* ---- lending by call site ---- */

#define LENDERS 4
#define LEND_ROUNDS 300

/* Runs of each kind that ran lent, counted by their thread. */
static long lent_long[LENDERS], lent_short[LENDERS];

static void spin_us(long us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 <
           us);
}

/* Two calls, each returning to its own site in lender. */
static __attribute__((noinline)) void call_before_long(void)
{
    amp_sched_call_leave(amp_sched_call_enter());
}

static __attribute__((noinline)) void call_before_short(void)
{
    amp_sched_call_leave(amp_sched_call_enter());
}

static void lender(void *arg)
{
    int i = (int)(long)arg;
    for (int round = 0; round < LEND_ROUNDS; round++) {
        call_before_long();
        int away = amp_pe_self() != thr[i].pe;
        spin_us(200);
        lent_long[i] += away;
        call_before_short();
        away = amp_pe_self() != thr[i].pe;
        spin_us(2);
        lent_short[i] += away;
        amp_sched_yield();
    }
    amp_sched_exit();
}

/* Threads on PE 0 compute 200 us after one call and 2 us after another;
 * PE 1 has none and asks for work.  The asks come while a thread computes
 * long, so the next call to end is mostly the one before the short run:
 * lent there, the thread is back at once (without lending by call site,
 * 90 to 100% of the lends).  Two thirds of the lends or more must come
 * after the call before the long runs. */
UNIT_TEST(sched_lends_where_threads_compute_long)
{
    start(2, no_deadlock);
    amp_sched_set_steal(&sched, 1, 0);
    for (int i = 0; i < LENDERS; i++)
        spawn(i, 0, lender);
    run();
    amp_sched_set_steal(&sched, 0, 0);
    long lng = 0, shrt = 0;
    for (int i = 0; i < LENDERS; i++) {
        lng += lent_long[i];
        shrt += lent_short[i];
    }
    UNIT_TRUE(lng >= 8);
    UNIT_TRUE(shrt * 2 < lng);
}

#define HOPPERS 8
#define HOPS 300

/* Rounds each thread made, counted by the PE that ran it (no PE touches
 * another's count). */
static long per_pe[MAX_PES][HOPPERS];

static void hopper(void *arg)
{
    int i = (int)(long)arg;
    for (int hop = 0; hop < HOPS; hop++) {
        amp_pe_t *to = sched.pes[(i + hop + 1) % sched.npes];
        amp_sched_migrate(to);
        amp_pe_t *pe = amp_pe_self();
        UNIT_TRUE(pe == to);
        UNIT_TRUE(thr[i].pe == to);
        UNIT_TRUE(pe->current == &thr[i]);
        per_pe[pe->id][i]++;
        amp_sched_yield();
        UNIT_TRUE(amp_pe_self() == to);
    }
    amp_sched_exit();
}

/* Many threads moving around three PEs at once, yielding in between: each
 * always resumes where it went, and every round is counted once. */
UNIT_TEST(sched_migrate_many_threads_around_pes)
{
    start(3, no_deadlock);
    for (int i = 0; i < HOPPERS; i++)
        spawn(i, i % 3, hopper);
    run();
    for (int i = 0; i < HOPPERS; i++) {
        long total = 0;
        for (int p = 0; p < 3; p++) {
            total += per_pe[p][i];
            UNIT_EQ(per_pe[p][i], HOPS / 3);
        }
        UNIT_EQ(total, HOPS);
        UNIT_EQ(thr[i].state, AMP_THREAD_DONE);
    }
}

/* ---- stopped aside, left, resumed from a saved context ----------------- */

#define ASIDE_STACK (16 * 1024)
static char *aside_stack;
static void *aside_sp;     /* the stopped thread's saved stack pointer */
static int aside_saw_self; /* the PE's current thread was the stopped one */
static int aside_on_stack; /* the function ran on the stack it was given */

static void aside_back(void *arg)
{
    int i = (int)(long)arg;
    int here;
    amp_pe_t *pe = amp_pe_self();
    aside_saw_self = pe->current == &thr[i];
    aside_sp = amp_sched_saved_sp(&thr[i]);
    aside_on_stack = (char *)&here >= aside_stack &&
                     (char *)&here < aside_stack + ASIDE_STACK;
    amp_sched_aside_end();
}

static void stops_aside(void *arg)
{
    int i = (int)(long)arg;
    volatile int local = 4321;
    amp_sched_aside(aside_stack, ASIDE_STACK, aside_back, arg);
    UNIT_EQ(local, 4321);
    UNIT_TRUE(amp_pe_self()->current == &thr[i]);
    UNIT_EQ(thr[i].state, AMP_THREAD_RUNNING);
    /* Stopped below this frame, on its own stack. */
    UNIT_TRUE(on_own_stack(i, aside_sp));
    UNIT_TRUE((char *)aside_sp < (char *)&local);
    event(1);
    amp_sched_yield(); /* the saved context is an ordinary one again */
    event(3);
    amp_sched_exit();
}

static void second(void *arg)
{
    (void)arg;
    event(2);
    amp_sched_exit();
}

/* A thread stopped while a function runs in its place on another stack
 * resumes where it stopped, as the PE's current thread throughout. */
UNIT_TEST(sched_aside_runs_in_place_of_a_stopped_thread)
{
    aside_stack = malloc(ASIDE_STACK);
    UNIT_TRUE(aside_stack != NULL);
    start(1, no_deadlock);
    spawn(0, 0, stops_aside);
    spawn(1, 0, second);
    run();
    UNIT_TRUE(aside_saw_self);
    UNIT_TRUE(aside_on_stack);
    static const int want[] = {1, 2, 3};
    expect_events(want, 3);
    UNIT_EQ(thr[0].state, AMP_THREAD_DONE);
}

/* What a move to another process does with a thread's memory, within one:
 * the stopped thread's stack from its saved stack pointer up is copied
 * away, the thread leaves its PE, its stack is overwritten, and another
 * thread puts the copy back and resumes it from the saved context on
 * another PE. */
static char *saved_copy;
static size_t saved_len;
static atomic_int left_pe;

static void aside_leave(void *arg)
{
    int i = (int)(long)arg;
    char *sp = amp_sched_saved_sp(&thr[i]);
    saved_len = (size_t)(stacks[i] + STACK_BYTES - sp);
    saved_copy = malloc(saved_len);
    UNIT_TRUE(saved_copy != NULL);
    amp_asan_unpoison(sp, saved_len); /* its frames' red zones too */
    memcpy(saved_copy, sp, saved_len);
    atomic_store(&left_pe, 1);
    amp_sched_vanish();
}

static void leaves(void *arg)
{
    int i = (int)(long)arg;
    volatile long local[4] = {11, 22, 33, 44};
    UNIT_EQ(amp_pe_self()->id, 0);
    amp_sched_aside(aside_stack, ASIDE_STACK, aside_leave, arg);
    /* The copy, on PE 1. */
    amp_pe_t *pe = amp_pe_self();
    UNIT_EQ(pe->id, 1);
    UNIT_TRUE(pe->current == &thr[i]);
    UNIT_TRUE(thr[i].pe == pe);
    UNIT_EQ(tid(), atomic_load(&kernel_tid[1]));
    UNIT_EQ(local[0] + local[1] + local[2] + local[3], 110);
    event(2);
    amp_sched_exit();
}

static void revives(void *arg)
{
    (void)arg;
    int i = 0;
    while (!atomic_load(&left_pe))
        amp_sched_yield();
    /* left_pe is set just before the vanish on PE 0 ends the thread: give
     * it a moment (a bounded one, so that a vanish that never ends it
     * still fails). */
    for (int n = 0; n < 1000000 && atomic_load(&sched.live) != 1; n++)
        amp_sched_yield();
    char *sp = stacks[i] + STACK_BYTES - saved_len;
    UNIT_EQ((long)atomic_load(&sched.live), 1); /* only this one */
    amp_asan_unpoison(stacks[i], STACK_BYTES);
    memset(stacks[i], 0x5a, STACK_BYTES);
    memset(&thr[i], 0x5a, sizeof(thr[i]));
    memcpy(sp, saved_copy, saved_len);
    amp_sched_thread_resume(&thr[i], amp_pe_self(), sp, stacks[i], STACK_BYTES,
                            NULL);
    UNIT_TRUE(thr[i].owner == NULL && thr[i].upper == NULL);
    UNIT_EQ(thr[i].state, AMP_THREAD_READY);
    event(1);
    amp_sched_spawn(&thr[i]);
    amp_sched_exit();
}

UNIT_TEST(sched_vanish_then_resume_a_copy_on_another_pe)
{
    aside_stack = malloc(ASIDE_STACK);
    UNIT_TRUE(aside_stack != NULL);
    start(2, no_deadlock);
    spawn(0, 0, leaves);
    spawn(1, 1, revives);
    run();
    static const int want[] = {1, 2};
    expect_events(want, 2);
    UNIT_EQ(thr[0].state, AMP_THREAD_DONE);
    UNIT_TRUE(thr[0].pe == sched.pes[1]);
    free(saved_copy);
}

/* ---- deadlock detection ----------------------------------------------- */

static void block_forever(void *arg)
{
    (void)arg;
    for (;;)
        amp_sched_block();
}

static void finish_at_once(void *arg)
{
    (void)arg;
    amp_sched_exit();
}

/* The detector's hook ends the process, as the runtime's report does. */
static void deadlock_of_blocked(amp_sched_t *s)
{
    UNIT_TRUE(s == &sched);
    UNIT_EQ(atomic_load(&s->idle), s->npes);
    UNIT_EQ(atomic_load(&s->live), 2);
    UNIT_EQ(thr[0].state, AMP_THREAD_BLOCKED);
    UNIT_EQ(thr[1].state, AMP_THREAD_BLOCKED);
    UNIT_EQ(thr[2].state, AMP_THREAD_DONE);
    UNIT_TRUE(!amp_sched_is_polling(&thr[0]));
    UNIT_TRUE(!amp_sched_is_polling(&thr[1]));
    UNIT_TRUE(amp_sched_quiet(s));
    _exit(0);
}

UNIT_TEST(sched_deadlock_detected_when_every_thread_blocks)
{
    start(2, deadlock_of_blocked);
    spawn(0, 0, block_forever);
    spawn(1, 1, block_forever);
    spawn(2, 0, finish_at_once);
    run();
    UNIT_TRUE(!"the PEs returned although two threads stay blocked");
}

static void poll_forever(void *arg)
{
    (void)arg;
    for (unsigned polls = 1;; polls++)
        amp_sched_poll_wait(polls);
}

static void deadlock_of_poller(amp_sched_t *s)
{
    UNIT_EQ(atomic_load(&s->npollers), 1);
    UNIT_TRUE(amp_sched_is_polling(&thr[0]));
    UNIT_EQ(thr[0].state, AMP_THREAD_BLOCKED);
    UNIT_EQ(thr[1].state, AMP_THREAD_BLOCKED);
    UNIT_TRUE(!amp_sched_is_polling(&thr[1]));
    _exit(0);
}

/* A thread that polls for what nothing will bring (MPI_Test in a loop)
 * beside one blocked for good: a deadlock once the activity has stood
 * still for poll_deadlock_ns. */
UNIT_TEST(sched_deadlock_detected_with_a_poller)
{
    start(2, deadlock_of_poller);
    sched.poll_deadlock_ns = 50000000L;
    spawn(0, 0, poll_forever);
    spawn(1, 1, block_forever);
    run();
    UNIT_TRUE(!"the PEs returned although a thread polls forever");
}

/* The report takes its time (a loaded machine): meanwhile the other PE's
 * poll sleep ends, and were it to poll its thread again, the report would
 * see a thread neither parked nor running. */
static void deadlock_of_pollers_seen_still(amp_sched_t *s)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do { /* 100 ms: 100 of the PEs' poll sleeps */
        UNIT_EQ(atomic_load(&s->npollers), 2);
        UNIT_TRUE(amp_sched_is_polling(&thr[0]));
        UNIT_TRUE(amp_sched_is_polling(&thr[1]));
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec <
             100000000L);
    UNIT_EQ(thr[0].state, AMP_THREAD_BLOCKED);
    UNIT_EQ(thr[1].state, AMP_THREAD_BLOCKED);
    _exit(0);
}

/* Once a deadlock is found the other PEs stop where they are until the
 * report is done: pollers on both PEs are still parked as such however
 * long the report takes. */
UNIT_TEST(sched_deadlock_report_sees_pollers_stand_still)
{
    start(2, deadlock_of_pollers_seen_still);
    sched.poll_deadlock_ns = 50000000L;
    spawn(0, 0, poll_forever);
    spawn(1, 1, poll_forever);
    run();
    UNIT_TRUE(!"the PEs returned although two threads poll forever");
}

static atomic_int poll_go, poll_done;

/* Polls for poll_go, as a rank in an MPI_Iprobe loop does. */
static void poll_until_go(void *arg)
{
    (void)arg;
    for (unsigned polls = 1; !atomic_load(&poll_go); polls++)
        amp_sched_poll_wait(polls);
    atomic_store(&poll_done, 1);
    amp_sched_exit();
}

/* Once thread 0 is parked as a poller: sets poll_go and spins, yielding,
 * until thread 0 has seen it (or gives up). */
static void yield_until_polled(void *arg)
{
    (void)arg;
    while (!amp_sched_is_polling(&thr[0]))
        amp_sched_yield();
    atomic_store(&poll_go, 1);
    for (long n = 0; n < 1000000 && !atomic_load(&poll_done); n++)
        amp_sched_yield();
    UNIT_EQ(atomic_load(&poll_done), 1);
    amp_sched_exit();
}

/* A thread that spins yielding (a rank's thread in a mutex loop that
 * waits for another thread's MPI call) does not keep the pollers of its
 * PE from polling: they take their turn at its yields. */
UNIT_TEST(sched_pollers_run_beside_a_yielding_thread)
{
    start(1, no_deadlock);
    spawn(0, 0, poll_until_go);
    spawn(1, 0, yield_until_polled);
    run();
    UNIT_EQ(atomic_load(&poll_done), 1);
}

static void *outside_thread(void *arg)
{
    (void)arg;
    sleep_ms(300); /* long after every PE has gone idle */
    note.wake = &thr[0];
    amp_sched_post(sched.pes[0], &note.item);
    amp_sched_outside_end(&sched);
    return NULL;
}

/* While a kernel thread outside the PEs that may still post work is
 * counted, idle PEs wait without reporting a deadlock. */
UNIT_TEST(sched_no_deadlock_while_an_outside_thread_runs)
{
    pthread_t t;
    start(2, no_deadlock);
    spawn(0, 0, blocked_on_pe0);
    amp_sched_outside_begin(&sched);
    UNIT_EQ(pthread_create(&t, NULL, outside_thread, NULL), 0);
    run();
    UNIT_EQ(pthread_join(t, NULL), 0);
    UNIT_EQ(atomic_load(&note.flag), 1);
    UNIT_EQ(atomic_load(&sched.outside), 0);
}

static double poll_busy_share;

/* Polls for poll_go as poll_until_go does, and measures the part of the
 * time it was charged as running. */
static void poll_until_go_charged(void *arg)
{
    (void)arg;
    uint64_t c0 = amp_sched_cycles(), b0 = amp_sched_self_busy();
    for (unsigned polls = 1; !atomic_load(&poll_go); polls++)
        amp_sched_poll_wait(polls);
    uint64_t c1 = amp_sched_cycles(), b1 = amp_sched_self_busy();
    poll_busy_share = (double)(b1 - b0) / (double)(c1 - c0);
    amp_sched_exit();
}

static void *go_later(void *arg)
{
    (void)arg;
    sleep_ms(100);
    atomic_store(&poll_go, 1);
    amp_sched_outside_end(&sched);
    return NULL;
}

/* A poller parked while nothing happens waits in its PE's sleeps between
 * poll rounds: that time is nobody's, not the poller's load (before, each
 * round's sleep was charged to the poller it released, and a rank waiting
 * in a collective for another process looked as loaded as its busiest
 * peer to the load balancer). */
UNIT_TEST(sched_poll_sleeps_are_nobodys_time)
{
    pthread_t t;
    start(1, no_deadlock);
    atomic_store(&poll_go, 0);
    spawn(0, 0, poll_until_go_charged);
    amp_sched_outside_begin(&sched);
    UNIT_EQ(pthread_create(&t, NULL, go_later, NULL), 0);
    run();
    UNIT_EQ(pthread_join(t, NULL), 0);
    UNIT_TRUE(poll_busy_share >= 0);
    UNIT_TRUE(poll_busy_share < 0.5);
}

/* ---- what blocked threads wait for (with p2p) ------------------------- */

#define CTX 4

static amp_p2p_world_t world;
static amp_p2p_ep_t ep[3];
static amp_p2p_ep_t *eps[3];

/* Rank 0 waits for a receive from rank 1 with tag 7, rank 1 for one from
 * any source with any tag, rank 2 probes for tag 9 from rank 0. */
static void rank_main(void *arg)
{
    int r = (int)(long)arg;
    char buf[8];
    amp_p2p_req_t req = {0}, *reqs[1] = {&req};
    amp_p2p_probe_info_t info;
    if (r == 0)
        amp_p2p_irecv(&ep[0], buf, sizeof(buf),
                      (amp_p2p_env_t){.ctx = CTX, .src = 1, .tag = 7}, &req);
    else if (r == 1)
        amp_p2p_irecv(
            &ep[1], buf, sizeof(buf),
            (amp_p2p_env_t){.ctx = CTX, .src = AMP_P2P_ANY, .tag = AMP_P2P_ANY},
            &req);
    if (r < 2)
        amp_p2p_wait_all(&ep[r], reqs, 1);
    else
        amp_p2p_probe(&ep[2], CTX, 0, 9, &info);
    UNIT_TRUE(!"a receive without a send completed");
    amp_sched_exit();
}

static void deadlock_of_ranks(amp_sched_t *s)
{
    UNIT_EQ(atomic_load(&s->live), 3);
    for (int r = 0; r < 3; r++)
        UNIT_EQ(thr[r].state, AMP_THREAD_BLOCKED);
    UNIT_EQ(ep[0].wait_nreqs, 1);
    const amp_p2p_req_t *w0 = ep[0].wait_reqs[0];
    UNIT_TRUE(!w0->is_send && w0->waiter && !w0->done);
    UNIT_EQ(w0->peer, 1);
    UNIT_EQ(w0->tag, 7);
    UNIT_EQ(w0->ctx, CTX);
    const amp_p2p_req_t *w1 = ep[1].wait_reqs[0];
    UNIT_EQ(w1->peer, AMP_P2P_ANY);
    UNIT_EQ(w1->tag, AMP_P2P_ANY);
    UNIT_TRUE(ep[2].wait_reqs == NULL);
    UNIT_EQ(ep[2].probe_waiting, 1);
    UNIT_EQ(ep[2].probe_src, 0);
    UNIT_EQ(ep[2].probe_tag, 9);
    UNIT_EQ(ep[2].probe_ctx, CTX);
    _exit(0);
}

/* What the deadlock report says of each rank comes from its endpoint:
 * the requests it waits for, or the probe it blocks in. */
UNIT_TEST(sched_deadlock_shows_what_each_rank_waits_for)
{
    amp_sched_hooks_t hooks = {.on_item = amp_p2p_handle_item,
                               .on_poll = amp_p2p_poll,
                               .pending = amp_p2p_pending,
                               .on_deadlock = deadlock_of_ranks};
    UNIT_EQ(amp_sched_init(&sched, 2, &hooks), AMP_OK);
    world.eps = eps;
    world.nranks = 3;
    world.eager_limit = 64;
    world.nprocs = 1;
    for (int p = 0; p < 2; p++)
        UNIT_EQ(amp_p2p_pe_init(sched.pes[p], 64, &world), AMP_OK);
    for (int r = 0; r < 3; r++) {
        spawn(r, r % 2, rank_main);
        amp_p2p_ep_init(&ep[r], &world, r, &thr[r]);
        eps[r] = &ep[r];
    }
    run();
    UNIT_TRUE(!"the PEs returned although every rank waits");
}
