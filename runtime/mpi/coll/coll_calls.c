/*
 * The collectives beyond barrier, bcast, reduce and allreduce (which are in
 * collective.c), and every nonblocking collective.  Each call checks its
 * arguments, builds a schedule (coll/nbc.h) and either waits for it
 * (blocking) or hands it out as a request of kind AMP_REQ_COLL.
 */
#include "mpi/comm/comm.h"
#include "mpi/pt2pt/request.h"
#include "mpi/stage.h"

#include "coll/nbc.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- starting and finishing ---- */

static int status_error(amp_rank_t *rank, amp_comm_t *comm, amp_status_t st,
                        const char *call)
{
    if (st == AMP_OK)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, comm, amp_mpi_class_of(st), call, "%s",
                         amp_status_str(st));
}

/* ---- device buffers (../stage.h): staged into rank->gpu_coll, which the next
 * amp_coll_launch takes; only called when amp_proc.gpu is set ---- */

/* buf (span sp) for role: its host copy when it is device memory, else
 * buf; nothing once *rc is an error. */
static const void *coll_stage(amp_rank_t *rank, amp_comm_t *comm,
                              const void *buf, const amp_gpu_span_t *sp,
                              int role, const char *call, int *rc)
{
    void *v = (void *)buf;
    if (*rc == MPI_SUCCESS)
        *rc = amp_gpu_op_stage(rank, comm, &rank->gpu_coll,
                               amp_gpu_stage_span(buf, sp, role), &v, call);
    return v;
}

/* The same for count elements of dt at buf. */
static const void *coll_stage_dt(amp_rank_t *rank, amp_comm_t *comm,
                                 const void *buf, int count, const amp_dt_t *dt,
                                 int role, const char *call, int *rc)
{
    amp_gpu_span_t sp = {0, 0, 1};
    if (count > 0)
        amp_gpu_span_dt(&sp, count, dt);
    return coll_stage(rank, comm, buf, &sp, role, call, rc);
}

/* Completion of a collective request's schedule. */
static void coll_req_done(amp_p2p_req_t *p)
{
    amp_req_t *r = AMP_CONTAINER_OF(p, amp_req_t, p2p);
    r->nbc = NULL;
}

int amp_coll_launch(amp_rank_t *rank, amp_comm_t *comm, MPI_Comm comm_h,
                    amp_status_t st, amp_nbc_t *s, MPI_Request *request,
                    const char *call)
{
    amp_gpu_op_t *g =
        NULL; /* device buffers staged for the call (../stage.h) */
    if (amp_proc.gpu) {
        g = rank->gpu_coll;
        rank->gpu_coll = NULL;
    }
    if (st != AMP_OK) {
        amp_gpu_op_drop(g);
        return status_error(rank, comm, st, call);
    }
    amp_pcoll_t *pc = request ? amp_call_ctx()->pcoll : NULL;
    if (pc) /* a persistent collective set up or started (pcoll.c) */
        return status_error(rank, comm, amp_pcoll_launch(rank, pc, s, g), call);
    if (request) {
        amp_req_t *r = amp_req_new(rank, AMP_REQ_COLL);
        if (!r) {
            amp_nbc_destroy(s);
            amp_gpu_op_drop(g);
            return status_error(rank, comm, AMP_ERR_NOMEM, call);
        }
        r->comm = comm_h;
        r->active = 1;
        r->nbc = s;
        r->p2p.on_done = coll_req_done;
        st = amp_nbc_start(s,
                           g ? amp_gpu_op_start(rank, g, &r->p2p, 0) : &r->p2p);
        if (st != AMP_OK) {
            amp_gpu_op_drop(g);
            amp_req_release(rank, r);
            return status_error(rank, comm, st, call);
        }
        *request = AMPI_HANDLE(AMPI_HANDLE_REQUEST, r->obj.idx);
        return MPI_SUCCESS;
    }
    amp_p2p_req_t done;
    done.on_done = NULL;
    rank->call = call;
    st = amp_nbc_start(s, g ? amp_gpu_op_start(rank, g, &done, 0) : &done);
    if (st != AMP_OK)
        amp_gpu_op_drop(g);
    if (st == AMP_OK && !done.done) {
        amp_p2p_req_t *p = &done;
        amp_p2p_wait_all(&rank->ep, &p, 1);
        rank = amp_rank_self();
    }
    if (st == AMP_OK)
        st = done.error;
    return status_error(rank, comm, st, call);
}

/* ---- argument checks ---- */

/* MPI_Init'ed caller, valid comm, and for nonblocking calls a place for
 * the request. */
static int begin(MPI_Comm comm_h, MPI_Request *request, int nb,
                 const char *call, amp_rank_t **rank, amp_comm_t **comm)
{
    int rc = amp_mpi_enter(rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(*rank, comm_h, call, comm);
    if (rc == MPI_SUCCESS && nb && !request)
        rc = amp_mpi_error(*rank, *comm, MPI_ERR_ARG, call,
                           "NULL pointer (argument request)");
    return rc;
}

/* The arguments of one side (send or receive) of a call. */
typedef struct side_args {
    const void *buf;
    int count;                 /* regular forms */
    const int *counts;         /* v and w forms */
    const int *displs;         /* v and w forms */
    MPI_Datatype type;         /* regular and v forms */
    const MPI_Datatype *types; /* w form */
} side_args_t;

/* The argument names of a side, by is_send (displs: NULL where the side
 * has none). */
typedef struct side_names {
    const char *buf, *count, *counts, *type, *displs;
} side_names_t;
static const side_names_t names[2] = {
    {"recvbuf", "recvcount", "recvcounts", "recvtype", "displs"},
    {"sendbuf", "sendcount", "sendcounts", "sendtype", "displs"}};

/* count elements of type at buf (a side's regular form, arguments named
 * as nm says): count, datatype, buffer. */
static int check_part(amp_rank_t *rank, amp_comm_t *comm, const side_args_t *a,
                      const side_names_t *nm, const char *call,
                      const amp_dt_t **dt)
{
    const void *buf = a->buf;
    int rc = amp_check_count(rank, comm, a->count, call, nm->count);
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, comm, a->type, call, nm->type, dt);
    if (rc == MPI_SUCCESS && buf == MPI_IN_PLACE)
        rc = amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                           "MPI_IN_PLACE is not allowed here (argument %s)",
                           nm->buf);
    if (rc == MPI_SUCCESS)
        rc = amp_check_buf(rank, comm, buf, a->count, *dt, call, nm->buf);
    return rc;
}

/* a->counts[i] (and a->displs where nm names them) for the n ranks:
 * present and not negative; the buffer is not NULL if any count is
 * positive. */
/* amp_check_count and amp_check_dt of element i of the array argument
 * name: its name ("name[i]") is written out only for the error. */
