/* Moving ranks between the processes of a job; see move.h. */
#include "rank/move.h"
#include "mpi/impl.h"
#include "rank/move_exchange.h"
#include "mem/heap.h"
#include "rank/slot.h"

#include <sys/mman.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WRITER_STACK ((size_t)64 << 10)

/* A rank that moves travels as several messages, one per range of its
 * slot in use (slot.h: its stack from where it stopped with its rank
 * area, its used heap, the writable part of its program copy).  Each
 * message's header says where its data goes and describes the slot. */
typedef struct move_hdr {
    uint8_t idx, nranges, pad[2];
    int32_t rank, pe;
    uint64_t addr; /* where this message's data goes */
    amp_slot_desc_t slot;
} move_hdr_t;
_Static_assert(sizeof(move_hdr_t) <= AMP_P2P_AM_HDR_MAX,
               "a move's header fits an active message's");

/* A message of an arriving rank that came while this process still had
 * its own ranks to send (hold): its data (an eager message's, copied) or
 * its rendezvous descriptor. */
struct amp_move_held {
    amp_move_held_t *next;
    amp_p2p_am_t msg;
    move_hdr_t hdr;
    char data[];
};

/* A rank arriving, then waiting to be let run. */
struct amp_move_arrival {
    amp_move_arrival_t *next;
    int rank, pe;
    int nranges, got;
    amp_slot_desc_t slot;
};

static amp_move_t *st(void)
{
    return amp_proc.move;
}

/* ---- setup ---- */

static uint64_t process_ident(void)
{
    if (!amp_ckpt_aslr_off())
        return 0;
    amp_ckpt_ident_t id;
    amp_ckpt_ident(&id);
    uint64_t h = amp_ckpt_hash(AMP_CKPT_FNV0, &id, sizeof(id));
    return h ? h : 1;
}

static void on_arrival(amp_pe_t *pe, const amp_p2p_am_t *m);

void amp_move_init(amp_move_map_fn_t map_copy)
{
    amp_move_t *m = calloc(1, sizeof(*m));
    int n = amp_proc.nranks;
    if (!m || !(m->movable = calloc((size_t)n, sizeof(int))) ||
        !(m->blobs = calloc((size_t)n, sizeof(*m->blobs))) ||
        !(m->gone = calloc((size_t)n, sizeof(*m->gone))) ||
        !(m->incoming = calloc((size_t)n, sizeof(*m->incoming))))
        amp_fatal("out of memory for %d ranks", n);
    pthread_mutex_init(&m->lock, NULL);
    m->held_tail = &m->held;
    m->kept_first = m->kept_last = -1;
    m->ident = process_ident();
    m->map_copy = map_copy;
    int npes = amp_proc.sched.npes;
    if (!(m->writers = calloc((size_t)npes, sizeof(void *))))
        amp_fatal("out of memory for %d PEs", npes);
    for (int i = 0; i < npes; i++)
        if (!(m->writers[i] = malloc(WRITER_STACK)))
            amp_fatal("out of memory for %d PEs", npes);
    amp_proc.move = m;
    amp_p2p_am_register(&amp_proc.world, AMP_P2P_AM_MOVE, on_arrival);
    amp_move_exchange_init(&amp_proc.world);
}

/* ---- each rank around the exchange ---- */

void amp_move_rank_ready(amp_rank_t *rank)
{
    amp_move_t *m = st();
    int r = rank->world_rank;
    char why[160];
    m->blobs[r].p = NULL;
    m->movable[r] = m->ident && amp_proc.lb.kind != AMP_LB_NONE &&
                    amp_ckpt_check(rank, why, sizeof(why)) == MPI_SUCCESS;
}

/* A rank the plan sends to another process: its MPI objects described in
 * its heap, which travels with it.  Only then: a description in the heap
 * of every rank that may move would make a heap for each (its pages, and
 * the kernel's page of page tables for its slot) at every step. */
static void describe_leaving(amp_rank_t *rank)
{
    amp_ckpt_blob_t *b = &st()->blobs[rank->world_rank];
    if (amp_ckpt_describe(rank, b) == MPI_SUCCESS)
        return;
    amp_ckpt_blob_free(rank, b->p);
    amp_fatal("rank %d: its heap has no room to describe its MPI objects "
              "before it moves to another process; raise +isomalloc_slot",
              rank->world_rank);
}

