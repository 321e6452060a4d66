/*
 * CUDA device buffers at the MPI boundary, and GPU work as MPI requests
 * (docs/gpu.md).
 *
 * A point-to-point buffer of device memory whose peer is a rank of this
 * process goes to p2p as it is, and p2p moves it with the GPU (p2p.h):
 * stage_p2p decides (amp_gpu_path_choose).  Any other device buffer is
 * staged: the span its elements cover is copied to a
 * pinned host buffer (or back) on the PE's high-priority stream, and the
 * host path runs on that copy, unchanged.  The rank waits for a copy as for
 * a message, blocked in the scheduler, whose loop polls the copy's event:
 * the PE runs other ranks meanwhile.  Copies in are made before the call
 * starts its messages, so that messages keep MPI's order; copies back are
 * queued when the data has arrived, and the request completes when they
 * are done.
 */
#include "mpi/comm.h"
#include "mpi/stage.h"

#include "gpu/gpu.h"

#include <stdlib.h>

/* ---- copies the calling rank waits for ---- */

static void copy_done(void *arg, amp_status_t st)
{
    amp_p2p_req_t *p = arg;
    p->error = st;
    amp_p2p_req_complete(p);
}

static amp_status_t copy_wait(amp_rank_t *rank, void *dst, const void *src,
                              size_t bytes)
{
    amp_p2p_req_t p, *ps = &p;
    p.on_done = NULL;
    amp_p2p_req_init_pending(&rank->ep, &p);
    amp_status_t st = amp_gpu_copy(amp_proc.gpu, amp_pe_self(), dst, src, bytes,
                                   copy_done, &p);
    if (st != AMP_OK)
        return st;
    amp_p2p_wait_all(&rank->ep, &ps, 1);
    return p.error;
}

/* Waits (blocked: the PE runs other ranks) until the GPU has done the
 * work queued so far on the legacy default stream of the rank's device,
 * for a buffer that the GPU will read or write outside the runtime's
 * streams (amp_p2p_dev_order).  The call waits before its message starts,
 * so the rank's messages keep their order. */
static amp_status_t order_wait(amp_rank_t *rank)
{
    amp_p2p_req_t p, *ps = &p;
    p.on_done = NULL;
    amp_p2p_req_init_pending(&rank->ep, &p);
    amp_status_t st =
        amp_gpu_watch(amp_proc.gpu, amp_pe_self(), NULL, copy_done, &p);
    if (st != AMP_OK)
        return st;
    amp_p2p_wait_all(&rank->ep, &ps, 1);
    return p.error;
}

/* ---- staging ---- */

/* Stages the span sp of buf (elements of elem bytes) for role.  With peer
 * (point-to-point) and dev, a device buffer that p2p can move itself
 * (amp_gpu_path_choose) is not staged: *dev says its device instead. */