static int check_count_at(amp_rank_t *rank, amp_comm_t *comm, int count,
                          const char *call, const char *name, int i)
{
    char arg[64];
    if (count >= 0)
        return MPI_SUCCESS;
    snprintf(arg, sizeof(arg), "%s[%d]", name, i);
    return amp_check_count(rank, comm, count, call, arg);
}

/* The type of count elements at index i of the array name. */
static int check_dt_at(amp_rank_t *rank, amp_comm_t *comm, MPI_Datatype h,
                       int count, const char *call, const char *name, int i,
                       const amp_dt_t **dt)
{
    char arg[64];
    *dt = amp_dt_lookup(rank, h);
    if (*dt && (*dt)->committed)
        return MPI_SUCCESS;
    snprintf(arg, sizeof(arg), "%ss[%d]", name, i);
    return amp_check_dt_count(rank, comm, h, count, call, arg, dt);
}

static int check_counts(amp_rank_t *rank, amp_comm_t *comm,
                        const side_args_t *a, int n, const amp_dt_t *dt,
                        const side_names_t *nm, const char *call)
{
    const void *buf = a->buf;
    const int *counts = a->counts;
    const char *bufarg = nm->buf, *countarg = nm->counts,
               *displarg = nm->displs;
    if (!counts || (displarg && !a->displs))
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                             "NULL pointer (argument %s)",
                             counts ? displarg : countarg);
    for (int i = 0; i < n; i++) {
        int rc = check_count_at(rank, comm, counts[i], call, countarg, i);
        if (rc == MPI_SUCCESS && buf != MPI_IN_PLACE)
            rc = amp_check_buf(rank, comm, buf, counts[i], dt, call, bufarg);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

static int check_distinct(amp_rank_t *rank, amp_comm_t *comm,
                          const void *sendbuf, const void *recvbuf,
                          const char *call)
{
    if (sendbuf != recvbuf || sendbuf == NULL)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                         "sendbuf and recvbuf are the same buffer (use "
                         "MPI_IN_PLACE instead)");
}

/* The send and receive parts of one rank's own block agree in size. */
static int check_sizes(amp_rank_t *rank, amp_comm_t *comm, int scount,
                       const amp_dt_t *sdt, int rcount, const amp_dt_t *rdt,
                       const char *call)
{
    size_t sb = sdt->size * (size_t)scount, rb = rdt->size * (size_t)rcount;
    if (sb == rb)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, comm, sb > rb ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT,
                         call,
                         "this rank sends %zu bytes to itself but receives "
                         "%zu (arguments sendcount, sendtype, recvcount, "
                         "recvtype)",
                         sb, rb);
}

/* ---- barrier, bcast, reduce, allreduce: the nonblocking forms ---- */

int PMPI_Ibarrier(MPI_Comm comm_h, MPI_Request *request)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    amp_coll_comm_t c;
    amp_nbc_t *s = NULL;
    const char *call = "MPI_Ibarrier";
    int rc = begin(comm_h, request, 1, call, &rank, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->is_inter) /* intercoll_calls.c */
        return amp_intercoll_barrier(rank, comm, comm_h, request, call);
    amp_coll_comm_of(rank, comm, &c);
    amp_status_t st = amp_coll_sched_barrier(&c, &s);
    return amp_coll_launch(rank, comm, comm_h, st, s, request, call);
}
AMP_WEAK_ALIAS(Ibarrier)

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
                MPI_Comm comm_h, MPI_Request *request)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const amp_dt_t *dt;
    amp_coll_comm_t c;
    amp_nbc_t *s = NULL;
    const char *call = "MPI_Ibcast";
    int rc = begin(comm_h, request, 1, call, &rank, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->is_inter) /* intercoll_calls.c */
        return amp_intercoll_bcast(rank, comm,
                                   &(amp_xfer_t){.buf = buffer,
                                                 .count = count,
                                                 .dtype = datatype,
                                                 .peer = root,
                                                 .comm_h = comm_h},
                                   request, call);
    rc = check_part(
        rank, comm,
        &(side_args_t){.buf = buffer, .count = count, .type = datatype},
        &(side_names_t){.buf = "buffer", .count = "count", .type = "datatype"},
        call, &dt);
    if (rc == MPI_SUCCESS)
        rc = amp_check_root(rank, comm, root, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (amp_proc.gpu) /* device memory: on a host copy */
        buffer = (void *)coll_stage_dt(
            rank, comm, buffer, count, dt,
            comm->rank == root ? AMP_GPU_SEND : AMP_GPU_RECV, call, &rc);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_coll_comm_of(rank, comm, &c);
    amp_status_t st = amp_coll_sched_bcast(&c, buffer, count, dt, root, &s);
    return amp_coll_launch(rank, comm, comm_h, st, s, request, call);
}
AMP_WEAK_ALIAS(Ibcast)

/* Reduce or (all) allreduce, nonblocking. */
static int ireduce(const amp_reduce_args_t *a, MPI_Comm comm_h,
                   MPI_Request *request, const char *call)
{
    const void *sendbuf = a->sendbuf;
    void *recvbuf = a->recvbuf;
    int count = a->count, root = a->root, all = a->all;
    MPI_Datatype datatype = a->dtype;
    MPI_Op op = a->op;
    amp_rank_t *rank;
    amp_comm_t *comm;
    const amp_dt_t *dt;
    amp_coll_op_t cop;
    amp_coll_comm_t c;
    amp_nbc_t *s = NULL;
    int rc = begin(comm_h, request, 1, call, &rank, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->is_inter) /* intercoll_calls.c */
        return amp_intercoll_reduce(rank, comm, comm_h, a, request, call);
    rc = amp_check_count(rank, comm, count, call, "count");
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, comm, datatype, call, "datatype", &dt);
    if (rc == MPI_SUCCESS)
        rc = amp_check_op(rank, comm, op, datatype, dt, call, &cop);
    if (rc == MPI_SUCCESS && !all)
        rc = amp_check_root(rank, comm, root, call);
    if (rc != MPI_SUCCESS)
        return rc;
    int gets = all || comm->rank == root; /* recvbuf matters */
    if (sendbuf == MPI_IN_PLACE && !gets)
        return amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is only allowed at the root "
                             "(argument sendbuf)");
    if (sendbuf != MPI_IN_PLACE)
        rc = amp_check_buf(rank, comm, sendbuf, count, dt, call, "sendbuf");
    if (rc == MPI_SUCCESS && gets && recvbuf == MPI_IN_PLACE)
        rc = amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                           "MPI_IN_PLACE is not allowed here (argument "
                           "recvbuf)");
    if (rc == MPI_SUCCESS && gets)
        rc = amp_check_buf(rank, comm, recvbuf, count, dt, call, "recvbuf");
    if (rc == MPI_SUCCESS && gets && count > 0)
        rc = check_distinct(rank, comm, sendbuf, recvbuf, call);
    if (rc == MPI_SUCCESS && amp_proc.gpu) { /* device memory: host copies */
        int in_place = sendbuf == MPI_IN_PLACE;
        sendbuf = coll_stage_dt(rank, comm, sendbuf, count, dt, AMP_GPU_SEND,
                                call, &rc);
        if (gets)
            recvbuf = (void *)coll_stage_dt(
                rank, comm, recvbuf, count, dt,
                in_place ? AMP_GPU_INOUT : AMP_GPU_RECV, call, &rc);
    }
    if (rc != MPI_SUCCESS)
        return rc;
    if (sendbuf == MPI_IN_PLACE)
        sendbuf = recvbuf;
    amp_coll_comm_of(rank, comm, &c);
    amp_status_t st =
        amp_coll_sched_reduce(&c,
                              &(amp_coll_reduction_t){.sendbuf = sendbuf,
                                                      .recvbuf = recvbuf,
                                                      .count = count,
                                                      .dt = dt,
                                                      .op = &cop},
                              all ? 0 : root, all, &s);
    return amp_coll_launch(rank, comm, comm_h, st, s, request, call);
}

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    return ireduce(&(amp_reduce_args_t){.sendbuf = sendbuf,
                                        .recvbuf = recvbuf,
                                        .count = count,
                                        .dtype = datatype,
                                        .op = op,
                                        .root = root},
                   comm, request, "MPI_Ireduce");
}
AMP_WEAK_ALIAS(Ireduce)

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Request *request)
{
    return ireduce(&(amp_reduce_args_t){.sendbuf = sendbuf,
                                        .recvbuf = recvbuf,
                                        .count = count,
                                        .dtype = datatype,
                                        .op = op,
                                        .all = 1},
                   comm, request, "MPI_Iallreduce");
}
AMP_WEAK_ALIAS(Iallreduce)

