/*
 * Persistent collectives (MPI-4.0: MPI_Bcast_init ... every _init form,
 * the neighborhood ones included).
 *
 * An _init call keeps a copy of its arguments (the arrays copied, derived
 * datatypes duplicated, so the program may free its own) in a persistent
 * request of kind AMP_REQ_COLL, and takes the communicator's next
 * collective sequence number for good: every start of the request reuses
 * it, so starts need not be ordered against the other collectives of the
 * communicator.  Two starts of one request never mix: a start begins only
 * after the previous one completed locally, and between two members the
 * messages of one start all come before those of the next (p2p keeps them
 * in order, coll/nbc.h).
 *
 * The _init call runs the nonblocking form once dry (amp_coll_launch
 * builds the schedule and drops it), so a bad argument fails the _init
 * call; MPI_Start runs the nonblocking form again, and its schedule
 * completes the persistent request.  Errors name the _init call
 * (amp_call_ctx_t.alias).
 */
#include "mpi/comm/comm.h"
#include "mpi/attr/attr.h"
#include "mpi/stage.h"

#include "coll/nbc.h"
#include "mpi/comm/topology.h"

#include <stdlib.h>
#include <string.h>

enum pc_kind {
    PC_BARRIER,
    PC_BCAST,
    PC_GATHER,
    PC_GATHERV,
    PC_SCATTER,
    PC_SCATTERV,
    PC_ALLGATHER,
    PC_ALLGATHERV,
    PC_ALLTOALL,
    PC_ALLTOALLV,
    PC_ALLTOALLW,
    PC_REDUCE,
    PC_ALLREDUCE,
    PC_REDUCE_SCATTER_BLOCK,
    PC_REDUCE_SCATTER,
    PC_SCAN,
    PC_EXSCAN,
    PC_NB_ALLGATHER,
    PC_NB_ALLGATHERV,
    PC_NB_ALLTOALL,
    PC_NB_ALLTOALLV,
    PC_NB_ALLTOALLW,
};

/* How many entries an array argument has. */
enum pc_len { LEN_NONE, LEN_GROUP, LEN_LOCAL, LEN_ROOT, LEN_IN, LEN_OUT };

/* The arguments of a collective call, the union of all forms'. */
typedef struct pc_args {
    const void *sbuf;
    void *rbuf;
    int scount, rcount;
    MPI_Datatype stype, rtype;
    const int *scounts, *sdispls, *rcounts, *rdispls;
    const MPI_Aint *sdispls_a, *rdispls_a; /* neighbor alltoallw */
    const MPI_Datatype *stypes, *rtypes;   /* w forms */
    int root;
    MPI_Op op;
    MPI_Comm comm;
} pc_args_t;

struct amp_pcoll {
    int kind;
    int dry;             /* set up: amp_coll_launch only checks */
    unsigned seq;        /* the collective sequence number of every start */
    const char *call;    /* the _init call */
    amp_req_t *req;      /* the persistent request */
    pc_args_t a;         /* with the pcoll's own arrays and datatypes */
    int ns, nr;          /* entries of the send and receive arrays */
    void *arrays;        /* one allocation for all of them */
    MPI_Datatype *owned; /* the duplicates it made (in arrays), to free */
    int nowned;
};

/* Per kind: the nonblocking form's name, and the lengths of the send and
 * receive arrays. */