static int stage_span(amp_rank_t *rank, amp_comm_t *comm, const void *buf,
                      const amp_gpu_span_t *sp, size_t elem, int role,
                      const amp_gpu_peer_t *peer, amp_stage_t *s, void **view,
                      amp_p2p_dev_t *dev, const char *call)
{
    s->host = NULL;
    *view = (void *)buf;
    if (!buf || buf == MPI_IN_PLACE || sp->bytes == 0)
        return MPI_SUCCESS;
    char *first = (char *)buf + sp->lo;
    amp_gpu_range_t r;
    int on_dev = amp_gpu_is_device(amp_proc.gpu, amp_pe_self(), first, &r);
    int fetch;
    int path = peer ? amp_gpu_path_choose(amp_gpu_mode(amp_proc.gpu), on_dev,
                                          role, sp, peer, &fetch)
                    : amp_gpu_path_select(on_dev, role, sp, &fetch);
    if (path == AMP_GPU_PATH_HOST)
        return MPI_SUCCESS;
    if ((uintptr_t)first - r.start + sp->bytes > r.size)
        return amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                             "the data (%zu bytes from %p) runs past the end "
                             "of its CUDA allocation (%zu bytes from %#lx)",
                             sp->bytes, (void *)first, r.size,
                             (unsigned long)r.start);
    if (path == AMP_GPU_PATH_DIRECT) {
        if (peer && peer->order && order_wait(rank) != AMP_OK)
            return amp_mpi_error(rank, comm, MPI_ERR_OTHER, call,
                                 "the CUDA device failed the work queued "
                                 "before the call on the default stream");
        dev->gpu = amp_proc.gpu;
        dev->device = r.device;
        return MPI_SUCCESS;
    }
    s->host = amp_gpu_host_get(amp_proc.gpu, amp_pe_self(), sp->bytes, &s->cap);
    if (!s->host)
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call,
                             "cannot allocate %zu bytes of pinned host memory "
                             "to stage a device buffer",
                             sp->bytes);
    s->dev = first;
    s->bytes = sp->bytes;
    s->dense = sp->dense;
    s->elem = elem ? elem : 1;
    if (fetch && copy_wait(rank, s->host, s->dev, s->bytes) != AMP_OK) {
        amp_gpu_host_put(amp_proc.gpu, amp_pe_self(), s->host, s->cap);
        s->host = NULL;
        return amp_mpi_error(rank, comm, MPI_ERR_OTHER, call,
                             "copying %zu bytes from the CUDA device failed",
                             sp->bytes);
    }
    *view = s->host - sp->lo;
    return MPI_SUCCESS;
}

int amp_stage_begin(amp_rank_t *rank, amp_comm_t *comm, const void *buf,
                    int count, const amp_dt_t *dt, int role, amp_stage_t *s,
                    void **view, const char *call)
{
    amp_gpu_span_t sp = {0, 0, 1};
    if (count > 0)
        amp_gpu_span_dt(&sp, count, dt);
    return stage_span(rank, comm, buf, &sp, dt->size, role, NULL, s, view, NULL,
                      call);
}

/* What the path of a point-to-point buffer depends on at the other end
 * (peer, a rank of comm, MPI_ANY_SOURCE or MPI_PROC_NULL): for a send,
 * whether the host path would send it eagerly (the peer's process does not
 * matter: p2p moves device memory between processes too); and whether a
 * direct buffer must wait for the GPU's earlier work first. */
static void p2p_peer(const amp_comm_t *comm, int peer, int send, int mode,
                     size_t bytes, amp_gpu_peer_t *p)
{
    const amp_p2p_world_t *w = &amp_proc.world;
    p->eager = send && (mode == AMP_SEND_BUFFERED ||
                        (mode != AMP_SEND_SYNC && bytes <= w->eager_limit));
    p->order = 0;
    if (w->nprocs > 1 && peer != MPI_PROC_NULL)
        p->order = amp_p2p_dev_order(
            amp_pe_self(),
            peer == MPI_ANY_SOURCE ? -1 : amp_comm_peer_world(comm, peer),
            send);
}

/* The span of a point-to-point buffer (count elements of dt) and what its
 * path depends on at the other end (send: a send in mode to peer, else a
 * receive from peer). */
static void p2p_span(const amp_comm_t *comm, int peer, int count,
                     const amp_dt_t *dt, int send, int mode, amp_gpu_span_t *sp,
                     amp_gpu_peer_t *pr)
{
    *sp = (amp_gpu_span_t){0, 0, 1};
    if (count > 0)
        amp_gpu_span_dt(sp, count, dt);
    p2p_peer(comm, peer, send, mode, dt->size * (size_t)count, pr);
}

/* amp_stage_begin for a send (send, in mode) to or a receive from peer:
 * not staged when p2p moves the device buffer itself (*dev set). */
static int stage_p2p(amp_rank_t *rank, amp_comm_t *comm, const void *buf,
                     int count, const amp_dt_t *dt, int send, int mode,
                     int peer, amp_stage_t *s, void **view, amp_p2p_dev_t *dev,
                     const char *call)
{
    amp_gpu_span_t sp;
    amp_gpu_peer_t pr;
    p2p_span(comm, peer, count, dt, send, mode, &sp, &pr);
    return stage_span(rank, comm, buf, &sp, dt->size,
                      send ? AMP_GPU_SEND : AMP_GPU_RECV, &pr, s, view, dev,
                      call);
}

