/*
 * Inter-communicators: two disjoint groups, each rank's messages going to
 * the other group.  An inter-communicator takes four context ids: ctx for
 * point-to-point between the groups, ctx + 1 for its collectives, and
 * ctx + 2 (and + 3) for local_comm, a hidden intra-communicator over the
 * local group that the collectives and constructors use among themselves.
 * The ids are agreed across both groups: each group agrees locally, the
 * leaders (local rank 0, or the given leaders for MPI_Intercomm_create)
 * exchange, and each leader broadcasts the outcome to its group.
 */
#include "mpi/comm/comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tags of the leaders' exchanges on an inter-communicator's collective
 * context: no collective's tag (coll/inter.c) is one of them. */
enum { TAG_AGREE = 100, TAG_SPLIT = 101, TAG_CHECK = 102 };

int PMPI_Comm_test_inter(MPI_Comm comm_h, int *flag)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = amp_mpi_enter(&rank, "MPI_Comm_test_inter");
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm_h, "MPI_Comm_test_inter", &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!flag)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, "MPI_Comm_test_inter",
                             "NULL pointer (argument flag)");
    *flag = comm->is_inter;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_test_inter)

int amp_intercomm_enter(amp_rank_t **rank, MPI_Comm comm_h, const void *out,
                        const char *outarg, const char *call, amp_comm_t **comm)
{
    int rc = amp_mpi_enter(rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(*rank, comm_h, call, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!(*comm)->is_inter)
        return amp_mpi_error(*rank, *comm, MPI_ERR_COMM, call,
                             "not an inter-communicator (argument comm)");
    if (!out)
        return amp_mpi_error(*rank, *comm, MPI_ERR_ARG, call,
                             "NULL pointer (argument %s)", outarg);
    return MPI_SUCCESS;
}

int PMPI_Comm_remote_size(MPI_Comm comm_h, int *size)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = amp_intercomm_enter(&rank, comm_h, size, "size",
                                 "MPI_Comm_remote_size", &comm);
    if (rc == MPI_SUCCESS)
        *size = comm->remote_size;
    return rc;
}
AMP_WEAK_ALIAS(Comm_remote_size)

/* A copy of n entries of map (NULL stays NULL: the identity). */
static int copy_map(const int *map, int n, int **out)
{
    *out = NULL;
    if (!map)
        return 1;
    *out = malloc(((size_t)n + 1) * sizeof(int));
    if (*out)
        memcpy(*out, map, (size_t)n * sizeof(int));
    return *out != NULL;
}

/* A new inter-communicator with context ids from ctx (four): this rank is
 * me of the size ranks of local (comm rank -> world rank, copied; NULL:
 * the identity), remote the rsize ranks of the other group (taken over).
 * attach 0: the collectives' state of its local_comm is not attached yet
 * (MPI_Comm_idup). */
static amp_comm_t *intercomm_make(amp_rank_t *rank, int ctx, int attach, int me,
                                  int size, const int *local, int rsize,
                                  int *remote)
{
    int *w1, *w2;
    if (!copy_map(local, size, &w1) || !copy_map(local, size, &w2)) {
        free(w1);
        free(remote);
        return NULL;
    }
    amp_comm_t *lc = attach ? amp_comm_new(rank, ctx + 2, me, size, w1)
                            : amp_comm_alloc(rank, ctx, me, size, w1);
    amp_comm_t *c = !lc      ? NULL
                    : attach ? amp_comm_new(rank, ctx, me, size, w2)
                             : amp_comm_alloc(rank, ctx, me, size, w2);
    if (!c) {
        if (lc)
            amp_comm_destroy(rank, lc);
        else
            free(w2);
        free(remote);
        return NULL;
    }
    snprintf(lc->name, sizeof(lc->name), "local group of context %d", ctx);
    c->is_inter = 1;
    c->remote_size = rsize;
    c->remote_world = c->owned_remote_world = remote;
    c->local_comm = AMPI_HANDLE(AMPI_HANDLE_COMM, lc->obj.idx);
    if (__builtin_expect(amp_sched_lending & AMP_SCHED_TRACED, 0))
        amp_comm_trace_inter(rank, c);
    return c;
}

