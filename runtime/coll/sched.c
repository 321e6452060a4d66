/*
 * Schedules of the standard collectives (coll/nbc.h), correct first:
 * dissemination barrier, binomial broadcast, reductions combined in rank
 * order on a binomial tree, linear gather and scatter, ring allgather,
 * all-at-once alltoall, recursive-doubling scan.
 */
#include "coll/nbc.h"

#include <string.h>

/* Steps one binomial tree or dissemination pattern needs at most. */
static int log2ceil(int n)
{
    int k = 0;
    while ((1 << k) < n)
        k++;
    return k;
}

static char *elem_at(const void *buf, ptrdiff_t i, const amp_dt_t *dt)
{
    return (char *)buf + i * dt->extent;
}

static amp_status_t made(amp_nbc_t *s, amp_nbc_t **out)
{
    *out = s;
    return s ? AMP_OK : AMP_ERR_NOMEM;
}

amp_status_t amp_coll_sched_barrier(const amp_coll_comm_t *c, amp_nbc_t **out)
{
    int n = c->size;
    amp_nbc_t *s = amp_nbc_create(c, 2 * log2ceil(n), 0);
    if (!s)
        return made(s, out);
    for (int k = 1; k < n; k <<= 1) {
        amp_nbc_recv(s, NULL, 0, (c->rank - k + n) % n);
        amp_nbc_send(s, NULL, 0, (c->rank + k) % n);
        amp_nbc_round(s);
    }
    return made(s, out);
}

/* Binomial tree over ranks relative to root: receive from the parent,
 * then send to the children, largest subtree first. */