size_t amp_stage_bytes(const amp_stage_t *s, size_t received)
{
    if (!s->dense)
        return s->bytes; /* the gaps were fetched: all of it */
    size_t n = (received + s->elem - 1) / s->elem * s->elem;
    return n < s->bytes ? n : s->bytes;
}

int amp_stage_end(amp_rank_t *rank, amp_comm_t *comm, amp_stage_t *s,
                  size_t bytes, const char *call)
{
    if (!s->host)
        return MPI_SUCCESS;
    amp_status_t st = AMP_OK;
    if (bytes > 0)
        st = copy_wait(rank, s->dev, s->host,
                       bytes < s->bytes ? bytes : s->bytes);
    amp_gpu_host_put(amp_proc.gpu, amp_pe_self(), s->host, s->cap);
    s->host = NULL;
    if (st != AMP_OK)
        return amp_mpi_error(rank, comm, MPI_ERR_OTHER, call,
                             "copying %zu bytes to the CUDA device failed",
                             bytes);
    return MPI_SUCCESS;
}

/* ---- nonblocking point-to-point on device buffers ---- */

/* A request object's data staged: inner moves the host copy; outer, the
 * user's request, completes when the copy back (if any) is done. */
typedef struct staged {
    amp_p2p_req_t inner;
    amp_req_t *outer;
    amp_stage_t s;
} staged_t;

static void staged_finish(staged_t *w, amp_status_t st)
{
    amp_req_t *r = w->outer;
    r->staged = NULL;
    if (st != AMP_OK && r->p2p.error == AMP_OK)
        r->p2p.error = st;
    amp_gpu_host_put(amp_proc.gpu, amp_pe_self(), w->s.host, w->s.cap);
    free(w);
    amp_p2p_req_complete(&r->p2p);
}

static void staged_stored(void *arg, amp_status_t st)
{
    staged_t *w = arg;
    w->outer->p2p.owner->dev_busy--;
    staged_finish(w, st);
}

static void staged_send_done(amp_p2p_req_t *p)
{
    staged_t *w = AMP_CONTAINER_OF(p, staged_t, inner);
    w->outer->p2p.error = p->error;
    w->outer->p2p.cancelled = p->cancelled;
    staged_finish(w, AMP_OK);
}

/* The data is in the host copy: queue the copy back (on the PE where the
 * request completes, the rank's). */
static void staged_recv_done(amp_p2p_req_t *p)
{
    staged_t *w = AMP_CONTAINER_OF(p, staged_t, inner);
    amp_p2p_req_t *o = &w->outer->p2p;
    o->error = p->error;
    o->cancelled = p->cancelled;
    o->st_source = p->st_source;
    o->st_tag = p->st_tag;
    o->st_bytes = p->st_bytes;
    size_t n = p->cancelled ? 0 : amp_stage_bytes(&w->s, p->st_bytes);
    if (n == 0) {
        staged_finish(w, AMP_OK);
        return;
    }
    o->owner->dev_busy++; /* until staged_stored */
    amp_status_t st = amp_gpu_copy(amp_proc.gpu, amp_pe_self(), w->s.dev,
                                   w->s.host, n, staged_stored, w);
    if (st != AMP_OK)
        staged_stored(w, st);
}

int amp_gpu_req_stage(amp_rank_t *rank, amp_comm_t *comm, amp_req_t *r,
                      const char *call, void **view, amp_p2p_req_t **p,
                      amp_p2p_dev_t *dev)
{
    amp_stage_t s;
    int send = r->kind == AMP_REQ_SEND;
    *p = &r->p2p;
    r->staged = NULL;
    int rc = stage_p2p(rank, comm, r->buf, r->count, r->dt, send, r->mode,
                       r->peer, &s, view, dev, call);
    if (rc != MPI_SUCCESS || !s.host)
        return rc;
    staged_t *w = malloc(sizeof(*w));
    if (!w) {
        amp_stage_end(rank, comm, &s, 0, call);
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call,
                             "out of memory for a request");
    }
    w->outer = r;
    w->s = s;
    w->inner.on_done = send ? staged_send_done : staged_recv_done;
    amp_p2p_req_init_pending(&rank->ep, &r->p2p);
    *p = &w->inner;
    r->staged = &w->inner;
    return MPI_SUCCESS;
}

