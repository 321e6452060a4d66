#include "coll/coll.h"

#include "coll/tree.h"

#include <stdlib.h>
#include <string.h>

/* Steps of the algorithms here, for their tags: amp_coll_tag(c->seq,
 * step) keeps every call's messages apart from those of the collectives
 * before and after it on the communicator, nonblocking ones included. */
enum {
    TAG_BARRIER = 1,
    TAG_BCAST = 2,
    TAG_REDUCE = 3,
    TAG_REDUCE_ROOT = 4,
    TAG_ALLREDUCE = 5,
    TAG_TREE = 64 /* .. 64 + AMP_COLL_TREE_MAX_HEIGHT */
};

static int world_of(const amp_coll_comm_t *c, int r)
{
    return c->world ? c->world[r] : r;
}

static void send_to(const amp_coll_comm_t *c, const void *buf, size_t bytes,
                    int dst, int tag, amp_p2p_req_t *req)
{
    amp_p2p_isend(c->ep, buf, bytes,
                  (amp_p2p_env_t){.ctx = c->ctx,
                                  .src = c->rank,
                                  .dst = world_of(c, dst),
                                  .tag = amp_coll_tag(c->seq, tag)},
                  AMP_P2P_STANDARD, req);
}

static void recv_from(const amp_coll_comm_t *c, void *buf, size_t bytes,
                      int src, int tag, amp_p2p_req_t *req)
{
    amp_p2p_irecv(c->ep, buf, bytes,
                  (amp_p2p_env_t){.ctx = c->ctx,
                                  .src = src,
                                  .tag = amp_coll_tag(c->seq, tag)},
                  req);
}

static void wait1(const amp_coll_comm_t *c, amp_p2p_req_t *req)
{
    amp_p2p_req_t *reqs[1] = {req};
    amp_p2p_wait_all(c->ep, reqs, 1);
}

/* Dissemination barrier: ceil(log2 n) rounds of zero-byte messages. */
amp_status_t amp_coll_barrier(const amp_coll_comm_t *c)
{
    int n = c->size;
    for (int k = 1; k < n; k <<= 1) {
        amp_p2p_req_t rreq, sreq;
        amp_p2p_req_t *reqs[2] = {&rreq, &sreq};
        rreq.on_done = sreq.on_done = NULL;
        recv_from(c, NULL, 0, (c->rank - k + n) % n, TAG_BARRIER, &rreq);
        send_to(c, NULL, 0, (c->rank + k) % n, TAG_BARRIER, &sreq);
        amp_p2p_wait_all(c->ep, reqs, 2);
    }
    return AMP_OK;
}

/* Sends of a broadcast's node in flight at once. */
#define BCAST_BATCH 4

/* Binomial tree rooted at root, over ranks relative to it. */
static amp_status_t bcast_bytes(const amp_coll_comm_t *c, void *data,
                                size_t bytes, int root)
{
    int n = c->size;
    int vr = (c->rank - root + n) % n;
    int mask = 1;
    amp_p2p_req_t rreq;
    rreq.on_done = NULL;
    while (mask < n) {
        if (vr & mask) {
            recv_from(c, data, bytes, (vr - mask + root) % n, TAG_BCAST, &rreq);
            wait1(c, &rreq);
            break;
        }
        mask <<= 1;
    }
    /* A few sends at a time: the requests live on the caller's stack,
     * and a million ranks each touching one more page of it for a tree
     * of 20 levels would cost more than the waits between the batches. */
    amp_p2p_req_t sreqs[BCAST_BATCH];
    amp_p2p_req_t *reqs[BCAST_BATCH];
    int ns = 0;
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask >= n)
            continue;
        sreqs[ns].on_done = NULL;
        send_to(c, data, bytes, (vr + mask + root) % n, TAG_BCAST, &sreqs[ns]);
        reqs[ns] = &sreqs[ns];
        if (++ns == BCAST_BATCH) {
            amp_p2p_wait_all(c->ep, reqs, ns);
            ns = 0;
        }
    }
    amp_p2p_wait_all(c->ep, reqs, ns);
    return AMP_OK;
}