static void add_bcast(amp_nbc_t *s, const amp_coll_comm_t *c, void *buf,
                      int count, const amp_dt_t *dt, int root)
{
    int n = c->size;
    int vr = (c->rank - root + n) % n;
    int mask = 1;
    while (mask < n) {
        if (vr & mask) {
            amp_nbc_recv_typed(s, buf, count, dt, (vr - mask + root) % n);
            amp_nbc_round(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < n)
            amp_nbc_send_typed(s, buf, count, dt, (vr + mask + root) % n);
    amp_nbc_round(s);
}

amp_status_t amp_coll_sched_bcast(const amp_coll_comm_t *c, void *buf,
                                  int count, const amp_dt_t *dt, int root,
                                  amp_nbc_t **out)
{
    amp_nbc_t *s = amp_nbc_create(c, log2ceil(c->size) + 1, 0);
    if (s)
        add_bcast(s, c, buf, count, dt, root);
    return made(s, out);
}

/* Binomial reduction to rank 0 combining in rank order (lower op higher),
 * right for non-commutative operations: the tree of coll/tree.h.  acc holds
 * this rank's data when the current round starts; tmp is free.  Returns the
 * buffer holding the result at rank 0 (the other ranks' is meaningless).
 * Steps: 2 log2ceil(n). */
static char *add_reduce_to_zero(amp_nbc_t *s, const amp_coll_comm_t *c,
                                char *acc, char *tmp, int count,
                                const amp_dt_t *dt, const amp_coll_op_t *op)
{
    for (int mask = 1; mask < c->size; mask <<= 1) {
        if (c->rank & mask) {
            amp_nbc_send_typed(s, acc, count, dt, c->rank - mask);
            amp_nbc_round(s);
            break;
        }
        if (c->rank + mask < c->size) {
            amp_nbc_recv_typed(s, tmp, count, dt, c->rank + mask);
            amp_nbc_round(s);
            /* tmp = acc (lower ranks) op tmp (higher ranks) */
            amp_nbc_reduce(s, op, acc, tmp, count, dt);
            char *t = acc;
            acc = tmp;
            tmp = t;
        }
    }
    return acc;
}

amp_status_t amp_coll_sched_reduce(const amp_coll_comm_t *c,
                                   const amp_coll_reduction_t *r, int root,
                                   int all, amp_nbc_t **out)
{
    const void *sendbuf = r->sendbuf;
    void *recvbuf = r->recvbuf;
    int count = r->count;
    const amp_dt_t *dt = r->dt;
    const amp_coll_op_t *op = r->op;
    int n = c->size;
    size_t eb = amp_nbc_elems_bytes(dt, count);
    amp_nbc_t *s = amp_nbc_create(c, 2 * log2ceil(n) + log2ceil(n) + 4, 2 * eb);
    if (!s)
        return made(s, out);
    char *acc = amp_nbc_scratch_elems(s, dt, count);
    char *tmp = amp_nbc_scratch_elems(s, dt, count);
    amp_nbc_copy(s, sendbuf, count, dt, acc, count, dt);
    char *res = add_reduce_to_zero(s, c, acc, tmp, count, dt, op);
    if (all) {
        if (c->rank == 0)
            amp_nbc_copy(s, res, count, dt, recvbuf, count, dt);
        add_bcast(s, c, recvbuf, count, dt, 0);
    } else if (root == 0 && c->rank == 0) {
        amp_nbc_copy(s, res, count, dt, recvbuf, count, dt);
    } else if (c->rank == 0) {
        amp_nbc_send_typed(s, res, count, dt, root);
    } else if (c->rank == root) {
        amp_nbc_recv_typed(s, recvbuf, count, dt, 0);
    }
    return made(s, out);
}

/* Displacement (in elements) of rank i's block in a gather/scatter. */
static ptrdiff_t block_disp(const int *displs, int i, int count)
{
    return displs ? displs[i] : (ptrdiff_t)i * count;
}

static int block_count(const int *counts, int i, int count)
{
    return counts ? counts[i] : count;
}

amp_status_t amp_coll_sched_gather(const amp_coll_comm_t *c,
                                   const amp_coll_blocks_t *send,
                                   const amp_coll_blocks_t *recv, int root,
                                   int in_place, amp_nbc_t **out)
{
    const void *sendbuf = send->buf;
    int scount = send->count, rcount = recv->count;
    const amp_dt_t *sdt = send->dt, *rdt = recv->dt;
    void *recvbuf = (void *)recv->buf;
    const int *rcounts = recv->counts, *displs = recv->displs;
    amp_nbc_t *s = amp_nbc_create(c, c->size + 1, 0);
    if (!s)
        return made(s, out);
    if (c->rank != root) {
        amp_nbc_send_typed(s, sendbuf, scount, sdt, root);
        return made(s, out);
    }
    for (int i = 0; i < c->size; i++) {
        char *blk = elem_at(recvbuf, block_disp(displs, i, rcount), rdt);
        int cnt = block_count(rcounts, i, rcount);
        if (i != root)
            amp_nbc_recv_typed(s, blk, cnt, rdt, i);
        else if (!in_place)
            amp_nbc_copy(s, sendbuf, scount, sdt, blk, cnt, rdt);
    }
    return made(s, out);
}

amp_status_t amp_coll_sched_scatter(const amp_coll_comm_t *c,
                                    const amp_coll_blocks_t *send,
                                    const amp_coll_blocks_t *recv, int root,
                                    int in_place, amp_nbc_t **out)
{
    const void *sendbuf = send->buf;
    int scount = send->count, rcount = recv->count;
    const amp_dt_t *sdt = send->dt, *rdt = recv->dt;
    void *recvbuf = (void *)recv->buf;
    const int *scounts = send->counts, *displs = send->displs;
    amp_nbc_t *s = amp_nbc_create(c, c->size + 1, 0);
    if (!s)
        return made(s, out);
    if (c->rank != root) {
        amp_nbc_recv_typed(s, recvbuf, rcount, rdt, root);
        return made(s, out);
    }
    for (int i = 0; i < c->size; i++) {
        char *blk = elem_at(sendbuf, block_disp(displs, i, scount), sdt);
        int cnt = block_count(scounts, i, scount);
        if (i != root)
            amp_nbc_send_typed(s, blk, cnt, sdt, i);
        else if (!in_place)
            amp_nbc_copy(s, blk, cnt, sdt, recvbuf, rcount, rdt);
    }
    return made(s, out);
}

/* Ring: in round k, pass on the block received in round k - 1 (this
 * rank's own block first) to the right, and take the next from the
 * left. */
amp_status_t amp_coll_sched_allgather(const amp_coll_comm_t *c,
                                      const amp_coll_blocks_t *send,
                                      const amp_coll_blocks_t *recv,
                                      int in_place, amp_nbc_t **out)
{
    const void *sendbuf = send->buf;
    int scount = send->count, rcount = recv->count;
    const amp_dt_t *sdt = send->dt, *rdt = recv->dt;
    void *recvbuf = (void *)recv->buf;
    const int *rcounts = recv->counts, *displs = recv->displs;
    int n = c->size, me = c->rank;
    amp_nbc_t *s = amp_nbc_create(c, 2 * n + 1, 0);
    if (!s)
        return made(s, out);
    if (!in_place)
        amp_nbc_copy(s, sendbuf, scount, sdt,
                     elem_at(recvbuf, block_disp(displs, me, rcount), rdt),
                     block_count(rcounts, me, rcount), rdt);
    int right = (me + 1) % n, left = (me - 1 + n) % n;
    for (int k = 0; k < n - 1; k++) {
        int sb = (me - k + n) % n, rb = (me - k - 1 + n) % n;
        amp_nbc_send_typed(
            s, elem_at(recvbuf, block_disp(displs, sb, rcount), rdt),
            block_count(rcounts, sb, rcount), rdt, right);
        amp_nbc_recv_typed(
            s, elem_at(recvbuf, block_disp(displs, rb, rcount), rdt),
            block_count(rcounts, rb, rcount), rdt, left);
        amp_nbc_round(s);
    }
    return made(s, out);
}

/* buf + off, in integer arithmetic: a program with nothing to send or
 * receive may pass NULL buffers. */
static void *at(const void *buf, ptrdiff_t off)
{
    return (void *)((uintptr_t)buf + (uintptr_t)off);
}

/* All receives and sends at once.  In place, the send blocks are first
 * copied (packed) into scratch. */
amp_status_t amp_coll_sched_alltoall(const amp_coll_comm_t *c,
                                     const void *sendbuf,
                                     const amp_coll_side_t *sd, void *recvbuf,
                                     const amp_coll_side_t *rd, int in_place,
                                     amp_nbc_t **out)
{
    const int *scounts = sd->counts, *rcounts = rd->counts;
    const ptrdiff_t *sdispls = sd->displs, *rdispls = rd->displs;
    const amp_dt_t *const *sdts = sd->dts, *const *rdts = rd->dts;
    int n = c->size, me = c->rank;
    size_t packed = 0;
    if (in_place)
        for (int i = 0; i < n; i++)
            packed += AMP_ROUND_UP(rdts[i]->size * (size_t)rcounts[i] + 1, 64);
    amp_nbc_t *s = amp_nbc_create(c, 3 * n + 1, packed);
    if (!s)
        return made(s, out);
    /* The packed send blocks, in the order of the loop below. */
    char *packs = NULL;
    for (int k = 1; in_place && k < n; k++) {
        int i = (me + k) % n;
        size_t bytes = rdts[i]->size * (size_t)rcounts[i];
        char *tmp = amp_nbc_scratch(s, bytes);
        packs = packs ? packs : tmp;
        amp_nbc_copy(s, at(recvbuf, rdispls[i]), rcounts[i], rdts[i], tmp,
                     (int)bytes, NULL);
    }
    /* Post to the partners in a staggered order, so that not everyone
     * sends to rank 0 first. */
    for (int k = 0; k < n; k++) {
        int i = (me + k) % n, j = (me - k + n) % n;
        if (i == me) {
            if (!in_place)
                amp_nbc_copy(s, at(sendbuf, sdispls[me]), scounts[me], sdts[me],
                             at(recvbuf, rdispls[me]), rcounts[me], rdts[me]);
            continue;
        }
        amp_nbc_recv_typed(s, at(recvbuf, rdispls[j]), rcounts[j], rdts[j], j);
        if (in_place) {
            size_t bytes = rdts[i]->size * (size_t)rcounts[i];
            amp_nbc_send(s, packs, bytes, i);
            packs += AMP_ROUND_UP(bytes ? bytes : 1, 64);
        } else
            amp_nbc_send_typed(s, at(sendbuf, sdispls[i]), scounts[i], sdts[i],
                               i);
    }
    return made(s, out);
}

/* Reduce the whole vector to rank 0 in rank order, then scatter it. */
amp_status_t amp_coll_sched_reduce_scatter(const amp_coll_comm_t *c,
                                           const void *sendbuf, void *recvbuf,
                                           const int *rcounts,
                                           const amp_dt_t *dt,
                                           const amp_coll_op_t *op,
                                           int in_place, amp_nbc_t **out)
{
    int n = c->size;
    int total = 0;
    for (int i = 0; i < n; i++)
        total += rcounts[i];
    size_t eb = amp_nbc_elems_bytes(dt, total);
    amp_nbc_t *s = amp_nbc_create(c, 2 * log2ceil(n) + n + 2, 2 * eb);
    if (!s)
        return made(s, out);
    char *acc = amp_nbc_scratch_elems(s, dt, total);
    char *tmp = amp_nbc_scratch_elems(s, dt, total);
    amp_nbc_copy(s, in_place ? recvbuf : sendbuf, total, dt, acc, total, dt);
    char *res = add_reduce_to_zero(s, c, acc, tmp, total, dt, op);
    if (c->rank != 0) {
        amp_nbc_recv_typed(s, recvbuf, rcounts[c->rank], dt, 0);
        return made(s, out);
    }
    ptrdiff_t off = rcounts[0];
    for (int i = 1; i < n; i++) {
        amp_nbc_send_typed(s, elem_at(res, off, dt), rcounts[i], dt, i);
        off += rcounts[i];
    }
    amp_nbc_copy(s, res, rcounts[0], dt, recvbuf, rcounts[0], dt);
    return made(s, out);
}

/* Recursive doubling (as MPICH's): partial holds the combination of a
 * block of ranks around this one, res the prefix so far.  Exchanging
 * partials with rank ^ mask, the lower side's data always goes on the
 * left of the operation. */
amp_status_t amp_coll_sched_scan(const amp_coll_comm_t *c,
                                 const amp_coll_reduction_t *r, int exclusive,
                                 int in_place, amp_nbc_t **out)
{
    void *recvbuf = r->recvbuf;
    int count = r->count;
    const amp_dt_t *dt = r->dt;
    const amp_coll_op_t *op = r->op;
    int n = c->size, me = c->rank;
    size_t eb = amp_nbc_elems_bytes(dt, count);
    amp_nbc_t *s = amp_nbc_create(c, 4 * log2ceil(n) + 3, 3 * eb);
    if (!s)
        return made(s, out);
    char *partial = amp_nbc_scratch_elems(s, dt, count);
    char *tmp = amp_nbc_scratch_elems(s, dt, count);
    char *res = amp_nbc_scratch_elems(s, dt, count);
    const void *in = in_place ? recvbuf : r->sendbuf;
    int have = !exclusive; /* res holds something */
    amp_nbc_copy(s, in, count, dt, partial, count, dt);
    if (have)
        amp_nbc_copy(s, in, count, dt, res, count, dt);
    for (int mask = 1; mask < n; mask <<= 1) {
        int peer = me ^ mask;
        if (peer >= n)
            continue;
        amp_nbc_send_typed(s, partial, count, dt, peer);
        amp_nbc_recv_typed(s, tmp, count, dt, peer);
        amp_nbc_round(s);
        if (me > peer) {
            /* tmp: ranks below; partial = tmp op partial, and the same
             * for res (or res = tmp, the first time). */
            if (have)
                amp_nbc_reduce(s, op, tmp, res, count, dt);
            else
                amp_nbc_copy(s, tmp, count, dt, res, count, dt);
            have = 1;
            amp_nbc_reduce(s, op, tmp, partial, count, dt);
        } else {
            /* tmp: ranks above; partial = partial op tmp */
            amp_nbc_reduce(s, op, partial, tmp, count, dt);
            char *t = partial;
            partial = tmp;
            tmp = t;
        }
    }
    if (have)
        amp_nbc_copy(s, res, count, dt, recvbuf, count, dt);
    return made(s, out);
}