/* ---- GPU work as a request ---- */

static void invoke_done(void *arg, amp_status_t st)
{
    amp_req_t *r = arg;
    r->p2p.owner->dev_busy--;
    r->p2p.error = st;
    amp_p2p_req_complete(&r->p2p);
}

/* Frees the request when MPI_Request_free dropped its handle first. */
static void invoke_req_done(amp_p2p_req_t *p)
{
    amp_req_t *r = AMP_CONTAINER_OF(p, amp_req_t, p2p);
    if (r->freed)
        amp_req_release(AMP_CONTAINER_OF(p->owner, amp_rank_t, ep), r);
}

int AMPI_GPU_Iinvoke(struct CUstream_st *stream, MPI_Request *request)
{
    amp_rank_t *rank;
    const char *call = "AMPI_GPU_Iinvoke";
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!request)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument request)");
    if (!amp_proc.gpu)
        return amp_mpi_error(rank, NULL, MPI_ERR_UNSUPPORTED_OPERATION, call,
                             "no CUDA device is available to this process "
                             "(no CUDA driver, no device, a libampi built "
                             "without the CUDA toolkit, or +gpumap none)");
    amp_req_t *r = amp_req_new(rank, AMP_REQ_RECV);
    if (!r)
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call,
                             "out of memory for a request");
    r->comm = MPI_COMM_WORLD;
    r->peer = MPI_PROC_NULL;
    r->active = 1;
    r->p2p.on_done = invoke_req_done;
    amp_p2p_req_init_pending(&rank->ep, &r->p2p);
    r->p2p.st_source = MPI_ANY_SOURCE;
    r->p2p.st_tag = MPI_ANY_TAG;
    rank->ep.dev_busy++; /* until invoke_done */
    amp_status_t st =
        amp_gpu_watch(amp_proc.gpu, amp_pe_self(), stream, invoke_done, r);
    if (st != AMP_OK) {
        rank->ep.dev_busy--;
        amp_req_release(rank, r);
        return amp_mpi_error(rank, NULL, MPI_ERR_OTHER, call,
                             "cannot record an event on the stream "
                             "(argument stream): is it a stream of device "
                             "%d, the one this rank's PE uses (+gpumap)?",
                             amp_gpu_pe_device(amp_proc.gpu, amp_pe_self()));
    }
    *request = AMPI_HANDLE(AMPI_HANDLE_REQUEST, r->obj.idx);
    return MPI_SUCCESS;
}

/* ---- blocking calls on device buffers: the call again on host copies ---- */

static int first_error(int a, int b)
{
    return a != MPI_SUCCESS ? a : b;
}

int amp_gpu_send(amp_rank_t *rank, amp_comm_t *comm, const amp_xfer_t *x,
                 const char *call, amp_p2p_dev_t *dev, int *rc)
{
    amp_stage_t s;
    void *v;
    *rc = stage_p2p(rank, comm, x->buf, x->count, x->dt, 1, x->mode, x->peer,
                    &s, &v, dev, call);
    if (*rc != MPI_SUCCESS || !s.host)
        return *rc != MPI_SUCCESS;
    switch (x->mode) {
    case AMP_SEND_SYNC:
        *rc = PMPI_Ssend(v, x->count, x->dtype, x->peer, x->tag, x->comm_h);
        break;
    case AMP_SEND_READY:
        *rc = PMPI_Rsend(v, x->count, x->dtype, x->peer, x->tag, x->comm_h);
        break;
    case AMP_SEND_BUFFERED:
        *rc = PMPI_Bsend(v, x->count, x->dtype, x->peer, x->tag, x->comm_h);
        break;
    default:
        *rc = PMPI_Send(v, x->count, x->dtype, x->peer, x->tag, x->comm_h);
        break;
    }
    *rc = first_error(*rc, amp_stage_end(rank, comm, &s, 0, call));
    return 1;
}

