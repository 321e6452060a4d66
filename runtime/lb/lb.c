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

amp_status_t amp_lb_init(amp_lb_t *lb, amp_sched_t *sched, int nranks, int proc,
                         int *rank_pe, int *rank_proc)
{
    lb->sched = sched;
    lb->nranks = nranks;
    lb->proc = proc;
    lb->rank_pe = rank_pe;
    lb->rank_proc = rank_proc;
    lb->nlocal = 0;
    for (int r = 0; r < nranks; r++)
        lb->nlocal += amp_lb_is_local(lb, r);
    size_t n = (size_t)nranks;
    lb->threads = calloc(n, sizeof(*lb->threads));
    lb->loads = calloc(n, sizeof(*lb->loads));
    lb->want = calloc(n, sizeof(*lb->want));
    lb->rls = calloc(n, sizeof(*lb->rls));
    lb->map = calloc(n, sizeof(*lb->map));
    lb->map_proc = calloc(n, sizeof(*lb->map_proc));
    lb->waitgen = calloc(n, sizeof(*lb->waitgen));
    if (!lb->threads || !lb->loads || !lb->want || !lb->map || !lb->map_proc ||
        !lb->waitgen || !lb->rls) {
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
    free((void *)lb->rls);
    free(lb->map);
    free(lb->map_proc);
    free(lb->waitgen);
    lb->map_proc = NULL;
    lb->waitgen = NULL;
    lb->threads = NULL;
    lb->loads = NULL;
    lb->want = NULL;
    lb->rls = NULL;
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
 * (unless NULL) while the others wait, then wakes them on their PEs and
 * runs after(lb, arg) (unless NULL): ranks that join the process then
 * find the barrier behind them. */
static void barrier_then(amp_lb_t *lb, int me, last_fn_t last, last_fn_t after,
                         void *arg)
{
    unsigned long gen = atomic_load(&lb->gen);
    lb->threads[me] = amp_pe_self()->current;
    lb->waitgen[me] = gen + 1;
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
    for (int r = 0; r < lb->nranks; r++)
        if (r != me && lb->waitgen[r] == gen + 1)
            amp_p2p_wake(pe, lb->threads[r]);
    if (after)
        after(lb, arg);
}

static void barrier(amp_lb_t *lb, int me, last_fn_t last, void *arg)
{
    barrier_then(lb, me, last, NULL, arg);
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
    int moved = 0, stay = 0;
    for (int r = 0; r < lb->nranks; r++) {
        if (!amp_lb_is_local(lb, r))
            continue;
        moved += lb->map[r] != lb->rank_pe[r] || lb->map_proc[r] != lb->proc;
        stay += lb->want[r] == AMP_LB_STAY;
    }
    fprintf(stderr,
            "ampi: lb: step %lu, %s, %d of %d ranks move, %d cannot move "
            "now; decided in %.3f ms\n",
            lb->rounds, amp_lb_kind_name(lb->kind), moved, lb->nlocal, stay,
            lb->plan_s * 1e3);
    for (int r = 0; r < lb->nranks; r++) {
        if (!amp_lb_is_local(lb, r))
            continue;
        if (lb->map_proc[r] != lb->proc)
            fprintf(stderr,
                    "ampi: lb:   rank %d load %.6g: PE %d -> process %d PE "
                    "%d\n",
                    r, lb->loads[r], lb->rank_pe[r], lb->map_proc[r],
                    lb->map[r]);
        else
            fprintf(stderr, "ampi: lb:   rank %d load %.6g: PE %d -> %d\n", r,
                    lb->loads[r], lb->rank_pe[r], lb->map[r]);
    }
}

amp_status_t amp_lb_graph_of(int n, const amp_lb_sends_t *const *sends,
                             const int *index, int nranks, amp_lb_graph_t *g)
{
    int *first = malloc((size_t)(n + 1) * sizeof(int));
    int *peer = malloc((size_t)(n ? n : 1) * AMP_LB_PEERS * sizeof(int));
    double *bytes = malloc((size_t)(n ? n : 1) * AMP_LB_PEERS * sizeof(double));
    if (!first || !peer || !bytes) {
        free(first);
        free(peer);
        free(bytes);
        return AMP_ERR_NOMEM;
    }
    int k = 0;
    for (int i = 0; i < n; i++) {
        first[i] = k;
        const amp_lb_sends_t *s = sends[i];
        for (int j = 0; j < AMP_LB_PEERS; j++) {
            int to = s->peer1[j] - 1;
            if (to < 0 || to >= nranks || index[to] < 0 || !s->msgs[j])
                continue;
            peer[k] = index[to];
            bytes[k++] =
                (double)s->bytes[j] + AMP_LB_MSG_BYTES * (double)s->msgs[j];
        }
    }
    first[n] = k;
    *g = (amp_lb_graph_t){.first = first, .peer = peer, .bytes = bytes};
    return AMP_OK;
}

void amp_lb_graph_free(amp_lb_graph_t *g)
{
    free((void *)g->first);
    free((void *)g->peer);
    free((void *)g->bytes);
}

/* The send tables of the n local ranks ranks[], as a graph over 0 .. n-1. */
static amp_status_t graph_of(const amp_lb_t *lb, const int *ranks, int n,
                             amp_lb_graph_t *g)
{
    int *index = malloc((size_t)lb->nranks * sizeof(int));
    const amp_lb_sends_t **sends = malloc((size_t)(n ? n : 1) * sizeof(*sends));
    amp_status_t st = AMP_ERR_NOMEM;
    if (index && sends) {
        for (int r = 0; r < lb->nranks; r++)
            index[r] = -1;
        for (int i = 0; i < n; i++) {
            index[ranks[i]] = i;
            sends[i] = &lb->rls[ranks[i]]->sends;
        }
        st = amp_lb_graph_of(n, sends, index, lb->nranks, g);
    }
    free(index);
    free(sends);
    return st;
}

/* The process's own plan: its ranks stay in it. */
static void plan_process(amp_lb_t *lb)
{
    int n = lb->nlocal, k = 0, any_want = 0;
    int *ranks = malloc((size_t)(n ? n : 1) * 3 * sizeof(int));
    double *loads = malloc((size_t)(n ? n : 1) * sizeof(double));
    if (!ranks || !loads)
        amp_fatal("out of memory planning the load balancing");
    int *cur = ranks + n, *out = cur + n;
    for (int r = 0; r < lb->nranks; r++) {
        if (!amp_lb_is_local(lb, r))
            continue;
        ranks[k] = r;
        loads[k] = lb->loads[r];
        cur[k++] = lb->rank_pe[r];
        any_want |= lb->want[r] >= 0;
    }
    int kind = any_want ? AMP_LB_NONE : lb->kind;
    amp_lb_graph_t g;
    int have_graph = lb->comm && graph_of(lb, ranks, n, &g) == AMP_OK;
    amp_lb_input_t in = {.n = n,
                         .npes = lb->sched->npes,
                         .loads = loads,
                         .cur = cur,
                         .graph = have_graph ? &g : NULL,
                         .seed = lb->rounds + 1,
                         .min_gain = lb->min_gain};
    amp_status_t st = amp_lb_plan_input(kind, &in, out);
    if (have_graph)
        amp_lb_graph_free(&g);
    if (st != AMP_OK) {
        amp_log_error("out of memory planning the load balancing; no rank "
                      "moves");
        memcpy(out, cur, (size_t)n * sizeof(int));
    }
    if (lb->debug)
        amp_lb_debug_spread(lb->rounds + 1, &in, out, lb->proc);
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        lb->map[r] = lb->want[r] >= 0             ? lb->want[r]
                     : lb->want[r] == AMP_LB_STAY ? cur[i]
                                                  : out[i];
        lb->map_proc[r] = lb->proc;
    }
    lb->nlocal_next = n;
    lb->cross = 0;
    free(ranks);
    free(loads);
}

/* +trace: the step decided, each rank of the process with its load, its
 * PE and where it goes (before rank_pe is updated). */
static __attribute__((noinline)) void trace_step(const amp_lb_t *lb,
                                                 amp_trace_pe_t *tp)
{
    for (int r = 0; r < lb->nranks; r++) {
        if (!amp_lb_is_local(lb, r))
            continue;
        uint64_t load;
        memcpy(&load, &lb->loads[r], sizeof(load));
        amp_trace_put(tp, AMP_TRACE_LB_RANK, lb->map_proc[r], r + 1,
                      lb->rank_pe[r], lb->map[r], load);
    }
    amp_trace_put(tp, AMP_TRACE_LB_END, 0, 0, 0, (int)lb->rounds, 0);
}

/* The last rank in: deliver what is in flight, decide the map. */
static void plan(amp_lb_t *lb, void *argp)
{
    const amp_lb_hooks_t *h = argp;
    amp_trace_pe_t *tp = amp_pe_self()->trace;
    if (__builtin_expect(tp != NULL, 0))
        amp_trace_put(tp, AMP_TRACE_LB_BEGIN, 0, 0, 0, (int)lb->rounds + 1, 0);
    lb->step_from_ns = now_ns();
    if (h && h->quiesce)
        h->quiesce(lb, h->arg);
    drain(lb);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!(h && h->plan_job && h->plan_job(lb, h->arg)))
        plan_process(lb);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    lb->plan_s = (double)(t1.tv_sec - t0.tv_sec) +
                 (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    lb->plan_total_s += lb->plan_s;
    lb->rounds++;
    if (lb->debug)
        report(lb);
    tp = amp_pe_self()->trace; /* the hooks may have switched */
    if (__builtin_expect(tp != NULL, 0))
        trace_step(lb, tp);
    if (lb->cross) {
        /* Every process made the same map of the whole job. */
        for (int r = 0; r < lb->nranks; r++) {
            lb->rank_proc[r] = lb->map_proc[r];
            lb->rank_pe[r] = lb->map[r];
        }
        return;
    }
    for (int r = 0; r < lb->nranks; r++)
        if (amp_lb_is_local(lb, r))
            lb->rank_pe[r] = lb->map[r];
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
    /* From here on the barrier counts the ranks once moved. */
    lb->nlocal = lb->nlocal_next;
}

static void accept(amp_lb_t *lb, void *argp)
{
    const amp_lb_hooks_t *h = argp;
    if (h->accept)
        h->accept(lb, h->arg);
}

static void placed(amp_lb_t *lb, void *argp)
{
    const amp_lb_hooks_t *h = argp;
    if (h && h->placed)
        h->placed(lb, h->arg);
    if (lb->debug)
        fprintf(stderr,
                "ampi: lb: step %lu: every rank of process %d in place %.3f "
                "ms after the last one came in\n",
                lb->rounds, lb->proc, (now_ns() - lb->step_from_ns) * 1e-6);
}

int amp_lb_exchange(amp_lb_t *lb, int me, double load, int want,
                    const amp_lb_rank_t *rl, const amp_lb_hooks_t *hooks)
{
    int from = amp_pe_self()->id;
    lb->loads[me] = load;
    lb->want[me] = want;
    lb->rls[me] = rl;
    barrier(lb, me, plan, (void *)hooks);
    int to = lb->map[me], away = lb->map_proc[me] != lb->proc;
    if (hooks && hooks->settle) {
        if (hooks->prepare)
            hooks->prepare(hooks->arg);
        barrier_then(lb, me, settle, accept, (void *)hooks);
    }
    int how = AMP_LB_STAYED;
    if (away) {
        if (rl->about_to_migrate)
            rl->about_to_migrate();
        hooks->depart(lb, me, hooks->arg);
        how = AMP_LB_ARRIVED;
    } else if (to != from) {
        if (rl->about_to_migrate)
            rl->about_to_migrate();
        amp_sched_migrate(lb->sched->pes[to]);
        how = AMP_LB_MOVED;
    }
    barrier(lb, me, (hooks && hooks->placed) || lb->debug ? placed : NULL,
            (void *)hooks);
    if (how != AMP_LB_STAYED && rl->just_migrated)
        rl->just_migrated();
    return how;
}