static amp_comm_t *intercomm_new(amp_rank_t *rank, int ctx, int me, int size,
                                 const int *local, int rsize, int *remote)
{
    return intercomm_make(rank, ctx, 1, me, size, local, rsize, remote);
}

void amp_intercomm_cleanup(amp_rank_t *rank, amp_comm_t *comm)
{
    amp_comm_t *lc = amp_comm_lookup(rank, comm->local_comm);
    if (lc)
        amp_comm_destroy(rank, lc);
    comm->local_comm = MPI_COMM_NULL;
}

static amp_status_t local_max(amp_rank_t *rank, amp_comm_t *comm, int mine,
                              int *max)
{
    amp_coll_comm_t c;
    amp_coll_op_t op = {.op_id = AMP_HANDLE_INDEX(MPI_MAX)};
    amp_coll_comm_of(rank, comm, &c);
    return amp_coll_allreduce(&c, &mine, max, 1,
                              amp_dt_predefined(AMPI_DTID_MPI_INT), &op);
}

static amp_status_t local_bcast(amp_rank_t *rank, amp_comm_t *comm, int *buf,
                                int n, int root)
{
    amp_coll_comm_t c;
    amp_coll_comm_of(rank, comm, &c);
    return amp_coll_bcast(&c, buf, n, amp_dt_predefined(AMPI_DTID_MPI_INT),
                          root);
}

/* The two groups of an inter-communicator being made or used: the local
 * group (an intra-communicator) and its leader, and the channel between
 * the leaders (context, own and remote rank there, tag). */
typedef struct both {
    MPI_Comm local;
    int leader;
    int ctx, me, to, from, tag;
} both_t;

/* Over b's channel between the leaders: sends out (outbytes) to the other
 * leader and receives in (inbytes) from it; then waits for both. */
static void exchange(amp_rank_t *rank, const both_t *b, const void *out,
                     size_t outbytes, void *in, size_t inbytes)
{
    amp_p2p_req_t sreq, rreq;
    amp_p2p_req_t *reqs[2] = {&rreq, &sreq};
    sreq.on_done = rreq.on_done = NULL;
    amp_p2p_irecv(&rank->ep, in, inbytes,
                  (amp_p2p_env_t){.ctx = b->ctx, .src = b->from, .tag = b->tag},
                  &rreq);
    amp_p2p_isend(&rank->ep, out, outbytes,
                  (amp_p2p_env_t){
                      .ctx = b->ctx, .src = b->me, .dst = b->to, .tag = b->tag},
                  AMP_P2P_STANDARD, &sreq);
    amp_p2p_wait_all(&rank->ep, reqs, 2);
}

/* At every member of both groups: the largest mine of them all. */
static amp_status_t both_max(const both_t *b, int mine, int *max)
{
    amp_rank_t *rank = amp_rank_self();
    int lmax = 0, other = 0;
    amp_status_t st =
        local_max(rank, amp_comm_lookup(rank, b->local), mine, &lmax);
    rank = amp_rank_self();
    amp_comm_t *lc = amp_comm_lookup(rank, b->local);
    if (st == AMP_OK && lc->rank == b->leader) {
        exchange(rank, b, &lmax, sizeof(lmax), &other, sizeof(other));
        lmax = lmax > other ? lmax : other;
    }
    if (st == AMP_OK)
        st = local_bcast(rank, lc, &lmax, 1, b->leader);
    *max = lmax;
    return st;
}

/* Context ids *agreed, the largest of both groups' proposals, this
 * member's being proposed (amp_comm_ctx_propose): every member checks that
 * it can take them (another thread of its rank may have been given them
 * meanwhile, mpi/comm/comm.c); while one cannot, all agree again on new
 * proposals. */
