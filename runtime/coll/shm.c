/* Collectives over the shared address space; see shm.h for the scheme. */
#include "coll/shm.h"

#include "coll/tree.h"
#include "mpi.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SMALL AMP_COLL_SHM_SMALL
/* Per-PE working space of the reductions: the work buffers of a tree
 * evaluation (coll/tree.h), and in the large reductions one chunk of the
 * result besides, combined in cache before it is copied out. */
#define SCRATCH_BYTES (64u << 10)
/* How long a leader polls a cross-PE barrier before it blocks (only while
 * nothing else on its PE wants to run). */
#define SPIN_NS 10000L
/* The predefined operations are numbered by their handle's index
 * (mpi.h); MPI_REPLACE and MPI_NO_OP come last. */
#define OP_REPLACE ((int)((unsigned)MPI_REPLACE & 0xffffffu))

/* What one member publishes for an episode; written by the member (or its
 * leader, for st) and read by the leaders after a barrier. */
typedef struct member {
    _Alignas(64) const char *sbuf; /* base addresses, as the user passed */
    char *rbuf;
    const amp_dt_t *dt; /* bcast: the member's own type and count */
    int count;
    amp_status_t st; /* set by its leader */
    amp_p2p_ep_t *ep;
    amp_thread_t *thr;  /* the thread of the rank in the collective */
    _Atomic int inside; /* in a collective on this communicator */
} member_t;

/* A node of the reduction tree (coll/tree.h) whose ranks are all members
 * of one group, and the largest such: that group computes its value from
 * its members' buffers. */
typedef struct part {
    int lo, hi; /* comm ranks */
    int group;
} part_t;

/* The members on one PE. */
typedef struct group {
    /* Touched only by the threads of its PE: no atomics needed. */
    _Alignas(64) int n;
    const int *ranks; /* member indices, ascending */
    int nparts;
    const int *parts; /* its parts, in rank order */
    int arrived;
    unsigned long epoch;  /* episodes completed */
    unsigned long passed; /* cross-PE barriers entered */
    /* Touched by the other groups' leaders. */
    _Alignas(64) _Atomic int sleeping; /* its leader blocks at a barrier */
    amp_thread_t *sleeper;
} group_t;

/* The members are the comm ranks base .. base + size - 1 of a
 * communicator of total ranks (all of them, unless its ranks live in
 * several processes); member i is comm rank base + i.  A reduction's root
 * gets the values of the tree's nodes that cover the members (top), one
 * after another. */
struct amp_coll_shm {
    amp_coll_shm_t *next; /* in the registry's bucket */
    int ctx, first_world, size, refs;
    int base, total;
    int ngroups, nparts, ntop;
    member_t *members; /* by member index */
    group_t *groups;
    int *world;       /* member -> world rank, or NULL: the identity */
    int *group_of;    /* member -> group */
    int *ranks;       /* the groups' members, group after group */
    part_t *parts;    /* in rank order */
    int *part_at;     /* member -> the part that starts there, or -1 */
    int *group_parts; /* the groups' parts, group after group */
    /* The tree's nodes that cover the members, in rank order. */
    int top_lo[2 * AMP_COLL_TREE_MAX_HEIGHT];
    int top_hi[2 * AMP_COLL_TREE_MAX_HEIGHT];
    char *partials; /* [2][nparts][SMALL] */
    char *stage;    /* [2][SMALL] */
    char **scratch; /* the registry's, by PE */
    /* The leaders' arrivals at cross-PE barriers. */
    _Alignas(64) _Atomic unsigned long arrivals;
};

/* ---- the registry ----------------------------------------------------- */

static void reg_lock(amp_coll_shm_registry_t *reg)
{
    amp_spin_lock(&reg->lock);
}

static void reg_unlock(amp_coll_shm_registry_t *reg)
{
    amp_spin_unlock(&reg->lock);
}

#define REG_FIRST_BUCKETS 64

static size_t reg_hash(int ctx, int first, size_t nbuckets)
{
    uint64_t k = (uint64_t)(unsigned)ctx << 32 | (unsigned)first;
    k *= 0x9e3779b97f4a7c15ull;
    return (size_t)(k >> 32) & (nbuckets - 1);
}

