/*
 * Collectives of a communicator whose ranks run in several processes, in
 * two levels: the members in this process meet through its shared memory
 * (coll/shm.c), and one leader per process (its lowest comm rank there)
 * talks to the other processes' leaders over point-to-point (coll/coll.c,
 * trees across the transport).
 *
 * Used when every process's members form one block of consecutive comm
 * ranks (MPI_COMM_WORLD and most communicators made from it).  Reductions
 * combine in the order of coll/tree.h, as in one process: each process
 * computes the nodes of the tree that cover its block (its shared state
 * knows where the block lies in the communicator), and the leaders compute
 * the nodes above (amp_coll_tree_reduce_blocks, or
 * amp_coll_tree_allreduce_blocks for an allreduce).  Other communicators use
 * the one-level algorithms, which follow the same tree.
 */
#include "coll/hier.h"

#include "coll/tree.h"

#include <stdatomic.h>
#include <stdlib.h>

/* An allreduce of a small value goes to every leader from every other
 * (amp_coll_tree_allreduce_blocks) while each receives at most
 * EVERY_MAX bytes of the others' values, and there are at most
 * EVERY_LEADERS leaders. */
#define EVERY_MAX (64u << 10)
#define EVERY_LEADERS 8

struct amp_coll_hier {
    int first, nlocal;   /* this process's members: comm ranks first.. */
    int block, nblocks;  /* this process's block among the comm's */
    int ncover;          /* tree nodes covering the block (coll/tree.h) */
    int *local_world;    /* local member i -> world rank */
    int *leader_world;   /* block b's leader -> world rank */
    int *block_first;    /* block b's first comm rank; [nblocks] = size */
    amp_coll_shm_t *shm; /* among the local members */
    amp_coll_shm_registry_t *reg; /* where shm was attached */
    amp_coll_nlevel_t *nl;        /* the leaders in node memory (NULL: p2p) */
    /* A layout of the identity map is shared by this process's members
     * (on reg->hiers, found by ctx, size and placement); refs counts
     * them.  Nothing above changes once it is made. */
    int ctx, size, refs, shared;
    unsigned long placed;
    struct amp_coll_hier *next;
};

static int world_of(const amp_coll_where_t *w, int r)
{
    return w->world ? w->world[r] : r;
}

static int proc_of(const amp_coll_where_t *w, int r)
{
    return w->rank_proc[world_of(w, r)];
}

/* The number of blocks of one process each, or 0 if some process's
 * members are not consecutive. */
static int count_blocks(const amp_coll_where_t *w)
{
    int n = 1;
    for (int r = 1; r < w->size; r++) {
        if (proc_of(w, r) == proc_of(w, r - 1))
            continue;
        for (int k = 0; k < r - 1; k++)
            if (proc_of(w, k) == proc_of(w, r))
                return 0;
        n++;
    }
    return n;
}

static void hiers_lock(amp_coll_shm_registry_t *reg)
{
    amp_spin_lock(&reg->hier_lock);
}

static void hiers_unlock(amp_coll_shm_registry_t *reg)
{
    amp_spin_unlock(&reg->hier_lock);
}

/* The shared layout for w, with one more reference, or NULL.  Called
 * with the lock held. */
static amp_coll_hier_t *hiers_find(const amp_coll_where_t *w)
{
    for (amp_coll_hier_t *h = w->reg->hiers; h; h = h->next)
        if (h->ctx == w->ctx && h->size == w->size && h->placed == w->placed) {
            h->refs++;
            return h;
        }
    return NULL;
}

/* Whether h was shared and others still hold it (one reference fewer). */
static int hiers_release(amp_coll_hier_t *h)
{
    if (!h->shared)
        return 0;
    hiers_lock(h->reg);
    int held = --h->refs > 0;
    if (!held) {
        amp_coll_hier_t **p = &h->reg->hiers;
        while (*p != h)
            p = &(*p)->next;
        *p = h->next;
    }
    hiers_unlock(h->reg);
    return held;
}

void amp_coll_hier_free(amp_coll_hier_t *h)
{
    if (!h || hiers_release(h))
        return;
    amp_coll_shm_detach(h->reg, h->shm);
    amp_coll_nlevel_free(h->nl);
    free(h->local_world);
    free(h->leader_world);
    free(h->block_first);
    free(h);
}

/* Whether every block's process runs on this node (and the leaders may
 * meet in its shared memory). */
static int on_node(const amp_coll_hier_t *h, const amp_coll_where_t *w)
{
    for (int b = 0; w->node && b < h->nblocks; b++)
        if (w->node->of_proc[proc_of(w, h->block_first[b])] < 0)
            return 0;
    return w->node != NULL;
}