static const struct {
    const char *iname;
    unsigned char slen, rlen;
} kinds[] = {
    [PC_BARRIER] = {"MPI_Ibarrier", LEN_NONE, LEN_NONE},
    [PC_BCAST] = {"MPI_Ibcast", LEN_NONE, LEN_NONE},
    [PC_GATHER] = {"MPI_Igather", LEN_NONE, LEN_NONE},
    [PC_GATHERV] = {"MPI_Igatherv", LEN_NONE, LEN_ROOT},
    [PC_SCATTER] = {"MPI_Iscatter", LEN_NONE, LEN_NONE},
    [PC_SCATTERV] = {"MPI_Iscatterv", LEN_ROOT, LEN_NONE},
    [PC_ALLGATHER] = {"MPI_Iallgather", LEN_NONE, LEN_NONE},
    [PC_ALLGATHERV] = {"MPI_Iallgatherv", LEN_NONE, LEN_GROUP},
    [PC_ALLTOALL] = {"MPI_Ialltoall", LEN_NONE, LEN_NONE},
    [PC_ALLTOALLV] = {"MPI_Ialltoallv", LEN_GROUP, LEN_GROUP},
    [PC_ALLTOALLW] = {"MPI_Ialltoallw", LEN_GROUP, LEN_GROUP},
    [PC_REDUCE] = {"MPI_Ireduce", LEN_NONE, LEN_NONE},
    [PC_ALLREDUCE] = {"MPI_Iallreduce", LEN_NONE, LEN_NONE},
    [PC_REDUCE_SCATTER_BLOCK] = {"MPI_Ireduce_scatter_block", LEN_NONE,
                                 LEN_NONE},
    [PC_REDUCE_SCATTER] = {"MPI_Ireduce_scatter", LEN_NONE, LEN_LOCAL},
    [PC_SCAN] = {"MPI_Iscan", LEN_NONE, LEN_NONE},
    [PC_EXSCAN] = {"MPI_Iexscan", LEN_NONE, LEN_NONE},
    [PC_NB_ALLGATHER] = {"MPI_Ineighbor_allgather", LEN_NONE, LEN_NONE},
    [PC_NB_ALLGATHERV] = {"MPI_Ineighbor_allgatherv", LEN_NONE, LEN_IN},
    [PC_NB_ALLTOALL] = {"MPI_Ineighbor_alltoall", LEN_NONE, LEN_NONE},
    [PC_NB_ALLTOALLV] = {"MPI_Ineighbor_alltoallv", LEN_OUT, LEN_IN},
    [PC_NB_ALLTOALLW] = {"MPI_Ineighbor_alltoallw", LEN_OUT, LEN_IN},
};

/* Runs the nonblocking form of p's call; *r is what it gives back. */
static int run(const amp_pcoll_t *p, MPI_Request *r)
{
    const pc_args_t *a = &p->a;
    switch (p->kind) {
    case PC_BARRIER: return PMPI_Ibarrier(a->comm, r);
    case PC_BCAST:
        return PMPI_Ibcast(a->rbuf, a->rcount, a->rtype, a->root, a->comm, r);
    case PC_GATHER:
        return PMPI_Igather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                            a->rtype, a->root, a->comm, r);
    case PC_GATHERV:
        return PMPI_Igatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts,
                             a->rdispls, a->rtype, a->root, a->comm, r);
    case PC_SCATTER:
        return PMPI_Iscatter(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                             a->rtype, a->root, a->comm, r);
    case PC_SCATTERV:
        return PMPI_Iscatterv(a->sbuf, a->scounts, a->sdispls, a->stype,
                              a->rbuf, a->rcount, a->rtype, a->root, a->comm,
                              r);
    case PC_ALLGATHER:
        return PMPI_Iallgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                               a->rtype, a->comm, r);
    case PC_ALLGATHERV:
        return PMPI_Iallgatherv(a->sbuf, a->scount, a->stype, a->rbuf,
                                a->rcounts, a->rdispls, a->rtype, a->comm, r);
    case PC_ALLTOALL:
        return PMPI_Ialltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                              a->rtype, a->comm, r);
    case PC_ALLTOALLV:
        return PMPI_Ialltoallv(a->sbuf, a->scounts, a->sdispls, a->stype,
                               a->rbuf, a->rcounts, a->rdispls, a->rtype,
                               a->comm, r);
    case PC_ALLTOALLW:
        return PMPI_Ialltoallw(a->sbuf, a->scounts, a->sdispls, a->stypes,
                               a->rbuf, a->rcounts, a->rdispls, a->rtypes,
                               a->comm, r);
    case PC_REDUCE:
        return PMPI_Ireduce(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op,
                            a->root, a->comm, r);
    case PC_ALLREDUCE:
        return PMPI_Iallreduce(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op,
                               a->comm, r);
    case PC_REDUCE_SCATTER_BLOCK:
        return PMPI_Ireduce_scatter_block(a->sbuf, a->rbuf, a->rcount, a->rtype,
                                          a->op, a->comm, r);
    case PC_REDUCE_SCATTER:
        return PMPI_Ireduce_scatter(a->sbuf, a->rbuf, a->rcounts, a->rtype,
                                    a->op, a->comm, r);
    case PC_SCAN:
        return PMPI_Iscan(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->comm,
                          r);
    case PC_EXSCAN:
        return PMPI_Iexscan(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op,
                            a->comm, r);
    case PC_NB_ALLGATHER:
        return PMPI_Ineighbor_allgather(a->sbuf, a->scount, a->stype, a->rbuf,
                                        a->rcount, a->rtype, a->comm, r);
    case PC_NB_ALLGATHERV:
        return PMPI_Ineighbor_allgatherv(a->sbuf, a->scount, a->stype, a->rbuf,
                                         a->rcounts, a->rdispls, a->rtype,
                                         a->comm, r);
    case PC_NB_ALLTOALL:
        return PMPI_Ineighbor_alltoall(a->sbuf, a->scount, a->stype, a->rbuf,
                                       a->rcount, a->rtype, a->comm, r);
    case PC_NB_ALLTOALLV:
        return PMPI_Ineighbor_alltoallv(a->sbuf, a->scounts, a->sdispls,
                                        a->stype, a->rbuf, a->rcounts,
                                        a->rdispls, a->rtype, a->comm, r);
    case PC_NB_ALLTOALLW:
        return PMPI_Ineighbor_alltoallw(a->sbuf, a->scounts, a->sdispls_a,
                                        a->stypes, a->rbuf, a->rcounts,
                                        a->rdispls_a, a->rtypes, a->comm, r);
    }
    amp_assert(!"unknown persistent collective");
    return MPI_ERR_INTERN;
}