static void each_comm(amp_rank_t *rank, int attach)
{
    amp_table_t *t = &rank->comms;
    for (int i = 0; i < amp_table_capacity(t); i++) {
        amp_comm_t *c = amp_table_lookup(t, i);
        if (!c || c->is_inter)
            continue;
        if (!attach)
            amp_comm_coll_detach(c);
        else if (amp_comm_coll_attach(c) != AMP_OK)
            amp_fatal("rank %d: out of memory for the collectives of its "
                      "communicators after ranks moved",
                      rank->world_rank);
    }
}

void amp_move_rank_done(amp_rank_t *rank, int how)
{
    amp_move_t *m = st();
    amp_ckpt_blob_t *b = &m->blobs[rank->world_rank];
    if (how != AMP_LB_ARRIVED && amp_proc.lb.cross) {
        amp_sys_alloc_enter();
        each_comm(rank, 1);
        amp_sys_alloc_leave();
    }
    if (how != AMP_LB_ARRIVED)
        amp_ckpt_blob_free(rank, b->p);
    b->p = NULL;
}

/* ---- the plan of the whole job ---- */

/* The slots of the ranks that left at the last step, once their writers
 * are done with them (a writer runs on another PE than the caller, or
 * has finished: it never yields). */
static void give_back(amp_move_t *m)
{
    pthread_mutex_lock(&m->lock);
    while (m->ngone < m->departing) {
        pthread_mutex_unlock(&m->lock);
        amp_sched_poll(amp_pe_self());
        pthread_mutex_lock(&m->lock);
    }
    for (int i = 0; i < m->ngone; i++) {
        /* Its objects here: rebuilt in the process it went to. */
        amp_rank_objects_forget(
            amp_mem_slot_rank_area(&amp_proc.mem, m->gone[i].slot));
        amp_move_keep(m, &m->gone[i]);
    }
    m->ngone = m->departing = m->leaving = 0;
    pthread_mutex_unlock(&m->lock);
}

/* ---- arrivals held while this process's own ranks leave ---- */

static void take(amp_pe_t *pe, const move_hdr_t *h, const amp_p2p_am_t *msg);

/* With one PE, the PE that takes a rank in (prefaulting and copying its
 * pages) is the one that sends the ranks that leave: taking arrivals
 * first would keep the other process waiting for its own arrivals until
 * this one is done, and the two would move their ranks one after the
 * other.  From the step's first exchange on, arrivals wait (held) until
 * this process's ranks that leave are sent; then both processes take
 * their arrivals at once, each on its own core.  With several PEs the
 * arrivals and the departures are spread over the PEs already. */
static void hold(amp_move_t *m)
{
    pthread_mutex_lock(&m->lock);
    m->holding = amp_proc.sched.npes == 1;
    pthread_mutex_unlock(&m->lock);
}

/* The held messages taken in, in the order they came, then arrivals are
 * taken as they come; once to_send more of this process's ranks are sent
 * (writer_main), or now. */
static void take_held(amp_move_t *m, int to_send)
{
    pthread_mutex_lock(&m->lock);
    m->to_send = to_send;
    if (!m->holding || to_send > 0) {
        pthread_mutex_unlock(&m->lock);
        return;
    }
    for (;;) {
        amp_move_held_t *x = m->held;
        if (!x) {
            m->holding = 0;
            m->held_tail = &m->held;
            break;
        }
        m->held = x->next;
        if (!m->held)
            m->held_tail = &m->held;
        pthread_mutex_unlock(&m->lock);
        amp_sys_alloc_enter();
        take(amp_pe_self(), &x->hdr, &x->msg);
        free(x);
        amp_sys_alloc_leave();
        pthread_mutex_lock(&m->lock);
    }
    pthread_mutex_unlock(&m->lock);
}

