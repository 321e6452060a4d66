/* Communicator calls. */
#include "mpi/comm/comm.h"
#include "mpi/request.h"
#include "mpi/attr/attr.h"

#include "coll/nbc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int PMPI_Comm_rank(MPI_Comm comm_h, int *rank_out)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = amp_mpi_enter(&rank, "MPI_Comm_rank");
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm_h, "MPI_Comm_rank", &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!rank_out)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, "MPI_Comm_rank",
                             "NULL pointer (argument rank)");
    *rank_out = comm->rank;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_rank)

int PMPI_Comm_size(MPI_Comm comm_h, int *size)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = amp_mpi_enter(&rank, "MPI_Comm_size");
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm_h, "MPI_Comm_size", &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!size)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, "MPI_Comm_size",
                             "NULL pointer (argument size)");
    *size = comm->size;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_size)

/* Context ids of new communicators are agreed by their members: the
 * largest of the members' proposals, each the proposer's next free id.
 * Threads of one rank may agree at the same time (MPI_THREAD_MULTIPLE),
 * and the largest proposal of one agreement may be an id that a member
 * gave another agreement, or that another agreement took there since.  So
 * a rank issues each proposal's ids to one agreement alone (next_ctx moves
 * past them at once), and where a member has threads, every member checks
 * the agreed ids against what it has issued since its own proposal: they
 * are its own proposal's, or above everything issued (and are issued to
 * this agreement, so that no other takes them); if a member cannot take
 * them, all try again with new proposals.  Nobody waits for another
 * agreement (no deadlock); an agreement fails only when another issued
 * ids in its range meanwhile, and the agreement whose ids are the largest
 * wins; ties between two of them, rare, are broken by random waits. */
int amp_comm_ctx_propose(amp_rank_t *rank, int nids)
{
    int p = rank->next_ctx;
    rank->next_ctx += nids;
    return p;
}

int amp_comm_ctx_take(amp_rank_t *rank, int proposed, int agreed, int nids)
{
    int free_from =
        rank->next_ctx == proposed + nids ? proposed : rank->next_ctx;
    if (agreed != proposed && agreed < free_from)
        return 0;
    if (rank->next_ctx < agreed + nids)
        rank->next_ctx = agreed + nids;
    return 1;
}

int amp_comm_ctx_threads(amp_rank_t *rank)
{
    return atomic_load_explicit(&rank->mt_threads, memory_order_relaxed) > 0;
}

void amp_comm_ctx_backoff(unsigned *tries)
{
    unsigned span = 1u << (*tries < 6 ? *tries : 6);
    (*tries)++;
    for (uint64_t n = amp_sched_cycles() % span + 1; n > 0; n--)
        amp_sched_yield();
}

/* The maxima over comm's members of k ints (k <= 2): through the process's
 * shared memory when they all run in it (a tree of messages through the
 * 100,000 ranks of MPI_COMM_WORLD in one process took 1.6 s and a page of
 * stack a rank); in two levels across processes for a communicator of
 * HIER_AGREE_MIN members or more (400,000 ranks in 4 processes split 1.5 s
 * sooner); over point-to-point trees otherwise (in two levels, a thousand
 * duplicates at once of 100 members each over 4 processes took three times
 * as long). */
#define HIER_AGREE_MIN 10000
static amp_status_t comm_max(amp_rank_t *rank, MPI_Comm h, const int *mine,
                             int *max, int k)
{
    amp_coll_comm_t c;
    amp_coll_op_t op = {.op_id = 1};
    amp_comm_t *comm = amp_comm_lookup(rank, h);
    const amp_dt_t *dt = amp_dt_predefined(AMPI_DTID_MPI_INT);
    amp_coll_comm_of(rank, comm, &c);
    if (comm->shm && amp_coll_shm_reduce_ok(dt, k, &op, comm->size))
        return amp_coll_shm_allreduce(comm->shm, &c, mine, max, k, dt, &op);
    if (comm->hier && comm->size >= HIER_AGREE_MIN &&
        amp_coll_shm_reduce_ok(dt, k, &op, comm->size))
        return amp_coll_hier_allreduce(comm->hier, &c, mine, max, k, dt, &op);
    return amp_coll_allreduce(&c, mine, max, k, dt, &op);
}

