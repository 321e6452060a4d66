/*
 * Collectives on inter-communicators.  Every one is a schedule
 * (coll/nbc.h) on the inter-communicator's collective context, which the
 * MPI layer runs to the end for the blocking calls or hands out as a
 * request for the nonblocking ones (mpi/coll/intercoll_calls.c).
 *
 * MPI_(I)barrier, (I)bcast, (I)reduce, (I)allreduce and
 * (I)reduce_scatter(_block) work in three steps: a binomial tree inside the
 * local group (reductions combine in rank order), a message between the groups'
 * leaders (local rank 0) or from the leader to the root, and a tree inside the
 * receiving group.  The gathers, scatters and all-to-alls
 * (mpi/coll/coll_calls.c checks them) are one round: every rank exchanges its
 * blocks with the remote ranks directly (amp_coll_inter_exchange).
 *
 * Peers.  A schedule sends to c->world[peer] and stamps its messages with
 * c->rank, and a receive names the source as the sender stamped it.  Here
 * c->rank is always the local rank, so a receive from local rank i and one
 * from remote rank j name sources i and j: the two kinds of message carry
 * different tag steps (STEP_CROSS, STEP_LOCAL).  The schedules of
 * both_create send to local rank i as peer i and to remote rank j as peer
 * local size + j.
 */
#include "coll/inter.h"

#include "coll/nbc.h"

#include "mpi.h"

#include <stdlib.h>

/* Tag steps; mpi/comm/intercomm.c's leaders exchange with tags 100 and 101 on
 * the same context, which no collective's tag equals. */
enum { STEP_CROSS = 0, STEP_LOCAL = 1 };

static int log2ceil(int n)
{
    int k = 0;
    while ((1 << k) < n)
        k++;
    return k;
}

/* A schedule on ic that reaches both groups (see the top). */
static amp_nbc_t *both_create(const amp_coll_inter_t *ic, int max_steps,
                              size_t scratch)
{
    amp_coll_comm_t c = ic->local;
    int n = c.size + ic->remote_size;
    int *map = malloc((size_t)n * sizeof(int));
    if (!map)
        return NULL;
    for (int i = 0; i < c.size; i++)
        map[i] = c.world ? c.world[i] : i;
    for (int j = 0; j < ic->remote_size; j++)
        map[c.size + j] = ic->remote_world[j];
    c.size = n;
    c.world = map;
    amp_nbc_t *s = amp_nbc_create(&c, max_steps, scratch);
    free(map); /* the schedule has its copy */
    return s;
}

/* Messages of the local trees: count elements of dt, or empty (dt NULL). */
static void local_send(amp_nbc_t *s, const void *buf, int count,
                       const amp_dt_t *dt, int peer)
{
    amp_nbc_tag(s, STEP_LOCAL);
    if (dt)
        amp_nbc_send_typed(s, buf, count, dt, peer);
    else
        amp_nbc_send(s, NULL, 0, peer);
}

static void local_recv(amp_nbc_t *s, void *buf, int count, const amp_dt_t *dt,
                       int peer)
{
    amp_nbc_tag(s, STEP_LOCAL);
    if (dt)
        amp_nbc_recv_typed(s, buf, count, dt, peer);
    else
        amp_nbc_recv(s, NULL, 0, peer);
}

/* To / from remote rank j of ic. */
static void cross_send(amp_nbc_t *s, const amp_coll_inter_t *ic,
                       const void *buf, int count, const amp_dt_t *dt, int j)
{
    amp_nbc_tag(s, STEP_CROSS);
    if (dt)
        amp_nbc_send_typed(s, buf, count, dt, ic->local.size + j);
    else
        amp_nbc_send(s, NULL, 0, ic->local.size + j);
}

static void cross_recv(amp_nbc_t *s, void *buf, int count, const amp_dt_t *dt,
                       int j)
{
    amp_nbc_tag(s, STEP_CROSS);
    if (dt)
        amp_nbc_recv_typed(s, buf, count, dt, j);
    else
        amp_nbc_recv(s, NULL, 0, j);
}