static amp_status_t both_settle(const both_t *b, int proposed, int nids,
                                int *agreed)
{
    for (unsigned tries = 0;;) {
        int bad = !amp_comm_ctx_take(amp_rank_self(), proposed, *agreed, nids);
        amp_status_t st = both_max(b, bad, &bad);
        if (st != AMP_OK || !bad)
            return st;
        amp_comm_ctx_backoff(&tries);
        proposed = amp_comm_ctx_propose(amp_rank_self(), nids);
        st = both_max(b, proposed, agreed);
        if (st != AMP_OK)
            return st;
    }
}

/* The channel of both_t for the existing inter-communicator ic, with
 * tag. */
static both_t both_of(const amp_comm_t *ic, int tag)
{
    return (both_t){.local = ic->local_comm,
                    .leader = 0,
                    .ctx = ic->ctx + 1,
                    .me = 0,
                    .to = ic->remote_world[0],
                    .from = 0,
                    .tag = tag};
}

/* Collective over both groups of the inter-communicator ic_h: *ctx, an id
 * no member of either group has used, with nids ids taken from it, and
 * *remote, the val that the other group passed (from its rank 0). */
static amp_status_t inter_agree(amp_rank_t *rank, MPI_Comm ic_h, int nids,
                                int val, int *remote, int *ctx)
{
    amp_comm_t *ic = amp_comm_lookup(rank, ic_h);
    amp_comm_t *lc = amp_comm_lookup(rank, ic->local_comm);
    int lmax, out[2], in[2] = {0, 0};
    int p = amp_comm_ctx_propose(rank, nids);
    both_t b = both_of(ic, TAG_CHECK);
    amp_status_t st = local_max(rank, lc, p, &lmax);
    if (st == AMP_OK && lc->rank == 0) {
        out[0] = lmax;
        out[1] = val;
        both_t leaders = both_of(ic, TAG_AGREE);
        exchange(rank, &leaders, out, sizeof(out), in, sizeof(in));
    }
    if (st == AMP_OK)
        st = local_bcast(rank, lc, in, 2, 0);
    rank = amp_rank_self();
    if (st != AMP_OK)
        return st;
    *ctx = lmax > in[0] ? lmax : in[0];
    *remote = in[1];
    return both_settle(&b, p, nids, ctx);
}

int amp_intercomm_dup(amp_rank_t *rank, MPI_Comm comm_h, amp_comm_t **out,
                      const char *call)
{
    int ctx, unused;
    amp_status_t st = inter_agree(rank, comm_h, 4, 0, &unused, &ctx);
    rank = amp_rank_self();
    amp_comm_t *comm = amp_comm_lookup(rank, comm_h);
    if (st != AMP_OK)
        return amp_mpi_error(rank, comm, amp_mpi_class_of(st), call, "%s",
                             amp_status_str(st));
    return amp_intercomm_copy(rank, comm, ctx, 1, out, call);
}

int amp_intercomm_copy(amp_rank_t *rank, amp_comm_t *comm, int ctx, int attach,
                       amp_comm_t **out, const char *call)
{
    int *remote;
    *out = NULL;
    if (copy_map(comm->remote_world, comm->remote_size, &remote))
        *out = intercomm_make(rank, ctx, attach, comm->rank, comm->size,
                              comm->world, comm->remote_size, remote);
    if (!*out)
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call,
                             "out of memory for a communicator");
    return MPI_SUCCESS;
}

/* ---- MPI_Intercomm_create ---- */

/* The leader's checks of peer_comm and remote_leader. */
static int check_peer(amp_rank_t *rank, amp_comm_t *local, MPI_Comm peer_h,
                      int remote_leader, amp_comm_t **peer, const char *call)
{
    int rc = amp_check_comm(rank, peer_h, call, peer);
    if (rc != MPI_SUCCESS)
        return rc;
    if (remote_leader < 0 || remote_leader >= amp_comm_peer_size(*peer))
        return amp_mpi_error(rank, local, MPI_ERR_RANK, call,
                             "invalid rank %d (argument remote_leader): "
                             "peer_comm has %d ranks",
                             remote_leader, amp_comm_peer_size(*peer));
    if (amp_comm_peer_world(*peer, remote_leader) == rank->world_rank)
        return amp_mpi_error(rank, local, MPI_ERR_RANK, call,
                             "the remote leader %d is the local leader "
                             "itself (argument remote_leader)",
                             remote_leader);
    return MPI_SUCCESS;
}