amp_status_t amp_comm_agree_ctx(amp_rank_t *rank, amp_comm_t *comm, int *ctx)
{
    MPI_Comm h = AMPI_HANDLE(AMPI_HANDLE_COMM, comm->obj.idx);
    for (unsigned tries = 0;;) {
        int p = amp_comm_ctx_propose(rank, 2);
        int mine[2] = {p, amp_comm_ctx_threads(rank)}, res[2], bad = 0;
        amp_status_t st = comm_max(rank, h, mine, res, 2);
        rank = amp_rank_self();
        if (st == AMP_OK && res[1]) { /* a member has threads: all check */
            int no = !amp_comm_ctx_take(rank, p, res[0], 2);
            st = comm_max(rank, h, &no, &bad, 1);
            rank = amp_rank_self();
        } else if (st == AMP_OK) {
            (void)amp_comm_ctx_take(rank, p, res[0], 2); /* certain */
        }
        if (st != AMP_OK)
            return st;
        if (!bad) {
            *ctx = res[0];
            return AMP_OK;
        }
        amp_comm_ctx_backoff(&tries);
    }
}

int amp_comm_members_local(int size, const int *world)
{
    const int *proc = amp_proc.world.rank_proc;
    if (!proc)
        return 1;
    /* The ends first: a communicator over several processes nearly always
     * has one of them elsewhere (each member of MPI_COMM_WORLD asks, and
     * would otherwise scan the members of its process). */
    int me = amp_proc.world.proc;
    if (size > 0 && (proc[world ? world[0] : 0] != me ||
                     proc[world ? world[size - 1] : size - 1] != me))
        return 0;
    for (int i = 0; i < size; i++)
        if (proc[world ? world[i] : i] != me)
            return 0;
    return 1;
}

/* +trace: this rank's member of a new communicator, so that the archive
 * can define it (its members' records together give its group). */
static void trace_comm(const amp_rank_t *rank, const amp_comm_t *c)
{
    amp_pe_t *pe = amp_pe_self();
    if (!pe || !pe->trace || c->ctx == 0)
        return;
    uint64_t first = (uint32_t)(c->world ? c->world[0] : 0);
    amp_trace_put(pe->trace, AMP_TRACE_COMM, 0, rank->world_rank + 1, c->ctx,
                  c->rank, (uint64_t)(uint32_t)c->size << 32 | first);
}

void amp_comm_trace_inter(const amp_rank_t *rank, const amp_comm_t *c)
{
    amp_pe_t *pe = amp_pe_self();
    if (pe && pe->trace)
        amp_trace_put(pe->trace, AMP_TRACE_INTER, 0, rank->world_rank + 1,
                      c->ctx, 0, 0);
}

amp_comm_t *amp_comm_alloc_mapped(amp_rank_t *rank, int ctx, int myrank,
                                  int size, amp_world_map_t *map)
{
    amp_comm_t *c = amp_table_alloc(&rank->comms);
    if (!c) {
        amp_world_map_drop(&amp_proc.world_maps, map);
        return NULL;
    }
    c->ctx = ctx;
    c->rank = myrank;
    c->size = size;
    c->world = amp_world_map_ranks(map);
    c->owned_world = map;
    c->errh = MPI_ERRORS_ARE_FATAL;
    if (__builtin_expect(amp_sched_lending & AMP_SCHED_TRACED, 0))
        trace_comm(rank, c);
    return c;
}

amp_comm_t *amp_comm_alloc(amp_rank_t *rank, int ctx, int myrank, int size,
                           int *world)
{
    amp_world_map_t *map =
        world ? amp_world_map_share(&amp_proc.world_maps, world, size) : NULL;
    if (world && !map)
        return NULL;
    return amp_comm_alloc_mapped(rank, ctx, myrank, size, map);
}

/* The collectives' shared state of c, just made; c is gone when that
 * fails. */