/* Keeps msg for take_held when arrivals are held; 0 when they are not. */
static int held(amp_move_t *m, const move_hdr_t *h, const amp_p2p_am_t *msg)
{
    pthread_mutex_lock(&m->lock);
    if (!m->holding) {
        pthread_mutex_unlock(&m->lock);
        return 0;
    }
    size_t copy = msg->data ? msg->bytes : 0;
    amp_sys_alloc_enter();
    amp_move_held_t *x = malloc(sizeof(*x) + copy);
    amp_sys_alloc_leave();
    if (!x)
        amp_fatal("out of memory receiving rank %d", h->rank);
    x->next = NULL;
    x->msg = *msg;
    x->hdr = *h;
    if (msg->data) {
        memcpy(x->data, msg->data, copy);
        x->msg.data = x->data;
    }
    x->msg.hdr = &x->hdr;
    *m->held_tail = x;
    m->held_tail = &x->next;
    pthread_mutex_unlock(&m->lock);
    return 1;
}

/* What moving world rank r (of this process, in the step) to another
 * process is estimated to cost, and the seconds its load was measured
 * over; cost -1 when its load is a value the program gave. */
static void move_estimate(const amp_lb_t *lb, int r, double *window,
                          double *cost)
{
    const amp_lb_rank_t *rl = lb->rls[r];
    const amp_rank_t *rank = lb->threads[r]->owner;
    double rate = amp_lb_cycles_per_second(lb);
    uint64_t now = amp_sched_cycles();
    *window =
        rate > 0 && now > rl->since ? (double)(now - rl->since) / rate : 0.0;
    size_t bytes = amp_proc.mem.rank_area_size +
                   (rank->heap ? amp_heap_extent(rank->heap) : 0);
    *cost = rl->has_value ? -1.0 : amp_lb_move_cost((double)bytes);
}

static amp_move_load_t *gather(amp_lb_t *lb)
{
    amp_move_t *m = st();
    size_t n = (size_t)lb->nranks;
    amp_move_load_t *mine = calloc(n, sizeof(*mine));
    amp_move_load_t *all = calloc(n, sizeof(*all));
    if (!mine || !all)
        amp_fatal("out of memory planning the load balancing");
    int k = 0;
    for (int r = 0; r < lb->nranks; r++) {
        if (!amp_lb_is_local(lb, r))
            continue;
        mine[k++] = (amp_move_load_t){.rank = r,
                                      .pe = lb->rank_pe[r],
                                      .movable = m->movable[r],
                                      .wants = lb->want[r] >= 0,
                                      .stay = lb->want[r] == AMP_LB_STAY,
                                      .npes = lb->sched->npes,
                                      .ident = m->ident,
                                      .load = lb->loads[r]};
        move_estimate(lb, r, &mine[k - 1].window, &mine[k - 1].cost);
    }
    amp_move_exchange_loads(&amp_proc.world, mine, k, all);
    free(mine);
    return all;
}

/* Whether the job plans across processes this step: a balancer, nobody
 * asked for a PE, every process loaded alike with randomization off. */
static int job_wide(const amp_lb_t *lb, const amp_move_load_t *all)
{
    if (lb->kind == AMP_LB_NONE)
        return 0;
    for (int r = 0; r < lb->nranks; r++)
        if (all[r].wants || !all[r].ident || all[r].ident != all[0].ident)
            return 0;
    return 1;
}

/* Keeps on its PE a rank that cannot move now, in its process a rank that
 * cannot change process, and one rank in every process that would be left
 * without any (its first). */
static void constrain(const amp_lb_t *lb, const amp_move_load_t *all,
                      const int *off, const int *cur, int *out)
{
    int nprocs = amp_proc.world.nprocs;
    int *count = calloc((size_t)nprocs, sizeof(int));
    if (!count)
        amp_fatal("out of memory planning the load balancing");
    for (int r = 0; r < lb->nranks; r++) {
        int q = lb->rank_proc[r];
        if (all[r].stay)
            out[r] = cur[r];
        else if ((out[r] < off[q] || out[r] >= off[q + 1]) && !all[r].movable)
            out[r] = cur[r];
    }
    for (int r = 0; r < lb->nranks; r++)
        for (int q = 0; q < nprocs; q++)
            count[q] += out[r] >= off[q] && out[r] < off[q + 1];
    for (int r = 0; r < lb->nranks; r++) {
        int q = lb->rank_proc[r];
        if (count[q] == 0) {
            out[r] = cur[r];
            count[q]++;
        }
    }
    free(count);
}

