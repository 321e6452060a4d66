/* The shared state of windows; see rma.h. */
#include "rma/rma.h"
#include "rma/state.h"

#include "p2p/p2p.h"
#include "sched/sched.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* MPI_NO_OP's index among the predefined operations (mpi.h). */
#define OP_NO_OP 14
/* Segments of a shared allocation start this many bytes apart at least. */
#define SEG_ALIGN 64
/* Staging for accumulates up to this many bytes stays on the stack. */
#define SMALL_ACC 256
/* A waiter yields this many times before it sleeps on the window. */
#define WAIT_YIELDS 64

/* Waits as a user-level thread until ready(w, arg) (which may take what
 * it checks for, as a lock): yields to the other ranks of this PE for a
 * while (the holder may be one of them), then sleeps on the window until a
 * member changes its state (amp_rma_notify).  A sleeping rank is idle, so if no
 * member ever does, the scheduler's deadlock report names it and its call
 * instead of the job spinning forever. */
static void wait_for(amp_rma_win_t *w, int (*ready)(amp_rma_win_t *, void *),
                     void *arg)
{
    for (int i = 0; i < WAIT_YIELDS; i++) {
        if (ready(w, arg))
            return;
        amp_sched_yield();
    }
    for (;;) {
        sleeper_t me = {NULL, amp_pe_self()->current};
        /* Listed (and counted) before it looks: a member of another PE that
         * changes the state between the look and the listing would see no
         * sleeper (amp_rma_notify reads the count without the lock) and
         * wake nobody.  Both sides order their store before their load
         * with a full fence, so one of them sees the other's. */
        amp_spin_lock(&w->wl);
        me.next = w->sleepers;
        w->sleepers = &me;
        atomic_fetch_add(&w->nsleepers, 1);
        atomic_thread_fence(memory_order_seq_cst);
        int done = ready(w, arg);
        amp_spin_unlock(&w->wl);
        if (!done)
            amp_sched_block();
        /* Ready, woken by notify (which unlisted it) or spuriously. */
        amp_spin_lock(&w->wl);
        for (sleeper_t **p = &w->sleepers; *p; p = &(*p)->next)
            if (*p == &me) {
                *p = me.next;
                atomic_fetch_sub(&w->nsleepers, 1);
                break;
            }
        amp_spin_unlock(&w->wl);
        if (done)
            return;
    }
}

/* After a change of the window's state: wakes every sleeper to look again.
 * The wakes happen under wl, so a sleeper's frame outlives its listing. */
void amp_rma_notify(amp_rma_win_t *w)
{
    amp_sched_activity(amp_pe_self()); /* ends polls too (sched.h) */
    atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load(&w->nsleepers))
        return;
    amp_pe_t *pe = amp_pe_self();
    amp_spin_lock(&w->wl);
    for (sleeper_t *z = w->sleepers; z; z = z->next)
        amp_p2p_wake(pe, z->thr);
    w->sleepers = NULL;
    atomic_store(&w->nsleepers, 0);
    amp_spin_unlock(&w->wl);
}

/* ---- windows ---------------------------------------------------------- */

amp_rma_win_t *amp_rma_win_new(int size, int nlocal)
{
    amp_rma_win_t *w = calloc(1, sizeof(*w));
    if (!w)
        return NULL;
    w->size = size;
    atomic_init(&w->refs, nlocal);
    w->targets = aligned_alloc(64, (size_t)size * sizeof(target_t));
    w->posts = calloc((size_t)size * (size_t)size, sizeof(*w->posts));
    w->peers = calloc((size_t)size, sizeof(*w->peers));
    if (!w->targets || !w->posts || !w->peers) {
        free(w->targets);
        free(w->posts);
        free(w->peers);
        free(w);
        return NULL;
    }
    memset(w->targets, 0, (size_t)size * sizeof(target_t));
    for (int r = 0; r < size; r++)
        w->targets[r].accp = &w->targets[r].acc;
    return w;
}

void amp_rma_win_release(amp_rma_win_t *w)
{
    if (atomic_fetch_sub(&w->refs, 1) != 1)
        return;
    for (int r = 0; r < w->size; r++) {
        amp_rma_drop_waiters(w, r);
        region_t *g = w->targets[r].regions;
        while (g) {
            region_t *next = g->next;
            free(g);
            g = next;
        }
    }
    free(w->shared);
    amp_rma_unmap_all(w);
    free(w->targets);
    free(w->posts);
    free(w->peers);
    free(w);
}

amp_rma_seg_t *amp_rma_seg(amp_rma_win_t *w, int r)
{
    return &w->targets[r].seg;
}