amp_status_t amp_coll_bcast(const amp_coll_comm_t *c, void *buf, int count,
                            const amp_dt_t *dt, int root)
{
    if (dt->contig)
        return bcast_bytes(c, amp_dt_data(buf, dt), dt->size * (size_t)count,
                           root);
    /* A type with gaps: move its data packed, so that the receivers' bytes
     * in the gaps stay as they were. */
    size_t bytes = dt->size * (size_t)count;
    void *packed = malloc(bytes ? bytes : 1);
    if (!packed)
        return AMP_ERR_NOMEM;
    if (c->rank == root)
        amp_dt_pack(dt, count, buf, packed);
    amp_status_t st = bcast_bytes(c, packed, bytes, root);
    if (st == AMP_OK && c->rank != root)
        amp_dt_unpack(dt, count, buf, packed, bytes);
    free(packed);
    return st;
}

/* A scratch buffer holding count elements in dt's layout; returns the
 * address to use as the elements' base. */
static char *scratch(const amp_dt_t *dt, int count, void **mem)
{
    /* Whole elements, padding included: reductions on pair types assign
     * whole structs. */
    size_t span = amp_dt_span(dt, count);
    size_t whole = (size_t)count * (size_t)dt->extent;
    *mem = malloc(whole > span ? whole : span ? span : 1);
    return *mem ? (char *)*mem - dt->true_lb : NULL;
}

/* Binomial reduction to rank 0 that combines in rank order (lower op
 * higher), so it is right for non-commutative operations too: the tree of
 * coll/tree.h.  acc holds this rank's contribution on entry and, at rank
 * 0, the result on return. */
static amp_status_t reduce_to_zero(const amp_coll_comm_t *c, char *acc,
                                   int count, const amp_dt_t *dt,
                                   const amp_coll_op_t *op)
{
    size_t span = amp_dt_span(dt, count);
    void *mem;
    char *tmp = scratch(dt, count, &mem);
    if (!tmp)
        return AMP_ERR_NOMEM;
    amp_p2p_req_t req;
    req.on_done = NULL;
    for (int mask = 1; mask < c->size; mask <<= 1) {
        if (c->rank & mask) {
            send_to(c, acc + dt->true_lb, span, c->rank - mask, TAG_REDUCE,
                    &req);
            wait1(c, &req);
            break;
        }
        if (c->rank + mask < c->size) {
            recv_from(c, tmp + dt->true_lb, span, c->rank + mask, TAG_REDUCE,
                      &req);
            wait1(c, &req);
            /* tmp = acc (lower ranks) op tmp (higher ranks) */
            amp_coll_apply(op, dt, count, acc, tmp);
            memcpy(acc + dt->true_lb, tmp + dt->true_lb, span);
        }
    }
    free(mem);
    return AMP_OK;
}

amp_status_t amp_coll_reduce(const amp_coll_comm_t *c, const void *sendbuf,
                             void *recvbuf, int count, const amp_dt_t *dt,
                             const amp_coll_op_t *op, int root)
{
    size_t span = amp_dt_span(dt, count);
    void *mem;
    char *acc = scratch(dt, count, &mem);
    if (!acc)
        return AMP_ERR_NOMEM;
    memcpy(acc + dt->true_lb, amp_dt_data(sendbuf, dt), span);
    amp_status_t st = reduce_to_zero(c, acc, count, dt, op);
    if (st == AMP_OK && root == 0 && c->rank == 0)
        memcpy(amp_dt_data(recvbuf, dt), acc + dt->true_lb, span);
    if (st == AMP_OK && root != 0 && (c->rank == 0 || c->rank == root)) {
        amp_p2p_req_t req;
        req.on_done = NULL;
        if (c->rank == 0)
            send_to(c, acc + dt->true_lb, span, root, TAG_REDUCE_ROOT, &req);
        else
            recv_from(c, amp_dt_data(recvbuf, dt), span, 0, TAG_REDUCE_ROOT,
                      &req);
        wait1(c, &req);
    }
    free(mem);
    return st;
}