static amp_comm_t *attached(amp_rank_t *rank, amp_comm_t *c)
{
    if (c && amp_comm_coll_attach(c) != AMP_OK) {
        amp_world_map_drop(&amp_proc.world_maps, c->owned_world);
        amp_table_free(&rank->comms, c);
        return NULL;
    }
    return c;
}

amp_comm_t *amp_comm_new(amp_rank_t *rank, int ctx, int myrank, int size,
                         int *world)
{
    return attached(rank, amp_comm_alloc(rank, ctx, myrank, size, world));
}

amp_comm_t *amp_comm_new_mapped(amp_rank_t *rank, int ctx, int myrank, int size,
                                amp_world_map_t *map)
{
    return attached(rank, amp_comm_alloc_mapped(rank, ctx, myrank, size, map));
}

amp_status_t amp_comm_hier_attach(amp_comm_t *comm)
{
    if (comm->is_inter || amp_comm_members_local(comm->size, comm->world))
        return AMP_OK;
    amp_coll_where_t w = {
        comm->size,
        comm->world,
        amp_proc.world.rank_proc,
        amp_proc.world.proc,
        comm->ctx,
        &amp_proc.coll_shm,
        amp_proc.rank_pe,
        amp_proc.sched.npes,
        amp_proc.world.node_shm ? &amp_proc.world.node : NULL,
        atomic_load_explicit(&amp_proc.world.placed, memory_order_relaxed)};
    return amp_coll_hier_new(&w, &comm->hier);
}

amp_status_t amp_comm_coll_attach(amp_comm_t *c)
{
    if (amp_comm_members_local(c->size, c->world) &&
        amp_coll_shm_attach(
            &amp_proc.coll_shm, amp_proc.rank_pe, amp_proc.sched.npes,
            &(amp_coll_shm_members_t){c->ctx, c->size, c->world, 0, c->size},
            &c->shm) != AMP_OK)
        return AMP_ERR_NOMEM;
    if (amp_comm_hier_attach(c) != AMP_OK) {
        amp_coll_shm_detach(&amp_proc.coll_shm, c->shm);
        c->shm = NULL;
        return AMP_ERR_NOMEM;
    }
    return AMP_OK;
}

void amp_comm_coll_detach(amp_comm_t *c)
{
    amp_coll_shm_detach(&amp_proc.coll_shm, c->shm);
    c->shm = NULL;
    amp_coll_hier_free(c->hier);
    c->hier = NULL;
}

/* What an intra-communicator holds in this process, but its attributes
 * and its handle. */
static void release_parts(amp_comm_t *comm)
{
    amp_info_destroy(comm->info);
    comm->info = NULL;
    amp_world_map_drop(&amp_proc.world_maps, comm->owned_world);
    comm->owned_world = NULL;
    free(comm->owned_remote_world);
    comm->owned_remote_world = NULL;
    amp_coll_shm_detach(&amp_proc.coll_shm, comm->shm);
    comm->shm = NULL;
    amp_coll_hier_free(comm->hier);
    comm->hier = NULL;
    amp_topology_free(comm->topo);
    comm->topo = NULL;
    free(comm->bsend); /* MPI_Comm_free drained it */
    comm->bsend = NULL;
}

void amp_comm_destroy(amp_rank_t *rank, amp_comm_t *comm)
{
    amp_attr_comm_clear(rank, comm);
    release_parts(comm);
    if (comm->is_inter)
        amp_intercomm_cleanup(rank, comm);
    amp_table_free(&rank->comms, comm);
}

void amp_comm_forget_all(amp_rank_t *rank)
{
    amp_table_t *t = &rank->comms;
    for (int i = 0; i < amp_table_capacity(t); i++) {
        amp_comm_t *c = amp_table_lookup(t, i);
        if (c)
            release_parts(c);
    }
}

static void comm_setup(amp_comm_t *c, int ctx, int rank, int size,
                       const int *world, const char *name)
{
    c->ctx = ctx;
    c->rank = rank;
    c->size = size;
    c->world = world;
    c->errh = MPI_ERRORS_ARE_FATAL;
    snprintf(c->name, sizeof(c->name), "%s", name);
}

