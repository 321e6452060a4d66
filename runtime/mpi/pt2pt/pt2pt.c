/*
 * Point-to-point calls: argument checks, then p2p.  Blocking calls keep
 * their p2p request on the stack; nonblocking ones take a request object
 * from the rank's table.
 */
#include "mpi/pt2pt/device.h"

#include <stdlib.h>
#include <string.h>

static const int tag_ub = MPI_TAG_UB_VALUE;

static int p2p_tag(int tag)
{
    return tag == MPI_ANY_TAG ? AMP_P2P_ANY : tag;
}

/* The status of a receive or probe from MPI_PROC_NULL. */
static void status_proc_null(MPI_Status *st, MPI_Comm comm)
{
    amp_status_set(st, comm, MPI_PROC_NULL, MPI_ANY_TAG, 0, 0);
}

static int check_tag(amp_rank_t *rank, amp_comm_t *comm, int tag, int any_ok,
                     const char *call)
{
    if ((tag >= 0 && tag <= tag_ub) || (any_ok && tag == MPI_ANY_TAG))
        return MPI_SUCCESS;
    return amp_mpi_error(rank, comm, MPI_ERR_TAG, call,
                         "invalid tag %d (argument tag): tags are 0..%d%s", tag,
                         tag_ub, any_ok ? " or MPI_ANY_TAG" : "");
}

static int check_peer(amp_rank_t *rank, amp_comm_t *comm, int peer, int any_ok,
                      const char *call, const char *arg)
{
    /* On an inter-communicator, peers are ranks of the remote group. */
    if ((peer >= 0 && peer < amp_comm_peer_size(comm)) ||
        peer == MPI_PROC_NULL || (any_ok && peer == MPI_ANY_SOURCE))
        return MPI_SUCCESS;
    return amp_mpi_error(rank, comm, MPI_ERR_RANK, call,
                         "invalid rank %d (argument %s): the communicator "
                         "has %d ranks",
                         peer, arg, amp_comm_peer_size(comm));
}

/* A wildcard receive or probe on a communicator whose MPI-4 hints assert
 * that none is used (mpi_assert_no_any_source / _tag) is erroneous. */
static int check_asserts(amp_rank_t *rank, amp_comm_t *comm, int source,
                         int tag, const char *call)
{
    if (source == MPI_ANY_SOURCE && (comm->asserts & AMP_ASSERT_NO_ANY_SOURCE))
        return amp_mpi_error(rank, comm, MPI_ERR_RANK, call,
                             "MPI_ANY_SOURCE (argument source) on a "
                             "communicator with the hint "
                             "mpi_assert_no_any_source set to true");
    if (tag == MPI_ANY_TAG && (comm->asserts & AMP_ASSERT_NO_ANY_TAG))
        return amp_mpi_error(rank, comm, MPI_ERR_TAG, call,
                             "MPI_ANY_TAG (argument tag) on a communicator "
                             "with the hint mpi_assert_no_any_tag set to "
                             "true");
    return MPI_SUCCESS;
}

/* Checks the arguments of a send or receive (recv: wildcards allowed);
 * sets x->dt. */