/* Runs p's call in the calling thread's call state: its collective takes
 * p's sequence number and its errors name p's _init call. */
static int run_as(amp_pcoll_t *p, int dry)
{
    amp_call_ctx_t *ctx = amp_call_ctx();
    amp_call_ctx_t saved = *ctx;
    ctx->pcoll = p;
    ctx->pcoll_seq = p->seq;
    ctx->alias_of = kinds[p->kind].iname;
    ctx->alias = p->call;
    p->dry = dry;
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = run(p, &r);
    *amp_call_ctx() = saved;
    return rc;
}

/* The entries of an array argument of kind len on comm (0 when comm is
 * invalid: the dry run reports it). */
static int entries(amp_rank_t *rank, MPI_Comm comm_h, int len, int root)
{
    amp_comm_t *comm = amp_comm_lookup(rank, comm_h);
    if (!comm || len == LEN_NONE)
        return 0;
    int group = comm->is_inter ? comm->remote_size : comm->size;
    switch (len) {
    case LEN_GROUP: return group;
    case LEN_LOCAL: return comm->size;
    case LEN_ROOT:
        if (comm->is_inter)
            return root == MPI_ROOT ? group : 0;
        return root == comm->rank ? group : 0;
    case LEN_IN: return comm->topo ? comm->topo->nin : 0;
    case LEN_OUT: return comm->topo ? comm->topo->nout : 0;
    }
    return 0;
}

/* Copies n elements of size bytes from *src into at (advancing it) and
 * points *src at the copy; NULL stays NULL. */
static void copy_array(char **at, const void **src, int n, size_t size)
{
    if (!*src || n <= 0)
        return;
    memcpy(*at, *src, (size_t)n * size);
    *src = *at;
    *at += AMP_ROUND_UP((size_t)n * size, 16);
}

/* The arrays of p->a as p's own copies. */
static amp_status_t copy_arrays(amp_pcoll_t *p)
{
    pc_args_t *a = &p->a;
    size_t per = 2 * sizeof(int) + sizeof(MPI_Aint) + 2 * sizeof(MPI_Datatype);
    size_t bytes = (size_t)(p->ns + p->nr + 2) * per + 8 * 16;
    char *at = p->arrays = malloc(bytes);
    if (!at)
        return AMP_ERR_NOMEM;
    p->owned = (MPI_Datatype *)at;
    at += AMP_ROUND_UP((size_t)(p->ns + p->nr + 2) * sizeof(MPI_Datatype), 16);
    copy_array(&at, (const void **)&a->scounts, p->ns, sizeof(int));
    copy_array(&at, (const void **)&a->sdispls, p->ns, sizeof(int));
    copy_array(&at, (const void **)&a->sdispls_a, p->ns, sizeof(MPI_Aint));
    copy_array(&at, (const void **)&a->stypes, p->ns, sizeof(MPI_Datatype));
    copy_array(&at, (const void **)&a->rcounts, p->nr, sizeof(int));
    copy_array(&at, (const void **)&a->rdispls, p->nr, sizeof(int));
    copy_array(&at, (const void **)&a->rdispls_a, p->nr, sizeof(MPI_Aint));
    copy_array(&at, (const void **)&a->rtypes, p->nr, sizeof(MPI_Datatype));
    return AMP_OK;
}

/* *h, when derived, replaced by a duplicate p owns (the large count
 * marks of large.c kept). */