amp_status_t amp_comm_rank_init(amp_rank_t *rank)
{
    amp_comm_t *world = amp_table_put(&rank->comms, 0);
    amp_comm_t *self = amp_table_put(&rank->comms, 1);
    if (!world || !self)
        return AMP_ERR_NOMEM;
    /* Context ids: MPI_COMM_WORLD uses 0 and 1, MPI_COMM_SELF 2 and 3. */
    comm_setup(world, 0, rank->world_rank, amp_proc.nranks, NULL,
               "MPI_COMM_WORLD");
    comm_setup(self, 2, 0, 1, &rank->world_rank, "MPI_COMM_SELF");
    /* MPI_COMM_SELF has nobody to share with: its shm stays NULL. */
    if (amp_comm_members_local(amp_proc.nranks, NULL) &&
        amp_coll_shm_attach(&amp_proc.coll_shm, amp_proc.rank_pe,
                            amp_proc.sched.npes,
                            &(amp_coll_shm_members_t){0, amp_proc.nranks, NULL,
                                                      0, amp_proc.nranks},
                            &world->shm) != AMP_OK)
        return AMP_ERR_NOMEM;
    if (amp_comm_hier_attach(world) != AMP_OK)
        return AMP_ERR_NOMEM;
    rank->next_ctx = 4;
    rank->idup_blocks = 0;
    return AMP_OK;
}

void amp_comm_hold(amp_comm_t *comm)
{
    comm->holds++;
}

void amp_comm_drop(amp_rank_t *rank, amp_comm_t *comm)
{
    if (--comm->holds == 0 && comm->freed)
        amp_comm_destroy(rank, comm);
}

/* A communicator object with the group of the intra-communicator comm and
 * context ctx, attached (attach 1) or not yet (MPI_Comm_idup). */
static int copy_intra(amp_rank_t *rank, amp_comm_t *comm, int ctx, int attach,
                      amp_comm_t **out, const char *call)
{
    amp_world_map_t *map =
        comm->owned_world
            ? amp_world_map_hold(&amp_proc.world_maps, comm->owned_world, 1)
            : NULL;
    *out = NULL;
    if (comm->world && !map) { /* a map of its own, not shared */
        int *world = malloc((size_t)comm->size * sizeof(int));
        if (world)
            memcpy(world, comm->world, (size_t)comm->size * sizeof(int));
        map = world
                  ? amp_world_map_share(&amp_proc.world_maps, world, comm->size)
                  : NULL;
        if (!map)
            return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call,
                                 "out of memory");
    }
    *out = attach
               ? amp_comm_new_mapped(rank, ctx, comm->rank, comm->size, map)
               : amp_comm_alloc_mapped(rank, ctx, comm->rank, comm->size, map);
    if (!*out)
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call, "out of memory");
    return MPI_SUCCESS;
}

/* MPI_Comm_dup of an intra-communicator: *out has the same group and a
 * new context. */
static int dup_intra(amp_rank_t *rank, MPI_Comm comm_h, amp_comm_t **out,
                     const char *call)
{
    int ctx;
    amp_comm_t *parent = amp_comm_lookup(rank, comm_h);
    amp_status_t st = amp_comm_agree_ctx(rank, parent, &ctx);
    rank = amp_rank_self();
    amp_comm_t *comm = amp_comm_lookup(rank, comm_h);
    if (st != AMP_OK)
        return amp_mpi_error(rank, comm, amp_mpi_class_of(st), call, "%s",
                             amp_status_str(st));
    return copy_intra(rank, comm, ctx, 1, out, call);
}

/* What a duplicate c of comm takes beside its group: the error handler,
 * the topology, the hints (with_hints: hints, else comm's) and the
 * attributes (copy callbacks).  c is destroyed when that fails. */
