/*
 * Collectives on inter-communicators.  Every one is a schedule
 * (coll/nbc.h) on the inter-communicator's collective context, run to the
 * end for the blocking calls or handed out as a request for the
 * nonblocking ones.
 *
 * MPI_(I)barrier, (I)bcast, (I)reduce, (I)allreduce and
 * (I)reduce_scatter(_block) (collective.c and coll_calls.c hand them here)
 * work in three steps: a binomial tree inside the local group (reductions
 * combine in rank order), a message between the groups' leaders (local
 * rank 0) or from the leader to the root, and a tree inside the receiving
 * group.  The gathers, scatters and all-to-alls (coll_calls.c checks them)
 * are one round: every rank exchanges its blocks with the remote ranks
 * directly (amp_intercoll_sched).
 *
 * Peers.  A schedule sends to c->world[peer] and stamps its messages with
 * c->rank, and a receive names the source as the sender stamped it.  Here
 * c->rank is always the local rank, so a receive from local rank i and one
 * from remote rank j name sources i and j: the two kinds of message carry
 * different tag steps (STEP_CROSS, STEP_LOCAL).  The schedules of
 * both_create send to local rank i as peer i and to remote rank j as peer
 * local size + j.
 */
#include "mpi/impl.h"

#include "coll/nbc.h"

#include <stdlib.h>

/* Tag steps; intercomm.c's leaders exchange with tags 100 and 101 on the same
 * context, which no collective's tag equals. */
enum { STEP_CROSS = 0, STEP_LOCAL = 1 };

static int log2ceil(int n)
{
    int k = 0;
    while ((1 << k) < n)
        k++;
    return k;
}

/* A schedule on ic that reaches both groups (see the top); takes the
 * call's sequence number even when out of memory. */