static int own_type(amp_rank_t *rank, amp_pcoll_t *p, MPI_Datatype *h)
{
    if (AMP_HANDLE_KIND(*h) != AMPI_HANDLE_DATATYPE_DERIVED)
        return MPI_SUCCESS;
    const amp_dt_t *old = amp_dt_lookup(rank, *h);
    MPI_Datatype dup;
    int rc = PMPI_Type_dup(*h, &dup);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_dt_t *d = (amp_dt_t *)amp_dt_lookup(rank, dup);
    d->large_of = old->large_of;
    d->large_count = old->large_count;
    d->large_extent = old->large_extent;
    *h = p->owned[p->nowned++] = dup;
    return MPI_SUCCESS;
}

/* Every datatype of p's arguments replaced by one p owns. */
static int own_types(amp_rank_t *rank, amp_pcoll_t *p)
{
    pc_args_t *a = &p->a;
    MPI_Datatype *one[2] = {&a->stype, &a->rtype};
    MPI_Datatype *many[2] = {(MPI_Datatype *)a->stypes,
                             (MPI_Datatype *)a->rtypes};
    int n[2] = {p->ns, p->nr};
    int rc = MPI_SUCCESS;
    for (int s = 0; s < 2 && rc == MPI_SUCCESS; s++) {
        rc = own_type(rank, p, one[s]);
        for (int i = 0; many[s] && i < n[s] && rc == MPI_SUCCESS; i++)
            rc = own_type(rank, p, &many[s][i]);
    }
    return rc;
}

static void pcoll_free(amp_pcoll_t *p)
{
    for (int i = 0; i < p->nowned; i++)
        PMPI_Type_free(&p->owned[i]);
    free(p->arrays);
    free(p);
}

static void pcoll_release(amp_rank_t *rank, amp_req_t *r)
{
    (void)rank;
    pcoll_free(r->pcoll);
    r->pcoll = NULL;
}

/* MPI_Start of persistent collective request r. */
static int pcoll_start(amp_rank_t *rank, amp_req_t *r, const char *call)
{
    (void)rank;
    (void)call; /* errors name the _init call, as the arguments are its */
    return run_as(r->pcoll, 0);
}

static const amp_req_ops_t pcoll_ops = {.release = pcoll_release,
                                        .start = pcoll_start};

/* The _init call: checks, keeps the arguments, reserves the sequence
 * number, and runs the call dry. */
static int pcoll_init(int kind, const pc_args_t *args, MPI_Info info,
                      MPI_Request *request, const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, args->comm, call, &comm);
    if (rc == MPI_SUCCESS)
        rc = amp_check_info(rank, comm, info, call);
    if (rc == MPI_SUCCESS && !request)
        rc = amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                           "NULL pointer (argument request)");
    if (rc != MPI_SUCCESS)
        return rc;
    amp_pcoll_t *p = calloc(1, sizeof(*p));
    amp_req_t *r = p ? amp_req_new(rank, AMP_REQ_COLL) : NULL;
    if (r) {
        p->kind = kind;
        p->call = call;
        p->req = r;
        p->a = *args;
        p->ns = entries(rank, args->comm, kinds[kind].slen, args->root);
        p->nr = entries(rank, args->comm, kinds[kind].rlen, args->root);
    }
    if (!r || copy_arrays(p) != AMP_OK) {
        if (r)
            amp_req_release(rank, r);
        free(p ? p->arrays : NULL);
        free(p);
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    p->seq = comm->coll_seq++;
    r->pcoll = p; /* amp_req_release frees it */
    r->ops = &pcoll_ops;
    rc = run_as(p, 1);
    /* The program may free its datatypes: p keeps duplicates. */
    if (rc == MPI_SUCCESS)
        rc = own_types(rank, p);
    if (rc != MPI_SUCCESS) {
        amp_req_release(rank, r);
        return rc;
    }
    r->comm = args->comm;
    r->persistent = 1;
    *request = AMPI_HANDLE(AMPI_HANDLE_REQUEST, r->obj.idx);
    return MPI_SUCCESS;
}

/* Completion of a start: the schedule is gone. */
static void start_done(amp_p2p_req_t *p)
{
    amp_req_t *r = AMP_CONTAINER_OF(p, amp_req_t, p2p);
    r->nbc = NULL;
}

