/*
 * Communicator constructors: split, split by type, create from a group
 * (collective over the parent, or over the group only).
 *
 * Every constructor agrees on a context id that none of the new
 * communicator's members has used (see amp_comm_agree_ctx).  The messages
 * of that agreement travel on the parent's collective context, so
 * constructors running at the same time on different parents never match
 * each other's messages; amp_comm_agree_ctx_among uses negative tags there,
 * which no collective uses, one per MPI_Comm_create_group tag.
 *
 * On an inter-communicator, split, split by type and create make an
 * inter-communicator (amp_intercomm_split, intercomm.c); create_group is
 * defined on intra-communicators only.
 */
#include "mpi/comm/comm.h"
#include "mpi/attr/attr.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Tag on the parent's collective context of the messages of an agreement
 * among a subset tagged tag (0..MPI_TAG_UB_VALUE): from -2^30 + 1 down to
 * INT_MIN + 2, above the tags of a split (split.c). */
#define AMONG_TAG(tag) (-(1 << 30) + 1 - (tag))
_Static_assert(AMONG_TAG(MPI_TAG_UB_VALUE) == INT_MIN + 2,
               "agreements among a subset keep clear of a split's tags");

/* The maxima of k ints (k <= 2) over the members of an agreement among a
 * subset (amp_comm_agree_ctx_among): dissemination, after the round with
 * distance k every member holds those of the 2k members up to itself. */
static void among_max(const int *members, const int *world, int n, int me,
                      int cctx, int tag, int *cur, int k)
{
    for (int d = 1; d < n; d <<= 1) {
        int out[2] = {cur[0], k > 1 ? cur[1] : 0}, in[2] = {0, 0};
        amp_p2p_req_t sreq, rreq;
        amp_p2p_req_t *reqs[2] = {&rreq, &sreq};
        sreq.on_done = rreq.on_done = NULL;
        amp_p2p_ep_t *ep = &amp_rank_self()->ep;
        amp_p2p_irecv(ep, in, sizeof(int) * (size_t)k,
                      (amp_p2p_env_t){.ctx = cctx,
                                      .src = members[(me - d + n) % n],
                                      .tag = AMONG_TAG(tag)},
                      &rreq);
        amp_p2p_isend(ep, out, sizeof(int) * (size_t)k,
                      (amp_p2p_env_t){.ctx = cctx,
                                      .src = members[me],
                                      .dst = world[(me + d) % n],
                                      .tag = AMONG_TAG(tag)},
                      AMP_P2P_STANDARD, &sreq);
        amp_p2p_wait_all(ep, reqs, 2);
        for (int j = 0; j < k; j++)
            cur[j] = in[j] > cur[j] ? in[j] : cur[j];
    }
}

amp_status_t amp_comm_agree_ctx_among(amp_rank_t *rank, amp_comm_t *comm,
                                      const int *members, int n, int me,
                                      int tag, int *ctx)
{
    int *world = malloc(((size_t)n + 1) * sizeof(int));
    if (!world)
        return AMP_ERR_NOMEM;
    for (int i = 0; i < n; i++)
        world[i] = amp_comm_world_rank(comm, members[i]);
    int cctx = comm->ctx + 1;
    /* As amp_comm_agree_ctx: {proposal, threads}, then the check. */
    for (unsigned tries = 0;;) {
        int p = amp_comm_ctx_propose(rank, 2);
        int cur[2] = {p, amp_comm_ctx_threads(rank)}, bad = 0;
        among_max(members, world, n, me, cctx, tag, cur, 2);
        rank = amp_rank_self();
        bad = !amp_comm_ctx_take(rank, p, cur[0], 2);
        if (cur[1])
            among_max(members, world, n, me, cctx, tag, &bad, 1);
        rank = amp_rank_self();
        if (!bad) {
            free(world);
            *ctx = cur[0];
            return AMP_OK;
        }
        amp_comm_ctx_backoff(&tries);
    }
}