static int check_xfer(amp_rank_t *rank, amp_xfer_t *x, int recv,
                      const char *call, amp_comm_t **comm)
{
    int rc = amp_check_comm(rank, x->comm_h, call, comm);
    if (rc == MPI_SUCCESS)
        rc = amp_check_count(rank, *comm, x->count, call, "count");
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt_count(rank, *comm, x->dtype, x->count, call,
                                "datatype", &x->dt);
    if (rc == MPI_SUCCESS)
        rc = check_peer(rank, *comm, x->peer, recv, call,
                        recv ? "source" : "dest");
    if (rc == MPI_SUCCESS)
        rc = check_tag(rank, *comm, x->tag, recv, call);
    if (rc == MPI_SUCCESS && recv && (*comm)->asserts)
        rc = check_asserts(rank, *comm, x->peer, x->tag, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_buf(rank, *comm, x->buf, x->count, x->dt, call, "buf");
    return rc;
}

/* Starts the checked send x (x->dt resolved) into p (whose on_done is
 * already set).  Data of a non-contiguous type is not packed: p2p copies
 * it from its layout (x->dt must stay valid until p completes).  dev (NULL
 * or dev->gpu NULL: host memory): device memory of a contiguous type that
 * p2p moves (device.c). */
static void start_send(amp_rank_t *rank, amp_comm_t *comm, const amp_xfer_t *x,
                       const amp_p2p_dev_t *dev, amp_p2p_req_t *p)
{
    const void *buf = x->buf;
    int count = x->count, dest = x->peer, tag = x->tag, mode = x->mode;
    const amp_dt_t *dt = x->dt;
    int world = amp_comm_peer_world(comm, dest);
    int pmode = mode == AMP_SEND_SYNC ? AMP_P2P_SYNC : AMP_P2P_STANDARD;
    if (__builtin_expect(amp_proc.lb.comm, 0)) /* GreedyCommLB's input */
        amp_lb_note_send(&rank->lb.sends, world, dt->size * (size_t)count);
    if (dev && dev->gpu)
        amp_p2p_isend_dev(
            &rank->ep, amp_dt_data(buf, dt), dt->size * (size_t)count, dev,
            (amp_p2p_env_t){
                .ctx = comm->ctx, .src = comm->rank, .dst = world, .tag = tag},
            pmode, p);
    else
        amp_p2p_isend_typed(
            &rank->ep, buf, count, dt,
            (amp_p2p_env_t){
                .ctx = comm->ctx, .src = comm->rank, .dst = world, .tag = tag},
            pmode, p);
}

/* Brings the endpoint's matching for comm in line with its hints: with
 * both mpi_assert_no_any_source and mpi_assert_no_any_tag, its receives
 * match in hashed (source, tag) queues.  The hints may change with
 * MPI_Comm_set_info at any time, and a context may be reused by a
 * communicator without them, so every receive and probe checks (one
 * branch when no communicator of the rank has the hints). */
static void sync_exact(amp_rank_t *rank, const amp_comm_t *comm)
{
    const unsigned both = AMP_ASSERT_NO_ANY_SOURCE | AMP_ASSERT_NO_ANY_TAG;
    int exact = (comm->asserts & both) == both;
    if (exact || rank->ep.nexact)
        amp_p2p_ep_set_exact(&rank->ep, comm->ctx, exact);
}

/* Starts the checked receive x into p straight into the user's layout
 * (dev: as for start_send). */
static void start_recv(amp_rank_t *rank, amp_comm_t *comm, const amp_xfer_t *x,
                       const amp_p2p_dev_t *dev, amp_p2p_req_t *p)
{
    void *buf = (void *)x->buf;
    int count = x->count, source = x->peer, tag = x->tag;
    const amp_dt_t *dt = x->dt;
    sync_exact(rank, comm);
    if (dev && dev->gpu)
        amp_p2p_irecv_dev(
            &rank->ep, amp_dt_data(buf, dt), dt->size * (size_t)count, dev,
            (amp_p2p_env_t){
                .ctx = comm->ctx, .src = source, .tag = p2p_tag(tag)},
            p);
    else
        amp_p2p_irecv_typed(&rank->ep, buf, count, dt,
                            (amp_p2p_env_t){.ctx = comm->ctx,
                                            .src = source,
                                            .tag = p2p_tag(tag)},
                            p);
}

static void wait_one(amp_rank_t *rank, amp_p2p_req_t *p, const char *call)
{
    if (p->done)
        return;
    rank->call = call;
    amp_p2p_wait_all(&rank->ep, &p, 1);
}

int amp_truncate_error(amp_rank_t *rank, amp_comm_t *comm, const char *call,
                       int source, int tag, size_t capacity)
{
    return amp_mpi_error(rank, comm, MPI_ERR_TRUNCATE, call,
                         "message from rank %d with tag %d is longer than "
                         "the receive buffer (%zu bytes)",
                         source, tag, capacity);
}

static int send_common(const void *buf, int count, MPI_Datatype dtype, int dest,
                       int tag, MPI_Comm comm_h, int mode, const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    amp_xfer_t x = {.buf = buf,
                    .count = count,
                    .dtype = dtype,
                    .peer = dest,
                    .tag = tag,
                    .comm_h = comm_h,
                    .mode = mode};
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = check_xfer(rank, &x, 0, call, &comm);
    if (rc != MPI_SUCCESS || dest == MPI_PROC_NULL)
        return rc;
    amp_p2p_dev_t dev = {NULL, -1};
    if (amp_proc.gpu && amp_gpu_send(rank, comm, &x, call, &dev, &rc))
        return rc; /* device memory: sent from a host copy (device.c) */
    if (mode == AMP_SEND_BUFFERED)
        return amp_bsend_start(rank, comm, &x, call, NULL);
    amp_p2p_req_t p;
    p.on_done = NULL;
    start_send(rank, comm, &x, &dev, &p);
    wait_one(rank, &p, call);
    return MPI_SUCCESS;
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
              int tag, MPI_Comm comm)
{
    return send_common(buf, count, datatype, dest, tag, comm, AMP_SEND_STANDARD,
                       "MPI_Send");
}
AMP_WEAK_ALIAS(Send)

int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm)
{
    return send_common(buf, count, datatype, dest, tag, comm, AMP_SEND_SYNC,
                       "MPI_Ssend");
}
AMP_WEAK_ALIAS(Ssend)

int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm)
{
    return send_common(buf, count, datatype, dest, tag, comm, AMP_SEND_READY,
                       "MPI_Rsend");
}
AMP_WEAK_ALIAS(Rsend)

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm)
{
    return send_common(buf, count, datatype, dest, tag, comm, AMP_SEND_BUFFERED,
                       "MPI_Bsend");
}
AMP_WEAK_ALIAS(Bsend)

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
              MPI_Comm comm_h, MPI_Status *status)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    amp_xfer_t x = {.buf = buf,
                    .count = count,
                    .dtype = datatype,
                    .peer = source,
                    .tag = tag,
                    .comm_h = comm_h};
    int rc = amp_mpi_enter(&rank, "MPI_Recv");
    if (rc == MPI_SUCCESS)
        rc = check_xfer(rank, &x, 1, "MPI_Recv", &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (source == MPI_PROC_NULL) {
        status_proc_null(status, comm_h);
        return MPI_SUCCESS;
    }
    const amp_dt_t *dt = x.dt;
    amp_p2p_dev_t dev = {NULL, -1};
    if (amp_proc.gpu && amp_gpu_recv(rank, comm, &x, status, &dev, &rc))
        return rc; /* device memory: received into a host copy (device.c) */
    amp_p2p_req_t p;
    size_t cap = dt->size * (size_t)count;
    p.on_done = NULL;
    start_recv(rank, comm, &x, &dev, &p);
    wait_one(rank, &p, "MPI_Recv");
    amp_trace_recv(rank, comm_h, &p);
    amp_status_set(status, comm_h, p.st_source, p.st_tag, p.st_bytes, 0);
    if (p.error == AMP_ERR_TRUNCATE)
        return amp_truncate_error(rank, comm, "MPI_Recv", p.st_source, p.st_tag,
                                  cap);
    if (dev.gpu && p.error != AMP_OK)
        return amp_mpi_error(rank, comm, MPI_ERR_OTHER, "MPI_Recv",
                             "moving the message with the CUDA device failed "
                             "(%s)",
                             amp_status_str(p.error));
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Recv)

