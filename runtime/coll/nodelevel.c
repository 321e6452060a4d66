/*
 * The leaders' level of the two-level collectives (coll/hier.c) when every
 * process of the communicator runs on this node: the leaders meet in a
 * node object (node/node.h) instead of over point-to-point.
 *
 * The object has one slot per block (process): a sequence number, the
 * episodes its leader has published, and two data areas used in turn
 * (episode k writes area k % NAREAS).  An episode is a barrier, an allreduce or
 * a broadcast; the leaders of a communicator run them in the same order
 * (MPI orders a communicator's collectives).  In a barrier or allreduce a
 * leader writes its data for episode k, then k into its sequence number,
 * and waits until every leader's number is at least k.  In a broadcast
 * the root's leader writes the data, then k; each other leader waits for
 * the root's k, copies the data out, then writes k.  A leader publishes k
 * only once it is done reading episode k - 1, so it starts episode k + 1
 * (writing the area of k + 1 - NAREAS) only once every number is at least
 * k + 2 - NAREAS: after a barrier or allreduce that is already known,
 * after broadcasts it may wait for it.
 *
 * An allreduce: each leader publishes the values of the tree nodes that
 * cover its block (coll/tree.h), then every leader evaluates the nodes
 * above from the published values itself, in the tree's order: the same
 * operations on the same operands, so every leader gets the root's bits
 * that the point-to-point level (amp_coll_tree_reduce_blocks) computes,
 * with no broadcast among leaders.
 *
 * The object is made by the first episode that needs it: the leader of
 * block 0 creates it, the others open it (one look at a time, polling
 * through the scheduler in between: a PE that slept until the object
 * appears would hold up what the creator's process waits for from it).  Its
 * name, "c<context>.<world rank of comm rank 0>", is unique among the live
 * communicators (two communicators with one context have no member in common)
 * and goes once every leader has opened it (during the first episode), so a
 * later communicator with the same context and first member makes a new one; a
 * communicator freed before that drops it at its creator.
 */
#include "coll/hier.h"

#include "coll/tree.h"
#include "p2p/p2p.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Bytes of one data area: an allreduce goes through the node level when
 * the most cover values a block can have fit in it (the object's pages
 * are only taken as they are written). */
#define AREA_BYTES (256u << 10)
#define READ_BYTES (256u << 10)
/* Data areas per slot, used in turn: a broadcast's root runs up to
 * NAREAS - 1 episodes ahead of the slowest leader. */
#define NAREAS 4
/* A broadcast goes through the node object above this many bytes. */
#define BCAST_MIN 1024
/* How long a leader polls before it yields to the rest of its PE (only
 * while nothing else on the PE is ready), and how long it goes on
 * yielding before it may park as a poller (sched.h): the other leaders
 * cannot wake its PE, and a parked poller looks again only after its PE's
 * idle sleep. */
#define SPIN_NS 10000L
#define YIELD_NS 100000L

typedef struct slot {
    _Alignas(64) _Atomic unsigned long seq;
    _Alignas(64) char area[NAREAS][AREA_BYTES];
} slot_t;

struct amp_coll_nlevel {
    const amp_node_t *node;
    int nblocks, block;
    int n;                   /* comm ranks */
    const int *first;        /* block b's first comm rank; [nblocks] = n */
    const int *leader_world; /* block b's leader -> world rank */
    char tag[24];            /* the object's tag */
    slot_t *slots;           /* mapped; NULL until the first episode */
    int created;             /* this leader created the object */
    int all_opened;          /* an episode completed: the name is gone */
    unsigned long seq;       /* episodes of this leader so far */
    unsigned long complete;  /* every leader has published up to it */
    char *tmp;               /* work buffers of the tree evaluation */
    size_t tmp_bytes;
    amp_coll_covers_t covers; /* every block's; made by the first use */
};

static size_t object_bytes(int nblocks)
{
    return (size_t)nblocks * sizeof(slot_t);
}

amp_status_t amp_coll_nlevel_new(const amp_node_t *node, int ctx,
                                 int first_world,
                                 const amp_coll_nlevel_layout_t *lay,
                                 amp_coll_nlevel_t **out)
{
    amp_coll_nlevel_t *l = calloc(1, sizeof(*l));
    if (!l)
        return AMP_ERR_NOMEM;
    *l = (amp_coll_nlevel_t){.node = node,
                             .nblocks = lay->nblocks,
                             .block = lay->block,
                             .n = lay->n,
                             .first = lay->first,
                             .leader_world = lay->leader_world};
    snprintf(l->tag, sizeof(l->tag), "c%d.%d", ctx, first_world);
    *out = l;
    return AMP_OK;
}