/* The ranks' costs of a move to another process (cost, by world rank),
 * and how long the plan is expected to pay back its moves, per second the
 * loads were measured over: the next period (+lbperiod; for a step the
 * program asked for, as long as the last), at least AMP_LB_PAYBACK_S, over
 * the longest window.  0: the loads are not all seconds (a rank gave its
 * own value), and moves are not weighed against their cost.  The same in
 * every process: it reads only what the processes exchanged. */
static double move_costs(const amp_move_load_t *all, int n, double *cost,
                         double *longest)
{
    double window = 0;
    for (int r = 0; r < n; r++) {
        if (all[r].cost < 0)
            return 0;
        cost[r] = all[r].cost;
        window = all[r].window > window ? all[r].window : window;
    }
    *longest = window;
    return amp_lb_horizon((double)amp_proc.opts.lbperiod_ns * 1e-9, window);
}

/* GreedyCommLB across processes: every rank's send table, from every
 * process, as a graph over the world ranks (1: made). */
static int job_graph(const amp_lb_t *lb, amp_lb_graph_t *g)
{
    if (!lb->comm || !amp_move_exchange_has_sends())
        return 0;
    int n = lb->nranks, k = 0;
    amp_lb_sends_t *all = malloc((size_t)n * sizeof(*all));
    const amp_lb_sends_t **tables = malloc((size_t)n * sizeof(*tables));
    int *ranks = malloc((size_t)n * sizeof(int));
    if (!all || !tables || !ranks)
        amp_fatal("out of memory planning the load balancing");
    for (int r = 0; r < n; r++)
        if (amp_lb_is_local(lb, r)) {
            ranks[k] = r;
            tables[k++] = &lb->rls[r]->sends;
        }
    amp_move_exchange_sends(&amp_proc.world, ranks, tables, k, all);
    for (int r = 0; r < n; r++) {
        ranks[r] = r; /* the graph's index: every world rank */
        tables[r] = &all[r];
    }
    amp_status_t st = amp_lb_graph_of(n, tables, ranks, n, g);
    free(all);
    free(tables);
    free(ranks);
    if (st != AMP_OK)
        amp_fatal("out of memory planning the load balancing");
    return 1;
}

/* +lbdebug: a plan kept back because its moves between processes cost
 * more than it gains over the horizon. */
static void debug_cost(const amp_lb_t *lb, const amp_lb_input_t *in,
                       const int *out, double window)
{
    if (!in->move_cost || in->min_gain <= 0 ||
        memcmp(out, in->cur, (size_t)in->n * sizeof(int)) != 0)
        return;
    amp_lb_input_t any = *in;
    any.min_gain = 0;
    int *plan = malloc((size_t)in->n * sizeof(int));
    if (!plan || amp_lb_plan_input(lb->kind, &any, plan) != AMP_OK) {
        free(plan);
        return;
    }
    double gain =
        amp_lb_max_pe_load(in, in->cur) - amp_lb_max_pe_load(in, plan);
    double cost = amp_lb_moves_cost(in, plan);
    if (gain >= in->min_gain * amp_lb_max_pe_load(in, in->cur) && cost > 0)
        fprintf(stderr,
                "ampi: lb: step %lu: no move: the plan would gain %.4g s in "
                "the time it has to pay back its moves (%.4g s in the %.4g "
                "s measured) and its moves between processes cost %.4g s\n",
                lb->rounds + 1, gain * in->horizon, gain, window, cost);
    free(plan);
}