amp_status_t amp_pcoll_launch(amp_rank_t *rank, amp_pcoll_t *p, amp_nbc_t *s,
                              amp_gpu_op_t *g)
{
    if (p->dry) {
        amp_nbc_destroy(s);
        amp_gpu_op_drop(g);
        return AMP_OK;
    }
    amp_req_t *r = p->req;
    r->active = 1;
    r->nbc = s;
    r->p2p.on_done = start_done;
    amp_status_t st =
        amp_nbc_start(s, g ? amp_gpu_op_start(rank, g, &r->p2p, 0) : &r->p2p);
    if (st != AMP_OK) {
        amp_gpu_op_drop(g);
        r->active = 0;
        r->nbc = NULL;
    }
    return st;
}

/* ---- the _init calls ---- */

#define ARGS(...) (&(const pc_args_t){__VA_ARGS__})

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return pcoll_init(PC_BARRIER, ARGS(.comm = comm), info, request,
                      "MPI_Barrier_init");
}
AMP_WEAK_ALIAS(Barrier_init)

int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return pcoll_init(PC_BCAST,
                      ARGS(.rbuf = buffer, .rcount = count, .rtype = datatype,
                           .root = root, .comm = comm),
                      info, request, "MPI_Bcast_init");
}
AMP_WEAK_ALIAS(Bcast_init)

/* Gather, scatter, allgather, alltoall and their neighborhood forms. */
#define REGULAR_INIT(Name, kind, rooted)                                       \
    int PMPI_##Name##_init(                                                    \
        const void *sendbuf, int sendcount, MPI_Datatype sendtype,             \
        void *recvbuf, int recvcount, MPI_Datatype recvtype,                   \
        rooted MPI_Comm comm, MPI_Info info, MPI_Request *request)             \
    {                                                                          \
        return pcoll_init(kind,                                                \
                          ARGS(.sbuf = sendbuf, .scount = sendcount,           \
                               .stype = sendtype, .rbuf = recvbuf,             \
                               .rcount = recvcount, .rtype = recvtype,         \
                               .root = ROOT_OF_##rooted, .comm = comm),        \
                          info, request, "MPI_" #Name "_init");                \
    }                                                                          \
    AMP_WEAK_ALIAS(Name##_init)
#define ROOT_ARG int root,
#define NO_ROOT
#define ROOT_OF_ROOT_ARG root
#define ROOT_OF_NO_ROOT 0

REGULAR_INIT(Gather, PC_GATHER, ROOT_ARG)
REGULAR_INIT(Scatter, PC_SCATTER, ROOT_ARG)
REGULAR_INIT(Allgather, PC_ALLGATHER, NO_ROOT)
REGULAR_INIT(Alltoall, PC_ALLTOALL, NO_ROOT)
REGULAR_INIT(Neighbor_allgather, PC_NB_ALLGATHER, NO_ROOT)
REGULAR_INIT(Neighbor_alltoall, PC_NB_ALLTOALL, NO_ROOT)

int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const int recvcounts[], const int displs[],
                      MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request)
{
    return pcoll_init(PC_GATHERV,
                      ARGS(.sbuf = sendbuf, .scount = sendcount,
                           .stype = sendtype, .rbuf = recvbuf,
                           .rcounts = recvcounts, .rdispls = displs,
                           .rtype = recvtype, .root = root, .comm = comm),
                      info, request, "MPI_Gatherv_init");
}
AMP_WEAK_ALIAS(Gatherv_init)

int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[],
                       const int displs[], MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return pcoll_init(PC_SCATTERV,
                      ARGS(.sbuf = sendbuf, .scounts = sendcounts,
                           .sdispls = displs, .stype = sendtype,
                           .rbuf = recvbuf, .rcount = recvcount,
                           .rtype = recvtype, .root = root, .comm = comm),
                      info, request, "MPI_Scatterv_init");
}
AMP_WEAK_ALIAS(Scatterv_init)

int PMPI_Allgatherv_init(const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[],
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                         MPI_Request *request)
{
    return pcoll_init(PC_ALLGATHERV,
                      ARGS(.sbuf = sendbuf, .scount = sendcount,
                           .stype = sendtype, .rbuf = recvbuf,
                           .rcounts = recvcounts, .rdispls = displs,
                           .rtype = recvtype, .comm = comm),
                      info, request, "MPI_Allgatherv_init");
}
AMP_WEAK_ALIAS(Allgatherv_init)

int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount,
                                  MPI_Datatype sendtype, void *recvbuf,
                                  const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm,
                                  MPI_Info info, MPI_Request *request)
{
    return pcoll_init(PC_NB_ALLGATHERV,
                      ARGS(.sbuf = sendbuf, .scount = sendcount,
                           .stype = sendtype, .rbuf = recvbuf,
                           .rcounts = recvcounts, .rdispls = displs,
                           .rtype = recvtype, .comm = comm),
                      info, request, "MPI_Neighbor_allgatherv_init");
}
AMP_WEAK_ALIAS(Neighbor_allgatherv_init)