/* The registry's chain for (ctx, first). */
static amp_coll_shm_t **reg_bucket(amp_coll_shm_registry_t *reg, int ctx,
                                   int first)
{
    return &reg->buckets[reg_hash(ctx, first, reg->nbuckets)];
}

/* Twice the buckets once there are more states than buckets; left as it
 * is when there is no memory for it (the chains only grow longer). */
static void reg_grow(amp_coll_shm_registry_t *reg)
{
    if (reg->count < reg->nbuckets)
        return;
    size_t n = 2 * reg->nbuckets;
    amp_coll_shm_t **b = calloc(n, sizeof(*b));
    if (!b)
        return;
    for (size_t i = 0; i < reg->nbuckets; i++)
        for (amp_coll_shm_t *s = reg->buckets[i], *next; s; s = next) {
            next = s->next;
            size_t h = reg_hash(s->ctx, s->first_world, n);
            s->next = b[h];
            b[h] = s;
        }
    free(reg->buckets);
    reg->buckets = b;
    reg->nbuckets = n;
}

static amp_status_t scratch_init(amp_coll_shm_registry_t *reg, int npes)
{
    char **scratch = calloc((size_t)npes, sizeof(*scratch));
    if (!scratch)
        return AMP_ERR_NOMEM;
    for (int i = 0; i < npes; i++) {
        scratch[i] = aligned_alloc(64, SCRATCH_BYTES);
        if (!scratch[i]) {
            while (i-- > 0)
                free(scratch[i]);
            free(scratch);
            return AMP_ERR_NOMEM;
        }
    }
    reg->scratch = scratch;
    reg->npes = npes;
    return AMP_OK;
}

static amp_status_t reg_init(amp_coll_shm_registry_t *reg, int npes)
{
    if (!reg->buckets) {
        reg->buckets = calloc(REG_FIRST_BUCKETS, sizeof(*reg->buckets));
        if (!reg->buckets)
            return AMP_ERR_NOMEM;
        reg->nbuckets = REG_FIRST_BUCKETS;
    }
    return reg->scratch ? AMP_OK : scratch_init(reg, npes);
}

static void shm_free(amp_coll_shm_t *s)
{
    free(s->world);
    free(s->members);
    free(s->groups);
    free(s->group_of);
    free(s->ranks);
    free(s->parts);
    free(s->part_at);
    free(s->group_parts);
    free(s->partials);
    free(s->stage);
    free(s);
}

/* Groups in order of their lowest member; each group's members
 * ascending. */
static amp_status_t group_layout(amp_coll_shm_t *s, const int *rank_pe,
                                 int npes)
{
    int n = s->size;
    int *pe_group = malloc((size_t)npes * sizeof(int));
    int *fill = calloc((size_t)s->size, sizeof(int));
    if (!pe_group || !fill) {
        free(pe_group);
        free(fill);
        return AMP_ERR_NOMEM;
    }
    for (int p = 0; p < npes; p++)
        pe_group[p] = -1;
    for (int m = 0; m < n; m++) {
        int pe = rank_pe[s->world ? s->world[m] : m];
        if (pe_group[pe] < 0)
            pe_group[pe] = s->ngroups++;
        s->group_of[m] = pe_group[pe];
    }
    free(pe_group);
    s->groups = aligned_alloc(64, (size_t)s->ngroups * sizeof(group_t));
    if (!s->groups) {
        free(fill);
        return AMP_ERR_NOMEM;
    }
    memset(s->groups, 0, (size_t)s->ngroups * sizeof(group_t));
    for (int m = 0; m < n; m++)
        s->groups[s->group_of[m]].n++;
    int at = 0;
    for (int g = 0; g < s->ngroups; g++) {
        s->groups[g].ranks = s->ranks + at;
        at += s->groups[g].n;
    }
    for (int m = 0; m < n; m++) {
        int g = s->group_of[m];
        s->ranks[s->groups[g].ranks - s->ranks + fill[g]++] = m;
    }
    free(fill);
    return AMP_OK;
}