/* ---- gather, scatter, allgather ---- */

/* Gather(v), scatter(v), allgather(v): one is the side with one block per
 * rank, many the side with a block per peer (v: counts and displs). */
typedef struct blocks {
    side_args_t one, many;
    int v, one_is_send;
    const amp_dt_t *odt, *mdt; /* resolved by the checks */
} blocks_t;

enum { GATHER, SCATTER, ALLGATHER };

static int check_one(amp_rank_t *rank, amp_comm_t *comm, blocks_t *b,
                     const char *call)
{
    const side_names_t *nm = &names[b->one_is_send];
    return check_part(rank, comm, &b->one, nm, call, &b->odt);
}

/* The side with n blocks. */
static int check_many(amp_rank_t *rank, amp_comm_t *comm, blocks_t *b, int n,
                      const char *call)
{
    const side_args_t *a = &b->many;
    const side_names_t *nm = &names[!b->one_is_send];
    int rc = amp_check_dt(rank, comm, a->type, call, nm->type, &b->mdt);
    if (rc == MPI_SUCCESS && a->buf == MPI_IN_PLACE)
        rc = check_part(rank, comm,
                        &(side_args_t){.buf = a->buf, .type = a->type}, nm,
                        call, &b->mdt);
    if (rc == MPI_SUCCESS && b->v)
        rc = check_counts(rank, comm, a, n, b->mdt, nm, call);
    else if (rc == MPI_SUCCESS)
        rc = check_part(rank, comm, a, nm, call, &b->mdt);
    return rc;
}

/* Block self of the many side is this rank's own one block. */
static int check_self(amp_rank_t *rank, amp_comm_t *comm, const blocks_t *b,
                      int self, const char *call)
{
    int mc = b->v ? b->many.counts[self] : b->many.count;
    int rc =
        b->one_is_send
            ? check_sizes(rank, comm, b->one.count, b->odt, mc, b->mdt, call)
            : check_sizes(rank, comm, mc, b->mdt, b->one.count, b->odt, call);
    if (rc == MPI_SUCCESS && b->one.count > 0)
        rc = check_distinct(rank, comm, b->one.buf, b->many.buf, call);
    return rc;
}

/* Device buffers of gather, scatter, allgather: the one block where
 * one_here (and not in place), the n blocks of the many side where
 * many_here. */
static int blocks_stage(amp_rank_t *rank, amp_comm_t *comm, blocks_t *b,
                        int one_here, int many_here, int in_place, int n,
                        const char *call)
{
    int rc = MPI_SUCCESS;
    int send = b->one_is_send ? AMP_GPU_SEND : AMP_GPU_RECV;
    int recv = in_place ? AMP_GPU_INOUT : AMP_GPU_RECV;
    if (one_here && !in_place)
        b->one.buf = coll_stage_dt(rank, comm, b->one.buf, b->one.count, b->odt,
                                   send, call, &rc);
    if (!many_here)
        return rc;
    const side_args_t *m = &b->many;
    amp_gpu_span_t sp = {0, 0, 1};
    for (int i = 0; i < n; i++)
        amp_gpu_span_add(&sp,
                         (ptrdiff_t)(b->v ? m->displs[i] : i * m->count) *
                             b->mdt->extent,
                         b->v ? m->counts[i] : m->count, b->mdt);
    /* regular blocks of a contiguous type tile their span */
    sp.dense = sp.dense || (!b->v && b->mdt->contig &&
                            sp.bytes == b->mdt->size * (size_t)m->count * n);
    b->many.buf = coll_stage(rank, comm, m->buf, &sp,
                             b->one_is_send ? recv : AMP_GPU_SEND, call, &rc);
    return rc;
}

/* A blocking gather, scatter or allgather across processes, in two levels
 * (coll/levels.c). */
static int blocks_levels(amp_rank_t *rank, amp_comm_t *comm,
                         const amp_coll_comm_t *c, const blocks_t *b, int kind,
                         int root, int in_place, const char *call)
{
    const side_args_t *o = &b->one, *m = &b->many;
    const int *counts = b->v ? m->counts : NULL;
    const int *displs = b->v ? m->displs : NULL;
    amp_status_t st;
    rank->call = call;
    if (kind == GATHER)
        st = amp_coll_levels_gather(comm->hier, c,
                                    &(amp_coll_blocks_t){.buf = o->buf,
                                                         .count = o->count,
                                                         .dt = b->odt},
                                    &(amp_coll_blocks_t){.buf = m->buf,
                                                         .count = m->count,
                                                         .counts = counts,
                                                         .displs = displs,
                                                         .dt = b->mdt},
                                    root, in_place);
    else if (kind == SCATTER)
        st = amp_coll_levels_scatter(comm->hier, c,
                                     &(amp_coll_blocks_t){.buf = m->buf,
                                                          .count = m->count,
                                                          .counts = counts,
                                                          .displs = displs,
                                                          .dt = b->mdt},
                                     &(amp_coll_blocks_t){.buf = o->buf,
                                                          .count = o->count,
                                                          .dt = b->odt},
                                     root, in_place);
    else
        st = amp_coll_levels_allgather(comm->hier, c,
                                       &(amp_coll_blocks_t){.buf = o->buf,
                                                            .count = o->count,
                                                            .dt = b->odt},
                                       &(amp_coll_blocks_t){.buf = m->buf,
                                                            .count = m->count,
                                                            .counts = counts,
                                                            .displs = displs,
                                                            .dt = b->mdt},
                                       in_place);
    return status_error(amp_rank_self(), comm, st, call);
}