/* c, just made (NULL: out of memory), as what parent's constructor call
 * returns in *out; it inherits parent's error handler. */
static int handle_of(amp_rank_t *rank, amp_comm_t *parent, amp_comm_t *c,
                     MPI_Comm *out, const char *call)
{
    if (!c)
        return amp_mpi_error(rank, parent, MPI_ERR_NO_MEM, call,
                             "out of memory for a communicator");
    c->errh = parent->errh;
    c->session_memkinds = parent->session_memkinds;
    *out = AMPI_HANDLE(AMPI_HANDLE_COMM, c->obj.idx);
    return MPI_SUCCESS;
}

/* Makes the communicator (ctx, position me of n, world taken over) that
 * parent's constructor call returns in *out. */
static int new_handle(amp_rank_t *rank, amp_comm_t *parent, int ctx, int me,
                      int n, int *world, MPI_Comm *out, const char *call)
{
    return handle_of(rank, parent, amp_comm_new(rank, ctx, me, n, world), out,
                     call);
}

static int status_error(amp_rank_t *rank, amp_comm_t *comm, amp_status_t st,
                        const char *call)
{
    return amp_mpi_error(rank, comm, amp_mpi_class_of(st), call, "%s",
                         amp_status_str(st));
}

/* The checks every constructor makes: comm a communicator (an
 * intra-communicator unless inter_ok), newcomm not NULL. */