/* The local leader's part: the two leaders swap their group's largest
 * next context id, size and world ranks over peer, header first.  info[0]
 * becomes the agreed id (-1 if the groups overlap), info[1] the remote
 * size. */
static amp_status_t leaders_swap(amp_rank_t *rank, amp_comm_t *local,
                                 amp_comm_t *peer, int remote_leader, int tag,
                                 int lmax, int info[2], int **remote)
{
    int *mine = malloc(((size_t)local->size + 1) * sizeof(int));
    if (!mine)
        return AMP_ERR_NOMEM;
    for (int i = 0; i < local->size; i++)
        mine[i] = amp_comm_world_rank(local, i);
    int out[2] = {lmax, local->size}, in[2];
    int to = amp_comm_peer_world(peer, remote_leader);
    amp_p2p_ep_t *ep = &rank->ep;
    amp_p2p_req_t hs, ls, hr, lr;
    amp_p2p_req_t *reqs[4] = {&hr, &hs, &ls, &lr};
    hs.on_done = ls.on_done = hr.on_done = lr.on_done = NULL;
    amp_p2p_irecv(
        ep, in, sizeof(in),
        (amp_p2p_env_t){.ctx = peer->ctx, .src = remote_leader, .tag = tag},
        &hr);
    amp_p2p_isend(
        ep, out, sizeof(out),
        (amp_p2p_env_t){
            .ctx = peer->ctx, .src = peer->rank, .dst = to, .tag = tag},
        AMP_P2P_STANDARD, &hs);
    amp_p2p_isend(
        ep, mine, (size_t)local->size * sizeof(int),
        (amp_p2p_env_t){
            .ctx = peer->ctx, .src = peer->rank, .dst = to, .tag = tag},
        AMP_P2P_STANDARD, &ls);
    amp_p2p_wait_all(ep, reqs, 1);
    *remote = malloc(((size_t)in[1] + 1) * sizeof(int));
    /* Received even when out of memory, so that nothing is left behind. */
    amp_p2p_irecv(
        ep, *remote, *remote ? (size_t)in[1] * sizeof(int) : 0,
        (amp_p2p_env_t){.ctx = peer->ctx, .src = remote_leader, .tag = tag},
        &lr);
    amp_p2p_wait_all(ep, reqs, 4);
    if (*remote) {
        info[0] = lmax > in[0] ? lmax : in[0];
        info[1] = in[1];
        for (int i = 0; i < in[1]; i++)
            for (int j = 0; j < local->size; j++)
                if ((*remote)[i] == mine[j])
                    info[0] = -1;
    }
    free(mine);
    return *remote ? AMP_OK : AMP_ERR_NOMEM;
}