static int blocks_intra(amp_rank_t *rank, amp_comm_t *comm, MPI_Comm comm_h,
                        blocks_t *b, int kind, int root, MPI_Request *request,
                        const char *call)
{
    int rc = kind == ALLGATHER ? MPI_SUCCESS
                               : amp_check_root(rank, comm, root, call);
    if (rc != MPI_SUCCESS)
        return rc;
    int many_here = kind == ALLGATHER || comm->rank == root;
    int in_place = many_here && b->one.buf == MPI_IN_PLACE;
    if (!in_place)
        rc = check_one(rank, comm, b, call);
    if (rc == MPI_SUCCESS && many_here)
        rc = check_many(rank, comm, b, comm->size, call);
    if (rc == MPI_SUCCESS && many_here && !in_place)
        rc = check_self(rank, comm, b, kind == ALLGATHER ? comm->rank : root,
                        call);
    if (rc == MPI_SUCCESS && amp_proc.gpu) /* device memory: host copies */
        rc = blocks_stage(rank, comm, b, 1, many_here, in_place, comm->size,
                          call);
    if (rc != MPI_SUCCESS)
        return rc;
    const side_args_t *o = &b->one, *m = &b->many;
    const int *counts = b->v ? m->counts : NULL;
    const int *displs = b->v ? m->displs : NULL;
    amp_coll_comm_t c;
    amp_nbc_t *s = NULL;
    amp_status_t st;
    amp_coll_comm_of(rank, comm, &c);
    if (!request && comm->hier && !amp_proc.gpu) /* coll/levels.c */
        return blocks_levels(rank, comm, &c, b, kind, root, in_place, call);
    if (kind == GATHER)
        st = amp_coll_sched_gather(&c,
                                   &(amp_coll_blocks_t){.buf = o->buf,
                                                        .count = o->count,
                                                        .dt = b->odt},
                                   &(amp_coll_blocks_t){.buf = m->buf,
                                                        .count = m->count,
                                                        .counts = counts,
                                                        .displs = displs,
                                                        .dt = b->mdt},
                                   root, in_place, &s);
    else if (kind == SCATTER)
        st = amp_coll_sched_scatter(&c,
                                    &(amp_coll_blocks_t){.buf = m->buf,
                                                         .count = m->count,
                                                         .counts = counts,
                                                         .displs = displs,
                                                         .dt = b->mdt},
                                    &(amp_coll_blocks_t){.buf = o->buf,
                                                         .count = o->count,
                                                         .dt = b->odt},
                                    root, in_place, &s);
    else
        st = amp_coll_sched_allgather(&c,
                                      &(amp_coll_blocks_t){.buf = o->buf,
                                                           .count = o->count,
                                                           .dt = b->odt},
                                      &(amp_coll_blocks_t){.buf = m->buf,
                                                           .count = m->count,
                                                           .counts = counts,
                                                           .displs = displs,
                                                           .dt = b->mdt},
                                      in_place, &s);
    return amp_coll_launch(rank, comm, comm_h, st, s, request, call);
}

/* Room for two sides of n blocks each; the memory to free, or NULL. */
static char *sides_new(int n, amp_coll_side_t *a, amp_coll_side_t *b)
{
    size_t one = sizeof(int) + sizeof(ptrdiff_t) + sizeof(void *);
    char *mem = malloc((size_t)n * 2 * one + 1);
    if (!mem)
        return NULL;
    a->displs = (ptrdiff_t *)mem;
    b->displs = a->displs + n;
    a->dts = (const amp_dt_t **)(b->displs + n);
    b->dts = a->dts + n;
    a->counts = (int *)(b->dts + n);
    b->counts = a->counts + n;
    a->first = b->first = 0;
    a->n = b->n = n;
    return mem;
}

/* On an inter-communicator: the one block to peers first .. first + n - 1
 * (n may be 0), and the many blocks (laid out as b says) from or to every
 * peer where many_here. */
static void blocks_expand(const blocks_t *b, int first, int n, int many_here,
                          amp_coll_side_t *one, amp_coll_side_t *many)
{
    one->first = first;
    one->n = n;
    for (int i = 0; i < n; i++) {
        one->counts[i] = b->one.count;
        one->displs[i] = 0;
        one->dts[i] = b->odt;
    }
    if (!many_here)
        many->n = 0;
    for (int i = 0; i < many->n; i++) {
        many->counts[i] = b->v ? b->many.counts[i] : b->many.count;
        many->displs[i] =
            (ptrdiff_t)(b->v ? b->many.displs[i] : i * b->many.count) *
            b->mdt->extent;
        many->dts[i] = b->mdt;
    }
}

/* Inter-communicators (MPI-3.1 5.2.3): the root's group uses MPI_ROOT at
 * the root and MPI_PROC_NULL elsewhere; the other group names the root. */
static int blocks_inter(amp_rank_t *rank, amp_comm_t *comm, MPI_Comm comm_h,
                        blocks_t *b, int kind, int root, MPI_Request *request,
                        const char *call)
{
    int rc = kind == ALLGATHER ? MPI_SUCCESS
                               : amp_check_inter_root(rank, comm, root, call);
    int n = comm->remote_size;
    int one_here = kind == ALLGATHER || root >= 0;
    int many_here = kind == ALLGATHER || root == MPI_ROOT;
    if (rc == MPI_SUCCESS && one_here)
        rc = check_one(rank, comm, b, call);
    if (rc == MPI_SUCCESS && many_here)
        rc = check_many(rank, comm, b, n, call);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_coll_side_t one, many;
    char *mem = sides_new(n, &one, &many);
    if (!mem)
        return status_error(rank, comm, AMP_ERR_NOMEM, call);
    if (kind == ALLGATHER)
        blocks_expand(b, 0, n, 1, &one, &many);
    else
        blocks_expand(b, root, one_here, many_here, &one, &many);
    if (amp_proc.gpu) /* device memory: host copies */
        rc = blocks_stage(rank, comm, b, one_here, many_here, 0, n, call);
    if (rc != MPI_SUCCESS) {
        free(mem);
        return rc;
    }
    amp_coll_inter_t ic;
    amp_intercoll_view(rank, comm, &ic);
    amp_nbc_t *s = NULL;
    amp_status_t st =
        b->one_is_send ? amp_coll_inter_exchange(&ic, b->one.buf, &one,
                                                 (void *)b->many.buf, &many, &s)
                       : amp_coll_inter_exchange(&ic, b->many.buf, &many,
                                                 (void *)b->one.buf, &one, &s);
    free(mem);
    return amp_coll_launch(rank, comm, comm_h, st, s, request, call);
}

