/* Collectives over the shared address space; see shm.h for the scheme. */
#include "coll/shm.h"

#include "mpi.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SMALL AMP_COLL_SHM_SMALL
/* Per-PE working space of the large reductions: one chunk of the result,
 * combined in cache before it is copied out. */
#define SCRATCH_BYTES (32u << 10)
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

/* Consecutive ranks on one PE: members ranks[first .. first + n) of a
 * group. */
typedef struct run {
    int group, first, n;
} run_t;

/* The members on one PE. */
typedef struct group {
    /* Touched only by the threads of its PE: no atomics needed. */
    _Alignas(64) int n;
    const int *ranks; /* comm ranks, ascending */
    int arrived;
    unsigned long epoch;  /* episodes completed */
    unsigned long passed; /* cross-PE barriers entered */
    /* Touched by the other groups' leaders. */
    _Alignas(64) _Atomic int sleeping; /* its leader blocks at a barrier */
    amp_thread_t *sleeper;
} group_t;

struct amp_coll_shm {
    amp_coll_shm_t *next; /* in the registry */
    int ctx, first_world, size, refs;
    int ngroups, nruns;
    member_t *members; /* by comm rank */
    group_t *groups;
    int *world;     /* comm rank -> world rank, or NULL: the identity */
    int *group_of;  /* comm rank -> group */
    int *ranks;     /* the groups' members, group after group */
    run_t *runs;    /* in rank order */
    char *partials; /* [2][nruns + ngroups][SMALL] */
    char *stage;    /* [2][SMALL] */
    char **scratch; /* the registry's, by PE */
    _Alignas(64) _Atomic unsigned long arrivals; /* cross-PE barriers */
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/* ---- the registry ----------------------------------------------------- */

static void reg_lock(amp_coll_shm_registry_t *reg)
{
    while (atomic_exchange_explicit(&reg->lock, 1, memory_order_acquire))
        cpu_relax();
}

static void reg_unlock(amp_coll_shm_registry_t *reg)
{
    atomic_store_explicit(&reg->lock, 0, memory_order_release);
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

static void shm_free(amp_coll_shm_t *s)
{
    free(s->world);
    free(s->members);
    free(s->groups);
    free(s->group_of);
    free(s->ranks);
    free(s->runs);
    free(s->partials);
    free(s->stage);
    free(s);
}

/* Groups in order of their lowest rank; each group's members ascending;
 * runs of consecutive ranks that share a PE. */
static amp_status_t shm_layout(amp_coll_shm_t *s, const int *rank_pe, int npes,
                               const int *world_map)
{
    int n = s->size;
    int *pe_group = malloc((size_t)npes * sizeof(int));
    int *fill = calloc((size_t)n, sizeof(int));
    if (!pe_group || !fill) {
        free(pe_group);
        free(fill);
        return AMP_ERR_NOMEM;
    }
    for (int p = 0; p < npes; p++)
        pe_group[p] = -1;
    for (int r = 0; r < n; r++) {
        int pe = rank_pe[world_map ? world_map[r] : r];
        if (pe_group[pe] < 0)
            pe_group[pe] = s->ngroups++;
        s->group_of[r] = pe_group[pe];
        if (r == 0 || s->group_of[r] != s->group_of[r - 1])
            s->nruns++;
    }
    free(pe_group);
    s->groups = aligned_alloc(64, (size_t)s->ngroups * sizeof(group_t));
    s->runs = malloc((size_t)s->nruns * sizeof(run_t));
    if (!s->groups || !s->runs) {
        free(fill);
        return AMP_ERR_NOMEM;
    }
    memset(s->groups, 0, (size_t)s->ngroups * sizeof(group_t));
    for (int r = 0; r < n; r++)
        s->groups[s->group_of[r]].n++;
    int at = 0;
    for (int g = 0; g < s->ngroups; g++) {
        s->groups[g].ranks = s->ranks + at;
        at += s->groups[g].n;
    }
    int k = -1;
    for (int r = 0; r < n; r++) {
        int g = s->group_of[r];
        if (r == 0 || g != s->group_of[r - 1])
            s->runs[++k] = (run_t){.group = g, .first = fill[g], .n = 0};
        s->runs[k].n++;
        s->ranks[s->groups[g].ranks - s->ranks + fill[g]++] = r;
    }
    free(fill);
    return AMP_OK;
}

static amp_coll_shm_t *shm_create(const int *rank_pe, int npes, int ctx,
                                  int size, const int *world_map)
{
    amp_coll_shm_t *s = aligned_alloc(64, AMP_ROUND_UP(sizeof(*s), 64));
    if (!s)
        return NULL;
    memset(s, 0, sizeof(*s));
    s->ctx = ctx;
    s->first_world = world_map ? world_map[0] : 0;
    s->size = size;
    s->members = aligned_alloc(64, (size_t)size * sizeof(member_t));
    s->group_of = malloc((size_t)size * sizeof(int));
    s->ranks = malloc((size_t)size * sizeof(int));
    s->stage = aligned_alloc(64, 2 * SMALL);
    if (world_map) {
        s->world = malloc((size_t)size * sizeof(int));
        if (s->world)
            memcpy(s->world, world_map, (size_t)size * sizeof(int));
    }
    if (!s->members || !s->group_of || !s->ranks || !s->stage ||
        (world_map && !s->world) ||
        shm_layout(s, rank_pe, npes, world_map) != AMP_OK)
        goto err_free;
    memset(s->members, 0, (size_t)size * sizeof(member_t));
    s->partials =
        aligned_alloc(64, 2 * (size_t)(s->nruns + s->ngroups) * SMALL);
    if (!s->partials)
        goto err_free;
    return s;

err_free:
    shm_free(s);
    return NULL;
}

amp_status_t amp_coll_shm_attach(amp_coll_shm_registry_t *reg,
                                 const int *rank_pe, int npes, int ctx,
                                 int size, const int *world_map,
                                 amp_coll_shm_t **out)
{
    *out = NULL;
    if (size <= 1)
        return AMP_OK;
    int first = world_map ? world_map[0] : 0;
    amp_status_t st = AMP_OK;
    amp_coll_shm_t *s = NULL;
    reg_lock(reg);
    if (!reg->scratch)
        st = scratch_init(reg, npes);
    if (st == AMP_OK) {
        for (s = reg->head; s; s = s->next)
            if (s->ctx == ctx && s->first_world == first && s->size == size)
                break;
        if (!s && (s = shm_create(rank_pe, npes, ctx, size, world_map))) {
            s->scratch = reg->scratch;
            s->next = reg->head;
            reg->head = s;
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
        amp_coll_shm_t **p = &reg->head;
        while (*p != s)
            p = &(*p)->next;
        *p = s->next;
    }
    reg_unlock(reg);
    if (last)
        shm_free(s);
}

/* New groups for s from rank_pe, keeping the episode and barrier counts
 * (equal in every group between episodes). */
static amp_status_t shm_relayout(amp_coll_shm_t *s, const int *rank_pe,
                                 int npes)
{
    unsigned long epoch = s->groups[0].epoch, passed = s->groups[0].passed;
    int old_parts = s->nruns + s->ngroups;
    group_t *old_groups = s->groups;
    run_t *old_runs = s->runs;
    s->groups = NULL;
    s->runs = NULL;
    s->ngroups = s->nruns = 0;
    amp_status_t st = shm_layout(s, rank_pe, npes, s->world);
    if (st == AMP_OK && s->nruns + s->ngroups > old_parts) {
        char *p =
            aligned_alloc(64, 2 * (size_t)(s->nruns + s->ngroups) * SMALL);
        if (p) {
            free(s->partials);
            s->partials = p;
        } else {
            st = AMP_ERR_NOMEM;
        }
    }
    if (st != AMP_OK) {
        free(s->groups);
        free(s->runs);
        return st;
    }
    free(old_groups);
    free(old_runs);
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
    for (amp_coll_shm_t *s = reg->head; s && st == AMP_OK; s = s->next)
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

/* Polls for a while, as long as nothing else on this PE wants to run. */
static int spin_until(amp_coll_shm_t *s, unsigned long target)
{
    amp_pe_t *pe = amp_pe_self();
    long start = now_ns();
    do {
        if (pe->runq_head || amp_p2p_pending(pe))
            return 0;
        for (int i = 0; i < 64; i++) {
            if (reached(s, target))
                return 1;
            cpu_relax();
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
    if (spin_until(s, target))
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

int amp_coll_shm_reduce_ok(const amp_dt_t *dt, int count,
                           const amp_coll_op_t *op)
{
    (void)count;
    if (!dt->contig)
        return 0;
    /* A user function sees whole elements: a chunk holds at least one. */
    return op->op_id || dt->size <= SCRATCH_BYTES;
}

static int commutes(const amp_coll_op_t *op)
{
    /* The predefined operations but MPI_REPLACE and MPI_NO_OP. */
    return op->op_id > 0 && op->op_id < OP_REPLACE;
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

/* inout = in op inout over n units, both given by their first data
 * byte. */
static void apply(const red_t *r, long n, const char *in, char *inout)
{
    ptrdiff_t lb = r->op->op_id ? 0 : r->unit->true_lb;
    amp_coll_apply(r->op, r->unit, (int)n, in - lb, inout - lb);
}

/* Data of member m's send buffer, from unit at on. */
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

/* acc = the send buffers of members ranks[0 .. n) combined in that
 * order: ranks[0] op (ranks[1] op (...)). */
static void combine(const amp_coll_shm_t *s, const int *ranks, int n,
                    const amp_dt_t *dt, const red_t *r, size_t off, long units,
                    char *acc)
{
    memcpy(acc, sdata(s, ranks[n - 1], dt, off), (size_t)units * r->unit_size);
    for (int i = n - 2; i >= 0; i--)
        apply(r, units, sdata(s, ranks[i], dt, off), acc);
}

static char *partial(const amp_coll_shm_t *s, unsigned long parity, int i)
{
    size_t per = (size_t)(s->nruns + s->ngroups);
    return s->partials + ((size_t)(parity & 1) * per + (size_t)i) * SMALL;
}

/* One barrier: this group's partials, then everyone's in rank order.  The
 * partials are read by the other leaders after the barrier; they are
 * written again two episodes later, which cannot start before every
 * leader has entered the next episode's barrier. */
static void reduce_small(amp_coll_shm_t *s, group_t *g, const amp_dt_t *dt,
                         const red_t *r, int root)
{
    int gi = (int)(g - s->groups);
    int comm = commutes(r->op);
    size_t bytes = (size_t)r->units * r->unit_size;
    if (comm) {
        combine(s, g->ranks, g->n, dt, r, 0, r->units,
                partial(s, g->epoch, s->nruns + gi));
    } else {
        for (int k = 0; k < s->nruns; k++)
            if (s->runs[k].group == gi)
                combine(s, g->ranks + s->runs[k].first, s->runs[k].n, dt, r, 0,
                        r->units, partial(s, g->epoch, k));
    }
    cross_barrier(s, g);
    if (root >= 0 && s->group_of[root] != gi)
        return;
    int first = comm ? s->nruns : 0, n = comm ? s->ngroups : s->nruns;
    char *dest = rdata(s, root >= 0 ? root : g->ranks[0], dt, 0);
    memcpy(dest, partial(s, g->epoch, first + n - 1), bytes);
    for (int k = n - 2; k >= 0; k--)
        apply(r, r->units, partial(s, g->epoch, first + k), dest);
    for (int i = 1; root < 0 && i < g->n; i++)
        memcpy(rdata(s, g->ranks[i], dt, 0), dest, bytes);
}

/* Two barriers: every PE combines its share of the units straight from
 * all send buffers (chunk by chunk, in cache) into the receive buffers;
 * nobody leaves before every share is done. */
static void reduce_large(amp_coll_shm_t *s, group_t *g, const amp_dt_t *dt,
                         const red_t *r, int root)
{
    cross_barrier(s, g);
    long gi = g - s->groups, ng = s->ngroups;
    long lo = r->units * gi / ng, hi = r->units * (gi + 1) / ng;
    long chunk = (long)(SCRATCH_BYTES / r->unit_size);
    char *acc = s->scratch[amp_pe_self()->id];
    for (long at = lo; at < hi; at += chunk) {
        long n = hi - at < chunk ? hi - at : chunk;
        size_t off = (size_t)at * r->unit_size;
        size_t bytes = (size_t)n * r->unit_size;
        memcpy(acc, sdata(s, s->size - 1, dt, off), bytes);
        for (int m = s->size - 2; m >= 0; m--)
            apply(r, n, sdata(s, m, dt, off), acc);
        if (root >= 0) {
            memcpy(rdata(s, root, dt, off), acc, bytes);
            continue;
        }
        for (int m = 0; m < s->size; m++)
            memcpy(rdata(s, m, dt, off), acc, bytes);
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
            memcpy((char *)recvbuf + dt->true_lb,
                   (const char *)sendbuf + dt->true_lb, bytes);
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