/* The parts inside node [lo, hi), from index k on; run_end[m]: the end of
 * the run of consecutive members in m's group from m on. */
static int find_parts(amp_coll_shm_t *s, const int *run_end, int lo, int hi,
                      int k)
{
    int m = lo - s->base;
    if (run_end[m] >= hi - s->base) {
        s->parts[k] = (part_t){.lo = lo, .hi = hi, .group = s->group_of[m]};
        s->part_at[m] = k;
        return k + 1;
    }
    int mid = amp_coll_tree_mid(lo, hi);
    return find_parts(s, run_end, mid, hi, find_parts(s, run_end, lo, mid, k));
}

/* The parts of the top nodes, and each group's list of them. */
static void part_layout(amp_coll_shm_t *s, int *run_end)
{
    int n = s->size;
    run_end[n - 1] = n;
    for (int m = n - 2; m >= 0; m--)
        run_end[m] =
            s->group_of[m] == s->group_of[m + 1] ? run_end[m + 1] : m + 1;
    for (int m = 0; m < n; m++)
        s->part_at[m] = -1;
    s->nparts = 0;
    for (int t = 0; t < s->ntop; t++)
        s->nparts =
            find_parts(s, run_end, s->top_lo[t], s->top_hi[t], s->nparts);
    for (int k = 0; k < s->nparts; k++)
        s->groups[s->parts[k].group].nparts++;
    int at = 0;
    for (int g = 0; g < s->ngroups; g++) {
        s->groups[g].parts = s->group_parts + at;
        at += s->groups[g].nparts;
        s->groups[g].nparts = 0;
    }
    for (int k = 0; k < s->nparts; k++) {
        group_t *g = &s->groups[s->parts[k].group];
        s->group_parts[g->parts - s->group_parts + g->nparts++] = k;
    }
}

/* Groups and parts for the ranks' PEs now (rank_pe: world rank -> PE);
 * partials for as many parts, unless there is room already (have: the
 * parts it has room for). */
static amp_status_t shm_layout(amp_coll_shm_t *s, const int *rank_pe, int npes,
                               int have)
{
    amp_status_t st = group_layout(s, rank_pe, npes);
    int *run_end = malloc((size_t)s->size * sizeof(int));
    if (st != AMP_OK || !run_end) {
        free(run_end);
        return AMP_ERR_NOMEM;
    }
    part_layout(s, run_end);
    free(run_end);
    if (s->nparts <= have)
        return AMP_OK;
    char *p = aligned_alloc(64, 2 * (size_t)s->nparts * SMALL);
    if (!p)
        return AMP_ERR_NOMEM;
    free(s->partials);
    s->partials = p;
    return AMP_OK;
}

static amp_coll_shm_t *shm_create(const int *rank_pe, int npes, int ctx,
                                  int size, const int *world_map, int base,
                                  int total)
{
    amp_coll_shm_t *s = aligned_alloc(64, AMP_ROUND_UP(sizeof(*s), 64));
    if (!s)
        return NULL;
    memset(s, 0, sizeof(*s));
    s->ctx = ctx;
    s->first_world = world_map ? world_map[0] : 0;
    s->size = size;
    s->base = base;
    s->total = total;
    s->ntop =
        amp_coll_tree_cover(total, base, base + size, s->top_lo, s->top_hi);
    s->members = aligned_alloc(64, (size_t)size * sizeof(member_t));
    s->group_of = malloc((size_t)size * sizeof(int));
    s->ranks = malloc((size_t)size * sizeof(int));
    s->parts = malloc((size_t)size * sizeof(part_t));
    s->part_at = malloc((size_t)size * sizeof(int));
    s->group_parts = malloc((size_t)size * sizeof(int));
    s->stage = aligned_alloc(64, 2 * SMALL);
    if (world_map) {
        s->world = malloc((size_t)size * sizeof(int));
        if (s->world)
            memcpy(s->world, world_map, (size_t)size * sizeof(int));
    }
    if (!s->members || !s->group_of || !s->ranks || !s->parts || !s->part_at ||
        !s->group_parts || !s->stage || (world_map && !s->world) ||
        shm_layout(s, rank_pe, npes, 0) != AMP_OK)
        goto err_free;
    memset(s->members, 0, (size_t)size * sizeof(member_t));
    return s;

err_free:
    shm_free(s);
    return NULL;
}