static int blocks_call(blocks_t *b, int kind, int root, MPI_Comm comm_h, int nb,
                       MPI_Request *request, const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = begin(comm_h, request, nb, call, &rank, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    b->one_is_send = kind != SCATTER;
    if (comm->is_inter)
        return blocks_inter(rank, comm, comm_h, b, kind, root, request, call);
    return blocks_intra(rank, comm, comm_h, b, kind, root, request, call);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    blocks_t b = {.one = {sendbuf, sendcount, .type = sendtype},
                  .many = {recvbuf, recvcount, .type = recvtype}};
    return blocks_call(&b, GATHER, root, comm, 0, NULL, "MPI_Gather");
}
AMP_WEAK_ALIAS(Gather)

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    blocks_t b = {.one = {sendbuf, sendcount, .type = sendtype},
                  .many = {recvbuf, recvcount, .type = recvtype}};
    return blocks_call(&b, GATHER, root, comm, 1, request, "MPI_Igather");
}
AMP_WEAK_ALIAS(Igather)

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, const int recvcounts[], const int displs[],
                 MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    blocks_t b = {.one = {sendbuf, sendcount, .type = sendtype},
                  .many = {recvbuf, .counts = recvcounts, .displs = displs,
                           .type = recvtype},
                  .v = 1};
    return blocks_call(&b, GATHER, root, comm, 0, NULL, "MPI_Gatherv");
}
AMP_WEAK_ALIAS(Gatherv)

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int displs[],
                  MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    blocks_t b = {.one = {sendbuf, sendcount, .type = sendtype},
                  .many = {recvbuf, .counts = recvcounts, .displs = displs,
                           .type = recvtype},
                  .v = 1};
    return blocks_call(&b, GATHER, root, comm, 1, request, "MPI_Igatherv");
}
AMP_WEAK_ALIAS(Igatherv)

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    blocks_t b = {.one = {recvbuf, recvcount, .type = recvtype},
                  .many = {sendbuf, sendcount, .type = sendtype}};
    return blocks_call(&b, SCATTER, root, comm, 0, NULL, "MPI_Scatter");
}
AMP_WEAK_ALIAS(Scatter)

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    blocks_t b = {.one = {recvbuf, recvcount, .type = recvtype},
                  .many = {sendbuf, sendcount, .type = sendtype}};
    return blocks_call(&b, SCATTER, root, comm, 1, request, "MPI_Iscatter");
}
AMP_WEAK_ALIAS(Iscatter)

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[],
                  const int displs[], MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    blocks_t b = {.one = {recvbuf, recvcount, .type = recvtype},
                  .many = {sendbuf, .counts = sendcounts, .displs = displs,
                           .type = sendtype},
                  .v = 1};
    return blocks_call(&b, SCATTER, root, comm, 0, NULL, "MPI_Scatterv");
}
AMP_WEAK_ALIAS(Scatterv)

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[],
                   const int displs[], MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root,
                   MPI_Comm comm, MPI_Request *request)
{
    blocks_t b = {.one = {recvbuf, recvcount, .type = recvtype},
                  .many = {sendbuf, .counts = sendcounts, .displs = displs,
                           .type = sendtype},
                  .v = 1};
    return blocks_call(&b, SCATTER, root, comm, 1, request, "MPI_Iscatterv");
}
AMP_WEAK_ALIAS(Iscatterv)

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   MPI_Comm comm)
{
    blocks_t b = {.one = {sendbuf, sendcount, .type = sendtype},
                  .many = {recvbuf, recvcount, .type = recvtype}};
    return blocks_call(&b, ALLGATHER, 0, comm, 0, NULL, "MPI_Allgather");
}
AMP_WEAK_ALIAS(Allgather)

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request)
{
    blocks_t b = {.one = {sendbuf, sendcount, .type = sendtype},
                  .many = {recvbuf, recvcount, .type = recvtype}};
    return blocks_call(&b, ALLGATHER, 0, comm, 1, request, "MPI_Iallgather");
}
AMP_WEAK_ALIAS(Iallgather)

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], const int displs[],
                    MPI_Datatype recvtype, MPI_Comm comm)
{
    blocks_t b = {.one = {sendbuf, sendcount, .type = sendtype},
                  .many = {recvbuf, .counts = recvcounts, .displs = displs,
                           .type = recvtype},
                  .v = 1};
    return blocks_call(&b, ALLGATHER, 0, comm, 0, NULL, "MPI_Allgatherv");
}
AMP_WEAK_ALIAS(Allgatherv)

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    blocks_t b = {.one = {sendbuf, sendcount, .type = sendtype},
                  .many = {recvbuf, .counts = recvcounts, .displs = displs,
                           .type = recvtype},
                  .v = 1};
    return blocks_call(&b, ALLGATHER, 0, comm, 1, request, "MPI_Iallgatherv");
}
AMP_WEAK_ALIAS(Iallgatherv)

/* ---- alltoall ---- */

/* Which form: regular, v (element displacements, one type) or w. */
enum { A2A, A2AV, A2AW };

/* Checks one side's arguments and expands them into the w form (out->n
 * blocks). */
static int a2a_side(amp_rank_t *rank, amp_comm_t *comm, int form,
                    const side_args_t *a, amp_coll_side_t *out, int is_send,
                    const char *call)
{
    const side_names_t *nm = &names[is_send];
    const char *disarg = is_send ? "sdispls" : "rdispls";
    int n = out->n, rc = MPI_SUCCESS;
    const amp_dt_t *dt = NULL;
    if (form != A2AW)
        rc = amp_check_dt(rank, comm, a->type, call, nm->type, &dt);
    if (rc == MPI_SUCCESS && form == A2A)
        rc = amp_check_count(rank, comm, a->count, call, nm->count);
    if (rc == MPI_SUCCESS && form != A2A && (!a->counts || !a->displs))
        rc = amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                           "NULL pointer (argument %s)",
                           a->counts ? disarg : nm->counts);
    if (rc == MPI_SUCCESS && form == A2AW && !a->types)
        rc = amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                           "NULL pointer (argument %ss)", nm->type);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        if (form == A2AW) {
            rc = check_dt_at(rank, comm, a->types[i], a->counts[i], call,
                             nm->type, i, &dt);
            if (rc != MPI_SUCCESS)
                break;
        }
        out->dts[i] = dt;
        out->counts[i] = form == A2A ? a->count : a->counts[i];
        if (form != A2A)
            rc =
                check_count_at(rank, comm, out->counts[i], call, nm->counts, i);
        if (rc == MPI_SUCCESS)
            rc = amp_check_buf(rank, comm, a->buf, out->counts[i], dt, call,
                               nm->buf);
        if (form == A2A)
            out->displs[i] = (ptrdiff_t)i * a->count * dt->extent;
        else if (form == A2AV)
            out->displs[i] = (ptrdiff_t)a->displs[i] * dt->extent;
        else
            out->displs[i] = a->displs[i];
    }
    return rc;
}