/* Recursive doubling, for a power-of-two number of ranks: in round k each
 * rank swaps its partial result with the rank 2^k away and both combine
 * the two in rank order (lower op higher), so every rank ends with the
 * same value, right for non-commutative operations too, after log2 n
 * exchanges instead of a reduce and a broadcast one after the other.  Each
 * round computes the nodes of one level of coll/tree.h's tree. */
static amp_status_t allreduce_doubling(const amp_coll_comm_t *c, char *acc,
                                       int count, const amp_dt_t *dt,
                                       const amp_coll_op_t *op)
{
    size_t span = amp_dt_span(dt, count);
    void *mem;
    char *tmp = scratch(dt, count, &mem);
    if (!tmp)
        return AMP_ERR_NOMEM;
    for (int mask = 1; mask < c->size; mask <<= 1) {
        int peer = c->rank ^ mask;
        amp_p2p_req_t rreq, sreq;
        amp_p2p_req_t *reqs[2] = {&rreq, &sreq};
        rreq.on_done = sreq.on_done = NULL;
        recv_from(c, tmp + dt->true_lb, span, peer, TAG_ALLREDUCE, &rreq);
        send_to(c, acc + dt->true_lb, span, peer, TAG_ALLREDUCE, &sreq);
        amp_p2p_wait_all(c->ep, reqs, 2);
        if (peer > c->rank) { /* tmp = acc op tmp */
            amp_coll_apply(op, dt, count, acc, tmp);
            memcpy(acc + dt->true_lb, tmp + dt->true_lb, span);
        } else { /* acc = tmp op acc */
            amp_coll_apply(op, dt, count, tmp, acc);
        }
    }
    free(mem);
    return AMP_OK;
}

amp_status_t amp_coll_allreduce(const amp_coll_comm_t *c, const void *sendbuf,
                                void *recvbuf, int count, const amp_dt_t *dt,
                                const amp_coll_op_t *op)
{
    size_t span = amp_dt_span(dt, count);
    if (sendbuf != recvbuf)
        memcpy(amp_dt_data(recvbuf, dt), amp_dt_data(sendbuf, dt), span);
    if ((c->size & (c->size - 1)) == 0)
        return allreduce_doubling(c, recvbuf, count, dt, op);
    amp_status_t st = reduce_to_zero(c, recvbuf, count, dt, op);
    if (st != AMP_OK)
        return st;
    return bcast_bytes(c, amp_dt_data(recvbuf, dt), span, 0);
}

/* ---- the level above the processes (coll/tree.h) ---------------------- */

/* One leader's part of amp_coll_tree_reduce_blocks: its block is ranks
 * lo .. hi - 1 of the tree over n. */
typedef struct up {
    const amp_coll_comm_t *c;
    int n, nblocks, lo, hi;
    const int *first;
    int cover_lo[2 * AMP_COLL_TREE_MAX_HEIGHT];
    const char *parts;
    char *work; /* a value to send, then the work buffers */
    int count;
    const amp_dt_t *dt;
    const amp_coll_op_t *op;
    size_t bytes;
    int nsends;
    amp_p2p_req_t sends[2 * AMP_COLL_TREE_MAX_HEIGHT + 1];
    int nrecvs, next_recv; /* posted by up_post, waited for in order */
    amp_p2p_req_t recvs[2 * AMP_COLL_TREE_MAX_HEIGHT];
} up_t;

static int block_of(const up_t *u, int r)
{
    return amp_coll_block_of(u->first, u->nblocks, r);
}