amp_status_t amp_coll_shm_attach(amp_coll_shm_registry_t *reg,
                                 const int *rank_pe, int npes,
                                 const amp_coll_shm_members_t *m,
                                 amp_coll_shm_t **out)
{
    int ctx = m->ctx, size = m->size, base = m->base, total = m->total;
    const int *world_map = m->world_map;
    *out = NULL;
    if (size <= 1)
        return AMP_OK;
    int first = world_map ? world_map[0] : 0;
    amp_status_t st = AMP_OK;
    amp_coll_shm_t *s = NULL;
    reg_lock(reg);
    st = reg_init(reg, npes);
    if (st == AMP_OK) {
        amp_coll_shm_t **b = reg_bucket(reg, ctx, first);
        for (s = *b; s; s = s->next)
            if (s->ctx == ctx && s->first_world == first && s->size == size &&
                s->base == base && s->total == total)
                break;
        if (!s && (s = shm_create(rank_pe, npes, ctx, size, world_map, base,
                                  total))) {
            s->scratch = reg->scratch;
            s->next = *b;
            *b = s;
            reg->count++;
            reg_grow(reg);
        }
        if (s)
            s->refs++;
        else
            st = AMP_ERR_NOMEM;
    }
    reg_unlock(reg);
    *out = s;
    return st;
}

void amp_coll_shm_detach(amp_coll_shm_registry_t *reg, amp_coll_shm_t *s)
{
    if (!s)
        return;
    reg_lock(reg);
    int last = --s->refs == 0;
    if (last) {
        amp_coll_shm_t **p = reg_bucket(reg, s->ctx, s->first_world);
        while (*p != s)
            p = &(*p)->next;
        *p = s->next;
        reg->count--;
    }
    reg_unlock(reg);
    if (last)
        shm_free(s);
}

/* New groups and parts for s from rank_pe, keeping the episode and
 * barrier counts (equal in every group between episodes). */
static amp_status_t shm_relayout(amp_coll_shm_t *s, const int *rank_pe,
                                 int npes)
{
    unsigned long epoch = s->groups[0].epoch, passed = s->groups[0].passed;
    int have = s->nparts;
    group_t *old_groups = s->groups;
    s->groups = NULL;
    s->ngroups = 0;
    amp_status_t st = shm_layout(s, rank_pe, npes, have);
    if (st != AMP_OK) {
        free(s->groups);
        s->groups = old_groups;
        return st;
    }
    free(old_groups);
    for (int g = 0; g < s->ngroups; g++) {
        s->groups[g].epoch = epoch;
        s->groups[g].passed = passed;
    }
    atomic_store(&s->arrivals, passed * (unsigned long)s->ngroups);
    return AMP_OK;
}

amp_status_t amp_coll_shm_relayout(amp_coll_shm_registry_t *reg,
                                   const int *rank_pe, int npes)
{
    amp_status_t st = AMP_OK;
    reg_lock(reg);
    for (size_t i = 0; i < reg->nbuckets && st == AMP_OK; i++)
        for (amp_coll_shm_t *s = reg->buckets[i]; s && st == AMP_OK;
             s = s->next)
            st = shm_relayout(s, rank_pe, npes);
    reg_unlock(reg);
    return st;
}

int amp_coll_shm_waiting(const amp_coll_shm_t *s, int r)
{
    return s &&
           atomic_load_explicit(&s->members[r].inside, memory_order_relaxed);
}

/* ---- episodes ----------------------------------------------------------- */

static group_t *group_of(amp_coll_shm_t *s, const amp_coll_comm_t *c)
{
    return &s->groups[s->group_of[c->rank]];
}