/* The buffer checks: recvbuf is never MPI_IN_PLACE; sendbuf may be, on
 * intra-communicators only. */
static int a2a_in_place(amp_rank_t *rank, amp_comm_t *comm,
                        const side_args_t *sa, const side_args_t *ra,
                        const char *call)
{
    if (ra->buf == MPI_IN_PLACE)
        return amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is not allowed here (argument "
                             "recvbuf)");
    if (sa->buf == MPI_IN_PLACE && comm->is_inter)
        return amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is not allowed on an "
                             "inter-communicator (argument sendbuf)");
    return MPI_SUCCESS;
}

static amp_status_t a2a_sched(amp_rank_t *rank, amp_comm_t *comm,
                              const side_args_t *sa, const amp_coll_side_t *sd,
                              const side_args_t *ra, const amp_coll_side_t *rd,
                              amp_nbc_t **s)
{
    if (comm->is_inter) {
        amp_coll_inter_t ic;
        amp_intercoll_view(rank, comm, &ic);
        return amp_coll_inter_exchange(&ic, sa->buf, sd, (void *)ra->buf, rd,
                                       s);
    }
    amp_coll_comm_t c;
    amp_coll_comm_of(rank, comm, &c);
    return amp_coll_sched_alltoall(&c, sa->buf, sd, (void *)ra->buf, rd,
                                   sa->buf == MPI_IN_PLACE, s);
}

/* Device buffers of an alltoall: the send side unless in place, the
 * receive side. */
static int a2a_stage(amp_rank_t *rank, amp_comm_t *comm, side_args_t *sa,
                     const amp_coll_side_t *sd, side_args_t *ra,
                     const amp_coll_side_t *rd, int in_place, const char *call)
{
    int rc = MPI_SUCCESS;
    amp_gpu_span_t ss = {0, 0, 1}, rs = {0, 0, 1};
    for (int i = 0; i < sd->n && !in_place; i++)
        amp_gpu_span_add(&ss, sd->displs[i], sd->counts[i], sd->dts[i]);
    for (int i = 0; i < rd->n; i++)
        amp_gpu_span_add(&rs, rd->displs[i], rd->counts[i], rd->dts[i]);
    if (!in_place)
        sa->buf = coll_stage(rank, comm, sa->buf, &ss, AMP_GPU_SEND, call, &rc);
    ra->buf = coll_stage(rank, comm, ra->buf, &rs,
                         in_place ? AMP_GPU_INOUT : AMP_GPU_RECV, call, &rc);
    return rc;
}

static int alltoall(int form, side_args_t *sa, side_args_t *ra, MPI_Comm comm_h,
                    int nb, MPI_Request *request, const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    amp_nbc_t *s = NULL;
    int rc = begin(comm_h, request, nb, call, &rank, &comm);
    if (rc == MPI_SUCCESS)
        rc = a2a_in_place(rank, comm, sa, ra, call);
    if (rc != MPI_SUCCESS)
        return rc;
    int me = comm->rank, in_place = sa->buf == MPI_IN_PLACE;
    amp_coll_side_t sd, rd;
    char *mem =
        sides_new(comm->is_inter ? comm->remote_size : comm->size, &sd, &rd);
    if (!mem)
        return status_error(rank, comm, AMP_ERR_NOMEM, call);
    rc = a2a_side(rank, comm, form, ra, &rd, 0, call);
    if (rc == MPI_SUCCESS && !in_place)
        rc = a2a_side(rank, comm, form, sa, &sd, 1, call);
    if (rc == MPI_SUCCESS && !in_place && !comm->is_inter)
        rc = check_sizes(rank, comm, sd.counts[me], sd.dts[me], rd.counts[me],
                         rd.dts[me], call);
    if (rc == MPI_SUCCESS && !in_place && !comm->is_inter)
        rc = check_distinct(rank, comm, sa->buf, ra->buf, call);
    if (rc == MPI_SUCCESS && amp_proc.gpu) /* device memory: host copies */
        rc = a2a_stage(rank, comm, sa, &sd, ra, &rd, in_place, call);
    if (rc == MPI_SUCCESS && form == A2A && !nb && !amp_proc.gpu &&
        !comm->is_inter &&
        amp_coll_levels_alltoall_ok(comm->hier,
                                    (size_t)ra->count *
                                        rd.dts[0]->size)) { /* coll/levels.c */
        amp_coll_comm_t c;
        amp_coll_comm_of(rank, comm, &c);
        rank->call = call;
        amp_status_t st = amp_coll_levels_alltoall(
            comm->hier, &c,
            &(amp_coll_blocks_t){.buf = sa->buf,
                                 .count = sa->count,
                                 .dt = in_place ? NULL : sd.dts[0]},
            &(amp_coll_blocks_t){
                .buf = ra->buf, .count = ra->count, .dt = rd.dts[0]},
            in_place);
        free(mem);
        return status_error(amp_rank_self(), comm, st, call);
    }
    if (rc == MPI_SUCCESS) {
        amp_status_t st = a2a_sched(rank, comm, sa, &sd, ra, &rd, &s);
        free(mem);
        return amp_coll_launch(rank, comm, comm_h, st, s, request, call);
    }
    free(mem);
    return rc;
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm)
{
    side_args_t sa = {.buf = sendbuf, .count = sendcount, .type = sendtype};
    side_args_t ra = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return alltoall(A2A, &sa, &ra, comm, 0, NULL, "MPI_Alltoall");
}
AMP_WEAK_ALIAS(Alltoall)

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   MPI_Comm comm, MPI_Request *request)
{
    side_args_t sa = {.buf = sendbuf, .count = sendcount, .type = sendtype};
    side_args_t ra = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return alltoall(A2A, &sa, &ra, comm, 1, request, "MPI_Ialltoall");
}
AMP_WEAK_ALIAS(Ialltoall)

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[],
                   const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int rdispls[],
                   MPI_Datatype recvtype, MPI_Comm comm)
{
    side_args_t sa = {.buf = sendbuf,
                      .counts = sendcounts,
                      .displs = sdispls,
                      .type = sendtype};
    side_args_t ra = {.buf = recvbuf,
                      .counts = recvcounts,
                      .displs = rdispls,
                      .type = recvtype};
    return alltoall(A2AV, &sa, &ra, comm, 0, NULL, "MPI_Alltoallv");
}
AMP_WEAK_ALIAS(Alltoallv)

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[],
                    const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int rdispls[],
                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    side_args_t sa = {.buf = sendbuf,
                      .counts = sendcounts,
                      .displs = sdispls,
                      .type = sendtype};
    side_args_t ra = {.buf = recvbuf,
                      .counts = recvcounts,
                      .displs = rdispls,
                      .type = recvtype};
    return alltoall(A2AV, &sa, &ra, comm, 1, request, "MPI_Ialltoallv");
}
AMP_WEAK_ALIAS(Ialltoallv)

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[],
                   const int sdispls[], const MPI_Datatype sendtypes[],
                   void *recvbuf, const int recvcounts[], const int rdispls[],
                   const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    side_args_t sa = {.buf = sendbuf,
                      .counts = sendcounts,
                      .displs = sdispls,
                      .types = sendtypes};
    side_args_t ra = {.buf = recvbuf,
                      .counts = recvcounts,
                      .displs = rdispls,
                      .types = recvtypes};
    return alltoall(A2AW, &sa, &ra, comm, 0, NULL, "MPI_Alltoallw");
}
AMP_WEAK_ALIAS(Alltoallw)

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[],
                    const int sdispls[], const MPI_Datatype sendtypes[],
                    void *recvbuf, const int recvcounts[], const int rdispls[],
                    const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    side_args_t sa = {.buf = sendbuf,
                      .counts = sendcounts,
                      .displs = sdispls,
                      .types = sendtypes};
    side_args_t ra = {.buf = recvbuf,
                      .counts = recvcounts,
                      .displs = rdispls,
                      .types = recvtypes};
    return alltoall(A2AW, &sa, &ra, comm, 1, request, "MPI_Ialltoallw");
}
AMP_WEAK_ALIAS(Ialltoallw)