static amp_nbc_t *both_create(amp_rank_t *rank, amp_comm_t *ic, int max_steps,
                              size_t scratch)
{
    amp_coll_comm_t c;
    amp_coll_comm_of(rank, ic, &c);
    int n = ic->size + ic->remote_size;
    int *map = malloc((size_t)n * sizeof(int));
    if (!map)
        return NULL;
    for (int i = 0; i < ic->size; i++)
        map[i] = amp_comm_world_rank(ic, i);
    for (int j = 0; j < ic->remote_size; j++)
        map[ic->size + j] = ic->remote_world[j];
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
static void cross_send(amp_nbc_t *s, const amp_comm_t *ic, const void *buf,
                       int count, const amp_dt_t *dt, int j)
{
    amp_nbc_tag(s, STEP_CROSS);
    if (dt)
        amp_nbc_send_typed(s, buf, count, dt, ic->size + j);
    else
        amp_nbc_send(s, NULL, 0, ic->size + j);
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
static int tree_steps(const amp_comm_t *ic)
{
    return 3 * log2ceil(ic->size) + 8;
}

static amp_status_t made(amp_nbc_t *s, amp_nbc_t **out)
{
    *out = s;
    return s ? AMP_OK : AMP_ERR_NOMEM;
}

/* Everyone local is in; the leaders swap that; everyone may leave. */
static amp_status_t sched_barrier(amp_rank_t *rank, amp_comm_t *ic,
                                  amp_nbc_t **out)
{
    amp_nbc_t *s = both_create(rank, ic, tree_steps(ic), 0);
    if (!s)
        return made(s, out);
    local_reduce(s, ic->rank, ic->size, NULL, NULL, 0, NULL, NULL);
    if (ic->rank == 0) {
        cross_recv(s, NULL, 0, NULL, 0);
        cross_send(s, ic, NULL, 0, NULL, 0);
        amp_nbc_round(s);
    }
    local_bcast(s, ic->rank, ic->size, NULL, 0, NULL);
    return made(s, out);
}

static amp_status_t sched_bcast(amp_rank_t *rank, amp_comm_t *ic, void *buf,
                                int count, const amp_dt_t *dt, int root,
                                amp_nbc_t **out)
{
    amp_nbc_t *s = both_create(rank, ic, tree_steps(ic), 0);
    if (!s || root == MPI_PROC_NULL)
        return made(s, out);
    if (root == MPI_ROOT) {
        cross_send(s, ic, buf, count, dt, 0);
        return made(s, out);
    }
    if (ic->rank == 0) {
        cross_recv(s, buf, count, dt, root);
        amp_nbc_round(s);
    }
    local_bcast(s, ic->rank, ic->size, buf, count, dt);
    return made(s, out);
}

amp_status_t amp_intercoll_sched_from_leader(amp_rank_t *rank, amp_comm_t *ic,
                                             int low, int *buf, int n,
                                             amp_nbc_t **out)
{
    const amp_dt_t *dt = amp_dt_predefined(AMPI_DTID_MPI_INT);
    amp_nbc_t *s = both_create(rank, ic, tree_steps(ic), 0);
    if (!s)
        return made(s, out);
    if (ic->rank == 0 && low) {
        cross_send(s, ic, buf, n, dt, 0);
    } else if (ic->rank == 0) {
        cross_recv(s, buf, n, dt, 0);
        amp_nbc_round(s);
    }
    local_bcast(s, ic->rank, ic->size, buf, n, dt);
    return made(s, out);
}

/* Reduce (root: MPI_ROOT, MPI_PROC_NULL or a remote rank) or, with all,
 * allreduce: each group gets the reduction of the other group's data. */
static amp_status_t sched_reduce(amp_rank_t *rank, amp_comm_t *ic,
                                 const void *sendbuf, void *recvbuf, int count,
                                 const amp_dt_t *dt, const amp_coll_op_t *op,
                                 int root, int all, amp_nbc_t **out)
{
    int contributes = all || root >= 0;
    size_t eb = contributes ? amp_nbc_elems_bytes(dt, count) : 0;
    amp_nbc_t *s = both_create(rank, ic, tree_steps(ic), 2 * eb);
    if (!s || root == MPI_PROC_NULL)
        return made(s, out);
    if (!all && root == MPI_ROOT) {
        cross_recv(s, recvbuf, count, dt, 0);
        return made(s, out);
    }
    char *acc = amp_nbc_scratch_elems(s, dt, count);
    char *tmp = amp_nbc_scratch_elems(s, dt, count);
    amp_nbc_copy(s, sendbuf, count, dt, acc, count, dt);
    char *res = local_reduce(s, ic->rank, ic->size, acc, tmp, count, dt, op);
    if (ic->rank == 0) {
        if (all)
            cross_recv(s, recvbuf, count, dt, 0);
        cross_send(s, ic, res, count, dt, all ? 0 : root);
        amp_nbc_round(s);
    }
    if (all)
        local_bcast(s, ic->rank, ic->size, recvbuf, count, dt);
    return made(s, out);
}

/* Reduce_scatter: the local group's reduction (total elements) goes to the
 * remote leader; the remote group's, from its leader, is scattered over
 * the local group by counts. */
static amp_status_t sched_reduce_scatter(amp_rank_t *rank, amp_comm_t *ic,
                                         const void *sendbuf, void *recvbuf,
                                         const int *counts, int total,
                                         const amp_dt_t *dt,
                                         const amp_coll_op_t *op,
                                         amp_nbc_t **out)
{
    size_t eb = amp_nbc_elems_bytes(dt, total);
    amp_nbc_t *s = both_create(rank, ic, tree_steps(ic) + ic->size, 3 * eb);
    if (!s)
        return made(s, out);
    char *acc = amp_nbc_scratch_elems(s, dt, total);
    char *tmp = amp_nbc_scratch_elems(s, dt, total);
    char *in = amp_nbc_scratch_elems(s, dt, total);
    amp_nbc_copy(s, sendbuf, total, dt, acc, total, dt);
    char *res = local_reduce(s, ic->rank, ic->size, acc, tmp, total, dt, op);
    if (ic->rank != 0) {
        local_recv(s, recvbuf, counts[ic->rank], dt, 0);
        return made(s, out);
    }
    cross_recv(s, in, total, dt, 0);
    cross_send(s, ic, res, total, dt, 0);
    amp_nbc_round(s);
    ptrdiff_t off = counts[0];
    for (int i = 1; i < ic->size; off += counts[i++])
        local_send(s, in + off * dt->extent, counts[i], dt, i);
    amp_nbc_copy(s, in, counts[0], dt, recvbuf, counts[0], dt);
    return made(s, out);
}

int amp_check_inter_root(amp_rank_t *rank, amp_comm_t *comm, int root,
                         const char *call)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL ||
        (root >= 0 && root < comm->remote_size))
        return MPI_SUCCESS;
    return amp_mpi_error(rank, comm, MPI_ERR_ROOT, call,
                         "invalid root %d (argument root): on an "
                         "inter-communicator, MPI_ROOT, MPI_PROC_NULL or a "
                         "rank of the remote group (%d ranks)",
                         root, comm->remote_size);
}

static int in_place_error(amp_rank_t *rank, amp_comm_t *comm, const char *call,
                          const char *arg)
{
    return amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                         "MPI_IN_PLACE is not allowed on an "
                         "inter-communicator (argument %s)",
                         arg);
}

int amp_intercoll_barrier(amp_rank_t *rank, amp_comm_t *comm, MPI_Comm comm_h,
                          MPI_Request *request, const char *call)
{
    amp_nbc_t *s = NULL;
    amp_status_t st = sched_barrier(rank, comm, &s);
    return amp_coll_launch(rank, comm, comm_h, st, s, request, call);
}