/* ---- nonblocking and persistent ---- */

/* A persistent send or receive holds its communicator (and its type,
 * which amp_req_release drops) until it is freed. */
static void persistent_release(amp_rank_t *rank, amp_req_t *r)
{
    amp_comm_drop(rank, amp_comm_lookup(rank, r->comm));
}

static const amp_req_ops_t persistent_ops = {.release = persistent_release};

/* A request of kind (AMP_REQ_SEND or _RECV) for the call x, started
 * unless persistent. */
static int new_xfer_req(amp_xfer_t x, int kind, int persistent,
                        MPI_Request *request, const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = check_xfer(rank, &x, kind == AMP_REQ_RECV, call, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    const amp_dt_t *dt = x.dt;
    if (!request)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                             "NULL pointer (argument request)");
    amp_req_t *r = amp_req_new(rank, kind);
    if (!r)
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call,
                             "out of memory for a request");
    r->buf = (void *)x.buf;
    r->count = x.count;
    r->dtype = x.dtype;
    r->dt = dt;
    r->peer = x.peer;
    r->tag = x.tag;
    r->comm = x.comm_h;
    r->mode = x.mode;
    r->persistent = (unsigned char)persistent;
    *request = AMPI_HANDLE(AMPI_HANDLE_REQUEST, r->obj.idx);
    if (persistent) { /* the program may free both before MPI_Start */
        amp_type_hold(dt);
        r->dt_held = 1;
        amp_comm_hold(comm);
        r->ops = &persistent_ops;
        return MPI_SUCCESS;
    }
    return amp_req_start(rank, r, call);
}

#define DEFINE_ISEND(Name, send_mode, persistent)                              \
    int PMPI_##Name(const void *buf, int count, MPI_Datatype datatype,         \
                    int dest, int tag, MPI_Comm comm, MPI_Request *request)    \
    {                                                                          \
        return new_xfer_req((amp_xfer_t){.buf = buf,                           \
                                         .count = count,                       \
                                         .dtype = datatype,                    \
                                         .peer = dest,                         \
                                         .tag = tag,                           \
                                         .comm_h = comm,                       \
                                         .mode = send_mode},                   \
                            AMP_REQ_SEND, persistent, request, "MPI_" #Name);  \
    }                                                                          \
    AMP_WEAK_ALIAS(Name)

DEFINE_ISEND(Isend, AMP_SEND_STANDARD, 0)
DEFINE_ISEND(Issend, AMP_SEND_SYNC, 0)
DEFINE_ISEND(Irsend, AMP_SEND_READY, 0)
DEFINE_ISEND(Ibsend, AMP_SEND_BUFFERED, 0)
DEFINE_ISEND(Send_init, AMP_SEND_STANDARD, 1)
DEFINE_ISEND(Ssend_init, AMP_SEND_SYNC, 1)
DEFINE_ISEND(Rsend_init, AMP_SEND_READY, 1)
DEFINE_ISEND(Bsend_init, AMP_SEND_BUFFERED, 1)

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
               MPI_Comm comm, MPI_Request *request)
{
    return new_xfer_req((amp_xfer_t){.buf = buf,
                                     .count = count,
                                     .dtype = datatype,
                                     .peer = source,
                                     .tag = tag,
                                     .comm_h = comm},
                        AMP_REQ_RECV, 0, request, "MPI_Irecv");
}
AMP_WEAK_ALIAS(Irecv)

int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source,
                   int tag, MPI_Comm comm, MPI_Request *request)
{
    return new_xfer_req((amp_xfer_t){.buf = buf,
                                     .count = count,
                                     .dtype = datatype,
                                     .peer = source,
                                     .tag = tag,
                                     .comm_h = comm},
                        AMP_REQ_RECV, 1, request, "MPI_Recv_init");
}
AMP_WEAK_ALIAS(Recv_init)

/* Completion hook of every request object: free the request if
 * MPI_Request_free already dropped the handle. */
static void req_done(amp_p2p_req_t *p)
{
    amp_req_t *r = AMP_CONTAINER_OF(p, amp_req_t, p2p);
    if (r->freed)
        amp_req_release(AMP_CONTAINER_OF(p->owner, amp_rank_t, ep), r);
}