static int intercomm_checks(amp_rank_t *rank, MPI_Comm local_h,
                            int local_leader, int tag, MPI_Comm *newintercomm,
                            amp_comm_t **local, const char *call)
{
    int rc = amp_check_comm(rank, local_h, call, local);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((*local)->is_inter)
        return amp_mpi_error(rank, *local, MPI_ERR_COMM, call,
                             "local_comm is an inter-communicator (argument "
                             "local_comm)");
    if (local_leader < 0 || local_leader >= (*local)->size)
        return amp_mpi_error(rank, *local, MPI_ERR_RANK, call,
                             "invalid rank %d (argument local_leader): "
                             "local_comm has %d ranks",
                             local_leader, (*local)->size);
    if (tag < 0 || tag > MPI_TAG_UB_VALUE)
        return amp_mpi_error(rank, *local, MPI_ERR_TAG, call,
                             "invalid tag %d (argument tag): tags are 0..%d",
                             tag, MPI_TAG_UB_VALUE);
    if (!newintercomm)
        return amp_mpi_error(rank, *local, MPI_ERR_ARG, call,
                             "NULL pointer (argument newintercomm)");
    return MPI_SUCCESS;
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader,
                          MPI_Comm peer_comm, int remote_leader, int tag,
                          MPI_Comm *newintercomm)
{
    amp_rank_t *rank;
    amp_comm_t *local, *peer = NULL;
    const char *call = "MPI_Intercomm_create";
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = intercomm_checks(rank, local_comm, local_leader, tag, newintercomm,
                              &local, call);
    int leader = rc == MPI_SUCCESS && local->rank == local_leader;
    if (leader)
        rc = check_peer(rank, local, peer_comm, remote_leader, &peer, call);
    if (rc != MPI_SUCCESS)
        return rc;
    rank->call = call;
    int lmax, info[2] = {0, 0}, *remote = NULL;
    int p = amp_comm_ctx_propose(rank, 4);
    both_t b = {.local = local_comm, .leader = local_leader, .tag = tag};
    if (leader)
        b = (both_t){local_comm,
                     local_leader,
                     peer->ctx,
                     peer->rank,
                     amp_comm_peer_world(peer, remote_leader),
                     remote_leader,
                     tag};
    amp_status_t st = local_max(rank, local, p, &lmax);
    if (st == AMP_OK && leader &&
        leaders_swap(rank, local, peer, remote_leader, tag, lmax, info,
                     &remote) != AMP_OK)
        info[0] = -2; /* out of memory: the others learn it below */
    if (st == AMP_OK)
        st = local_bcast(rank, local, info, 2, local_leader);
    if (st == AMP_OK && !leader &&
        !(remote = malloc(((size_t)info[1] + 1) * sizeof(int))))
        st = AMP_ERR_NOMEM;
    if (st == AMP_OK)
        st = local_bcast(rank, local, remote, info[1], local_leader);
    rank = amp_rank_self();
    local = amp_comm_lookup(rank, local_comm);
    if (st != AMP_OK || info[0] < 0) {
        free(remote);
        if (st != AMP_OK)
            return amp_mpi_error(rank, local, amp_mpi_class_of(st), call, "%s",
                                 amp_status_str(st));
        if (info[0] == -2)
            return amp_mpi_error(rank, local, MPI_ERR_NO_MEM, call,
                                 "out of memory at the local leader");
        return amp_mpi_error(rank, local, MPI_ERR_ARG, call,
                             "the local and remote groups overlap");
    }
    st = both_settle(&b, p, 4, &info[0]);
    rank = amp_rank_self();
    local = amp_comm_lookup(rank, local_comm);
    if (st != AMP_OK) {
        free(remote);
        return amp_mpi_error(rank, local, amp_mpi_class_of(st), call, "%s",
                             amp_status_str(st));
    }
    amp_comm_t *c = intercomm_new(rank, info[0], local->rank, local->size,
                                  local->world, info[1], remote);
    if (!c)
        return amp_mpi_error(rank, local, MPI_ERR_NO_MEM, call,
                             "out of memory for a communicator");
    c->errh = local->errh;
    c->session_memkinds = local->session_memkinds;
    *newintercomm = AMPI_HANDLE(AMPI_HANDLE_COMM, c->obj.idx);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Intercomm_create)