/* ---- reduce_scatter, scan, exscan, reduce_local ---- */

/* The checks of the reductions below: a's count (the local one) of total,
 * datatype, op and the send buffer (MPI_IN_PLACE allowed). */
static int check_reduction(amp_rank_t *rank, amp_comm_t *comm,
                           const amp_reduce_args_t *a, int total,
                           const char *call, const amp_dt_t **dt,
                           amp_coll_op_t *cop)
{
    const void *sendbuf = a->sendbuf;
    void *recvbuf = a->recvbuf;
    int count = a->count;
    MPI_Datatype datatype = a->dtype;
    MPI_Op op = a->op;
    int rc = amp_check_dt(rank, comm, datatype, call, "datatype", dt);
    if (rc == MPI_SUCCESS)
        rc = amp_check_op(rank, comm, op, datatype, *dt, call, cop);
    if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE)
        rc = amp_check_buf(rank, comm, sendbuf, total, *dt, call, "sendbuf");
    if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
        rc = amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                           "MPI_IN_PLACE is not allowed here (argument "
                           "recvbuf)");
    if (rc == MPI_SUCCESS)
        rc = amp_check_buf(rank, comm, recvbuf,
                           sendbuf == MPI_IN_PLACE ? total : count, *dt, call,
                           "recvbuf");
    if (rc == MPI_SUCCESS && total > 0)
        rc = check_distinct(rank, comm, sendbuf, recvbuf, call);
    return rc;
}

/* Reduce_scatter (rcounts) and reduce_scatter_block (rcounts NULL: a's
 * count each); nonblocking (nb) or not. */
static int reduce_scatter(const amp_reduce_args_t *a, const int *rcounts,
                          MPI_Comm comm_h, int nb, MPI_Request *request,
                          const char *call)
{
    const void *sendbuf = a->sendbuf;
    void *recvbuf = a->recvbuf;
    int rcount = a->count;
    amp_rank_t *rank;
    amp_comm_t *comm;
    const amp_dt_t *dt;
    amp_coll_op_t cop;
    amp_coll_comm_t c;
    amp_nbc_t *s = NULL;
    int rc = begin(comm_h, request, nb, call, &rank, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->is_inter && sendbuf == MPI_IN_PLACE)
        return amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is not allowed on an "
                             "inter-communicator (argument sendbuf)");
    int n = comm->size;
    int *counts = malloc((size_t)n * sizeof(int));
    if (!counts)
        return status_error(rank, comm, AMP_ERR_NOMEM, call);
    long long total = 0;
    if (!rcounts)
        rc = amp_check_count(rank, comm, rcount, call, "recvcount");
    else
        rc = check_counts(
            rank, comm, &(side_args_t){.buf = MPI_IN_PLACE, .counts = rcounts},
            n, NULL, &(side_names_t){.buf = "recvbuf", .counts = "recvcounts"},
            call);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        counts[i] = rcounts ? rcounts[i] : rcount;
        total += counts[i];
    }
    if (rc == MPI_SUCCESS && total > 0x7fffffff)
        rc = amp_mpi_error(rank, comm, MPI_ERR_COUNT, call,
                           "the counts add up to more than an int holds "
                           "(argument recvcounts)");
    if (rc == MPI_SUCCESS)
        rc = check_reduction(rank, comm,
                             &(amp_reduce_args_t){.sendbuf = sendbuf,
                                                  .recvbuf = recvbuf,
                                                  .count = counts[comm->rank],
                                                  .dtype = a->dtype,
                                                  .op = a->op},
                             (int)total, call, &dt, &cop);
    if (rc == MPI_SUCCESS && amp_proc.gpu) { /* device memory: host copies */
        int in_place = sendbuf == MPI_IN_PLACE;
        sendbuf = coll_stage_dt(rank, comm, sendbuf, (int)total, dt,
                                AMP_GPU_SEND, call, &rc);
        recvbuf = (void *)coll_stage_dt(
            rank, comm, recvbuf, in_place ? (int)total : counts[comm->rank], dt,
            in_place ? AMP_GPU_INOUT : AMP_GPU_RECV, call, &rc);
    }
    if (rc != MPI_SUCCESS) {
        free(counts);
        return rc;
    }
    if (comm->is_inter) { /* intercoll_calls.c */
        rc = amp_intercoll_reduce_scatter(
            rank, comm, comm_h,
            &(amp_coll_reduction_t){.sendbuf = sendbuf,
                                    .recvbuf = recvbuf,
                                    .count = (int)total,
                                    .dt = dt,
                                    .op = &cop},
            counts, nb ? request : NULL, call);
        free(counts);
        return rc;
    }
    amp_coll_comm_of(rank, comm, &c);
    if (!nb && comm->hier && !amp_proc.gpu &&
        amp_coll_shm_reduce_ok(dt, (int)total, &cop,
                               comm->size)) { /* coll/levels.c */
        rank->call = call;
        amp_status_t st = amp_coll_levels_reduce_scatter(
            comm->hier, &c, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf,
            recvbuf, counts, dt, &cop);
        free(counts);
        return status_error(amp_rank_self(), comm, st, call);
    }
    amp_status_t st = amp_coll_sched_reduce_scatter(
        &c, sendbuf, recvbuf, counts, dt, &cop, sendbuf == MPI_IN_PLACE, &s);
    free(counts);
    return amp_coll_launch(rank, comm, comm_h, st, s, request, call);
}

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter(&(amp_reduce_args_t){.sendbuf = sendbuf,
                                               .recvbuf = recvbuf,
                                               .count = recvcount,
                                               .dtype = datatype,
                                               .op = op},
                          NULL, comm, 0, NULL, "MPI_Reduce_scatter_block");
}
AMP_WEAK_ALIAS(Reduce_scatter_block)

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf,
                               int recvcount, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, MPI_Request *request)
{
    return reduce_scatter(&(amp_reduce_args_t){.sendbuf = sendbuf,
                                               .recvbuf = recvbuf,
                                               .count = recvcount,
                                               .dtype = datatype,
                                               .op = op},
                          NULL, comm, 1, request, "MPI_Ireduce_scatter_block");
}
AMP_WEAK_ALIAS(Ireduce_scatter_block)

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
                        const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter(&(amp_reduce_args_t){.sendbuf = sendbuf,
                                               .recvbuf = recvbuf,
                                               .dtype = datatype,
                                               .op = op},
                          recvcounts, comm, 0, NULL, "MPI_Reduce_scatter");
}
AMP_WEAK_ALIAS(Reduce_scatter)

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf,
                         const int recvcounts[], MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return reduce_scatter(&(amp_reduce_args_t){.sendbuf = sendbuf,
                                               .recvbuf = recvbuf,
                                               .dtype = datatype,
                                               .op = op},
                          recvcounts, comm, 1, request, "MPI_Ireduce_scatter");
}
AMP_WEAK_ALIAS(Ireduce_scatter)