/* Counts the caller in.  Returns 1 when it arrived last in its group: it
 * leads this episode and ends it with depart().  Otherwise it waits until
 * its leader has done so and returns 0. */
static int arrive(amp_coll_shm_t *s, const amp_coll_comm_t *c, group_t *g)
{
    member_t *me = &s->members[c->rank];
    me->ep = c->ep;
    me->thr = amp_pe_self()->current; /* the rank's thread in the call */
    atomic_store_explicit(&me->inside, 1, memory_order_relaxed);
    if (++g->arrived == g->n)
        return 1;
    unsigned long epoch = g->epoch;
    while (g->epoch == epoch)
        amp_sched_block();
    atomic_store_explicit(&me->inside, 0, memory_order_relaxed);
    return 0;
}

static void depart(amp_coll_shm_t *s, const amp_coll_comm_t *c, group_t *g)
{
    g->arrived = 0;
    g->epoch++;
    for (int i = 0; i < g->n; i++)
        if (g->ranks[i] != c->rank)
            amp_sched_wake(s->members[g->ranks[i]].thr);
    atomic_store_explicit(&s->members[c->rank].inside, 0, memory_order_relaxed);
}

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static int reached(amp_coll_shm_t *s, unsigned long target)
{
    return atomic_load_explicit(&s->arrivals, memory_order_acquire) >= target;
}

/* Whether something else on pe wants to run.  Asking p2p progresses the
 * transport between processes: what UCX allocates meanwhile is the
 * process's, not the calling rank's (whose heap may move to another
 * process), as in the scheduler's own hooks (mem/sys_alloc.h). */
static int pe_busy(amp_pe_t *pe)
{
    if (pe->runq_head)
        return 1;
    amp_sys_alloc_enter();
    int busy = amp_p2p_pending(pe);
    amp_sys_alloc_leave();
    return busy;
}

/* Polls for a while, as long as nothing else on this PE wants to run. */
static int spin_until(amp_coll_shm_t *s, unsigned long target)
{
    amp_pe_t *pe = amp_pe_self();
    long start = now_ns();
    do {
        if (pe_busy(pe))
            return 0;
        for (int i = 0; i < 64; i++) {
            if (reached(s, target))
                return 1;
            amp_cpu_relax();
        }
    } while (now_ns() - start < SPIN_NS);
    return 0;
}

/* The last leader in wakes those that went to sleep. */
static void wake_leaders(amp_coll_shm_t *s, group_t *mine)
{
    amp_pe_t *pe = amp_pe_self();
    for (int i = 0; i < s->ngroups; i++) {
        group_t *h = &s->groups[i];
        if (h != mine && atomic_load(&h->sleeping) &&
            atomic_exchange(&h->sleeping, 0))
            amp_p2p_wake(pe, h->sleeper);
    }
}

/* Waits until every group's leader got here.  Everything the members
 * published before is visible afterwards. */
static void cross_barrier(amp_coll_shm_t *s, group_t *g)
{
    if (s->ngroups == 1)
        return;
    unsigned long target = ++g->passed * (unsigned long)s->ngroups;
    if (atomic_fetch_add(&s->arrivals, 1) + 1 == target) {
        wake_leaders(s, g);
        return;
    }
    /* Waiting is not load (sched.h): the spin is nobody's, as the sleep
     * after it is. */
    amp_sched_wait_begin();
    int got = spin_until(s, target);
    amp_sched_wait_end();
    if (got)
        return;
    /* sleeping = 1, then look again; the waker counts itself in, then
     * looks at sleeping (both sequentially consistent): one of the two
     * sees the other.  A wake that comes late is harmless: blocked
     * threads re-check their condition. */
    g->sleeper = amp_pe_self()->current;
    for (;;) {
        atomic_store(&g->sleeping, 1);
        if (reached(s, target))
            break;
        amp_sched_block();
        if (reached(s, target))
            break;
    }
    atomic_store(&g->sleeping, 0);
}

/* ---- reductions ---------------------------------------------------------- */