int amp_gpu_recv(amp_rank_t *rank, amp_comm_t *comm, const amp_xfer_t *x,
                 MPI_Status *status, amp_p2p_dev_t *dev, int *rc)
{
    amp_stage_t s;
    void *v;
    *rc = stage_p2p(rank, comm, x->buf, x->count, x->dt, 0, 0, x->peer, &s, &v,
                    dev, "MPI_Recv");
    if (*rc != MPI_SUCCESS || !s.host)
        return *rc != MPI_SUCCESS;
    MPI_Status local;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
    *rc = PMPI_Recv(v, x->count, x->dtype, x->peer, x->tag, x->comm_h, st);
    size_t n = amp_stage_bytes(&s, (size_t)st->amp_bytes);
    *rc = first_error(*rc, amp_stage_end(rank, comm, &s, n, "MPI_Recv"));
    return 1;
}

int amp_gpu_bcast(amp_rank_t *rank, amp_comm_t *comm, void *buf, int count,
                  const amp_dt_t *dt, MPI_Datatype dtype, int root,
                  MPI_Comm comm_h, int *rc)
{
    amp_stage_t s;
    void *v;
    int at_root = comm->rank == root;
    *rc = amp_stage_begin(rank, comm, buf, count, dt,
                          at_root ? AMP_GPU_SEND : AMP_GPU_RECV, &s, &v,
                          "MPI_Bcast");
    if (*rc != MPI_SUCCESS || !s.host)
        return *rc != MPI_SUCCESS;
    *rc = PMPI_Bcast(v, count, dtype, root, comm_h);
    *rc = first_error(
        *rc, amp_stage_end(rank, comm, &s, at_root ? 0 : s.bytes, "MPI_Bcast"));
    return 1;
}

/* MPI_Reduce (at_root: this rank's recvbuf counts) and MPI_Allreduce. */
int amp_gpu_reduce(amp_rank_t *rank, amp_comm_t *comm,
                   const amp_reduce_args_t *a, const amp_dt_t *dt,
                   MPI_Comm comm_h, int *rc)
{
    const void *sendbuf = a->sendbuf;
    void *recvbuf = a->recvbuf;
    int count = a->count, root = a->root, all = a->all;
    MPI_Datatype dtype = a->dtype;
    MPI_Op op = a->op;
    const char *call = all ? "MPI_Allreduce" : "MPI_Reduce";
    int has_recv = all || comm->rank == root;
    amp_stage_t ss, rs;
    void *sv, *rv = recvbuf;
    rs.host = NULL;
    *rc = amp_stage_begin(rank, comm, sendbuf, count, dt, AMP_GPU_SEND, &ss,
                          &sv, call);
    if (*rc == MPI_SUCCESS && has_recv)
        *rc = amp_stage_begin(rank, comm, recvbuf, count, dt,
                              sendbuf == MPI_IN_PLACE ? AMP_GPU_INOUT
                                                      : AMP_GPU_RECV,
                              &rs, &rv, call);
    if (*rc != MPI_SUCCESS || (!ss.host && !rs.host)) {
        amp_stage_end(rank, comm, &ss, 0, call);
        return *rc != MPI_SUCCESS;
    }
    if (all)
        *rc = PMPI_Allreduce(sv, rv, count, dtype, op, comm_h);
    else
        *rc = PMPI_Reduce(sv, rv, count, dtype, op, root, comm_h);
    *rc = first_error(*rc, amp_stage_end(rank, comm, &ss, 0, call));
    *rc = first_error(*rc, amp_stage_end(rank, comm, &rs, rs.bytes, call));
    return 1;
}

/* ---- several buffers of one operation, copied back when it is done ---- */