/* Binomial tree of the local group (this rank me of n) to local rank 0,
 * as coll/sched.c's: acc holds this rank's data, tmp is free; the result
 * (at rank 0) is in the buffer returned.  Combines lower ranks' data on
 * the left.  op NULL: empty messages, nothing combined (a fan-in).  Steps:
 * 2 log2ceil(n). */
static char *local_reduce(amp_nbc_t *s, int me, int n, char *acc, char *tmp,
                          int count, const amp_dt_t *dt,
                          const amp_coll_op_t *op)
{
    for (int mask = 1; mask < n; mask <<= 1) {
        if (me & mask) {
            local_send(s, acc, count, op ? dt : NULL, me - mask);
            amp_nbc_round(s);
            break;
        }
        if (me + mask >= n)
            continue;
        local_recv(s, tmp, count, op ? dt : NULL, me + mask);
        amp_nbc_round(s);
        if (op) {
            amp_nbc_reduce(s, op, acc, tmp, count, dt); /* tmp = acc op tmp */
            char *t = acc;
            acc = tmp;
            tmp = t;
        }
    }
    return acc;
}

/* Binomial tree from local rank 0 over the local group: buf (count of dt;
 * dt NULL: empty messages).  Steps: log2ceil(n) + 1. */
static void local_bcast(amp_nbc_t *s, int me, int n, void *buf, int count,
                        const amp_dt_t *dt)
{
    int mask = 1;
    while (mask < n) {
        if (me & mask) {
            local_recv(s, buf, count, dt, me - mask);
            amp_nbc_round(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (me + mask < n)
            local_send(s, buf, count, dt, me + mask);
    amp_nbc_round(s);
}

/* Steps any schedule below needs at most, beside a scatter's. */
static int tree_steps(const amp_coll_inter_t *ic)
{
    return 3 * log2ceil(ic->local.size) + 8;
}

static amp_status_t made(amp_nbc_t *s, amp_nbc_t **out)
{
    *out = s;
    return s ? AMP_OK : AMP_ERR_NOMEM;
}

/* Everyone local is in; the leaders swap that; everyone may leave. */
amp_status_t amp_coll_inter_barrier(const amp_coll_inter_t *ic, amp_nbc_t **out)
{
    amp_nbc_t *s = both_create(ic, tree_steps(ic), 0);
    if (!s)
        return made(s, out);
    local_reduce(s, ic->local.rank, ic->local.size, NULL, NULL, 0, NULL, NULL);
    if (ic->local.rank == 0) {
        cross_recv(s, NULL, 0, NULL, 0);
        cross_send(s, ic, NULL, 0, NULL, 0);
        amp_nbc_round(s);
    }
    local_bcast(s, ic->local.rank, ic->local.size, NULL, 0, NULL);
    return made(s, out);
}

amp_status_t amp_coll_inter_bcast(const amp_coll_inter_t *ic, void *buf,
                                  int count, const amp_dt_t *dt, int root,
                                  amp_nbc_t **out)
{
    amp_nbc_t *s = both_create(ic, tree_steps(ic), 0);
    if (!s || root == MPI_PROC_NULL)
        return made(s, out);
    if (root == MPI_ROOT) {
        cross_send(s, ic, buf, count, dt, 0);
        return made(s, out);
    }
    if (ic->local.rank == 0) {
        cross_recv(s, buf, count, dt, root);
        amp_nbc_round(s);
    }
    local_bcast(s, ic->local.rank, ic->local.size, buf, count, dt);
    return made(s, out);
}

amp_status_t amp_coll_inter_from_leader(const amp_coll_inter_t *ic, int low,
                                        int *buf, int n, amp_nbc_t **out)
{
    const amp_dt_t *dt = amp_dt_predefined(AMPI_DTID_MPI_INT);
    amp_nbc_t *s = both_create(ic, tree_steps(ic), 0);
    if (!s)
        return made(s, out);
    if (ic->local.rank == 0 && low) {
        cross_send(s, ic, buf, n, dt, 0);
    } else if (ic->local.rank == 0) {
        cross_recv(s, buf, n, dt, 0);
        amp_nbc_round(s);
    }
    local_bcast(s, ic->local.rank, ic->local.size, buf, n, dt);
    return made(s, out);
}

amp_status_t amp_coll_inter_reduce(const amp_coll_inter_t *ic,
                                   const amp_coll_reduction_t *r, int root,
                                   int all, amp_nbc_t **out)
{
    void *recvbuf = r->recvbuf;
    int count = r->count;
    const amp_dt_t *dt = r->dt;
    int contributes = all || root >= 0;
    size_t eb = contributes ? amp_nbc_elems_bytes(dt, count) : 0;
    amp_nbc_t *s = both_create(ic, tree_steps(ic), 2 * eb);
    if (!s || root == MPI_PROC_NULL)
        return made(s, out);
    if (!all && root == MPI_ROOT) {
        cross_recv(s, recvbuf, count, dt, 0);
        return made(s, out);
    }
    char *acc = amp_nbc_scratch_elems(s, dt, count);
    char *tmp = amp_nbc_scratch_elems(s, dt, count);
    amp_nbc_copy(s, r->sendbuf, count, dt, acc, count, dt);
    char *res = local_reduce(s, ic->local.rank, ic->local.size, acc, tmp, count,
                             dt, r->op);
    if (ic->local.rank == 0) {
        if (all)
            cross_recv(s, recvbuf, count, dt, 0);
        cross_send(s, ic, res, count, dt, all ? 0 : root);
        amp_nbc_round(s);
    }
    if (all)
        local_bcast(s, ic->local.rank, ic->local.size, recvbuf, count, dt);
    return made(s, out);
}

/* The local group's reduction (total elements) goes to the remote
 * leader; the remote group's, from its leader, is scattered over the
 * local group by counts. */
amp_status_t amp_coll_inter_reduce_scatter(const amp_coll_inter_t *ic,
                                           const amp_coll_reduction_t *r,
                                           const int *counts, amp_nbc_t **out)
{
    const void *sendbuf = r->sendbuf;
    void *recvbuf = r->recvbuf;
    int total = r->count;
    const amp_dt_t *dt = r->dt;
    const amp_coll_op_t *op = r->op;
    size_t eb = amp_nbc_elems_bytes(dt, total);
    amp_nbc_t *s = both_create(ic, tree_steps(ic) + ic->local.size, 3 * eb);
    if (!s)
        return made(s, out);
    char *acc = amp_nbc_scratch_elems(s, dt, total);
    char *tmp = amp_nbc_scratch_elems(s, dt, total);
    char *in = amp_nbc_scratch_elems(s, dt, total);
    amp_nbc_copy(s, sendbuf, total, dt, acc, total, dt);
    char *res = local_reduce(s, ic->local.rank, ic->local.size, acc, tmp, total,
                             dt, op);
    if (ic->local.rank != 0) {
        local_recv(s, recvbuf, counts[ic->local.rank], dt, 0);
        return made(s, out);
    }
    cross_recv(s, in, total, dt, 0);
    cross_send(s, ic, res, total, dt, 0);
    amp_nbc_round(s);
    ptrdiff_t off = counts[0];
    for (int i = 1; i < ic->local.size; off += counts[i++])
        local_send(s, in + off * dt->extent, counts[i], dt, i);
    amp_nbc_copy(s, in, counts[0], dt, recvbuf, counts[0], dt);
    return made(s, out);
}

amp_status_t amp_coll_inter_exchange(const amp_coll_inter_t *ic,
                                     const void *sendbuf,
                                     const amp_coll_side_t *sd, void *recvbuf,
                                     const amp_coll_side_t *rd, amp_nbc_t **out)
{
    /* The remote group's view: peers are remote ranks, messages go out
     * under this rank's local rank. */
    amp_coll_comm_t c = ic->local;
    c.size = ic->remote_size;
    c.world = ic->remote_world;
    amp_nbc_t *s = amp_nbc_create(&c, sd->n + rd->n, 0);
    if (!s)
        return AMP_ERR_NOMEM;
    for (int i = 0; i < rd->n; i++)
        amp_nbc_recv_typed(s, (char *)recvbuf + rd->displs[i], rd->counts[i],
                           rd->dts[i], rd->first + i);
    for (int i = 0; i < sd->n; i++)
        amp_nbc_send_typed(s, (const char *)sendbuf + sd->displs[i],
                           sd->counts[i], sd->dts[i], sd->first + i);
    *out = s;
    return AMP_OK;
}