static size_t round_up(size_t n)
{
    return (n + SEG_ALIGN - 1) / SEG_ALIGN * SEG_ALIGN;
}

amp_status_t amp_rma_shared_alloc(amp_rma_win_t *w)
{
    size_t total = 0;
    for (int r = 0; r < w->size; r++)
        total += round_up(w->targets[r].seg.size);
    w->shared = aligned_alloc(SEG_ALIGN, total ? total : SEG_ALIGN);
    if (!w->shared)
        return AMP_ERR_NOMEM;
    char *p = w->shared;
    for (int r = 0; r < w->size; r++) {
        w->targets[r].seg.base = p;
        p += round_up(w->targets[r].seg.size);
    }
    return AMP_OK;
}

/* ---- dynamic windows -------------------------------------------------- */

amp_status_t amp_rma_attach(amp_rma_win_t *w, int r, void *base, size_t size)
{
    region_t *g = malloc(sizeof(*g));
    if (!g)
        return AMP_ERR_NOMEM;
    target_t *t = &w->targets[r];
    g->base = base;
    g->size = size;
    amp_spin_lock(&t->dyn);
    g->next = t->regions;
    t->regions = g;
    amp_spin_unlock(&t->dyn);
    return AMP_OK;
}

amp_status_t amp_rma_detach(amp_rma_win_t *w, int r, const void *base)
{
    target_t *t = &w->targets[r];
    region_t *found = NULL;
    amp_spin_lock(&t->dyn);
    for (region_t **p = &t->regions; *p; p = &(*p)->next)
        if ((*p)->base == base) {
            found = *p;
            *p = found->next;
            break;
        }
    amp_spin_unlock(&t->dyn);
    free(found);
    return found ? AMP_OK : AMP_ERR_ARG;
}

/* The end of the region of t that holds the byte at p, or NULL. */
static const char *region_end(const target_t *t, const char *p)
{
    for (const region_t *g = t->regions; g; g = g->next)
        if (p >= (const char *)g->base &&
            (size_t)(p - (const char *)g->base) < g->size)
            return (const char *)g->base + g->size;
    return NULL;
}

int amp_rma_attached(amp_rma_win_t *w, int r, const char *addr, size_t len)
{
    target_t *t = &w->targets[r];
    const char *p = addr, *end = addr + len;
    amp_spin_lock(&t->dyn);
    /* Region after region: the range may span adjacent ones. */
    while (p && p < end)
        p = region_end(t, p);
    amp_spin_unlock(&t->dyn);
    return p != NULL;
}

/* ---- passive target --------------------------------------------------- */

static int lock_granted(amp_rma_win_t *w, void *arg)
{
    (void)w;
    lock_waiter_t *me = arg;
    return atomic_load_explicit(&me->granted, memory_order_acquire);
}

/* Takes member r's lock at once when nobody waits for it and it is free;
 * else queues behind the requests before this one (of this process or
 * others) and sleeps until amp_rma_serve_locks grants it.  Taking a free
 * lock past waiting requests would starve them: a rank spinning on lock,
 * get, unlock would overtake every request queued at each release. */
void amp_rma_lock(amp_rma_win_t *w, int r, int exclusive)
{
    target_t *t = &w->targets[r];
    lock_waiter_t me = {.exclusive = exclusive, .thr = amp_pe_self()->current};
    amp_spin_lock(&t->lq);
    int now = !t->lq_head && amp_rma_try_lock(&t->lock, exclusive);
    if (!now)
        amp_rma_lq_append(t, &me);
    amp_spin_unlock(&t->lq);
    if (!now)
        wait_for(w, lock_granted, &me);
}

void amp_rma_serve_locks(amp_rma_win_t *w, int r)
{
    target_t *t = &w->targets[r];
    int woke = 0;
    amp_spin_lock(&t->lq);
    while (t->lq_head && amp_rma_try_lock(&t->lock, t->lq_head->exclusive)) {
        lock_waiter_t *q = t->lq_head;
        t->lq_head = q->next;
        if (!t->lq_head)
            t->lq_tail = NULL;
        if (q->thr) {
            /* The last touch: the entry is on the waiter's stack. */
            atomic_store_explicit(&q->granted, 1, memory_order_release);
            woke = 1;
        } else {
            q->grant(q);
            free(q);
        }
    }
    amp_spin_unlock(&t->lq);
    if (woke)
        amp_rma_notify(w);
}

/* Called as the window is freed: no rank of this process can wait for a
 * lock then (MPI_Win_free is collective), only requests of others that
 * were never unlocked. */