/* The work buffers of one tree evaluation in this PE's scratch: tmp[0 ..
 * height of the tree over total ranks), stride bytes apart after an
 * accumulator (returned) of as many. */
static char *work_buffers(const amp_coll_shm_t *s, size_t stride, char **tmp)
{
    char *acc = s->scratch[amp_pe_self()->id];
    int h = amp_coll_tree_height(s->total);
    for (int i = 0; i < h; i++)
        tmp[i] = acc + (size_t)(i + 1) * stride;
    return acc;
}

/* Bytes of the accumulator and of each work buffer of the large
 * reductions on a communicator of n ranks: all of them in the scratch. */
static size_t chunk_bytes(int n)
{
    return (SCRATCH_BYTES / (size_t)(amp_coll_tree_height(n) + 1)) &
           ~(size_t)63;
}

int amp_coll_shm_reduce_ok(const amp_dt_t *dt, int count,
                           const amp_coll_op_t *op, int n)
{
    (void)count;
    if (!dt->contig)
        return 0;
    /* A user function sees whole elements: a chunk holds at least one. */
    return op->op_id || dt->size <= chunk_bytes(n);
}

/* A reduction on contiguous data, in units the operation can split at:
 * the predefined operations work on the basic values, user functions on
 * whole elements of the user's type. */
typedef struct red {
    const amp_coll_op_t *op;
    const amp_dt_t *unit;
    long units;
    size_t unit_size;
} red_t;

static red_t red_of(const amp_dt_t *dt, int count, const amp_coll_op_t *op)
{
    red_t r = {.op = op, .unit = dt, .units = count};
    if (op->op_id && (op->op_id >= OP_REPLACE || !dt->base_id)) {
        r.unit = amp_dt_predefined(AMPI_DTID_MPI_BYTE);
        r.units = (long)count * (long)dt->size;
    } else if (op->op_id) {
        r.unit = amp_dt_predefined(dt->base_id);
        r.units = (long)count * dt->base_count;
    }
    r.unit_size = r.unit->size;
    return r;
}

/* Data of member m's send buffer, from byte off on. */
static const char *sdata(const amp_coll_shm_t *s, int m, const amp_dt_t *dt,
                         size_t off)
{
    return s->members[m].sbuf + dt->true_lb + off;
}

static char *rdata(const amp_coll_shm_t *s, int m, const amp_dt_t *dt,
                   size_t off)
{
    return s->members[m].rbuf + dt->true_lb + off;
}

static char *partial(const amp_coll_shm_t *s, unsigned long parity, int i)
{
    return s->partials +
           ((size_t)(parity & 1) * (size_t)s->nparts + (size_t)i) * SMALL;
}

/* What a tree evaluation takes as given: the members' send buffers (from
 * byte off on), or the partials of one episode. */
typedef struct given {
    const amp_coll_shm_t *s;
    const amp_dt_t *dt;
    size_t off;
    unsigned long parity;
} given_t;

static const char *member_leaf(const amp_coll_tree_eval_t *e, int lo, int hi)
{
    const given_t *g = e->arg;
    return hi - lo == 1 ? sdata(g->s, lo - g->s->base, g->dt, g->off) : NULL;
}

static const char *partial_leaf(const amp_coll_tree_eval_t *e, int lo, int hi)
{
    const given_t *g = e->arg;
    int k = g->s->part_at[lo - g->s->base];
    return k >= 0 && g->s->parts[k].hi == hi ? partial(g->s, g->parity, k)
                                             : NULL;
}

static amp_coll_tree_eval_t eval_of(const red_t *r, long units,
                                    amp_coll_tree_leaf_fn_t leaf,
                                    const given_t *given, char *const *tmp)
{
    return (amp_coll_tree_eval_t){
        .leaf = leaf,
        .arg = given,
        .op = r->op,
        .unit = r->unit,
        .units = (int)units,
        .lb = r->op->op_id ? 0 : r->unit->true_lb,
        .bytes = (size_t)units * r->unit_size,
        .tmp = tmp,
    };
}