static int check_new(amp_rank_t **rank, MPI_Comm comm_h, MPI_Comm *newcomm,
                     int inter_ok, const char *call, amp_comm_t **comm)
{
    int rc = amp_mpi_enter(rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(*rank, comm_h, call, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((*comm)->is_inter && !inter_ok)
        return amp_mpi_error(*rank, *comm, MPI_ERR_COMM, call,
                             "not defined on inter-communicators (argument "
                             "comm)");
    if (!newcomm)
        return amp_mpi_error(*rank, *comm, MPI_ERR_ARG, call,
                             "NULL pointer (argument newcomm)");
    return MPI_SUCCESS;
}

/* ---- split ---- */

/* Collective part of MPI_Comm_split: a new context id agreed over the
 * parent, then the members of each color. */
static int split_common(amp_rank_t *rank, MPI_Comm comm_h, int color, int key,
                        MPI_Comm *newcomm, const char *call)
{
    amp_comm_t *comm = amp_comm_lookup(rank, comm_h);
    rank->call = call;
    int ctx = 0;
    amp_status_t st = amp_comm_agree_ctx(rank, comm, &ctx);
    rank = amp_rank_self();
    comm = amp_comm_lookup(rank, comm_h);
    if (st != AMP_OK)
        return status_error(rank, comm, st, call);
    *newcomm = MPI_COMM_NULL;
    amp_world_map_t *map = NULL;
    int n = 0, me = 0;
    st = amp_comm_split_members(comm, ctx, color, key, &map, &n, &me);
    rank = amp_rank_self();
    comm = amp_comm_lookup(rank, comm_h);
    if (st != AMP_OK)
        return status_error(rank, comm, st, call);
    if (color == MPI_UNDEFINED)
        return MPI_SUCCESS;
    return handle_of(rank, comm, amp_comm_new_mapped(rank, ctx, me, n, map),
                     newcomm, call);
}

int PMPI_Comm_split(MPI_Comm comm_h, int color, int key, MPI_Comm *newcomm)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const char *call = "MPI_Comm_split";
    int rc = check_new(&rank, comm_h, newcomm, 1, call, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (color < 0 && color != MPI_UNDEFINED)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                             "negative color %d (argument color): colors are "
                             "non-negative or MPI_UNDEFINED",
                             color);
    if (comm->is_inter) /* intercomm.c */
        return amp_intercomm_split(rank, comm_h, color, key, newcomm, call);
    return split_common(rank, comm_h, color, key, newcomm, call);
}
AMP_WEAK_ALIAS(Comm_split)

/* The hardware levels MPI-4.0's split types know here, from the widest:
 * the node (the processes of one host), the processes of the node that
 * share memory (MPI_COMM_TYPE_SHARED's), the process (one address space),
 * the PE (a core, which the ranks on it share), as colors of rank r. */
enum { HW_NODE, HW_SHM, HW_PROCESS, HW_PE, HW_LEVELS };

static int hw_color(int level, int r)
{
    const amp_p2p_world_t *w = &amp_proc.world;
    int proc = w->rank_proc ? w->rank_proc[r] : 0;
    if (level == HW_NODE)
        return w->proc_node ? w->proc_node[proc] : 0;
    if (level == HW_SHM) { /* this node's first process, as SHARED's color */
        int i = w->node.of_proc ? w->node.of_proc[proc] : -1;
        return i >= 0 || proc == w->proc ? w->node.procs[0] : proc;
    }
    if (level == HW_PROCESS)
        return proc;
    return proc << 16 | amp_proc.rank_pe[r];
}

/* The levels' names, the values of the info key "mpi_hw_resource_type". */
static const char *const hw_names[HW_LEVELS] = {
    [HW_NODE] = "ampi_node",
    [HW_SHM] = "mpi_shared_memory",
    [HW_PROCESS] = "ampi_process",
    [HW_PE] = "core",
};

/* MPI_COMM_TYPE_HW_UNGUIDED: the widest level at which comm's members
 * are not all in one place, split there (MPI_UNDEFINED when they all share
 * a PE: nothing smaller is known); *level is that level. */
static int hw_unguided(const amp_comm_t *comm, int *level)
{
    int me = amp_comm_world_rank(comm, comm->rank);
    for (*level = HW_NODE; *level < HW_LEVELS; ++*level)
        for (int i = 0; i < comm->size; i++)
            if (hw_color(*level, amp_comm_world_rank(comm, i)) !=
                hw_color(*level, me))
                return hw_color(*level, me);
    return MPI_UNDEFINED;
}

/* MPI_COMM_TYPE_HW_GUIDED: the level info's "mpi_hw_resource_type" names
 * (hw_names); any other, or none: MPI_UNDEFINED. */
static int hw_guided(amp_rank_t *rank, MPI_Info info)
{
    char value[MPI_MAX_INFO_VAL];
    int flag = 0, len = sizeof(value);
    if (info == MPI_INFO_NULL || !amp_info_lookup(rank, info))
        return MPI_UNDEFINED;
    PMPI_Info_get_string(info, "mpi_hw_resource_type", &len, value, &flag);
    for (int level = 0; flag && level < HW_LEVELS; level++)
        if (strcmp(value, hw_names[level]) == 0)
            return hw_color(level, rank->world_rank);
    return MPI_UNDEFINED;
}

/* MPI_COMM_TYPE_SHARED groups the ranks of the processes of one node that
 * share memory (node/node.h: every process of the node, or this one alone
 * with AMPI_NODE_SHM=0): MPI_Win_allocate_shared works among them.
 * AMPI_COMM_TYPE_PROCESS groups the ranks of one process (one address
 * space), AMPI_COMM_TYPE_HOST the ranks of the processes whose host names
 * match.  AMPI_COMM_TYPE_WTH groups the ranks running on one PE (worker
 * thread) at the time of the call.  Ranks that move afterwards stay in the
 * communicator they got.  MPI-4.0's hardware split types: hw_guided and
 * hw_unguided above. */
int PMPI_Comm_split_type(MPI_Comm comm_h, int split_type, int key,
                         MPI_Info info, MPI_Comm *newcomm)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const char *call = "MPI_Comm_split_type";
    int rc = check_new(&rank, comm_h, newcomm, 1, call, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = amp_check_info(rank, comm, info, call);
    if (rc != MPI_SUCCESS)
        return rc;
    int color, level = -1;
    switch (split_type) {
    case MPI_UNDEFINED: color = MPI_UNDEFINED; break;
    case MPI_COMM_TYPE_SHARED: color = amp_proc.world.node.procs[0]; break;
    case AMPI_COMM_TYPE_PROCESS: color = amp_proc.world.proc; break;
    case AMPI_COMM_TYPE_HOST:
        color = amp_proc.world.proc_node
                    ? amp_proc.world.proc_node[amp_proc.world.proc]
                    : 0;
        break;
    case AMPI_COMM_TYPE_WTH:
        color = amp_proc.world.proc << 16 | amp_pe_self()->id;
        break;
    case MPI_COMM_TYPE_HW_GUIDED: color = hw_guided(rank, info); break;
    case MPI_COMM_TYPE_HW_UNGUIDED: color = hw_unguided(comm, &level); break;
    default:
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                             "unknown split type %d (argument split_type): "
                             "MPI_COMM_TYPE_SHARED, MPI_COMM_TYPE_HW_GUIDED, "
                             "MPI_COMM_TYPE_HW_UNGUIDED, AMPI_COMM_TYPE_HOST, "
                             "AMPI_COMM_TYPE_PROCESS, AMPI_COMM_TYPE_WTH or "
                             "MPI_UNDEFINED",
                             split_type);
    }
    if (comm->is_inter) /* intercomm.c */
        return amp_intercomm_split(rank, comm_h, color, key, newcomm, call);
    rc = split_common(rank, comm_h, color, key, newcomm, call);
    if (rc != MPI_SUCCESS || level < 0 || level >= HW_LEVELS ||
        *newcomm == MPI_COMM_NULL)
        return rc;
    /* The level goes into the new communicator's info and, as MPICH does,
     * into the info given (MPI-4.0 7.4.2). */
    rank = amp_rank_self();
    amp_comm_lookup(rank, *newcomm)->hw_resource = hw_names[level];
    if (info != MPI_INFO_NULL)
        rc = PMPI_Info_set(info, "mpi_hw_resource_type", hw_names[level]);
    return rc;
}
AMP_WEAK_ALIAS(Comm_split_type)