int amp_req_start(amp_rank_t *rank, amp_req_t *r, const char *call)
{
    amp_comm_t *comm = amp_comm_lookup(rank, r->comm);
    if (!comm)
        return amp_mpi_error(rank, NULL, MPI_ERR_COMM, call,
                             "the request's communicator has been freed");
    r->active = 1;
    r->p2p.on_done = req_done;
    if (r->peer == MPI_PROC_NULL) {
        amp_p2p_req_init_done(&rank->ep, &r->p2p, MPI_PROC_NULL, MPI_ANY_TAG);
        return MPI_SUCCESS;
    }
    if (r->kind == AMP_REQ_SEND && r->mode == AMP_SEND_BUFFERED) {
        return amp_bsend_start(rank, comm,
                               &(amp_xfer_t){.buf = r->buf,
                                             .count = r->count,
                                             .dt = r->dt,
                                             .peer = r->peer,
                                             .tag = r->tag},
                               call, &r->p2p);
    }
    /* p2p reads the type until completion, MPI_Type_free or not */
    if (!r->dt_held)
        amp_type_hold(r->dt);
    r->dt_held = 1;
    void *buf = r->buf;
    amp_p2p_req_t *p = &r->p2p;
    amp_p2p_dev_t dev = {NULL, -1};
    if (amp_proc.gpu) { /* device memory: direct or a host copy (device.c) */
        int rc = amp_gpu_req_stage(rank, comm, r, call, &buf, &p, &dev);
        if (rc != MPI_SUCCESS) {
            amp_p2p_req_init_done(&rank->ep, &r->p2p, r->peer, r->tag);
            return rc;
        }
    }
    amp_xfer_t x = {.buf = buf,
                    .count = r->count,
                    .dt = r->dt,
                    .peer = r->peer,
                    .tag = r->tag,
                    .mode = r->mode};
    if (r->kind == AMP_REQ_SEND)
        start_send(rank, comm, &x, &dev, p);
    else
        start_recv(rank, comm, &x, &dev, p);
    return MPI_SUCCESS;
}

/* ---- combined send and receive ---- */

/* The arguments of a send-receive.  The replace forms name their one
 * buffer in both halves and send a packed copy of it. */
typedef struct sendrecv_args {
    const void *sbuf;
    int scount;
    MPI_Datatype stype;
    int dest, stag;
    void *rbuf;
    int rcount;
    MPI_Datatype rtype;
    int source, rtag;
    const amp_dt_t *sdt, *rdt; /* set by sendrecv_enter */
    amp_p2p_dev_t sdev, rdev;  /* device memory p2p moves (halves_stage) */
} sendrecv_args_t;

/* Enters call and checks both halves of a send-receive. */
static int sendrecv_enter(MPI_Comm comm_h, sendrecv_args_t *a, const char *call,
                          amp_rank_t **rank, amp_comm_t **comm)
{
    amp_xfer_t s = {.buf = a->sbuf,
                    .count = a->scount,
                    .dtype = a->stype,
                    .peer = a->dest,
                    .tag = a->stag,
                    .comm_h = comm_h};
    amp_xfer_t r = {.buf = a->rbuf,
                    .count = a->rcount,
                    .dtype = a->rtype,
                    .peer = a->source,
                    .tag = a->rtag,
                    .comm_h = comm_h};
    int rc = amp_mpi_enter(rank, call);
    if (rc == MPI_SUCCESS)
        rc = check_xfer(*rank, &s, 0, call, comm);
    a->sdt = s.dt;
    if (rc == MPI_SUCCESS)
        rc = check_xfer(*rank, &r, 1, call, comm);
    a->rdt = r.dt;
    return rc;
}

static size_t recv_capacity(const sendrecv_args_t *a)
{
    return a->rdt->size * (size_t)a->rcount;
}

/* The replace forms' send data: a packed copy of the buffer. */
static int pack_copy(amp_rank_t *rank, amp_comm_t *comm,
                     const sendrecv_args_t *a, const char *call, void **copy)
{
    size_t bytes = recv_capacity(a);
    *copy = malloc(bytes ? bytes : 1);
    if (!*copy)
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call,
                             "out of memory for a %zu-byte copy", bytes);
    amp_dt_pack(a->rdt, a->rcount, a->rbuf, *copy);
    return MPI_SUCCESS;
}

/* One half of a send-receive on device memory (send: the sending one),
 * staged into *op unless p2p moves it itself (*dev set). */
static int stage_half(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t **op,
                      const amp_xfer_t *x, int send, void **view,
                      amp_p2p_dev_t *dev, const char *call)
{
    amp_stage_buf_t b = amp_stage_p2p_desc(rank, comm, x, send);
    return amp_stage_op_add(rank, comm, op, &b, view, dev, call);
}

/* Device memory (device.c): each half on the direct path when it can take it
 * (a->sdev, a->rdev), else a host copy in place of its buffer, in *op; the
 * replace forms' one buffer is fetched, packed and received into. */