/* Alltoallv and its neighborhood form. */
#define ALLTOALLV_INIT(Name, kind)                                             \
    int PMPI_##Name##_init(const void *sendbuf, const int sendcounts[],        \
                           const int sdispls[], MPI_Datatype sendtype,         \
                           void *recvbuf, const int recvcounts[],              \
                           const int rdispls[], MPI_Datatype recvtype,         \
                           MPI_Comm comm, MPI_Info info, MPI_Request *request) \
    {                                                                          \
        return pcoll_init(                                                     \
            kind,                                                              \
            ARGS(.sbuf = sendbuf, .scounts = sendcounts, .sdispls = sdispls,   \
                 .stype = sendtype, .rbuf = recvbuf, .rcounts = recvcounts,    \
                 .rdispls = rdispls, .rtype = recvtype, .comm = comm),         \
            info, request, "MPI_" #Name "_init");                              \
    }                                                                          \
    AMP_WEAK_ALIAS(Name##_init)

ALLTOALLV_INIT(Alltoallv, PC_ALLTOALLV)
ALLTOALLV_INIT(Neighbor_alltoallv, PC_NB_ALLTOALLV)

int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[],
                        const int sdispls[], const MPI_Datatype sendtypes[],
                        void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[],
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return pcoll_init(
        PC_ALLTOALLW,
        ARGS(.sbuf = sendbuf, .scounts = sendcounts, .sdispls = sdispls,
             .stypes = sendtypes, .rbuf = recvbuf, .rcounts = recvcounts,
             .rdispls = rdispls, .rtypes = recvtypes, .comm = comm),
        info, request, "MPI_Alltoallw_init");
}
AMP_WEAK_ALIAS(Alltoallw_init)

int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[],
                                 const MPI_Datatype sendtypes[], void *recvbuf,
                                 const int recvcounts[],
                                 const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    return pcoll_init(
        PC_NB_ALLTOALLW,
        ARGS(.sbuf = sendbuf, .scounts = sendcounts, .sdispls_a = sdispls,
             .stypes = sendtypes, .rbuf = recvbuf, .rcounts = recvcounts,
             .rdispls_a = rdispls, .rtypes = recvtypes, .comm = comm),
        info, request, "MPI_Neighbor_alltoallw_init");
}
AMP_WEAK_ALIAS(Neighbor_alltoallw_init)

int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                     MPI_Info info, MPI_Request *request)
{
    return pcoll_init(PC_REDUCE,
                      ARGS(.sbuf = sendbuf, .rbuf = recvbuf, .rcount = count,
                           .rtype = datatype, .op = op, .root = root,
                           .comm = comm),
                      info, request, "MPI_Reduce_init");
}
AMP_WEAK_ALIAS(Reduce_init)

/* Allreduce, reduce_scatter_block, scan, exscan: (count, datatype, op). */
#define REDUCTION_INIT(Name, kind, count_name)                                 \
    int PMPI_##Name##_init(const void *sendbuf, void *recvbuf, int count_name, \
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,    \
                           MPI_Info info, MPI_Request *request)                \
    {                                                                          \
        return pcoll_init(kind,                                                \
                          ARGS(.sbuf = sendbuf, .rbuf = recvbuf,               \
                               .rcount = count_name, .rtype = datatype,        \
                               .op = op, .comm = comm),                        \
                          info, request, "MPI_" #Name "_init");                \
    }                                                                          \
    AMP_WEAK_ALIAS(Name##_init)

REDUCTION_INIT(Allreduce, PC_ALLREDUCE, count)
REDUCTION_INIT(Reduce_scatter_block, PC_REDUCE_SCATTER_BLOCK, recvcount)
REDUCTION_INIT(Scan, PC_SCAN, count)
REDUCTION_INIT(Exscan, PC_EXSCAN, count)

int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf,
                             const int recvcounts[], MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request)
{
    return pcoll_init(PC_REDUCE_SCATTER,
                      ARGS(.sbuf = sendbuf, .rbuf = recvbuf,
                           .rcounts = recvcounts, .rtype = datatype, .op = op,
                           .comm = comm),
                      info, request, "MPI_Reduce_scatter_init");
}
AMP_WEAK_ALIAS(Reduce_scatter_init)