/* MPI-4.1's MPI_Get_hw_resource_info: a new info whose keys are the
 * levels above (hw_names), each a value of "mpi_hw_resource_type" that
 * MPI_COMM_TYPE_HW_GUIDED splits at; the value of each is "true".  Every
 * level holds every rank, so each is there for every caller. */
int PMPI_Get_hw_resource_info(MPI_Info *hw_info)
{
    amp_rank_t *rank;
    const char *call = "MPI_Get_hw_resource_info";
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!hw_info)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument hw_info)");
    MPI_Info info = MPI_INFO_NULL;
    rc = PMPI_Info_create(&info);
    for (int level = 0; rc == MPI_SUCCESS && level < HW_LEVELS; level++)
        rc = PMPI_Info_set(info, hw_names[level], "true");
    if (rc != MPI_SUCCESS && info != MPI_INFO_NULL)
        PMPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        return rc;
    *hw_info = info;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Get_hw_resource_info)

/* ---- from a group ---- */

/* members[i] = the rank in comm of member i of g, answering MPI_ERR_GROUP
 * if g is not a subset of comm's group. */
static int group_in_comm(amp_rank_t *rank, const amp_comm_t *comm,
                         const amp_group_t *g, int *members, const char *call)
{
    int *pos = malloc((size_t)amp_proc.nranks * sizeof(int));
    if (!pos)
        return amp_mpi_error(rank, (amp_comm_t *)comm, MPI_ERR_NO_MEM, call,
                             "out of memory");
    memset(pos, 0xff, (size_t)amp_proc.nranks * sizeof(int));
    for (int i = 0; i < comm->size; i++)
        pos[amp_comm_world_rank(comm, i)] = i;
    int bad = -1;
    for (int i = 0; i < g->size && bad < 0; i++) {
        members[i] = pos[g->world[i]];
        if (members[i] < 0)
            bad = i;
    }
    free(pos);
    if (bad < 0)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, (amp_comm_t *)comm, MPI_ERR_GROUP, call,
                         "rank %d of the group (world rank %d) is not a "
                         "member of the communicator (argument group)",
                         bad, g->world[bad]);
}