/* The value of the cover node that starts at rank lo. */
static const char *cover_value(const up_t *u, int lo)
{
    int k = 0;
    while (u->cover_lo[k] != lo)
        k++;
    return u->parts + (size_t)k * u->bytes;
}

/* The tag of the message that brings node [lo, hi) its right child: the
 * nodes that wait for one leader's values all hold that leader's first
 * rank and the one before it, so they are nested and of different
 * heights. */
static int up_tag(int lo, int hi)
{
    return TAG_TREE + amp_coll_tree_height(hi - lo);
}

/* The nodes of this block's that are not inside it hold its last rank and
 * the next one: a chain from the largest down.  Returns how many work
 * buffers evaluating them takes: one per left child in the chain. */
static int up_work_buffers(const up_t *u)
{
    int lo = 0, hi = u->n, k = 0;
    while (hi > u->hi && lo < u->hi) {
        int mid = amp_coll_tree_mid(lo, hi);
        if (u->hi <= mid) {
            k += lo >= u->lo && mid > u->hi;
            hi = mid;
        } else {
            lo = mid;
        }
    }
    return k;
}

/* Work buffer depth (0: the node's own destination, dest). */
static char *up_buffer(const up_t *u, int depth, char *dest)
{
    return depth ? u->work + (size_t)depth * u->bytes : dest;
}

/* Posts, in the order up_value waits for them, the receives of the values
 * node [lo, hi) needs from other leaders, each into the buffer up_value
 * combines it in: every child travels at once, instead of one
 * rendezvous after another (the sender of the next waits meanwhile). */
static void up_post(up_t *u, int lo, int hi, int depth, char *dest)
{
    int mid = amp_coll_tree_mid(lo, hi);
    if (mid >= u->hi) {
        amp_p2p_req_t *req = &u->recvs[u->nrecvs++];
        req->on_done = NULL;
        recv_from(u->c, up_buffer(u, depth, dest), u->bytes, block_of(u, mid),
                  up_tag(lo, hi), req);
    } else {
        up_post(u, mid, hi, depth, dest);
    }
    if (mid > u->hi)
        up_post(u, lo, mid, depth + 1, dest);
}

/* dest = the value of node [lo, hi), whose lowest rank is this block's
 * and which ends past it: the right child from its leader (received into
 * dest, posted by up_post) or from here, then the left one, from the cover
 * or into work buffer depth + 1. */
static void up_value(up_t *u, int lo, int hi, int depth, char *dest)
{
    int mid = amp_coll_tree_mid(lo, hi);
    if (mid >= u->hi)
        wait1(u->c, &u->recvs[u->next_recv++]);
    else
        up_value(u, mid, hi, depth, dest);
    const char *left = cover_value(u, lo);
    if (mid > u->hi) {
        char *tmp = up_buffer(u, depth + 1, dest);
        up_value(u, lo, mid, depth + 1, tmp);
        left = tmp;
    }
    ptrdiff_t lb = u->dt->true_lb;
    amp_coll_apply(u->op, u->dt, u->count, left - lb, dest - lb);
}

/* The nodes inside [lo, hi) (a child of a node that starts at rank plo)
 * whose lowest rank is this block's and whose parent's is not: computed,
 * and handed to the parent's leader; the root's value into result. */
static void up_roots(up_t *u, int lo, int hi, int plo, char *result)
{
    if (hi <= u->lo || lo >= u->hi)
        return;
    if (lo < u->lo) {
        int mid = amp_coll_tree_mid(lo, hi);
        up_roots(u, lo, mid, lo, result);
        up_roots(u, mid, hi, lo, result);
        return;
    }
    int root = lo == 0 && hi == u->n;
    const char *v;
    if (hi <= u->hi) {
        v = cover_value(u, lo);
    } else {
        char *dest = root ? result : u->work;
        up_post(u, lo, hi, 0, dest);
        up_value(u, lo, hi, 0, dest);
        v = dest;
    }
    if (root) {
        if (v != result)
            memcpy(result, v, u->bytes);
        return;
    }
    /* A right child: its parent is [plo, hi). */
    amp_p2p_req_t *req = &u->sends[u->nsends++];
    req->on_done = NULL;
    send_to(u->c, v, u->bytes, block_of(u, plo), up_tag(plo, hi), req);
}