static int plan_job(amp_lb_t *lb, void *arg)
{
    (void)arg;
    amp_move_t *m = st();
    give_back(m);
    hold(m);
    amp_move_load_t *all = gather(lb);
    int nprocs = amp_proc.world.nprocs, n = lb->nranks;
    if (!job_wide(lb, all)) {
        free(all);
        take_held(m, 0);
        return 0;
    }
    int *off = calloc((size_t)nprocs + 1, sizeof(int));
    int *cur = malloc((size_t)n * 2 * sizeof(int));
    double *loads = malloc((size_t)n * sizeof(double));
    if (!off || !cur || !loads)
        amp_fatal("out of memory planning the load balancing");
    int *out = cur + n;
    for (int r = 0; r < n; r++)
        off[lb->rank_proc[r] + 1] = all[r].npes;
    for (int q = 0; q < nprocs; q++)
        off[q + 1] += off[q];
    for (int r = 0; r < n; r++) {
        cur[r] = off[lb->rank_proc[r]] + all[r].pe;
        loads[r] = all[r].load;
    }
    int *pe_proc = malloc((size_t)off[nprocs] * sizeof(int));
    double *cost = malloc((size_t)n * sizeof(double));
    if (!pe_proc || !cost)
        amp_fatal("out of memory planning the load balancing");
    double window = 0, horizon = move_costs(all, n, cost, &window);
    amp_lb_graph_t graph;
    int have_graph = job_graph(lb, &graph);
    for (int q = 0; q < nprocs; q++)
        for (int p = off[q]; p < off[q + 1]; p++)
            pe_proc[p] = q;
    amp_lb_input_t in = {.n = n,
                         .npes = off[nprocs],
                         .loads = loads,
                         .cur = cur,
                         .pe_proc = pe_proc,
                         .seed = lb->rounds + 1,
                         .min_gain = lb->min_gain,
                         .move_cost = horizon > 0 ? cost : NULL,
                         .horizon = horizon,
                         .graph = have_graph ? &graph : NULL};
    if (amp_lb_plan_input(lb->kind, &in, out) != AMP_OK)
        amp_fatal("out of memory planning the load balancing");
    if (lb->debug && lb->proc == 0) {
        amp_lb_debug_spread(lb->rounds + 1, &in, out, -1);
        debug_cost(lb, &in, out, window);
    }
    free(pe_proc);
    free(cost);
    if (have_graph)
        amp_lb_graph_free(&graph);
    constrain(lb, all, off, cur, out);
    lb->cross = 0;
    lb->nlocal_next = 0;
    m->leaving = 0;
    int arriving = 0;
    for (int r = 0; r < n; r++) {
        int q = 0;
        while (out[r] >= off[q + 1])
            q++;
        lb->map_proc[r] = q;
        lb->map[r] = out[r] - off[q];
        lb->cross |= q != lb->rank_proc[r];
        lb->nlocal_next += q == lb->proc;
        m->leaving += q != lb->proc && lb->rank_proc[r] == lb->proc;
        arriving += q == lb->proc && lb->rank_proc[r] != lb->proc;
    }
    /* The ranks on their way here are live already: the ranks that leave
     * may all be gone before the first of them arrives, and the process
     * must not take itself for finished meanwhile. */
    amp_sched_expect(lb->sched, arriving);
    take_held(m, m->leaving);
    free(off);
    free(cur);
    free(loads);
    free(all);
    return 1;
}

/* ---- the steps around the plan ---- */

static void quiesce(amp_lb_t *lb, void *arg)
{
    (void)lb;
    (void)arg;
    amp_p2p_net_quiesce(&amp_proc.world);
}

void amp_move_remap(amp_lb_t *lb, void *arg)
{
    (void)arg;
    if (amp_coll_shm_relayout(&amp_proc.coll_shm, amp_proc.rank_pe,
                              lb->sched->npes) != AMP_OK)
        amp_fatal("out of memory rebuilding the collectives' state after "
                  "load balancing");
}

/* In every rank once the map is known: what waits for it with its data
 * still at another process is taken in on this PE (a rank that moves
 * could not fetch it from its new PE); when ranks change process, the
 * rank's communicators let go of their shared state, whose members
 * change. */