/* One barrier: the leaders compute their groups' parts into partials;
 * after the barrier the root's leader (every leader, for allreduce)
 * computes the top nodes from all partials.  The partials are read by the
 * other leaders after the barrier; they are written again two episodes
 * later, which cannot start before every leader has entered the next
 * episode's barrier. */
static void reduce_small(amp_coll_shm_t *s, group_t *g, const amp_dt_t *dt,
                         const red_t *r, int root)
{
    int gi = (int)(g - s->groups);
    char *tmp[AMP_COLL_TREE_MAX_HEIGHT];
    work_buffers(s, SMALL, tmp);
    given_t given = {.s = s, .dt = dt, .parity = g->epoch};
    amp_coll_tree_eval_t e = eval_of(r, r->units, member_leaf, &given, tmp);
    for (int i = 0; i < g->nparts; i++) {
        const part_t *p = &s->parts[g->parts[i]];
        amp_coll_tree_eval(&e, p->lo, p->hi, partial(s, g->epoch, g->parts[i]));
    }
    cross_barrier(s, g);
    if (root >= 0 && s->group_of[root] != gi)
        return;
    amp_assert(root >= 0 || s->ntop == 1);
    char *dest = rdata(s, root >= 0 ? root : g->ranks[0], dt, 0);
    work_buffers(s, SMALL, tmp); /* this PE's, after the barrier */
    e.leaf = partial_leaf;
    for (int t = 0; t < s->ntop; t++)
        amp_coll_tree_eval(&e, s->top_lo[t], s->top_hi[t],
                           dest + (size_t)t * e.bytes);
    for (int i = 1; root < 0 && i < g->n; i++)
        memcpy(rdata(s, g->ranks[i], dt, 0), dest, e.bytes);
}

/* Two barriers: every PE computes the top nodes on its share of the units
 * straight from all send buffers (chunk by chunk, in cache) into the
 * receive buffers; nobody leaves before every share is done. */
static void reduce_large(amp_coll_shm_t *s, group_t *g, const amp_dt_t *dt,
                         const red_t *r, int root)
{
    cross_barrier(s, g);
    long gi = g - s->groups, ng = s->ngroups;
    long lo = r->units * gi / ng, hi = r->units * (gi + 1) / ng;
    size_t stride = chunk_bytes(s->total);
    long chunk = (long)(stride / r->unit_size);
    size_t whole = (size_t)r->units * r->unit_size; /* of one top node */
    char *tmp[AMP_COLL_TREE_MAX_HEIGHT];
    char *acc = work_buffers(s, stride, tmp);
    given_t given = {.s = s, .dt = dt};
    for (long at = lo; at < hi; at += chunk) {
        long n = hi - at < chunk ? hi - at : chunk;
        given.off = (size_t)at * r->unit_size;
        amp_coll_tree_eval_t e = eval_of(r, n, member_leaf, &given, tmp);
        for (int t = 0; t < s->ntop; t++) {
            amp_coll_tree_eval(&e, s->top_lo[t], s->top_hi[t], acc);
            if (root >= 0) {
                memcpy(rdata(s, root, dt, given.off + (size_t)t * whole), acc,
                       e.bytes);
                continue;
            }
            for (int m = 0; m < s->size; m++)
                memcpy(rdata(s, m, dt, given.off), acc, e.bytes);
        }
    }
    cross_barrier(s, g);
}

static amp_status_t reduction(amp_coll_shm_t *s, const amp_coll_comm_t *c,
                              const void *sendbuf, void *recvbuf, int count,
                              const amp_dt_t *dt, const amp_coll_op_t *op,
                              int root)
{
    size_t bytes = (size_t)count * dt->size;
    if (c->size == 1) {
        if (bytes && sendbuf != recvbuf)
            memcpy(amp_dt_data(recvbuf, dt), amp_dt_data(sendbuf, dt), bytes);
        return AMP_OK;
    }
    if (bytes == 0)
        return AMP_OK;
    group_t *g = group_of(s, c);
    member_t *me = &s->members[c->rank];
    me->sbuf = sendbuf;
    me->rbuf = recvbuf;
    if (!arrive(s, c, g))
        return AMP_OK;
    red_t r = red_of(dt, count, op);
    if (bytes <= SMALL)
        reduce_small(s, g, dt, &r, root);
    else
        reduce_large(s, g, dt, &r, root);
    depart(s, c, g);
    return AMP_OK;
}