amp_status_t amp_coll_tree_reduce_blocks(const amp_coll_comm_t *c, int n,
                                         const int *first, const char *parts,
                                         char *result, int count,
                                         const amp_dt_t *dt,
                                         const amp_coll_op_t *op)
{
    up_t u = {.c = c,
              .n = n,
              .nblocks = c->size,
              .lo = first[c->rank],
              .hi = first[c->rank + 1],
              .first = first,
              .parts = parts,
              .count = count,
              .dt = dt,
              .op = op,
              .bytes = (size_t)count * dt->size};
    int his[2 * AMP_COLL_TREE_MAX_HEIGHT];
    amp_coll_tree_cover(n, u.lo, u.hi, u.cover_lo, his);
    size_t nwork = u.hi < n ? 1 + (size_t)up_work_buffers(&u) : 0;
    u.work = nwork ? malloc(nwork * (u.bytes ? u.bytes : 1)) : NULL;
    if (nwork && !u.work)
        return AMP_ERR_NOMEM;
    up_roots(&u, 0, n, 0, result);
    amp_p2p_req_t *reqs[2 * AMP_COLL_TREE_MAX_HEIGHT + 1];
    for (int i = 0; i < u.nsends; i++)
        reqs[i] = &u.sends[i];
    amp_p2p_wait_all(c->ep, reqs, u.nsends);
    free(u.work);
    return AMP_OK;
}

/* ---- reductions of any datatype, over the ones above ---- */

/* Reduce (root >= 0) or allreduce (root < 0) for any datatype: a type with
 * gaps is reduced in scratch buffers of its layout, so that the receive
 * buffer's gaps are never written and the send buffer's never read. */
static amp_status_t reduce_typed(const amp_coll_comm_t *c, const void *sendbuf,
                                 void *recvbuf, int count, const amp_dt_t *dt,
                                 const amp_coll_op_t *op, int root)
{
    if (dt->contig)
        return root < 0
                   ? amp_coll_allreduce(c, sendbuf, recvbuf, count, dt, op)
                   : amp_coll_reduce(c, sendbuf, recvbuf, count, dt, op, root);
    void *smem, *rmem;
    char *s = scratch(dt, count, &smem), *r = scratch(dt, count, &rmem);
    amp_status_t st = s && r ? AMP_OK : AMP_ERR_NOMEM;
    if (st == AMP_OK) {
        amp_dt_copy(dt, count, s, sendbuf);
        st = root < 0 ? amp_coll_allreduce(c, s, r, count, dt, op)
                      : amp_coll_reduce(c, s, r, count, dt, op, root);
    }
    if (st == AMP_OK && (root < 0 || c->rank == root))
        amp_dt_copy(dt, count, recvbuf, r);
    free(smem);
    free(rmem);
    return st;
}

amp_status_t amp_coll_reduce_typed(const amp_coll_comm_t *c,
                                   const void *sendbuf, void *recvbuf,
                                   int count, const amp_dt_t *dt,
                                   const amp_coll_op_t *op, int root)
{
    return reduce_typed(c, sendbuf, recvbuf, count, dt, op, root);
}

amp_status_t amp_coll_allreduce_typed(const amp_coll_comm_t *c,
                                      const void *sendbuf, void *recvbuf,
                                      int count, const amp_dt_t *dt,
                                      const amp_coll_op_t *op)
{
    return reduce_typed(c, sendbuf, recvbuf, count, dt, op, -1);
}