static int dup_decorate(amp_rank_t *rank, amp_comm_t *comm, amp_comm_t *c,
                        int with_hints, const struct amp_info *hints,
                        const char *call)
{
    c->errh = comm->errh;
    c->session_bsend = comm->session_bsend; /* of the same session */
    c->session_memkinds = comm->session_memkinds;
    if (amp_topology_dup(comm->topo, &c->topo) != AMP_OK ||
        amp_comm_info_apply(rank, c, with_hints ? hints : comm->info) !=
            AMP_OK) {
        amp_comm_destroy(rank, c);
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    int rc = amp_attr_comm_copy(rank, comm, c, call);
    if (rc != MPI_SUCCESS)
        amp_comm_destroy(rank, c);
    return rc;
}

/* MPI_Comm_dup (with_info 0: the hints of comm) and
 * MPI_Comm_dup_with_info (with_info 1: the hints of info instead). */
static int dup_common(MPI_Comm comm_h, int with_info, MPI_Info info,
                      MPI_Comm *newcomm, const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm_h, call, &comm);
    if (rc == MPI_SUCCESS && with_info)
        rc = amp_check_info(rank, comm, info, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!newcomm)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                             "NULL pointer (argument newcomm)");
    amp_comm_t *c;
    rank->call = call;
    rc = comm->is_inter ? amp_intercomm_dup(rank, comm_h, &c, call)
                        : dup_intra(rank, comm_h, &c, call);
    rank = amp_rank_self();
    comm = amp_comm_lookup(rank, comm_h);
    if (rc == MPI_SUCCESS)
        rc = dup_decorate(rank, comm, c, with_info,
                          with_info ? amp_info_lookup(rank, info) : NULL, call);
    if (rc == MPI_SUCCESS)
        *newcomm = AMPI_HANDLE(AMPI_HANDLE_COMM, c->obj.idx);
    return rc;
}

int PMPI_Comm_dup(MPI_Comm comm_h, MPI_Comm *newcomm)
{
    return dup_common(comm_h, 0, MPI_INFO_NULL, newcomm, "MPI_Comm_dup");
}
AMP_WEAK_ALIAS(Comm_dup)

/* ---- MPI_Comm_idup ----
 *
 * The new communicator object exists when the call returns (its group,
 * error handler, topology, hints and attributes), but not its context ids:
 * one member, the decider, takes a block of ids that no other rank of the
 * job can take, and a nonblocking schedule on the parent hands them to the
 * others; the completion call that finishes the request gives them to the
 * communicator.  No member waits for another in the call.  The decider is
 * rank 0 of an intra-communicator, and the local rank 0 of the group of
 * an inter-communicator whose rank 0 has the lower world rank.
 *
 * Block k of world rank w is the four ids below IDUP_TOP - 4 (k n + w)
 * (n ranks in the job): ids count down from there, while the agreed ones
 * (amp_comm_agree_ctx) count up from 4; they would meet after about 2^29
 * idups or communicators, and the call fails with MPI_ERR_INTERN long
 * before (IDUP_BOTTOM). */
#define IDUP_TOP 0x7ffffff0LL
#define IDUP_BOTTOM (1LL << 30)

typedef struct idup {
    int ctx; /* the first of the new communicator's ids, once broadcast */
    MPI_Comm newcomm;
} idup_t;

/* The decider's block of four ids, in *ctx. */
static amp_status_t idup_take_ids(amp_rank_t *rank, int *ctx)
{
    long long block = (long long)rank->idup_blocks * amp_proc.world.nranks +
                      rank->world_rank + 1;
    long long id = IDUP_TOP - 4 * block;
    if (id < IDUP_BOTTOM)
        return AMP_ERR_INTERN;
    rank->idup_blocks++;
    *ctx = (int)id;
    return AMP_OK;
}

/* The communicator gets its ids (completion of the request). */
static int idup_finish(amp_rank_t *rank, amp_req_t *r)
{
    idup_t *d = r->finish_arg;
    r->finish_arg = NULL;
    amp_comm_t *c = amp_comm_lookup(rank, d->newcomm);
    int ctx = d->ctx;
    free(d);
    if (r->p2p.error != AMP_OK || !c)
        return 0; /* the schedule's error is reported */
    amp_status_t st = AMP_OK;
    c->ctx = ctx;
    if (c->is_inter) {
        amp_comm_t *lc = amp_comm_lookup(rank, c->local_comm);
        lc->ctx = ctx + 2;
        snprintf(lc->name, sizeof(lc->name), "local group of context %d", ctx);
        st = amp_comm_coll_attach(lc);
    } else {
        st = amp_comm_coll_attach(c);
    }
    return amp_mpi_class_of(st);
}

