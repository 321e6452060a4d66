/* Moving ranks between the PEs of one process; see lb.h for the steps. */
#include "lb/lb.h"

#include "p2p/p2p.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

amp_status_t amp_lb_init(amp_lb_t *lb, amp_sched_t *sched, int first,
                         int nlocal, int *rank_pe)
{
    lb->sched = sched;
    lb->first = first;
    lb->nlocal = nlocal;
    lb->rank_pe = rank_pe;
    lb->threads = calloc((size_t)nlocal, sizeof(*lb->threads));
    lb->loads = calloc((size_t)nlocal, sizeof(*lb->loads));
    lb->want = calloc((size_t)nlocal, sizeof(*lb->want));
    lb->map = calloc((size_t)nlocal, sizeof(*lb->map));
    if (!lb->threads || !lb->loads || !lb->want || !lb->map) {
        amp_lb_cleanup(lb);
        return AMP_ERR_NOMEM;
    }
    atomic_init(&lb->arrived, 0);
    atomic_init(&lb->gen, 0);
    lb->cycles0 = amp_sched_cycles();
    lb->ns0 = now_ns();
    return AMP_OK;
}

void amp_lb_cleanup(amp_lb_t *lb)
{
    free(lb->threads);
    free(lb->loads);
    free(lb->want);
    free(lb->map);
    lb->threads = NULL;
    lb->loads = NULL;
    lb->want = NULL;
    lb->map = NULL;
}

double amp_lb_cycles_per_second(const amp_lb_t *lb)
{
    long ns = now_ns() - lb->ns0;
    uint64_t cycles = amp_sched_cycles() - lb->cycles0;
    if (ns <= 0 || cycles == 0)
        return 1e9;
    return (double)cycles * 1e9 / (double)ns;
}

typedef void (*last_fn_t)(amp_lb_t *lb, void *arg);

/* A barrier of the process's ranks: the last one in runs last(lb, arg)
 * (unless NULL) while the others wait, then wakes them on their PEs. */
static void barrier(amp_lb_t *lb, int me, last_fn_t last, void *arg)
{
    unsigned long gen = atomic_load(&lb->gen);
    lb->threads[me] = amp_pe_self()->current;
    if (atomic_fetch_add(&lb->arrived, 1) + 1 < lb->nlocal) {
        while (atomic_load(&lb->gen) == gen)
            amp_sched_block();
        return;
    }
    atomic_store(&lb->arrived, 0);
    if (last)
        last(lb, arg);
    atomic_store(&lb->gen, gen + 1);
    amp_pe_t *pe = amp_pe_self();
    for (int i = 0; i < lb->nlocal; i++)
        if (i != me)
            amp_p2p_wake(pe, lb->threads[i]);
}

/* Every rank waits in the barrier: let every PE deliver what was sent
 * before (idle PEs poll by themselves; this one polls here). */
static void drain(amp_lb_t *lb)
{
    while (!amp_sched_quiet(lb->sched)) {
        amp_sched_poll(amp_pe_self());
        for (int i = 0; i < 64; i++)
            __asm__ volatile("" ::: "memory");
    }
}

static void report(const amp_lb_t *lb)
{
    int moved = 0;
    for (int i = 0; i < lb->nlocal; i++)
        moved += lb->map[i] != lb->rank_pe[i];
    fprintf(stderr, "ampi: lb: step %lu, %s, %d of %d ranks move\n", lb->rounds,
            amp_lb_kind_name(lb->kind), moved, lb->nlocal);
    for (int i = 0; i < lb->nlocal; i++)
        fprintf(stderr, "ampi: lb:   rank %d load %.6g: PE %d -> %d\n",
                lb->first + i, lb->loads[i], lb->rank_pe[i], lb->map[i]);
}

/* The last rank in: deliver what is in flight, decide the map. */
static void plan(amp_lb_t *lb, void *argp)
{
    const amp_lb_hooks_t *h = argp;
    if (h && h->quiesce)
        h->quiesce(lb, h->arg);
    drain(lb);
    int any_want = 0;
    for (int i = 0; i < lb->nlocal; i++)
        any_want |= lb->want[i] >= 0;
    int kind = any_want ? AMP_LB_NONE : lb->kind;
    if (amp_lb_plan(kind, lb->nlocal, lb->loads, lb->rank_pe, lb->sched->npes,
                    lb->rounds + 1, lb->map) != AMP_OK) {
        amp_log_error("out of memory planning the load balancing; no rank "
                      "moves");
        memcpy(lb->map, lb->rank_pe, (size_t)lb->nlocal * sizeof(int));
    }
    for (int i = 0; i < lb->nlocal; i++)
        if (lb->want[i] >= 0)
            lb->map[i] = lb->want[i];
    lb->rounds++;
    if (lb->debug)
        report(lb);
    memcpy(lb->rank_pe, lb->map, (size_t)lb->nlocal * sizeof(int));
    if (h && h->remap)
        h->remap(lb, h->arg);
}

/* The last rank in: the caller's settle, then what it left in the PEs'
 * channels delivered. */
static void settle(amp_lb_t *lb, void *argp)
{
    const amp_lb_hooks_t *h = argp;
    h->settle(lb, h->arg);
    drain(lb);
}

static void placed(amp_lb_t *lb, void *argp)
{
    const amp_lb_hooks_t *h = argp;
    h->placed(lb, h->arg);
}

int amp_lb_exchange(amp_lb_t *lb, int me, double load, int want,
                    const amp_lb_rank_t *rl, const amp_lb_hooks_t *hooks)
{
    int from = amp_pe_self()->id;
    lb->loads[me] = load;
    lb->want[me] = want;
    barrier(lb, me, plan, (void *)hooks);
    int to = lb->map[me];
    if (hooks && hooks->settle) {
        if (hooks->prepare)
            hooks->prepare(hooks->arg);
        barrier(lb, me, settle, (void *)hooks);
    }
    if (to != from) {
        if (rl->about_to_migrate)
            rl->about_to_migrate();
        amp_sched_migrate(lb->sched->pes[to]);
    }
    barrier(lb, me, hooks && hooks->placed ? placed : NULL, (void *)hooks);
    if (to != from && rl->just_migrated)
        rl->just_migrated();
    return to != from;
}