static void prepare(void *arg)
{
    (void)arg;
    amp_rank_t *rank = amp_rank_self();
    if (amp_proc.lb.map_proc[rank->world_rank] != amp_proc.lb.proc)
        describe_leaving(rank);
    amp_table_t *t = &rank->msgs;
    int cap = amp_table_capacity(t), n = 0;
    amp_sys_alloc_enter();
    struct amp_msg **taken = malloc((size_t)(cap ? cap : 1) * sizeof(*taken));
    if (!taken)
        amp_fatal("out of memory before moving rank %d", rank->world_rank);
    for (int i = t->first; i < cap; i++) {
        amp_msg_handle_t *h = amp_table_lookup(t, i);
        if (h && h->msg)
            taken[n++] = h->msg;
    }
    amp_sys_alloc_leave();
    amp_p2p_ep_fetch_remote(&rank->ep, taken, n);
    rank = amp_rank_self();
    amp_sys_alloc_enter();
    free(taken);
    if (amp_proc.lb.cross)
        each_comm(rank, 0);
    amp_sys_alloc_leave();
}

/* A rank that arrived: set up as a restart does (restart.c), to resume on
 * its PE where it stopped. */
static void let_run(const amp_move_arrival_t *a)
{
    amp_rank_t *rank =
        amp_slot_revive(&a->slot, a->rank, amp_proc.sched.pes[a->pe]);
    amp_sched_spawn_expected(&rank->thr); /* counted by plan_job */
}

/* The last rank in, before any moves: nothing under way any more; ranks
 * may arrive from now on. */
static void settle(amp_lb_t *lb, void *arg)
{
    (void)lb;
    (void)arg;
    amp_p2p_net_settle(&amp_proc.world);
}

/* The barrier after settle is behind every rank of the process: ranks
 * that arrive may run (one that ran before could take its place in it). */
static void accept(amp_lb_t *lb, void *arg)
{
    (void)arg;
    if (!lb->cross)
        return;
    amp_move_t *m = st();
    amp_sys_alloc_enter();
    pthread_mutex_lock(&m->lock);
    m->accepting = 1;
    while (m->pending) {
        amp_move_arrival_t *a = m->pending;
        m->pending = a->next;
        let_run(a);
        free(a);
    }
    pthread_mutex_unlock(&m->lock);
    amp_sys_alloc_leave();
}

/* Every rank of the process in place: the job learns where. */
static void placed(amp_lb_t *lb, void *arg)
{
    (void)arg;
    amp_move_t *m = st();
    if (lb->cross) {
        /* The ranks that leave may wait to run on this PE, and their
         * memory to be taken by the new process. */
        pthread_mutex_lock(&m->lock);
        while (m->ngone < m->leaving) {
            pthread_mutex_unlock(&m->lock);
            amp_sched_poll(amp_pe_self());
            amp_sched_yield();
            pthread_mutex_lock(&m->lock);
        }
        m->accepting = 0;
        pthread_mutex_unlock(&m->lock);
    }
    uint64_t shipped = atomic_exchange(&m->shipped, 0);
    amp_trace_pe_t *tp = amp_pe_self()->trace;
    if (__builtin_expect(tp != NULL, 0))
        amp_trace_put(tp, AMP_TRACE_LB_SHIP, 0, m->leaving, 0, (int)lb->rounds,
                      shipped);
    if (lb->debug)
        fprintf(stderr,
                "ampi: lb: step %lu: process %d sent %d ranks, %llu bytes "
                "of their memory\n",
                lb->rounds, lb->proc, m->leaving, (unsigned long long)shipped);
    amp_sys_alloc_enter();
    amp_move_exchange_places(&amp_proc.world);
    amp_sys_alloc_leave();
}

/* ---- leaving ---- */

/* On the rank's own stack while it is stopped; the copy that travels has
 * it as it was when the rank stopped. */
typedef struct ship {
    int proc, pe;
    amp_ckpt_blob_t blob; /* its objects, for the new process */
    int sent;             /* messages taken so far (shipped) */
} ship_t;

/* Each message of a rank that left, taken by the new process.  Once the
 * last one is, nothing reads the slot here any more and it may be given
 * back (give_back).  The record is in the slot, on the rank's stack as it
 * stopped. */