static int halves_stage(amp_rank_t *rank, amp_comm_t *comm, sendrecv_args_t *a,
                        int replace, amp_gpu_op_t **op, const char *call)
{
    void *v = a->rbuf;
    int rc = MPI_SUCCESS;
    if (replace)
        rc = amp_gpu_op_stage(
            rank, comm, op,
            amp_gpu_stage_dt(a->rbuf, a->rcount, a->rdt, AMP_GPU_INOUT), &v,
            call);
    else if (a->source != MPI_PROC_NULL)
        rc = stage_half(rank, comm, op,
                        &(amp_xfer_t){.buf = a->rbuf,
                                      .count = a->rcount,
                                      .dt = a->rdt,
                                      .peer = a->source},
                        0, &v, &a->rdev, call);
    a->rbuf = v;
    if (replace)
        a->sbuf = v;
    else if (rc == MPI_SUCCESS && a->dest != MPI_PROC_NULL) {
        rc = stage_half(rank, comm, op,
                        &(amp_xfer_t){.buf = a->sbuf,
                                      .count = a->scount,
                                      .dt = a->sdt,
                                      .peer = a->dest,
                                      .mode = AMP_SEND_STANDARD},
                        1, &v, &a->sdev, call);
        a->sbuf = v;
    }
    return rc;
}

/* Starts the halves of a checked send-receive into send and recv (whose
 * on_done are already set); copy: the packed send data of the replace
 * forms, or NULL.  A half with MPI_PROC_NULL is complete at once. */
static void start_halves(amp_rank_t *rank, amp_comm_t *comm,
                         const sendrecv_args_t *a, const void *copy,
                         amp_p2p_req_t *send, amp_p2p_req_t *recv)
{
    if (a->source == MPI_PROC_NULL)
        amp_p2p_req_init_done(&rank->ep, recv, MPI_PROC_NULL, MPI_ANY_TAG);
    else
        start_recv(rank, comm,
                   &(amp_xfer_t){.buf = a->rbuf,
                                 .count = a->rcount,
                                 .dt = a->rdt,
                                 .peer = a->source,
                                 .tag = a->rtag},
                   &a->rdev, recv);
    if (a->dest == MPI_PROC_NULL)
        amp_p2p_req_init_done(&rank->ep, send, MPI_PROC_NULL, MPI_ANY_TAG);
    else if (copy)
        amp_p2p_isend(&rank->ep, copy, recv_capacity(a),
                      (amp_p2p_env_t){.ctx = comm->ctx,
                                      .src = comm->rank,
                                      .dst = amp_comm_peer_world(comm, a->dest),
                                      .tag = a->stag},
                      AMP_P2P_STANDARD, send);
    else
        start_send(rank, comm,
                   &(amp_xfer_t){.buf = a->sbuf,
                                 .count = a->scount,
                                 .dt = a->sdt,
                                 .peer = a->dest,
                                 .tag = a->stag,
                                 .mode = AMP_SEND_STANDARD},
                   &a->sdev, send);
}

/* MPI_Sendrecv, or with replace MPI_Sendrecv_replace. */
static int sendrecv(MPI_Comm comm_h, sendrecv_args_t *a, int replace,
                    MPI_Status *status, const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    void *copy = NULL;
    amp_gpu_op_t *g = NULL;
    int rc = sendrecv_enter(comm_h, a, call, &rank, &comm);
    if (rc == MPI_SUCCESS && amp_proc.gpu) /* device memory: host copies */
        rc = halves_stage(rank, comm, a, replace, &g, call);
    if (rc == MPI_SUCCESS && replace)
        rc = pack_copy(rank, comm, a, call, &copy);
    if (rc != MPI_SUCCESS) {
        if (g)
            amp_gpu_op_drop(g);
        return rc;
    }
    amp_p2p_req_t sp, rp;
    amp_p2p_req_t *reqs[2] = {&rp, &sp};
    sp.on_done = rp.on_done = NULL;
    start_halves(rank, comm, a, copy, &sp, &rp);
    rank->call = call;
    amp_p2p_wait_all(&rank->ep, reqs, 2);
    free(copy);
    amp_trace_recv(rank, comm_h, &rp);
    amp_status_set(status, comm_h, rp.st_source, rp.st_tag, rp.st_bytes, 0);
    if (g) /* the received data back to the device */
        rc = amp_gpu_op_finish(rank, comm, g, &rp.st_bytes, call);
    if (rp.error == AMP_ERR_TRUNCATE)
        return amp_truncate_error(rank, comm, call, rp.st_source, rp.st_tag,
                                  recv_capacity(a));
    return rc;
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  int dest, int sendtag, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                  MPI_Status *status)
{
    sendrecv_args_t a = {sendbuf, sendcount, sendtype, dest,   sendtag,
                         recvbuf, recvcount, recvtype, source, recvtag,
                         NULL,    NULL,      {0},      {0}};
    return sendrecv(comm, &a, 0, status, "MPI_Sendrecv");
}
AMP_WEAK_ALIAS(Sendrecv)

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest,
                          int sendtag, int source, int recvtag, MPI_Comm comm,
                          MPI_Status *status)
{
    sendrecv_args_t a = {buf,      count,  datatype, dest, sendtag, buf, count,
                         datatype, source, recvtag,  NULL, NULL,    {0}, {0}};
    return sendrecv(comm, &a, 1, status, "MPI_Sendrecv_replace");
}
AMP_WEAK_ALIAS(Sendrecv_replace)

/* ---- nonblocking combined send and receive (MPI-4) ---- */

/* The two halves of an MPI_Isendrecv: the request handed to the user
 * completes when both have. */