struct amp_gpu_op {
    amp_p2p_req_t inner; /* what the operation completes */
    amp_p2p_req_t *outer;
    int n, by_status;
    int pending; /* copies back not yet done (asynchronous end) */
    amp_status_t error;
    amp_stage_t s[AMP_GPU_OP_BUFS];
    int back[AMP_GPU_OP_BUFS]; /* copied back: not a send buffer */
};

void amp_gpu_op_drop(amp_gpu_op_t *op)
{
    if (!op)
        return;
    for (int i = 0; i < op->n; i++)
        amp_gpu_host_put(amp_proc.gpu, amp_pe_self(), op->s[i].host,
                         op->s[i].cap);
    free(op);
}

/* amp_gpu_op_stage; with peer (point-to-point), not staged when p2p moves
 * the buffer itself (*dev set). */
static int op_stage_peer(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t **op,
                         const void *buf, const amp_gpu_span_t *sp, int role,
                         const amp_gpu_peer_t *peer, void **view,
                         amp_p2p_dev_t *dev, const char *call)
{
    amp_stage_t s;
    int rc =
        stage_span(rank, comm, buf, sp, 1, role, peer, &s, view, dev, call);
    if (rc == MPI_SUCCESS && s.host && !*op && !(*op = calloc(1, sizeof(**op))))
        rc = amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call,
                           "out of memory for staging device buffers");
    if (rc == MPI_SUCCESS && s.host && (*op)->n == AMP_GPU_OP_BUFS)
        rc = amp_mpi_error(rank, comm, MPI_ERR_INTERN, call,
                           "more than %d device buffers in one call",
                           AMP_GPU_OP_BUFS);
    if (rc != MPI_SUCCESS) {
        if (s.host)
            amp_gpu_host_put(amp_proc.gpu, amp_pe_self(), s.host, s.cap);
        amp_gpu_op_drop(*op);
        *op = NULL;
        *view = (void *)buf;
        return rc;
    }
    if (s.host) {
        (*op)->s[(*op)->n] = s;
        (*op)->back[(*op)->n++] = role != AMP_GPU_SEND;
    }
    return MPI_SUCCESS;
}

int amp_gpu_op_stage(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t **op,
                     const void *buf, const amp_gpu_span_t *sp, int role,
                     void **view, const char *call)
{
    return op_stage_peer(rank, comm, op, buf, sp, role, NULL, view, NULL, call);
}

int amp_gpu_op_stage_p2p(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t **op,
                         const void *buf, int count, const amp_dt_t *dt,
                         int send, int mode, int peer, void **view,
                         amp_p2p_dev_t *dev, const char *call)
{
    amp_gpu_span_t sp;
    amp_gpu_peer_t pr;
    p2p_span(comm, peer, count, dt, send, mode, &sp, &pr);
    return op_stage_peer(rank, comm, op, buf, &sp,
                         send ? AMP_GPU_SEND : AMP_GPU_RECV, &pr, view, dev,
                         call);
}

int amp_gpu_op_stage_dt(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t **op,
                        const void *buf, int count, const amp_dt_t *dt,
                        int role, void **view, const char *call)
{
    amp_gpu_span_t sp = {0, 0, 1};
    if (count > 0)
        amp_gpu_span_dt(&sp, count, dt);
    return amp_gpu_op_stage(rank, comm, op, buf, &sp, role, view, call);
}

/* The bytes of stage i to copy back after received bytes arrived (NULL:
 * all of it). */
static size_t op_back_bytes(const amp_gpu_op_t *op, int i,
                            const size_t *received)
{
    if (!op->back[i])
        return 0;
    return received ? amp_stage_bytes(&op->s[i], *received) : op->s[i].bytes;
}

int amp_gpu_op_finish(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t *op,
                      const size_t *received, const char *call)
{
    if (!op)
        return MPI_SUCCESS;
    amp_status_t st = AMP_OK;
    for (int i = 0; i < op->n && st == AMP_OK; i++) {
        size_t n = op_back_bytes(op, i, received);
        if (n > 0)
            st = copy_wait(rank, op->s[i].dev, op->s[i].host, n);
    }
    amp_gpu_op_drop(op);
    if (st != AMP_OK)
        return amp_mpi_error(rank, comm, MPI_ERR_OTHER, call,
                             "copying received data to the CUDA device "
                             "failed");
    return MPI_SUCCESS;
}