void amp_coll_nlevel_free(amp_coll_nlevel_t *l)
{
    if (!l)
        return;
    if (l->created && !l->all_opened) /* some leader never came */
        amp_node_drop(l->node, l->tag);
    amp_node_unmap(l->slots, object_bytes(l->nblocks));
    free(l->tmp);
    amp_coll_covers_free(&l->covers);
    free(l);
}

int amp_coll_nlevel_allreduce_ok(const amp_coll_nlevel_t *l, size_t bytes)
{
    /* Every leader reads every block's values: beyond READ_BYTES in all,
     * the point-to-point tree (one combine per level) does less. */
    return l && bytes * 2 * (size_t)amp_coll_tree_height(l->n) <= AREA_BYTES &&
           bytes * (size_t)l->nblocks <= READ_BYTES;
}

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* A wait's progress: when it began (0: not yet), its looks so far, and
 * its polls through the scheduler. */
typedef struct waiting {
    long start;
    unsigned looks, polls;
} waiting_t;

/* One more fruitless look at the node: spins first while nothing else on
 * the PE is ready (one pause a look, the clock read every 64th), then lets
 * the PE run its other threads and its progress (yields, then sched.h's
 * polling: parked after many fruitless polls in a row). */
static void poll_once(waiting_t *wt)
{
    if (!wt->looks) /* waiting is not load (sched.h) */
        amp_sched_wait_begin();
    if (wt->looks++ % 64 && !amp_pe_self()->runq_head) {
        amp_sched_relax(); /* a yield when PEs are crowded */
        return;
    }
    if (!wt->start) /* the clock starts at the first look that failed */
        wt->start = now_ns();
    long waited = now_ns() - wt->start;
    if (waited < SPIN_NS && !amp_pe_self()->runq_head)
        amp_sched_relax();
    else if (waited < YIELD_NS)
        amp_sched_yield();
    else
        amp_sched_poll_wait(++wt->polls);
}

/* The wait is over: what runs now is charged again. */
static void waited(const waiting_t *wt)
{
    if (wt->looks)
        amp_sched_wait_end();
}

/* Maps the object: created at block 0's leader, opened by the others. */
static amp_status_t map_slots(amp_coll_nlevel_t *l)
{
    size_t bytes = object_bytes(l->nblocks);
    void *p = NULL;
    amp_status_t st;
    if (l->block == 0) {
        st = amp_node_create(l->node, l->tag, bytes, l->nblocks - 1, &p);
        l->created = st == AMP_OK;
    } else {
        waiting_t wt = {0, 0, 0};
        while ((st = amp_node_open(l->node, l->tag, bytes, 0, &p)) ==
               AMP_ERR_NOENT)
            poll_once(&wt);
        waited(&wt);
    }
    if (st != AMP_OK)
        return st == AMP_ERR_SYS || st == AMP_ERR_NOMEM ? AMP_ERR_NOMEM
                                                        : AMP_ERR_INTERN;
    l->slots = p;
    return AMP_OK;
}

static int reached(const amp_coll_nlevel_t *l, unsigned long k)
{
    for (int b = 0; b < l->nblocks; b++)
        if (atomic_load_explicit(&l->slots[b].seq, memory_order_acquire) < k)
            return 0;
    return 1;
}

/* Starts an episode: the object mapped, and the data area of this one's
 * (NULL when the object cannot be had). */
static char *begin(amp_coll_nlevel_t *l, amp_status_t *st)
{
    *st = l->slots ? AMP_OK : map_slots(l);
    if (*st != AMP_OK)
        return NULL;
    /* Episode seq + 1 writes the area of seq + 1 - NAREAS: everyone must
     * have published seq + 2 - NAREAS (done reading that one). */
    unsigned long need = l->seq + 2 > NAREAS ? l->seq + 2 - NAREAS : 0;
    if (l->complete < need) { /* after broadcasts */
        waiting_t wt = {0, 0, 0};
        while (!reached(l, need))
            poll_once(&wt);
        waited(&wt);
        l->complete = need;
        l->all_opened = 1;
    }
    l->seq++;
    return l->slots[l->block].area[l->seq % NAREAS];
}