typedef struct sendrecv {
    amp_p2p_req_t send, recv;
    void *copy;          /* the replace form's packed send data */
    const amp_dt_t *sdt; /* the send type, held until done (or NULL) */
    int pending;         /* halves not yet complete */
    amp_req_t *outer;
    amp_p2p_req_t *done; /* completes outer: its p2p, or gpu.c's staging */
} sendrecv_t;

static void sendrecv_half_done(sendrecv_t *sr)
{
    if (--sr->pending > 0)
        return;
    amp_req_t *r = sr->outer;
    amp_p2p_req_t *done = sr->done;
    done->st_source = sr->recv.st_source;
    done->st_tag = sr->recv.st_tag;
    done->st_bytes = sr->recv.st_bytes;
    done->error = sr->recv.error;
    if (sr->sdt)
        amp_type_drop(AMP_CONTAINER_OF(r->p2p.owner, amp_rank_t, ep), sr->sdt);
    free(sr->copy);
    free(sr);
    amp_p2p_req_complete(done);
}

static void sendrecv_send_done(amp_p2p_req_t *p)
{
    sendrecv_half_done(AMP_CONTAINER_OF(p, sendrecv_t, send));
}

static void sendrecv_recv_done(amp_p2p_req_t *p)
{
    sendrecv_half_done(AMP_CONTAINER_OF(p, sendrecv_t, recv));
}

/* Starts both halves of a checked MPI_Isendrecv(_replace) behind a new
 * request; copy is the packed send data of the replace form (or NULL),
 * which the request frees, and g the staged device buffers (or NULL). */
static int isendrecv_start(amp_rank_t *rank, amp_comm_t *comm, MPI_Comm comm_h,
                           const sendrecv_args_t *a, void *copy,
                           amp_gpu_op_t *g, MPI_Request *request,
                           const char *call)
{
    sendrecv_t *sr = calloc(1, sizeof(*sr));
    amp_req_t *r = sr ? amp_req_new(rank, AMP_REQ_RECV) : NULL;
    if (!r) {
        free(sr);
        free(copy);
        if (g)
            amp_gpu_op_drop(g);
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call,
                             "out of memory for a request");
    }
    r->buf = a->rbuf;
    r->count = a->rcount;
    r->dtype = a->rtype;
    r->dt = a->rdt;
    r->peer = a->source;
    r->tag = a->rtag;
    r->comm = comm_h;
    r->active = 1;
    r->p2p.on_done = req_done;
    amp_p2p_req_init_pending(&rank->ep, &r->p2p);
    *request = AMPI_HANDLE(AMPI_HANDLE_REQUEST, r->obj.idx);
    sr->outer = r;
    sr->done = g ? amp_gpu_op_start(rank, g, &r->p2p, 1) : &r->p2p;
    /* the halves that are not MPI_PROC_NULL, and this function until the
     * end */
    sr->pending = 1 + (a->source != MPI_PROC_NULL) + (a->dest != MPI_PROC_NULL);
    sr->copy = copy;
    /* p2p reads the types until the halves complete */
    amp_type_hold(a->rdt);
    r->dt_held = 1;
    if (!copy && a->dest != MPI_PROC_NULL) {
        amp_type_hold(a->sdt);
        sr->sdt = a->sdt;
    }
    sr->send.on_done = sendrecv_send_done;
    sr->recv.on_done = sendrecv_recv_done;
    start_halves(rank, comm, a, copy, &sr->send, &sr->recv);
    sendrecv_half_done(sr);
    return MPI_SUCCESS;
}

/* MPI_Isendrecv, or with replace MPI_Isendrecv_replace. */
static int isendrecv(MPI_Comm comm_h, sendrecv_args_t *a, int replace,
                     MPI_Request *request, const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    void *copy = NULL;
    amp_gpu_op_t *g = NULL;
    int rc = sendrecv_enter(comm_h, a, call, &rank, &comm);
    if (rc == MPI_SUCCESS && !request)
        rc = amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                           "NULL pointer (argument request)");
    if (rc == MPI_SUCCESS && amp_proc.gpu) /* device memory: host copies */
        rc = halves_stage(rank, comm, a, replace, &g, call);
    if (rc == MPI_SUCCESS && replace)
        rc = pack_copy(rank, comm, a, call, &copy);
    if (rc != MPI_SUCCESS) {
        if (g)
            amp_gpu_op_drop(g);
        return rc;
    }
    return isendrecv_start(rank, comm, comm_h, a, copy, g, request, call);
}

int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   int dest, int sendtag, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Request *request)
{
    sendrecv_args_t a = {sendbuf, sendcount, sendtype, dest,   sendtag,
                         recvbuf, recvcount, recvtype, source, recvtag,
                         NULL,    NULL,      {0},      {0}};
    return isendrecv(comm, &a, 0, request, "MPI_Isendrecv");
}
AMP_WEAK_ALIAS(Isendrecv)

int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype,
                           int dest, int sendtag, int source, int recvtag,
                           MPI_Comm comm, MPI_Request *request)
{
    sendrecv_args_t a = {buf,      count,  datatype, dest, sendtag, buf, count,
                         datatype, source, recvtag,  NULL, NULL,    {0}, {0}};
    return isendrecv(comm, &a, 1, request, "MPI_Isendrecv_replace");
}
AMP_WEAK_ALIAS(Isendrecv_replace)