void amp_rma_drop_waiters(amp_rma_win_t *w, int r)
{
    target_t *t = &w->targets[r];
    while (t->lq_head) {
        lock_waiter_t *q = t->lq_head;
        t->lq_head = q->next;
        if (!q->thr)
            free(q);
    }
    t->lq_tail = NULL;
}

void amp_rma_unlock(amp_rma_win_t *w, int r, int exclusive)
{
    _Atomic int *l = &w->targets[r].lock;
    if (exclusive)
        atomic_store_explicit(l, 0, memory_order_release);
    else
        atomic_fetch_sub_explicit(l, 1, memory_order_release);
    amp_rma_serve_locks(w, r);
    amp_rma_notify(w);
}

/* ---- the accumulate family -------------------------------------------- */

/* The predefined type the values of dt are made of. */
static const amp_dt_t *basic_of(const amp_dt_t *dt)
{
    return dt->base_id ? amp_dt_predefined(dt->base_id) : dt;
}

/* cur = in op cur for n values of the predefined type basic, both packed
 * (type-map order, no padding).  A padded pair (MPI_DOUBLE_INT, ...) is
 * combined in its own layout, in a copy: its fields are not where the
 * operation looks for them in packed data. */
static amp_status_t apply_packed(const amp_coll_op_t *op, const amp_dt_t *basic,
                                 int n, const void *in, char *cur)
{
    if (basic->contig || op->op_id == OP_NO_OP) {
        amp_coll_apply(op, basic, n, in, cur);
        return AMP_OK;
    }
    size_t span = (size_t)n * (size_t)basic->extent;
    size_t bytes = (size_t)n * basic->size;
    _Alignas(16) char small[2 * SMALL_ACC];
    char *a = 2 * span > sizeof(small) ? malloc(2 * span) : small;
    if (!a)
        return AMP_ERR_NOMEM;
    char *b = a + span;
    amp_dt_unpack(basic, n, a, in, bytes);
    amp_dt_unpack(basic, n, b, cur, bytes);
    amp_coll_apply(op, basic, n, a, b);
    amp_dt_pack(basic, n, b, cur);
    if (a != small)
        free(a);
    return AMP_OK;
}

/* The accumulate family's step on a plain run of n values of basic at t
 * (in packed values are laid out the same): in place, without staging
 * copies. */
static void acc_plain_target(amp_rma_win_t *w, int r, char *t,
                             const amp_dt_t *basic, int n, const void *in,
                             const amp_coll_op_t *op, void *old)
{
    target_t *tg = &w->targets[r];
    amp_spin_lock(tg->accp);
    if (old)
        memcpy(old, t, (size_t)n * basic->size);
    if (op->op_id != OP_NO_OP)
        amp_coll_apply(op, basic, n, in, t);
    amp_spin_unlock(tg->accp);
    if (op->op_id != OP_NO_OP)
        amp_sched_activity(amp_pe_self()); /* may end a poll (sched.h) */
}

amp_status_t amp_rma_acc_packed(amp_rma_win_t *w, int r, char *taddr,
                                const amp_dt_t *tdt, int tcount, const void *in,
                                const amp_coll_op_t *op, void *old)
{
    size_t bytes = (size_t)tcount * tdt->size;
    const amp_dt_t *basic = basic_of(tdt);
    int n = basic->size ? (int)(bytes / basic->size) : 0;
    if (tdt->contig && basic->contig) {
        acc_plain_target(w, r, taddr + tdt->true_lb, basic, n, in, op, old);
        return AMP_OK;
    }
    char small[SMALL_ACC];
    char *cur = bytes > SMALL_ACC ? malloc(bytes) : small;
    if (!cur)
        return AMP_ERR_NOMEM;
    target_t *t = &w->targets[r];
    amp_status_t st = AMP_OK;
    amp_spin_lock(t->accp);
    amp_dt_pack(tdt, tcount, taddr, cur);
    if (old)
        memcpy(old, cur, bytes);
    if (op->op_id != OP_NO_OP)
        st = apply_packed(op, basic, n, in, cur);
    if (op->op_id != OP_NO_OP && st == AMP_OK)
        amp_dt_unpack(tdt, tcount, taddr, cur, bytes);
    amp_spin_unlock(t->accp);
    if (op->op_id != OP_NO_OP)
        amp_sched_activity(amp_pe_self());
    if (cur != small)
        free(cur);
    return st;
}

/* Whether a's sides are all plain runs of unpadded values: then the
 * operation applies in place, without staging copies. */
static int acc_plain(const amp_rma_acc_t *a, const amp_coll_op_t *op)
{
    return a->tdt->contig && basic_of(a->tdt)->contig &&
           (op->op_id == OP_NO_OP || a->odt->contig) &&
           (!a->raddr || a->rdt->contig);
}