static amp_status_t fill_blocks(amp_coll_hier_t *h, const amp_coll_where_t *w)
{
    int b = 0;
    for (int r = 0; r < w->size; r++) {
        if (r > 0 && proc_of(w, r) == proc_of(w, r - 1))
            continue;
        h->block_first[b] = r;
        h->leader_world[b] = world_of(w, r);
        if (proc_of(w, r) == w->proc) {
            h->block = b;
            h->first = r;
        }
        b++;
    }
    h->block_first[b] = w->size;
    h->nlocal = h->block_first[h->block + 1] - h->first;
    h->local_world = malloc((size_t)h->nlocal * sizeof(int));
    if (!h->local_world)
        return AMP_ERR_NOMEM;
    for (int i = 0; i < h->nlocal; i++)
        h->local_world[i] = world_of(w, h->first + i);
    int lo[2 * AMP_COLL_TREE_MAX_HEIGHT], hi[2 * AMP_COLL_TREE_MAX_HEIGHT];
    h->ncover =
        amp_coll_tree_cover(w->size, h->first, h->first + h->nlocal, lo, hi);
    if (on_node(h, w) &&
        amp_coll_nlevel_new(w->node, w->ctx, world_of(w, 0),
                            &(amp_coll_nlevel_layout_t){h->nblocks, h->block,
                                                        w->size, h->block_first,
                                                        h->leader_world},
                            &h->nl) != AMP_OK)
        return AMP_ERR_NOMEM;
    return amp_coll_shm_attach(w->reg, w->rank_pe, w->npes,
                               &(amp_coll_shm_members_t){w->ctx, h->nlocal,
                                                         h->local_world,
                                                         h->first, w->size},
                               &h->shm);
}

/* Makes the layout for w (not shared). */
static amp_status_t hier_make(const amp_coll_where_t *w, amp_coll_hier_t **out)
{
    *out = NULL;
    int nblocks = count_blocks(w);
    if (!nblocks)
        return AMP_OK;
    amp_coll_hier_t *h = calloc(1, sizeof(*h));
    if (!h)
        return AMP_ERR_NOMEM;
    h->reg = w->reg;
    h->nblocks = nblocks;
    h->leader_world = malloc((size_t)nblocks * sizeof(int));
    h->block_first = malloc((size_t)(nblocks + 1) * sizeof(int));
    amp_status_t st =
        h->leader_world && h->block_first ? fill_blocks(h, w) : AMP_ERR_NOMEM;
    if (st != AMP_OK) {
        amp_coll_hier_free(h);
        return st;
    }
    *out = h;
    return AMP_OK;
}

/* The views of one call (c: the whole communicator's): the local members,
 * and the leaders (one per block, meaningful at leaders only). */
static void views(const amp_coll_hier_t *h, const amp_coll_comm_t *c,
                  amp_coll_comm_t *local, amp_coll_comm_t *leaders)
{
    *local = *c;
    local->rank = c->rank - h->first;
    local->size = h->nlocal;
    local->world = h->local_world;
    *leaders = *c;
    leaders->rank = h->block;
    leaders->size = h->nblocks;
    leaders->world = h->leader_world;
}

amp_status_t amp_coll_hier_barrier(const amp_coll_hier_t *h,
                                   const amp_coll_comm_t *c)
{
    amp_coll_comm_t local, leaders;
    views(h, c, &local, &leaders);
    amp_status_t st = amp_coll_shm_barrier(h->shm, &local);
    if (st == AMP_OK && local.rank == 0)
        st =
            h->nl ? amp_coll_nlevel_barrier(h->nl) : amp_coll_barrier(&leaders);
    return st == AMP_OK ? amp_coll_shm_barrier(h->shm, &local) : st;
}

/* The root's process spreads the data first, its leader then to the
 * other leaders, and each of them to its process. */
amp_status_t amp_coll_hier_bcast(const amp_coll_hier_t *h,
                                 const amp_coll_comm_t *c, void *buf, int count,
                                 const amp_dt_t *dt, int root)
{
    amp_coll_comm_t local, leaders;
    views(h, c, &local, &leaders);
    int rb = amp_coll_block_of(h->block_first, h->nblocks, root);
    amp_status_t st = AMP_OK;
    if (rb == h->block)
        st =
            amp_coll_shm_bcast(h->shm, &local, buf, count, dt, root - h->first);
    size_t bytes = (size_t)count * dt->size;
    if (st == AMP_OK && local.rank == 0 &&
        amp_coll_nlevel_bcast_ok(h->nl, bytes))
        st = amp_coll_nlevel_bcast(h->nl, buf, dt, bytes, rb);
    else if (st == AMP_OK && local.rank == 0)
        st = amp_coll_bcast(&leaders, buf, count, dt, rb);
    if (st == AMP_OK && rb != h->block)
        st = amp_coll_shm_bcast(h->shm, &local, buf, count, dt, 0);
    return st;
}