/* ---- probes ---- */

/* Enters call and checks the arguments of a probe. */
static int probe_enter(MPI_Comm comm_h, int source, int tag, const char *call,
                       amp_rank_t **rank, amp_comm_t **comm)
{
    int rc = amp_mpi_enter(rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(*rank, comm_h, call, comm);
    if (rc == MPI_SUCCESS)
        rc = check_peer(*rank, *comm, source, 1, call, "source");
    if (rc == MPI_SUCCESS)
        rc = check_tag(*rank, *comm, tag, 1, call);
    if (rc == MPI_SUCCESS && (*comm)->asserts)
        rc = check_asserts(*rank, *comm, source, tag, call);
    if (rc == MPI_SUCCESS)
        sync_exact(*rank, *comm);
    return rc;
}

static void probe_status(MPI_Status *status, MPI_Comm comm,
                         const amp_p2p_probe_info_t *info)
{
    amp_status_set(status, comm, info->source, info->tag, info->bytes, 0);
}

int PMPI_Probe(int source, int tag, MPI_Comm comm_h, MPI_Status *status)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = probe_enter(comm_h, source, tag, "MPI_Probe", &rank, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (source == MPI_PROC_NULL) {
        status_proc_null(status, comm_h);
        return MPI_SUCCESS;
    }
    amp_p2p_probe_info_t info;
    rank->call = "MPI_Probe";
    amp_p2p_probe(&rank->ep, comm->ctx, source, p2p_tag(tag), &info);
    probe_status(status, comm_h, &info);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Probe)

int PMPI_Iprobe(int source, int tag, MPI_Comm comm_h, int *flag,
                MPI_Status *status)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = probe_enter(comm_h, source, tag, "MPI_Iprobe", &rank, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!flag)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, "MPI_Iprobe",
                             "NULL pointer (argument flag)");
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        status_proc_null(status, comm_h);
        return MPI_SUCCESS;
    }
    amp_p2p_probe_info_t info;
    *flag = amp_p2p_iprobe(&rank->ep, comm->ctx, source, p2p_tag(tag), &info);
    if (!*flag) {
        /* Let the other ranks of this PE run, so that a polling loop
         * makes progress, then look again. */
        amp_mpi_poll(rank, "MPI_Iprobe");
        rank = amp_rank_self();
        *flag =
            amp_p2p_iprobe(&rank->ep, comm->ctx, source, p2p_tag(tag), &info);
    }
    if (*flag)
        probe_status(status, comm_h, &info);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Iprobe)

static MPI_Message new_message(amp_rank_t *rank, struct amp_msg *m,
                               MPI_Comm comm)
{
    amp_msg_handle_t *h = amp_table_alloc(&rank->msgs);
    if (!h)
        amp_fatal("out of memory for a message handle");
    h->msg = m;
    h->comm = comm;
    return AMPI_HANDLE(AMPI_HANDLE_MESSAGE, h->obj.idx);
}

static int mprobe_common(int source, int tag, MPI_Comm comm_h, int *flag,
                         MPI_Message *message, MPI_Status *status,
                         const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = probe_enter(comm_h, source, tag, call, &rank, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!message)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                             "NULL pointer (argument message)");
    if (source == MPI_PROC_NULL) {
        if (flag)
            *flag = 1;
        *message = MPI_MESSAGE_NO_PROC;
        status_proc_null(status, comm_h);
        return MPI_SUCCESS;
    }
    amp_p2p_probe_info_t info;
    struct amp_msg *m;
    if (flag) {
        m = amp_p2p_improbe(&rank->ep, comm->ctx, source, p2p_tag(tag), &info);
        if (!m) {
            amp_mpi_poll(rank, call);
            rank = amp_rank_self();
            m = amp_p2p_improbe(&rank->ep, comm->ctx, source, p2p_tag(tag),
                                &info);
        }
        *flag = m != NULL;
        if (!m)
            return MPI_SUCCESS;
    } else {
        rank->call = call;
        m = amp_p2p_mprobe(&rank->ep, comm->ctx, source, p2p_tag(tag), &info);
    }
    *message = new_message(rank, m, comm_h);
    probe_status(status, comm_h, &info);
    return MPI_SUCCESS;
}

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
                MPI_Status *status)
{
    return mprobe_common(source, tag, comm, NULL, message, status,
                         "MPI_Mprobe");
}
AMP_WEAK_ALIAS(Mprobe)

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag,
                 MPI_Message *message, MPI_Status *status)
{
    amp_rank_t *rank = amp_rank_self();
    if (rank && !flag)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Improbe",
                             "NULL pointer (argument flag)");
    return mprobe_common(source, tag, comm, flag, message, status,
                         "MPI_Improbe");
}
AMP_WEAK_ALIAS(Improbe)