/* The accumulate of plain runs, under member r's accumulate lock. */
static void acc_in_place(amp_rma_win_t *w, int r, const amp_rma_acc_t *a,
                         const amp_coll_op_t *op)
{
    size_t bytes = (size_t)a->tcount * a->tdt->size;
    const amp_dt_t *basic = basic_of(a->tdt);
    int n = basic->size ? (int)(bytes / basic->size) : 0;
    acc_plain_target(w, r, a->taddr + a->tdt->true_lb, basic, n,
                     op->op_id != OP_NO_OP ? amp_dt_data(a->oaddr, a->odt)
                                           : NULL,
                     op, a->raddr ? amp_dt_data(a->raddr, a->rdt) : NULL);
}

amp_status_t amp_rma_accumulate(amp_rma_win_t *w, int r, const amp_rma_acc_t *a,
                                const amp_coll_op_t *op)
{
    if (acc_plain(a, op)) {
        acc_in_place(w, r, a, op);
        return AMP_OK;
    }
    size_t bytes = (size_t)a->tcount * a->tdt->size;
    char small[2 * SMALL_ACC];
    char *in = small, *old = small + SMALL_ACC;
    char *heap = NULL;
    if (bytes > SMALL_ACC) {
        heap = malloc(2 * bytes);
        if (!heap)
            return AMP_ERR_NOMEM;
        in = heap;
        old = heap + bytes;
    }
    if (op->op_id != OP_NO_OP)
        amp_dt_pack(a->odt, a->ocount, a->oaddr, in);
    amp_status_t st = amp_rma_acc_packed(w, r, a->taddr, a->tdt, a->tcount, in,
                                         op, a->raddr ? old : NULL);
    if (st == AMP_OK && a->raddr)
        amp_dt_unpack(a->rdt, a->rcount, a->raddr, old, bytes);
    free(heap);
    return st;
}

void amp_rma_cas(amp_rma_win_t *w, int r, char *taddr, const void *origin,
                 const void *compare, void *result, size_t size)
{
    target_t *t = &w->targets[r];
    amp_spin_lock(t->accp);
    memmove(result, taddr, size);
    int swap = memcmp(result, compare, size) == 0;
    if (swap)
        memcpy(taddr, origin, size);
    amp_spin_unlock(t->accp);
    if (swap)
        amp_sched_activity(amp_pe_self());
}

/* ---- post-start-complete-wait ----------------------------------------- */

void amp_rma_post(amp_rma_win_t *w, int me, const int *origins, int n)
{
    atomic_thread_fence(memory_order_seq_cst);
    for (int i = 0; i < n; i++)
        atomic_fetch_add_explicit(&w->posts[(size_t)origins[i] * w->size + me],
                                  1, memory_order_release);
    amp_rma_notify(w);
}

/* A post from a target to start on, taken when there is one. */
static int post_taken(amp_rma_win_t *w, void *arg)
{
    (void)w;
    _Atomic int *p = arg;
    int n = atomic_load_explicit(p, memory_order_acquire);
    while (n > 0)
        if (atomic_compare_exchange_weak(p, &n, n - 1))
            return 1;
    return 0;
}

void amp_rma_start(amp_rma_win_t *w, int me, const int *targets, int n,
                   int nocheck)
{
    for (int i = 0; i < n && !nocheck; i++)
        wait_for(w, post_taken, &w->posts[(size_t)me * w->size + targets[i]]);
}

void amp_rma_complete(amp_rma_win_t *w, int me, const int *targets, int n)
{
    (void)me;
    atomic_thread_fence(memory_order_seq_cst);
    for (int i = 0; i < n; i++)
        atomic_fetch_add_explicit(&w->targets[targets[i]].completes, 1,
                                  memory_order_release);
    amp_rma_notify(w);
}

typedef struct completes_arg {
    _Atomic int *c;
    int expected;
} completes_arg_t;

/* The expected completes, taken when they are all there. */
static int completes_taken(amp_rma_win_t *w, void *arg)
{
    (void)w;
    completes_arg_t *a = arg;
    if (atomic_load_explicit(a->c, memory_order_acquire) < a->expected)
        return 0;
    atomic_fetch_sub_explicit(a->c, a->expected, memory_order_relaxed);
    return 1;
}

int amp_rma_wait(amp_rma_win_t *w, int me, int expected, int block)
{
    completes_arg_t a = {&w->targets[me].completes, expected};
    if (block) {
        wait_for(w, completes_taken, &a);
        return 1;
    }
    return completes_taken(w, &a);
}

void amp_rma_sync(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}