static void idup_req_done(amp_p2p_req_t *p)
{
    AMP_CONTAINER_OF(p, amp_req_t, p2p)->nbc = NULL;
}

/* The schedule that hands the decider's ids (d->ctx) to every member of
 * comm; the decider takes them first. */
static amp_status_t idup_sched(amp_rank_t *rank, amp_comm_t *comm, idup_t *d,
                               amp_nbc_t **s)
{
    amp_status_t st = AMP_OK;
    if (comm->is_inter) {
        int low = amp_comm_world_rank(comm, 0) < comm->remote_world[0];
        if (low && comm->rank == 0)
            st = idup_take_ids(rank, &d->ctx);
        amp_coll_inter_t ic;
        amp_intercoll_view(rank, comm, &ic);
        amp_status_t st2 = amp_coll_inter_from_leader(&ic, low, &d->ctx, 1, s);
        return st != AMP_OK ? st : st2;
    }
    amp_coll_comm_t c;
    amp_coll_comm_of(rank, comm, &c);
    if (comm->rank == 0)
        st = idup_take_ids(rank, &d->ctx);
    amp_status_t st2 = amp_coll_sched_bcast(
        &c, &d->ctx, 1, amp_dt_predefined(AMPI_DTID_MPI_INT), 0, s);
    return st != AMP_OK ? st : st2;
}

/* Starts the schedule of idup d on comm, completing request r. */
static amp_status_t idup_start(amp_rank_t *rank, amp_comm_t *comm, idup_t *d,
                               amp_req_t *r)
{
    amp_nbc_t *s = NULL;
    amp_status_t st = idup_sched(rank, comm, d, &s);
    if (st != AMP_OK) {
        if (s)
            amp_nbc_destroy(s);
        return st;
    }
    r->active = 1;
    r->nbc = s;
    r->p2p.on_done = idup_req_done;
    r->finish_fn = idup_finish;
    r->finish_arg = d;
    return amp_nbc_start(s, &r->p2p);
}

/* MPI_Comm_idup, and MPI_Comm_idup_with_info (with_info 1: the hints of
 * info instead of comm's). */
static int idup_common(MPI_Comm comm_h, int with_info, MPI_Info info,
                       MPI_Comm *newcomm, MPI_Request *request,
                       const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *comm, *c;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm_h, call, &comm);
    if (rc == MPI_SUCCESS && with_info)
        rc = amp_check_info(rank, comm, info, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!request || !newcomm)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                             "NULL pointer (argument %s)",
                             request ? "newcomm" : "request");
    rc = comm->is_inter ? amp_intercomm_copy(rank, comm, -1, 0, &c, call)
                        : copy_intra(rank, comm, -1, 0, &c, call);
    if (rc == MPI_SUCCESS)
        rc = dup_decorate(rank, comm, c, with_info,
                          with_info ? amp_info_lookup(rank, info) : NULL, call);
    if (rc != MPI_SUCCESS)
        return rc;
    idup_t *d = malloc(sizeof(*d));
    amp_req_t *r = d ? amp_req_new(rank, AMP_REQ_COLL) : NULL;
    amp_status_t st = r ? AMP_OK : AMP_ERR_NOMEM;
    if (r) {
        d->newcomm = AMPI_HANDLE(AMPI_HANDLE_COMM, c->obj.idx);
        r->comm = comm_h;
        st = idup_start(rank, comm, d, r);
    }
    if (st != AMP_OK) {
        if (r)
            amp_req_release(rank, r);
        free(d);
        amp_comm_destroy(rank, c);
        return amp_mpi_error(rank, comm, amp_mpi_class_of(st), call, "%s",
                             amp_status_str(st));
    }
    *newcomm = AMPI_HANDLE(AMPI_HANDLE_COMM, c->obj.idx);
    *request = AMPI_HANDLE(AMPI_HANDLE_REQUEST, r->obj.idx);
    return MPI_SUCCESS;
}

int PMPI_Comm_idup(MPI_Comm comm_h, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup_common(comm_h, 0, MPI_INFO_NULL, newcomm, request,
                       "MPI_Comm_idup");
}
AMP_WEAK_ALIAS(Comm_idup)