/* ---- MPI_Intercomm_merge ---- */

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    amp_rank_t *rank;
    amp_comm_t *ic;
    const char *call = "MPI_Intercomm_merge";
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, intercomm, call, &ic);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ic->is_inter)
        return amp_mpi_error(rank, ic, MPI_ERR_COMM, call,
                             "not an inter-communicator (argument intercomm)");
    if (!newintracomm)
        return amp_mpi_error(rank, ic, MPI_ERR_ARG, call,
                             "NULL pointer (argument newintracomm)");
    int mine = high != 0, theirs, ctx;
    rank->call = call;
    amp_status_t st = inter_agree(rank, intercomm, 2, mine, &theirs, &ctx);
    rank = amp_rank_self();
    ic = amp_comm_lookup(rank, intercomm);
    if (st != AMP_OK)
        return amp_mpi_error(rank, ic, amp_mpi_class_of(st), call, "%s",
                             amp_status_str(st));
    /* The group that passed high = false first; on a tie, the group whose
     * rank 0 has the lower world rank, which both groups can tell. */
    int first = mine < theirs || (mine == theirs && amp_comm_world_rank(ic, 0) <
                                                        ic->remote_world[0]);
    int n = ic->size + ic->remote_size;
    int *world = malloc((size_t)n * sizeof(int));
    if (!world)
        return amp_mpi_error(rank, ic, MPI_ERR_NO_MEM, call, "out of memory");
    int lbase = first ? 0 : ic->remote_size, rbase = first ? ic->size : 0;
    for (int i = 0; i < ic->size; i++)
        world[lbase + i] = amp_comm_world_rank(ic, i);
    for (int i = 0; i < ic->remote_size; i++)
        world[rbase + i] = ic->remote_world[i];
    amp_comm_t *c = amp_comm_new(rank, ctx, lbase + ic->rank, n, world);
    if (!c)
        return amp_mpi_error(rank, ic, MPI_ERR_NO_MEM, call,
                             "out of memory for a communicator");
    c->errh = ic->errh;
    c->session_memkinds = ic->session_memkinds;
    *newintracomm = AMPI_HANDLE(AMPI_HANDLE_COMM, c->obj.idx);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Intercomm_merge)

/* ---- MPI_Comm_split (and its kin) on an inter-communicator ---- */

/* Collective over both groups of ic_h: the k ints mine of every member,
 * local rank i's at lall[k * i], remote rank i's at rall[k * i]. */
static amp_status_t inter_allgather(amp_rank_t *rank, MPI_Comm ic_h,
                                    const int *mine, int k, int *lall,
                                    int *rall)
{
    amp_comm_t *ic = amp_comm_lookup(rank, ic_h);
    amp_comm_t *lc = amp_comm_lookup(rank, ic->local_comm);
    size_t ln = (size_t)lc->size * (size_t)k;
    size_t rn = (size_t)ic->remote_size * (size_t)k;
    int *rows = calloc(ln, sizeof(int));
    if (!rows)
        return AMP_ERR_NOMEM;
    /* Zero but for each member's own row: the sum is everyone's. */
    memcpy(rows + (size_t)lc->rank * (size_t)k, mine, (size_t)k * sizeof(int));
    amp_coll_comm_t c;
    amp_coll_op_t sum = {.op_id = AMP_HANDLE_INDEX(MPI_SUM)};
    amp_coll_comm_of(rank, lc, &c);
    amp_status_t st = amp_coll_allreduce(
        &c, rows, lall, (int)ln, amp_dt_predefined(AMPI_DTID_MPI_INT), &sum);
    free(rows);
    both_t leaders = both_of(ic, TAG_SPLIT);
    if (st == AMP_OK && lc->rank == 0)
        exchange(rank, &leaders, lall, ln * sizeof(int), rall,
                 rn * sizeof(int));
    if (st == AMP_OK)
        st = local_bcast(rank, lc, rall, (int)rn, 0);
    return st;
}

typedef struct member {
    int key, rank;
} member_t;