/* Whether the leaders compute an allreduce's tree among them, each
 * getting the root (amp_coll_tree_allreduce_blocks), rather than reduce to
 * one of them and broadcast: when they do not all meet in this node's
 * memory (between the processes of one node, whose rings copy through
 * memory, the tree is as fast up to 64 KiB, and faster above), for values
 * of AMP_COLL_SEGMENTS_MIN bytes or more (by segments, an element at
 * least for each leader), and for small values among few leaders (one
 * exchange where the tree and the broadcast take two trips or more). */
static int leaders_share(const amp_coll_hier_t *h, int count, size_t bytes)
{
    if (h->nl || h->nblocks < 2)
        return 0;
    if (bytes >= AMP_COLL_SEGMENTS_MIN)
        return count >= h->nblocks;
    return h->nblocks <= EVERY_LEADERS &&
           bytes * (size_t)(h->nblocks - 1) <= EVERY_MAX;
}

/* Each process computes the tree's nodes over its block into its leader's
 * scratch; the leaders compute the rest of the tree: in node memory, or
 * among them with every leader getting the root (leaders_share), or up to
 * block 0's leader, which broadcasts it; each leader hands it on. */
amp_status_t amp_coll_hier_allreduce(const amp_coll_hier_t *h,
                                     const amp_coll_comm_t *c,
                                     const void *sendbuf, void *recvbuf,
                                     int count, const amp_dt_t *dt,
                                     const amp_coll_op_t *op)
{
    amp_coll_comm_t local, leaders;
    views(h, c, &local, &leaders);
    size_t bytes = (size_t)count * dt->size;
    if (bytes == 0)
        return AMP_OK;
    /* The leader's cover values: on the stack when they are small. */
    _Alignas(16) char small[256];
    size_t pbytes = (size_t)h->ncover * bytes;
    char *parts = NULL;
    if (local.rank == 0 &&
        !(parts = pbytes <= sizeof(small) ? small : malloc(pbytes)))
        return AMP_ERR_NOMEM;
    char *mine = parts ? parts - dt->true_lb : recvbuf;
    amp_status_t st =
        amp_coll_shm_reduce(h->shm, &local, sendbuf, mine, count, dt, op, 0);
    /* Through node memory every leader computes the root itself. */
    int node = amp_coll_nlevel_allreduce_ok(h->nl, bytes);
    int shared = !node && leaders_share(h, count, bytes);
    char *result = amp_dt_data(recvbuf, dt);
    if (st == AMP_OK && parts && node)
        st = amp_coll_nlevel_allreduce(h->nl, parts, h->ncover, result, count,
                                       dt, op);
    else if (st == AMP_OK && parts && shared)
        st = amp_coll_tree_allreduce_blocks(&leaders, c->size, h->block_first,
                                            parts, result, count, dt, op);
    else if (st == AMP_OK && parts && !node)
        st = amp_coll_tree_reduce_blocks(&leaders, c->size, h->block_first,
                                         parts, result, count, dt, op);
    if (parts != small)
        free(parts);
    if (st == AMP_OK && local.rank == 0 && !node && !shared)
        st = amp_coll_bcast(&leaders, recvbuf, count, dt, 0);
    if (st == AMP_OK)
        st = amp_coll_shm_bcast(h->shm, &local, recvbuf, count, dt, 0);
    return st;
}

void amp_coll_hier_levels(const amp_coll_hier_t *h, amp_coll_levels_t *out)
{
    *out = (amp_coll_levels_t){h->first,       h->nlocal,      h->block,
                               h->nblocks,     h->local_world, h->leader_world,
                               h->block_first, h->shm,         h->nl != NULL};
}

/* The identity map's layout is the same for every member in this
 * process: made by the first, shared by the others (a million ranks in a
 * few processes would otherwise each scan every rank and keep a list of
 * every member of their process). */
amp_status_t amp_coll_hier_new(const amp_coll_where_t *w, amp_coll_hier_t **out)
{
    if (w->world)
        return hier_make(w, out);
    hiers_lock(w->reg);
    *out = hiers_find(w);
    hiers_unlock(w->reg);
    if (*out)
        return AMP_OK;
    amp_coll_hier_t *h;
    amp_status_t st = hier_make(w, &h);
    if (st != AMP_OK || !h)
        return st;
    hiers_lock(w->reg);
    *out = hiers_find(w); /* another member made it meanwhile */
    if (!*out) {
        h->ctx = w->ctx;
        h->size = w->size;
        h->placed = w->placed;
        h->refs = 1;
        h->shared = 1;
        h->next = w->reg->hiers;
        w->reg->hiers = h;
        *out = h;
        h = NULL;
    }
    hiers_unlock(w->reg);
    amp_coll_hier_free(h);
    return AMP_OK;
}