/* A copy of g's world ranks and the ranks in comm of its members, checked;
 * *me is the caller's rank in g or MPI_UNDEFINED. */
static int group_setup(amp_rank_t *rank, amp_comm_t *comm, MPI_Group group,
                       const char *call, int **world, int **members, int *n,
                       int *me)
{
    amp_group_t *g;
    int rc = amp_check_group(rank, comm, group, call, "group", &g);
    if (rc != MPI_SUCCESS)
        return rc;
    *n = g->size;
    *me = amp_group_rank_of(g, rank->world_rank);
    *world = malloc(((size_t)g->size + 1) * sizeof(int));
    *members = malloc(((size_t)g->size + 1) * sizeof(int));
    if (!*world || !*members) {
        free(*world);
        free(*members);
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    if (g->size)
        memcpy(*world, g->world, (size_t)g->size * sizeof(int));
    rc = group_in_comm(rank, comm, g, *members, call);
    if (rc != MPI_SUCCESS) {
        free(*world);
        free(*members);
    }
    return rc;
}

int PMPI_Comm_create(MPI_Comm comm_h, MPI_Group group, MPI_Comm *newcomm)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const char *call = "MPI_Comm_create";
    int *world, *members, n, me, ctx;
    int rc = check_new(&rank, comm_h, newcomm, 1, call, &comm);
    if (rc == MPI_SUCCESS)
        rc = group_setup(rank, comm, group, call, &world, &members, &n, &me);
    if (rc != MPI_SUCCESS)
        return rc;
    free(members);
    if (comm->is_inter) { /* group: of the local group; intercomm.c */
        free(world);
        return amp_intercomm_split(rank, comm_h,
                                   me == MPI_UNDEFINED ? MPI_UNDEFINED : 0, me,
                                   newcomm, call);
    }
    rank->call = call;
    amp_status_t st = amp_comm_agree_ctx(rank, comm, &ctx);
    rank = amp_rank_self();
    comm = amp_comm_lookup(rank, comm_h);
    *newcomm = MPI_COMM_NULL;
    if (st != AMP_OK || me == MPI_UNDEFINED) {
        free(world);
        return st == AMP_OK ? MPI_SUCCESS : status_error(rank, comm, st, call);
    }
    return new_handle(rank, comm, ctx, me, n, world, newcomm, call);
}
AMP_WEAK_ALIAS(Comm_create)

int PMPI_Comm_create_group(MPI_Comm comm_h, MPI_Group group, int tag,
                           MPI_Comm *newcomm)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const char *call = "MPI_Comm_create_group";
    int *world, *members, n, me, ctx;
    int rc = check_new(&rank, comm_h, newcomm, 0, call, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (tag < 0 || tag > MPI_TAG_UB_VALUE)
        return amp_mpi_error(rank, comm, MPI_ERR_TAG, call,
                             "invalid tag %d (argument tag): tags are 0..%d",
                             tag, MPI_TAG_UB_VALUE);
    rc = group_setup(rank, comm, group, call, &world, &members, &n, &me);
    if (rc != MPI_SUCCESS)
        return rc;
    *newcomm = MPI_COMM_NULL;
    if (me == MPI_UNDEFINED) {
        /* Not a member: a local call (MPI-3.1 §6.4.2). */
        free(world);
        free(members);
        return MPI_SUCCESS;
    }
    rank->call = call;
    amp_status_t st =
        amp_comm_agree_ctx_among(rank, comm, members, n, me, tag, &ctx);
    free(members);
    rank = amp_rank_self();
    comm = amp_comm_lookup(rank, comm_h);
    if (st != AMP_OK) {
        free(world);
        return status_error(rank, comm, st, call);
    }
    return new_handle(rank, comm, ctx, me, n, world, newcomm, call);
}
AMP_WEAK_ALIAS(Comm_create_group)