static void shipped(void *arg, int ok)
{
    amp_slot_stop_t *stop = arg;
    ship_t *s = stop->arg;
    if (!ok)
        amp_fatal("rank %d could not be sent to process %d",
                  stop->rank->world_rank, s->proc);
    if (++s->sent < stop->nranges)
        return;
    amp_move_t *m = st();
    struct amp_move_gone g = {
        .slot = stop->rank->slot,
        .used = amp_proc.mem.heap_offset + (size_t)stop->desc.heap_committed};
    for (int i = 0; i < stop->nranges; i++)
        g.bytes += stop->ranges[i].len;
    pthread_mutex_lock(&m->lock);
    m->gone[m->ngone++] = g;
    pthread_mutex_unlock(&m->lock);
}

/* Before the rank leaves: libgcc forgets its program copy's unwind
 * tables, which the new process registers again. */
static void pie_leave(amp_rank_t *rank)
{
    const amp_pie_image_t *img = &amp_proc.pie;
    if (img->active && img->deregister_frame)
        img->deregister_frame((const void *)(rank->pie_base + img->eh_frame));
}

/* Runs on the PE's writer stack while the rank is stopped: sends the
 * ranges of its slot in use and ends the rank's thread in this process
 * without waiting for them to be taken (shipped counts them; nothing here
 * writes the slot any more).  The PE goes on to the next rank, whose
 * messages follow these while the new process takes them in. */
static void writer_main(amp_slot_stop_t *stop)
{
    ship_t *s = stop->arg;
    amp_rank_t *rank = stop->rank;
    pie_leave(rank);
    move_hdr_t h = {.nranges = (uint8_t)stop->nranges,
                    .rank = rank->world_rank,
                    .pe = s->pe,
                    .slot = stop->desc};
    amp_pe_t *pe = amp_pe_self();
    for (int i = 0; i < stop->nranges; i++)
        atomic_fetch_add(&st()->shipped, stop->ranges[i].len);
    for (int i = 0; i < stop->nranges; i++) {
        h.idx = (uint8_t)i;
        h.addr = (uintptr_t)stop->ranges[i].addr;
        amp_p2p_am_send(pe, &(amp_p2p_am_out_t){.id = AMP_P2P_AM_MOVE,
                                                .proc = s->proc,
                                                .pe = s->pe,
                                                .hdr = &h,
                                                .hlen = sizeof(h),
                                                .data = stop->ranges[i].addr,
                                                .bytes = stop->ranges[i].len,
                                                .done = shipped,
                                                .arg = stop});
    }
    amp_move_t *m = st();
    pthread_mutex_lock(&m->lock);
    int left = --m->to_send;
    pthread_mutex_unlock(&m->lock);
    if (left == 0)
        take_held(m, 0);
    amp_slot_gone(rank->world_rank);
    amp_sched_vanish();
}

static void depart(amp_lb_t *lb, int me, void *arg)
{
    (void)arg;
    amp_move_t *m = st();
    amp_rank_t *rank = amp_rank_self();
    ship_t s = {
        .proc = lb->map_proc[me], .pe = lb->map[me], .blob = m->blobs[me]};
    m->blobs[me].p = NULL;
    pthread_mutex_lock(&m->lock);
    m->departing++;
    pthread_mutex_unlock(&m->lock);
    void *stack = m->writers[amp_pe_self()->id];
    if (amp_slot_stop(rank, stack, WRITER_STACK, writer_main, &s))
        amp_fatal("rank %d: resumed in the process it left", rank->world_rank);
    /* In the new process. */
    amp_ckpt_rebuild(amp_rank_self(), &s.blob, "AMPI_Migrate");
}

/* ---- arriving ---- */

static void arrived(amp_move_arrival_t *a)
{
    amp_move_t *m = st();
    pthread_mutex_lock(&m->lock);
    if (m->accepting) {
        let_run(a);
        free(a);
    } else {
        a->next = m->pending;
        m->pending = a;
    }
    pthread_mutex_unlock(&m->lock);
}