int PMPI_Comm_idup_with_info(MPI_Comm comm_h, MPI_Info info, MPI_Comm *newcomm,
                             MPI_Request *request)
{
    return idup_common(comm_h, 1, info, newcomm, request,
                       "MPI_Comm_idup_with_info");
}
AMP_WEAK_ALIAS(Comm_idup_with_info)

int PMPI_Comm_dup_with_info(MPI_Comm comm_h, MPI_Info info, MPI_Comm *newcomm)
{
    return dup_common(comm_h, 1, info, newcomm, "MPI_Comm_dup_with_info");
}
AMP_WEAK_ALIAS(Comm_dup_with_info)

/* The checks of MPI_Comm_free and MPI_Comm_disconnect: *comm_h is a
 * communicator the program may free. */
static int check_freeable(amp_rank_t *rank, MPI_Comm *comm_h, const char *call,
                          amp_comm_t **comm)
{
    if (!comm_h)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument comm)");
    int rc = amp_check_comm(rank, *comm_h, call, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (*comm_h == MPI_COMM_WORLD || *comm_h == MPI_COMM_SELF)
        return amp_mpi_error(rank, *comm, MPI_ERR_COMM, call,
                             "%s cannot be freed (argument comm)",
                             (*comm)->name);
    return MPI_SUCCESS;
}

/* Deletes comm's attributes and frees it (once the persistent requests
 * that hold it are freed); *comm_h becomes MPI_COMM_NULL. */