static int by_key_then_rank(const void *a, const void *b)
{
    const member_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* The members of one group of ic (remote or local; all: its (color, key,
 * next id) triples) with color, ordered by key and then rank: their world
 * ranks in *world (*n of them; NULL when none), and in *pos the position
 * of rank me of that group (untouched when me is none of them). */
static amp_status_t side_members(const amp_comm_t *ic, int remote,
                                 const int *all, int color, int me, int **world,
                                 int *n, int *pos)
{
    int size = remote ? ic->remote_size : ic->size;
    member_t *m = malloc(((size_t)size + 1) * sizeof(member_t));
    *world = malloc(((size_t)size + 1) * sizeof(int));
    if (!m || !*world) {
        free(m);
        free(*world);
        *world = NULL;
        return AMP_ERR_NOMEM;
    }
    int k = 0;
    for (int i = 0; i < size; i++)
        if (all[3 * i] == color)
            m[k++] = (member_t){.key = all[3 * i + 1], .rank = i};
    qsort(m, (size_t)k, sizeof(member_t), by_key_then_rank);
    for (int i = 0; i < k; i++) {
        (*world)[i] = remote ? ic->remote_world[m[i].rank]
                             : amp_comm_world_rank(ic, m[i].rank);
        if (m[i].rank == me)
            *pos = i;
    }
    free(m);
    *n = k;
    if (k == 0) {
        free(*world);
        *world = NULL;
    }
    return AMP_OK;
}

/* After the exchange: the inter-communicator of the members with color
 * on both sides, or MPI_COMM_NULL. */
static amp_status_t split_make(amp_rank_t *rank, amp_comm_t *ic, int ctx,
                               const int *lall, const int *rall, int color,
                               MPI_Comm *newcomm)
{
    int *lworld, *rworld = NULL, ln, rn = 0, me = 0, unused;
    amp_status_t st =
        side_members(ic, 0, lall, color, ic->rank, &lworld, &ln, &me);
    if (st == AMP_OK)
        st = side_members(ic, 1, rall, color, -1, &rworld, &rn, &unused);
    if (st != AMP_OK || ln == 0 || rn == 0) {
        free(lworld);
        free(rworld);
        return st;
    }
    amp_comm_t *c = intercomm_new(rank, ctx, me, ln, lworld, rn, rworld);
    free(lworld);
    if (!c)
        return AMP_ERR_NOMEM;
    c->errh = ic->errh;
    c->session_memkinds = ic->session_memkinds;
    *newcomm = AMPI_HANDLE(AMPI_HANDLE_COMM, c->obj.idx);
    return AMP_OK;
}

int amp_intercomm_split(amp_rank_t *rank, MPI_Comm comm_h, int color, int key,
                        MPI_Comm *newcomm, const char *call)
{
    amp_comm_t *ic = amp_comm_lookup(rank, comm_h);
    int p = amp_comm_ctx_propose(rank, 4);
    int mine[3] = {color, key, p};
    int *lall = malloc((size_t)ic->size * 3 * sizeof(int));
    int *rall = malloc((size_t)ic->remote_size * 3 * sizeof(int));
    rank->call = call;
    amp_status_t st = lall && rall
                          ? inter_allgather(rank, comm_h, mine, 3, lall, rall)
                          : AMP_ERR_NOMEM;
    rank = amp_rank_self();
    ic = amp_comm_lookup(rank, comm_h);
    *newcomm = MPI_COMM_NULL;
    if (st == AMP_OK) {
        /* One id for every color: their members are apart. */
        int ctx = 0;
        for (int i = 0; i < ic->size; i++)
            ctx = lall[3 * i + 2] > ctx ? lall[3 * i + 2] : ctx;
        for (int i = 0; i < ic->remote_size; i++)
            ctx = rall[3 * i + 2] > ctx ? rall[3 * i + 2] : ctx;
        both_t b = both_of(ic, TAG_CHECK);
        st = both_settle(&b, p, 4, &ctx);
        rank = amp_rank_self();
        ic = amp_comm_lookup(rank, comm_h);
        if (st == AMP_OK && color != MPI_UNDEFINED)
            st = split_make(rank, ic, ctx, lall, rall, color, newcomm);
    }
    free(lall);
    free(rall);
    if (st != AMP_OK)
        return amp_mpi_error(rank, ic, amp_mpi_class_of(st), call, "%s",
                             amp_status_str(st));
    return MPI_SUCCESS;
}