static void fetched(void *arg, int ok)
{
    amp_move_arrival_t *a = arg;
    if (!ok)
        amp_fatal("the memory of rank %d could not be received", a->rank);
    if (++a->got == a->nranges) {
        st()->incoming[a->rank] = NULL;
        arrived(a);
    }
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* The pages about to be received, made present in one call (a fault per
 * page inside the transfer costs several times more); without kernel
 * support (before Linux 5.14) they fault in as they are written. */
static void prefault(char *p, size_t len)
{
    uintptr_t page = (uintptr_t)amp_proc.mem.page_size;
    uintptr_t a = (uintptr_t)p & ~(page - 1);
    if (len)
        (void)madvise((void *)a, (uintptr_t)p + len - a, MADV_POPULATE_WRITE);
}

/* The first message of a rank: its slot's pages (and its program copy,
 * mapped and relocated here at the same address), its record. */
static amp_move_arrival_t *slot_ready(const move_hdr_t *h, int from)
{
    int r = h->rank;
    amp_slot_range_t ranges[AMP_SLOT_MAX_RANGES];
    if (h->pe < 0 || h->pe >= amp_proc.sched.npes ||
        amp_slot_fit(&h->slot, r) != AMP_SLOT_FITS ||
        h->nranges != amp_slot_ranges(&h->slot, ranges) || st()->incoming[r])
        amp_fatal("process %d sent rank %d in a shape that does not fit "
                  "this process's slots: are all processes the same "
                  "program with the same options?",
                  from, r);
    amp_move_t *m = st();
    size_t heap_open = 0;
    pthread_mutex_lock(&m->lock);
    int kept = amp_move_keep_reuse(m, r, &heap_open);
    pthread_mutex_unlock(&m->lock);
    amp_status_t ready =
        kept ? amp_slot_prepare_kept(&h->slot, r, m->map_copy, heap_open)
             : amp_slot_prepare(&h->slot, r, m->map_copy);
    if (ready != AMP_OK)
        amp_fatal("cannot map the memory or the program copy of rank %d "
                  "arriving from process %d",
                  r, from);
    for (int i = 0; i < h->nranges; i++)
        prefault(ranges[i].addr, ranges[i].len);
    amp_move_arrival_t *a = malloc(sizeof(*a));
    if (!a)
        amp_fatal("out of memory receiving rank %d", r);
    *a = (amp_move_arrival_t){
        .rank = r, .pe = h->pe, .nranges = h->nranges, .slot = h->slot};
    st()->incoming[r] = a;
    return a;
}

/* Each of an arriving rank's messages in order, on the PE it is to run
 * on: the data into the same addresses of its slot here. */
static void take(amp_pe_t *pe, const move_hdr_t *h, const amp_p2p_am_t *msg)
{
    int r = h->rank;
    amp_move_arrival_t *a =
        h->idx == 0 ? slot_ready(h, msg->from_proc) : st()->incoming[r];
    if (!a)
        amp_fatal("process %d sent a part of rank %d out of order",
                  msg->from_proc, r);
    void *into = (void *)(uintptr_t)h->addr;
    if (msg->data) {
        memcpy(into, msg->data, msg->bytes);
        fetched(a, 1);
        return;
    }
    amp_p2p_am_fetch(pe, msg->desc, into, msg->bytes, fetched, a);
}

/* A message of a rank that moves here: checked, then taken in now or
 * held (hold). */
static void on_arrival(amp_pe_t *pe, const amp_p2p_am_t *msg)
{
    move_hdr_t h;
    if (msg->hlen != sizeof(h))
        amp_fatal("a rank that moves came with a %zu-byte header", msg->hlen);
    memcpy(&h, msg->hdr, sizeof(h));
    int r = h.rank;
    if (r < 0 || r >= amp_proc.nranks ||
        !amp_mem_slot_holds(&amp_proc.mem, r, (void *)(uintptr_t)h.addr,
                            msg->bytes))
        amp_fatal("process %d sent a part of rank %d outside its slot",
                  msg->from_proc, r);
    if (!held(st(), &h, msg))
        take(pe, &h, msg);
}

const amp_lb_hooks_t amp_move_hooks = {.quiesce = quiesce,
                                       .plan_job = plan_job,
                                       .remap = amp_move_remap,
                                       .prepare = prepare,
                                       .settle = settle,
                                       .accept = accept,
                                       .depart = depart,
                                       .placed = placed};