amp_status_t amp_coll_shm_reduce(amp_coll_shm_t *s, const amp_coll_comm_t *c,
                                 const void *sendbuf, void *recvbuf, int count,
                                 const amp_dt_t *dt, const amp_coll_op_t *op,
                                 int root)
{
    return reduction(s, c, sendbuf, recvbuf, count, dt, op, root);
}

amp_status_t amp_coll_shm_allreduce(amp_coll_shm_t *s, const amp_coll_comm_t *c,
                                    const void *sendbuf, void *recvbuf,
                                    int count, const amp_dt_t *dt,
                                    const amp_coll_op_t *op)
{
    return reduction(s, c, sendbuf, recvbuf, count, dt, op, -1);
}

/* ---- barrier and broadcast ----------------------------------------------- */

amp_status_t amp_coll_shm_barrier(amp_coll_shm_t *s, const amp_coll_comm_t *c)
{
    if (c->size == 1)
        return AMP_OK;
    group_t *g = group_of(s, c);
    if (!arrive(s, c, g))
        return AMP_OK;
    cross_barrier(s, g);
    depart(s, c, g);
    return AMP_OK;
}

/* Into every non-root member of the group, from bytes packed at src. */
static void bcast_out(amp_coll_shm_t *s, group_t *g, int root, const char *src,
                      size_t bytes)
{
    for (int i = 0; i < g->n; i++) {
        member_t *m = &s->members[g->ranks[i]];
        if (g->ranks[i] != root)
            amp_dt_unpack(m->dt, m->count, m->rbuf, src, bytes);
    }
}

/* The root packed its data into the staging buffer when it arrived. */
static void bcast_small(amp_coll_shm_t *s, group_t *g, int root, size_t bytes)
{
    cross_barrier(s, g);
    bcast_out(s, g, root, s->stage + (g->epoch & 1) * SMALL, bytes);
}

/* Receivers copy straight from the root's buffer (packed once per PE when
 * the root's type has holes); the root leaves after everyone copied. */
static void bcast_large(amp_coll_shm_t *s, group_t *g, int root, size_t bytes)
{
    cross_barrier(s, g);
    const member_t *rt = &s->members[root];
    const char *src = rt->rbuf + rt->dt->true_lb;
    char *packed = NULL;
    int receivers = g->n - (s->group_of[root] == g - s->groups);
    if (!rt->dt->contig && receivers > 0) {
        packed = malloc(bytes);
        if (packed)
            amp_dt_pack(rt->dt, rt->count, rt->rbuf, packed);
        src = packed;
    }
    if (src) {
        bcast_out(s, g, root, src, bytes);
    } else {
        for (int i = 0; i < g->n; i++)
            if (g->ranks[i] != root)
                s->members[g->ranks[i]].st = AMP_ERR_NOMEM;
    }
    free(packed);
    cross_barrier(s, g);
}

amp_status_t amp_coll_shm_bcast(amp_coll_shm_t *s, const amp_coll_comm_t *c,
                                void *buf, int count, const amp_dt_t *dt,
                                int root)
{
    size_t bytes = (size_t)count * dt->size;
    if (c->size == 1 || bytes == 0)
        return AMP_OK;
    group_t *g = group_of(s, c);
    member_t *me = &s->members[c->rank];
    me->rbuf = buf;
    me->dt = dt;
    me->count = count;
    me->st = AMP_OK;
    if (bytes <= SMALL && c->rank == root)
        amp_dt_pack(dt, count, buf, s->stage + (g->epoch & 1) * SMALL);
    if (!arrive(s, c, g))
        return me->st;
    if (bytes <= SMALL)
        bcast_small(s, g, root, bytes);
    else
        bcast_large(s, g, root, bytes);
    depart(s, c, g);
    return me->st;
}