/* The last copy back is done: outer completes with the operation's status
 * (on the PE where the operation completed, its owner's). */
static void op_complete(amp_gpu_op_t *op)
{
    amp_p2p_req_t *o = op->outer, *in = &op->inner;
    o->error = in->error != AMP_OK ? in->error : op->error;
    o->cancelled = in->cancelled;
    o->st_source = in->st_source;
    o->st_tag = in->st_tag;
    o->st_bytes = in->st_bytes;
    o->owner->dev_busy--;
    amp_gpu_op_drop(op);
    amp_p2p_req_complete(o);
}

static void op_copied(void *arg, amp_status_t st)
{
    amp_gpu_op_t *op = arg;
    if (st != AMP_OK && op->error == AMP_OK)
        op->error = st;
    if (--op->pending == 0)
        op_complete(op);
}

/* The operation is done: queue the copies back. */
static void op_done(amp_p2p_req_t *p)
{
    amp_gpu_op_t *op = AMP_CONTAINER_OF(p, amp_gpu_op_t, inner);
    size_t got = p->st_bytes;
    op->outer->owner->dev_busy++; /* until op_complete */
    op->pending = 1;              /* until every copy is queued */
    for (int i = 0; i < op->n; i++) {
        size_t n = p->cancelled
                       ? 0
                       : op_back_bytes(op, i, op->by_status ? &got : NULL);
        if (n == 0)
            continue;
        op->pending++;
        amp_status_t st =
            amp_gpu_copy(amp_proc.gpu, amp_pe_self(), op->s[i].dev,
                         op->s[i].host, n, op_copied, op);
        if (st != AMP_OK)
            op_copied(op, st);
    }
    op_copied(op, AMP_OK);
}

amp_p2p_req_t *amp_gpu_op_start(amp_rank_t *rank, amp_gpu_op_t *op,
                                amp_p2p_req_t *outer, int by_status)
{
    if (!op)
        return outer;
    op->outer = outer;
    op->by_status = by_status;
    amp_p2p_req_init_pending(&rank->ep, outer);
    op->inner.on_done = op_done;
    amp_p2p_req_init_pending(&rank->ep, &op->inner);
    return &op->inner;
}

/* ---- device buffers where a call does not stage them ---- */

int amp_gpu_is_device_buf(const void *buf)
{
    amp_gpu_range_t r;
    return amp_proc.gpu && buf && buf != MPI_IN_PLACE &&
           amp_gpu_is_device(amp_proc.gpu, amp_pe_self(), buf, &r);
}

int amp_gpu_refuse(amp_rank_t *rank, amp_comm_t *comm, const void *buf,
                   const char *call, const char *arg, const char *why)
{
    if (!amp_gpu_is_device_buf(buf))
        return MPI_SUCCESS;
    return amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                         "a CUDA device buffer (argument %s) is not "
                         "supported here: %s",
                         arg, why);
}

/* ---- packing ---- */

int amp_gpu_pack_stage(amp_rank_t *rank, amp_comm_t *comm, void **typed,
                       int count, const amp_dt_t *dt, void **packed, size_t pos,
                       size_t bytes, int packing, amp_gpu_op_t **op,
                       const char *call)
{
    void *v;
    amp_gpu_span_t sp = {(ptrdiff_t)pos, bytes, 1};
    int rc =
        amp_gpu_op_stage_dt(rank, comm, op, *typed, count, dt,
                            packing ? AMP_GPU_SEND : AMP_GPU_RECV, &v, call);
    *typed = v;
    if (rc == MPI_SUCCESS) {
        rc = amp_gpu_op_stage(rank, comm, op, *packed, &sp,
                              packing ? AMP_GPU_RECV : AMP_GPU_SEND, &v, call);
        *packed = v;
    }
    return rc;
}