/* Scan or (exclusive) exscan of a; nonblocking (nb) or not. */
static int scan(const amp_reduce_args_t *a, int exclusive, MPI_Comm comm_h,
                int nb, MPI_Request *request, const char *call)
{
    const void *sendbuf = a->sendbuf;
    void *recvbuf = a->recvbuf;
    int count = a->count;
    amp_rank_t *rank;
    amp_comm_t *comm;
    const amp_dt_t *dt;
    amp_coll_op_t cop;
    amp_coll_comm_t c;
    amp_nbc_t *s = NULL;
    int rc = begin(comm_h, request, nb, call, &rank, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->is_inter)
        return amp_mpi_error(rank, comm, MPI_ERR_COMM, call,
                             "not defined on inter-communicators (argument "
                             "comm)");
    rc = amp_check_count(rank, comm, count, call, "count");
    if (rc == MPI_SUCCESS)
        rc = check_reduction(rank, comm, a, count, call, &dt, &cop);
    if (rc == MPI_SUCCESS && amp_proc.gpu) { /* device memory: host copies */
        /* exscan leaves rank 0's recvbuf as it was */
        int keep = sendbuf == MPI_IN_PLACE || exclusive;
        sendbuf = coll_stage_dt(rank, comm, sendbuf, count, dt, AMP_GPU_SEND,
                                call, &rc);
        recvbuf = (void *)coll_stage_dt(rank, comm, recvbuf, count, dt,
                                        keep ? AMP_GPU_INOUT : AMP_GPU_RECV,
                                        call, &rc);
    }
    if (rc != MPI_SUCCESS)
        return rc;
    amp_coll_comm_of(rank, comm, &c);
    amp_status_t st =
        amp_coll_sched_scan(&c,
                            &(amp_coll_reduction_t){.sendbuf = sendbuf,
                                                    .recvbuf = recvbuf,
                                                    .count = count,
                                                    .dt = dt,
                                                    .op = &cop},
                            exclusive, sendbuf == MPI_IN_PLACE, &s);
    return amp_coll_launch(rank, comm, comm_h, st, s, request, call);
}

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count,
              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return scan(&(amp_reduce_args_t){.sendbuf = sendbuf,
                                     .recvbuf = recvbuf,
                                     .count = count,
                                     .dtype = datatype,
                                     .op = op},
                0, comm, 0, NULL, "MPI_Scan");
}
AMP_WEAK_ALIAS(Scan)

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
               MPI_Request *request)
{
    return scan(&(amp_reduce_args_t){.sendbuf = sendbuf,
                                     .recvbuf = recvbuf,
                                     .count = count,
                                     .dtype = datatype,
                                     .op = op},
                0, comm, 1, request, "MPI_Iscan");
}
AMP_WEAK_ALIAS(Iscan)

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return scan(&(amp_reduce_args_t){.sendbuf = sendbuf,
                                     .recvbuf = recvbuf,
                                     .count = count,
                                     .dtype = datatype,
                                     .op = op},
                1, comm, 0, NULL, "MPI_Exscan");
}
AMP_WEAK_ALIAS(Exscan)

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                 MPI_Request *request)
{
    return scan(&(amp_reduce_args_t){.sendbuf = sendbuf,
                                     .recvbuf = recvbuf,
                                     .count = count,
                                     .dtype = datatype,
                                     .op = op},
                1, comm, 1, request, "MPI_Iexscan");
}
AMP_WEAK_ALIAS(Iexscan)

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count,
                      MPI_Datatype datatype, MPI_Op op)
{
    amp_rank_t *rank;
    const amp_dt_t *dt;
    amp_coll_op_t cop;
    const char *call = "MPI_Reduce_local";
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = check_part(
            rank, NULL,
            &(side_args_t){.buf = inbuf, .count = count, .type = datatype},
            &(side_names_t){
                .buf = "inbuf", .count = "count", .type = "datatype"},
            call, &dt);
    if (rc == MPI_SUCCESS)
        rc = check_part(
            rank, NULL,
            &(side_args_t){.buf = inoutbuf, .count = count, .type = datatype},
            &(side_names_t){
                .buf = "inoutbuf", .count = "count", .type = "datatype"},
            call, &dt);
    if (rc == MPI_SUCCESS)
        rc = amp_check_op(rank, NULL, op, datatype, dt, call, &cop);
    if (rc == MPI_SUCCESS && count > 0 && inbuf == inoutbuf)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_BUFFER, call,
                           "inbuf and inoutbuf are the same buffer");
    amp_gpu_op_t *g = NULL;
    void *in = (void *)inbuf, *inout = inoutbuf;
    if (rc == MPI_SUCCESS && amp_proc.gpu) /* device memory: host copies */
        rc = amp_gpu_op_stage(rank, NULL, &g,
                              amp_gpu_stage_dt(inbuf, count, dt, AMP_GPU_SEND),
                              &in, call);
    if (rc == MPI_SUCCESS && amp_proc.gpu)
        rc = amp_gpu_op_stage(
            rank, NULL, &g,
            amp_gpu_stage_dt(inoutbuf, count, dt, AMP_GPU_INOUT), &inout, call);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_coll_apply(&cop, dt, count, in, inout);
    return g ? amp_gpu_op_finish(rank, NULL, g, NULL, call) : MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Reduce_local)