static int free_comm(amp_rank_t *rank, MPI_Comm *comm_h, amp_comm_t *comm,
                     const char *call)
{
    int rc = amp_attr_comm_delete_all(rank, comm, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->bsend) { /* its buffer detached: the messages sent first */
        rank = amp_bsend_drain(rank, comm->bsend, call);
        free(comm->bsend);
        comm->bsend = NULL;
    }
    if (comm->holds) /* persistent requests still use it */
        comm->freed = 1;
    else
        amp_comm_destroy(rank, comm);
    *comm_h = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int PMPI_Comm_free(MPI_Comm *comm_h)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = amp_mpi_enter(&rank, "MPI_Comm_free");
    if (rc == MPI_SUCCESS)
        rc = check_freeable(rank, comm_h, "MPI_Comm_free", &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    return free_comm(rank, comm_h, comm, "MPI_Comm_free");
}
AMP_WEAK_ALIAS(Comm_free)

/* Waits until every active request of this rank on comm_h (sends,
 * receives, nonblocking and started persistent collectives, those freed
 * with MPI_Request_free too) is complete; their handles stay for the
 * program to complete or free as usual.  Returns the rank re-read. */
static amp_rank_t *wait_pending(amp_rank_t *rank, MPI_Comm comm_h)
{
    for (int i = 0; i < amp_table_capacity(&rank->reqs); i++) {
        amp_req_t *r = amp_table_lookup(&rank->reqs, i);
        if (!r || !r->active || r->comm != comm_h || r->p2p.done)
            continue;
        amp_p2p_req_t *p = &r->p2p;
        rank->call = "MPI_Comm_disconnect";
        amp_p2p_wait_all(&rank->ep, &p, 1);
        rank = amp_rank_self();
    }
    return rank;
}

/* A barrier over comm's members (both groups of an inter-communicator). */
static amp_status_t comm_barrier(amp_rank_t *rank, amp_comm_t *comm)
{
    if (!comm->is_inter) {
        amp_coll_comm_t c;
        amp_coll_comm_of(rank, comm, &c);
        return amp_coll_barrier(&c);
    }
    amp_coll_inter_t ic;
    amp_nbc_t *s = NULL;
    amp_intercoll_view(rank, comm, &ic);
    amp_status_t st = amp_coll_inter_barrier(&ic, &s);
    amp_p2p_req_t done = {.on_done = NULL};
    if (st == AMP_OK)
        st = amp_nbc_start(s, &done);
    if (st != AMP_OK)
        return st;
    if (!done.done) {
        amp_p2p_req_t *p = &done;
        rank->call = "MPI_Comm_disconnect";
        amp_p2p_wait_all(&rank->ep, &p, 1);
    }
    return done.error;
}

/* MPI_Comm_free once this rank's pending communication on the
 * communicator is complete and every member has got as far. */
int PMPI_Comm_disconnect(MPI_Comm *comm_h)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = amp_mpi_enter(&rank, "MPI_Comm_disconnect");
    if (rc == MPI_SUCCESS)
        rc = check_freeable(rank, comm_h, "MPI_Comm_disconnect", &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    rank = wait_pending(rank, *comm_h);
    comm = amp_comm_lookup(rank, *comm_h);
    amp_status_t st = comm_barrier(rank, comm);
    rank = amp_rank_self();
    if (st != AMP_OK)
        return amp_mpi_error(
            rank, comm, amp_mpi_class_of(st), "MPI_Comm_disconnect",
            "synchronizing the members failed: %s", amp_status_str(st));
    return free_comm(rank, comm_h, comm, "MPI_Comm_disconnect");
}
AMP_WEAK_ALIAS(Comm_disconnect)

/* MPI_CONGRUENT if the groups a and b (na and nb ranks, comm rank -> world
 * rank, NULL: the identity) have the same members in the same order,
 * MPI_SIMILAR if in another order, MPI_UNEQUAL otherwise. */
static int compare_groups(int na, const int *a, int nb, const int *b)
{
    if (na != nb)
        return MPI_UNEQUAL;
    int ordered = 1;
    for (int i = 0; i < na && ordered; i++)
        ordered = (a ? a[i] : i) == (b ? b[i] : i);
    if (ordered)
        return MPI_CONGRUENT;
    for (int i = 0; i < na; i++) {
        int w = a ? a[i] : i, found = 0;
        for (int j = 0; j < nb && !found; j++)
            found = w == (b ? b[j] : j);
        if (!found)
            return MPI_UNEQUAL;
    }
    return MPI_SIMILAR;
}

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    amp_rank_t *rank;
    amp_comm_t *a, *b;
    int rc = amp_mpi_enter(&rank, "MPI_Comm_compare");
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm1, "MPI_Comm_compare", &a);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm2, "MPI_Comm_compare", &b);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!result)
        return amp_mpi_error(rank, a, MPI_ERR_ARG, "MPI_Comm_compare",
                             "NULL pointer (argument result)");
    /* Inter-communicators: the weaker of the local and remote results. */
    *result = MPI_UNEQUAL;
    if (a == b) {
        *result = MPI_IDENT;
    } else if (a->is_inter == b->is_inter) {
        int local = compare_groups(a->size, a->world, b->size, b->world);
        int remote = a->is_inter
                         ? compare_groups(a->remote_size, a->remote_world,
                                          b->remote_size, b->remote_world)
                         : MPI_CONGRUENT;
        *result = local > remote ? local : remote;
    }
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_compare)

int PMPI_Comm_set_name(MPI_Comm comm_h, const char *name)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = amp_mpi_enter(&rank, "MPI_Comm_set_name");
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm_h, "MPI_Comm_set_name", &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, "MPI_Comm_set_name",
                             "NULL pointer (argument comm_name)");
    snprintf(comm->name, sizeof(comm->name), "%s", name);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_set_name)

/* MPI_COMM_NULL's name is "MPI_COMM_NULL" (MPI-4.1). */
int PMPI_Comm_get_name(MPI_Comm comm_h, char *name, int *resultlen)
{
    amp_rank_t *rank;
    amp_comm_t *comm = NULL;
    int rc = amp_mpi_enter(&rank, "MPI_Comm_get_name");
    if (rc == MPI_SUCCESS && comm_h != MPI_COMM_NULL)
        rc = amp_check_comm(rank, comm_h, "MPI_Comm_get_name", &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !resultlen)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, "MPI_Comm_get_name",
                             "NULL pointer (argument %s)",
                             name ? "resultlen" : "comm_name");
    *resultlen = snprintf(name, MPI_MAX_OBJECT_NAME, "%s",
                          comm ? comm->name : "MPI_COMM_NULL");
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_get_name)