int amp_intercoll_bcast(amp_rank_t *rank, amp_comm_t *comm, MPI_Comm comm_h,
                        void *buffer, int count, MPI_Datatype datatype,
                        int root, MPI_Request *request, const char *call)
{
    const amp_dt_t *dt;
    int rc = amp_check_count(rank, comm, count, call, "count");
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, comm, datatype, call, "datatype", &dt);
    if (rc == MPI_SUCCESS)
        rc = amp_check_inter_root(rank, comm, root, call);
    if (rc == MPI_SUCCESS && root != MPI_PROC_NULL && buffer == MPI_IN_PLACE)
        rc = in_place_error(rank, comm, call, "buffer");
    if (rc == MPI_SUCCESS && root != MPI_PROC_NULL)
        rc = amp_check_buf(rank, comm, buffer, count, dt, call, "buffer");
    if (rc == MPI_SUCCESS && amp_proc.gpu && root != MPI_PROC_NULL) {
        void *v; /* device memory: a host copy for amp_coll_launch (gpu.c) */
        rc = amp_gpu_op_stage_dt(rank, comm, &rank->gpu_coll, buffer, count, dt,
                                 root == MPI_ROOT ? AMP_GPU_SEND : AMP_GPU_RECV,
                                 &v, call);
        buffer = v;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    amp_nbc_t *s = NULL;
    amp_status_t st = sched_bcast(rank, comm, buffer, count, dt, root, &s);
    return amp_coll_launch(rank, comm, comm_h, st, s, request, call);
}

int amp_intercoll_reduce(amp_rank_t *rank, amp_comm_t *comm, MPI_Comm comm_h,
                         const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype datatype, MPI_Op op, int root, int all,
                         MPI_Request *request, const char *call)
{
    const amp_dt_t *dt;
    amp_coll_op_t cop;
    int rc = amp_check_count(rank, comm, count, call, "count");
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, comm, datatype, call, "datatype", &dt);
    if (rc == MPI_SUCCESS)
        rc = amp_check_op(rank, comm, op, datatype, dt, call, &cop);
    if (rc == MPI_SUCCESS && !all)
        rc = amp_check_inter_root(rank, comm, root, call);
    /* What this rank passes data in or gets it back in. */
    int sends = all || root >= 0, gets = all || root == MPI_ROOT;
    if (rc == MPI_SUCCESS && sends && sendbuf == MPI_IN_PLACE)
        rc = in_place_error(rank, comm, call, "sendbuf");
    if (rc == MPI_SUCCESS && sends)
        rc = amp_check_buf(rank, comm, sendbuf, count, dt, call, "sendbuf");
    if (rc == MPI_SUCCESS && gets && recvbuf == MPI_IN_PLACE)
        rc = in_place_error(rank, comm, call, "recvbuf");
    if (rc == MPI_SUCCESS && gets)
        rc = amp_check_buf(rank, comm, recvbuf, count, dt, call, "recvbuf");
    if (rc == MPI_SUCCESS && amp_proc.gpu) {
        void *sv = (void *)sendbuf, *rv = recvbuf; /* device memory: host
                                                      copies (gpu.c) */
        if (sends)
            rc = amp_gpu_op_stage_dt(rank, comm, &rank->gpu_coll, sendbuf,
                                     count, dt, AMP_GPU_SEND, &sv, call);
        if (rc == MPI_SUCCESS && gets)
            rc = amp_gpu_op_stage_dt(rank, comm, &rank->gpu_coll, recvbuf,
                                     count, dt, AMP_GPU_RECV, &rv, call);
        sendbuf = sv;
        recvbuf = rv;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    amp_nbc_t *s = NULL;
    amp_status_t st = sched_reduce(rank, comm, sendbuf, recvbuf, count, dt,
                                   &cop, root, all, &s);
    return amp_coll_launch(rank, comm, comm_h, st, s, request, call);
}

int amp_intercoll_reduce_scatter(amp_rank_t *rank, amp_comm_t *comm,
                                 MPI_Comm comm_h, const void *sendbuf,
                                 void *recvbuf, const int *counts, int total,
                                 const amp_dt_t *dt, const amp_coll_op_t *op,
                                 MPI_Request *request, const char *call)
{
    amp_nbc_t *s = NULL;
    amp_status_t st = sched_reduce_scatter(rank, comm, sendbuf, recvbuf, counts,
                                           total, dt, op, &s);
    return amp_coll_launch(rank, comm, comm_h, st, s, request, call);
}

/* The remote group's view of ic for one collective call: peers are remote
 * ranks, messages go out under this rank's local rank. */
static void remote_of(amp_rank_t *rank, amp_comm_t *ic, amp_coll_comm_t *c)
{
    amp_coll_comm_of(rank, ic, c);
    c->size = ic->remote_size;
    c->world = ic->remote_world;
}

amp_status_t amp_intercoll_sched(amp_rank_t *rank, amp_comm_t *ic,
                                 const void *sendbuf, const amp_coll_side_t *sd,
                                 void *recvbuf, const amp_coll_side_t *rd,
                                 amp_nbc_t **out)
{
    amp_coll_comm_t c;
    remote_of(rank, ic, &c);
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