/* Publishes this leader's part of the episode and wakes the PEs of the
 * others that sleep (their leaders may be parked pollers: p2p.h). */
static void publish(amp_coll_nlevel_t *l)
{
    atomic_store_explicit(&l->slots[l->block].seq, l->seq,
                          memory_order_seq_cst);
    amp_pe_t *pe = amp_pe_self();
    for (int b = 0; b < l->nblocks; b++)
        if (b != l->block)
            amp_p2p_wake_node_pe(pe, l->leader_world[b]);
}

/* Publishes this leader's part and waits for the others' parts. */
static void meet(amp_coll_nlevel_t *l)
{
    publish(l);
    waiting_t wt = {0, 0, 0};
    while (!reached(l, l->seq))
        poll_once(&wt);
    waited(&wt);
    l->complete = l->seq;
    l->all_opened = 1;
}

int amp_coll_nlevel_bcast_ok(const amp_coll_nlevel_t *l, size_t bytes)
{
    /* Two processes: one message does it.  Small data: the messages of a
     * tree go on without waiting for anyone, which measured faster. */
    return l && l->nblocks > 2 && bytes > BCAST_MIN && bytes <= AREA_BYTES;
}

amp_status_t amp_coll_nlevel_bcast(amp_coll_nlevel_t *l, void *buf,
                                   const amp_dt_t *dt, size_t bytes, int root)
{
    amp_status_t st;
    char *area = begin(l, &st);
    if (!area)
        return st;
    if (l->block == root) {
        amp_dt_copy_typed(dt, buf, NULL, area, bytes);
        publish(l);
        return AMP_OK;
    }
    _Atomic unsigned long *seq = &l->slots[root].seq;
    waiting_t wt = {0, 0, 0};
    while (atomic_load_explicit(seq, memory_order_acquire) < l->seq)
        poll_once(&wt);
    waited(&wt);
    amp_dt_copy_typed(NULL, l->slots[root].area[l->seq % NAREAS], dt, buf,
                      bytes);
    publish(l);
    return AMP_OK;
}

amp_status_t amp_coll_nlevel_barrier(amp_coll_nlevel_t *l)
{
    amp_status_t st;
    if (begin(l, &st))
        meet(l);
    return st;
}

/* The evaluation's given values: the cover values the leaders published. */
typedef struct given {
    const amp_coll_nlevel_t *l;
    size_t bytes;
} given_t;

/* A cover node's value as its block's leader published it. */
static const char *slot_leaf(const amp_coll_tree_eval_t *e, int lo, int hi)
{
    const given_t *g = e->arg;
    const amp_coll_nlevel_t *l = g->l;
    int b,
        k = amp_coll_covers_find(&l->covers, l->first, l->nblocks, lo, hi, &b);
    if (k < 0)
        return NULL;
    return l->slots[b].area[l->seq % NAREAS] + (size_t)k * g->bytes;
}

amp_status_t amp_coll_nlevel_allreduce(amp_coll_nlevel_t *l, const char *parts,
                                       int ncover, char *result, int count,
                                       const amp_dt_t *dt,
                                       const amp_coll_op_t *op)
{
    size_t bytes = (size_t)count * dt->size;
    int height = amp_coll_tree_height(l->n);
    if (!l->covers.at &&
        amp_coll_covers_make(&l->covers, l->n, l->nblocks, l->first) != AMP_OK)
        return AMP_ERR_NOMEM;
    size_t need = (size_t)height * bytes; /* the evaluation's work buffers */
    if (need > l->tmp_bytes) {
        char *t = realloc(l->tmp, need);
        if (!t)
            return AMP_ERR_NOMEM;
        l->tmp = t;
        l->tmp_bytes = need;
    }
    amp_status_t st;
    char *area = begin(l, &st);
    if (!area)
        return st;
    memcpy(area, parts, (size_t)ncover * bytes);
    meet(l);
    char *tmp[AMP_COLL_TREE_MAX_HEIGHT];
    for (int i = 0; i < height; i++)
        tmp[i] = l->tmp + (size_t)i * bytes;
    given_t g = {l, bytes};
    amp_coll_tree_eval_t e = {.leaf = slot_leaf,
                              .arg = &g,
                              .op = op,
                              .unit = dt,
                              .units = count,
                              .lb = dt->true_lb,
                              .bytes = bytes,
                              .tmp = tmp};
    amp_coll_tree_eval(&e, 0, l->n, result);
    return AMP_OK;
}