/* Takes the message out of its handle; NULL for MPI_MESSAGE_NO_PROC. */
static int take_message(amp_rank_t *rank, MPI_Message *message,
                        const char *call, struct amp_msg **m, MPI_Comm *comm)
{
    *comm = MPI_COMM_NULL;
    if (!message)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument message)");
    if (*message == MPI_MESSAGE_NO_PROC) {
        *m = NULL;
        *message = MPI_MESSAGE_NULL;
        return MPI_SUCCESS;
    }
    amp_msg_handle_t *h = NULL;
    if (AMP_HANDLE_KIND(*message) == AMPI_HANDLE_MESSAGE)
        h = amp_table_lookup(&rank->msgs, AMP_HANDLE_INDEX(*message));
    if (!h)
        return amp_mpi_error(rank, NULL, MPI_ERR_REQUEST, call,
                             "invalid message handle %#x (argument message)",
                             (unsigned)*message);
    *m = h->msg;
    *comm = h->comm;
    amp_table_free(&rank->msgs, h);
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
}

static int check_mrecv(amp_rank_t *rank, void *buf, int count,
                       MPI_Datatype datatype, const char *call,
                       const amp_dt_t **dt)
{
    int rc = amp_check_count(rank, NULL, count, call, "count");
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt_count(rank, NULL, datatype, count, call, "datatype",
                                dt);
    if (rc == MPI_SUCCESS)
        rc = amp_check_buf(rank, NULL, buf, count, *dt, call, "buf");
    return rc;
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype,
               MPI_Message *message, MPI_Status *status)
{
    amp_rank_t *rank;
    const amp_dt_t *dt;
    struct amp_msg *m;
    MPI_Comm comm = MPI_COMM_NULL;
    amp_gpu_op_t *g = NULL;
    void *v = buf;
    int rc = amp_mpi_enter(&rank, "MPI_Mrecv");
    if (rc == MPI_SUCCESS)
        rc = check_mrecv(rank, buf, count, datatype, "MPI_Mrecv", &dt);
    if (rc == MPI_SUCCESS && amp_proc.gpu) /* device memory: a host copy */
        rc = amp_gpu_op_stage(rank, NULL, &g,
                              amp_gpu_stage_dt(buf, count, dt, AMP_GPU_RECV),
                              &v, "MPI_Mrecv");
    if (rc == MPI_SUCCESS)
        rc = take_message(rank, message, "MPI_Mrecv", &m, &comm);
    if (rc != MPI_SUCCESS || !m) {
        if (g)
            amp_gpu_op_drop(g);
        if (rc == MPI_SUCCESS)
            status_proc_null(status, comm);
        return rc;
    }
    amp_p2p_req_t p;
    size_t cap = dt->size * (size_t)count;
    p.on_done = NULL;
    amp_p2p_mrecv_typed(&rank->ep, m, v, count, dt, &p);
    /* A rendezvous (from another process, say) is still under way. */
    wait_one(rank, &p, "MPI_Mrecv");
    rank = amp_rank_self();
    amp_trace_recv(rank, comm, &p);
    amp_status_set(status, comm, p.st_source, p.st_tag, p.st_bytes, 0);
    if (g) /* the received data back to the device */
        rc = amp_gpu_op_finish(rank, NULL, g, &p.st_bytes, "MPI_Mrecv");
    if (p.error == AMP_ERR_TRUNCATE)
        return amp_truncate_error(rank, NULL, "MPI_Mrecv", p.st_source,
                                  p.st_tag, cap);
    return rc;
}
AMP_WEAK_ALIAS(Mrecv)

int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype,
                MPI_Message *message, MPI_Request *request)
{
    amp_rank_t *rank;
    const amp_dt_t *dt;
    struct amp_msg *m;
    MPI_Comm comm = MPI_COMM_NULL;
    amp_gpu_op_t *g = NULL;
    void *v = buf;
    int rc = amp_mpi_enter(&rank, "MPI_Imrecv");
    if (rc == MPI_SUCCESS)
        rc = check_mrecv(rank, buf, count, datatype, "MPI_Imrecv", &dt);
    if (rc == MPI_SUCCESS && !request)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Imrecv",
                           "NULL pointer (argument request)");
    if (rc == MPI_SUCCESS && amp_proc.gpu) /* device memory: a host copy */
        rc = amp_gpu_op_stage(rank, NULL, &g,
                              amp_gpu_stage_dt(buf, count, dt, AMP_GPU_RECV),
                              &v, "MPI_Imrecv");
    if (rc == MPI_SUCCESS)
        rc = take_message(rank, message, "MPI_Imrecv", &m, &comm);
    amp_req_t *r = rc == MPI_SUCCESS ? amp_req_new(rank, AMP_REQ_RECV) : NULL;
    if (rc == MPI_SUCCESS && !r)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, "MPI_Imrecv",
                           "out of memory for a request");
    if (g && (rc != MPI_SUCCESS || !m)) {
        amp_gpu_op_drop(g);
        g = NULL;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    r->buf = buf;
    r->count = count;
    r->dtype = datatype;
    r->dt = dt;
    r->comm = comm;
    r->active = 1;
    r->p2p.on_done = req_done;
    *request = AMPI_HANDLE(AMPI_HANDLE_REQUEST, r->obj.idx);
    if (!m) {
        r->peer = MPI_PROC_NULL;
        amp_p2p_req_init_done(&rank->ep, &r->p2p, MPI_PROC_NULL, MPI_ANY_TAG);
        return MPI_SUCCESS;
    }
    amp_p2p_mrecv_typed(&rank->ep, m, v, count, dt,
                        g ? amp_gpu_op_start(rank, g, &r->p2p, 1) : &r->p2p);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Imrecv)
