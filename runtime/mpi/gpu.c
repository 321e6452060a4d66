/*
 * CUDA device buffers at the MPI boundary, and GPU work as MPI requests
 * (docs/gpu.md).
 *
 * A point-to-point buffer of device memory whose peer p2p can reach with
 * the GPU goes to p2p as it is, and p2p moves it itself (p2p.h); any other
 * device buffer is staged through a pinned host copy (gpu/stage.h), and
 * the host path runs on that copy, unchanged.  What is here needs MPI: the
 * descriptors of the calls' buffers (the peer of a point-to-point buffer
 * is a rank of a communicator), the error classes and messages naming the
 * call, the blocking calls made again on host copies, and GPU work as a
 * request (AMPI_GPU_Iinvoke).  The copies back of nonblocking calls chain
 * on their requests in p2p (p2p.h, amp_p2p_stage_req and
 * amp_p2p_stage_op_start).
 */
#include "mpi/comm/comm.h"
#include "mpi/stage.h"

#include "gpu/gpu.h"

/* ---- staging ---- */

/* The error of a failed amp_gpu_stage_begin of d (out: what it found). */
static int stage_error(amp_rank_t *rank, amp_comm_t *comm,
                       const amp_gpu_stage_desc_t *d,
                       const amp_gpu_staged_t *out, const char *call)
{
    const amp_gpu_span_t *sp = &d->span;
    switch (out->failed) {
    case AMP_GPU_STAGE_RANGE:
        return amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                             "the data (%zu bytes from %p) runs past the end "
                             "of its CUDA allocation (%zu bytes from %#lx)",
                             sp->bytes, (void *)((char *)d->buf + sp->lo),
                             out->range.size, (unsigned long)out->range.start);
    case AMP_GPU_STAGE_ORDER:
        return amp_mpi_error(rank, comm, MPI_ERR_OTHER, call,
                             "the CUDA device failed the work queued "
                             "before the call on the default stream");
    case AMP_GPU_STAGE_HOST:
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call,
                             "cannot allocate %zu bytes of pinned host memory "
                             "to stage a device buffer",
                             sp->bytes);
    default:
        return amp_mpi_error(rank, comm, MPI_ERR_OTHER, call,
                             "copying %zu bytes from the CUDA device failed",
                             sp->bytes);
    }
}

/* Stages d's buffer into s (s->host NULL: not staged) and sets *view to
 * where the call finds the data.  A point-to-point buffer (d->p2p) that
 * p2p can move itself (amp_gpu_path_choose) is not staged: *dev says its
 * device instead. */
static int stage_span(amp_rank_t *rank, amp_comm_t *comm,
                      const amp_gpu_stage_desc_t *d, amp_gpu_stage_t *s,
                      void **view, amp_p2p_dev_t *dev, const char *call)
{
    s->host = NULL;
    *view = (void *)d->buf;
    if (!d->buf || d->buf == MPI_IN_PLACE || d->span.bytes == 0)
        return MPI_SUCCESS;
    amp_gpu_staged_t out;
    if (amp_gpu_stage_begin(amp_proc.gpu, d, s, &out) != AMP_OK)
        return stage_error(rank, comm, d, &out, call);
    if (out.direct) {
        dev->gpu = amp_proc.gpu;
        dev->device = out.device;
    }
    *view = out.view;
    return MPI_SUCCESS;
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

amp_gpu_stage_desc_t amp_stage_p2p_desc(const amp_comm_t *comm, const void *buf,
                                        int count, const amp_dt_t *dt, int send,
                                        int mode, int peer)
{
    amp_gpu_stage_desc_t d =
        amp_gpu_stage_dt(buf, count, dt, send ? AMP_GPU_SEND : AMP_GPU_RECV);
    d.p2p = 1;
    p2p_peer(comm, peer, send, mode, dt->size * (size_t)count, &d.peer);
    return d;
}

/* Copies bytes of the span back to the device (0: none) and releases the
 * host copy; nothing when s is not staged. */
static int stage_end(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_stage_t *s,
                     size_t bytes, const char *call)
{
    if (amp_gpu_stage_end(amp_proc.gpu, s, bytes) != AMP_OK)
        return amp_mpi_error(rank, comm, MPI_ERR_OTHER, call,
                             "copying %zu bytes to the CUDA device failed",
                             bytes);
    return MPI_SUCCESS;
}

/* ---- nonblocking point-to-point on device buffers ---- */

int amp_gpu_req_stage(amp_rank_t *rank, amp_comm_t *comm, amp_req_t *r,
                      const char *call, void **view, amp_p2p_req_t **p,
                      amp_p2p_dev_t *dev)
{
    amp_gpu_stage_t s;
    int send = r->kind == AMP_REQ_SEND;
    *p = &r->p2p;
    r->staged = NULL;
    amp_gpu_stage_desc_t d = amp_stage_p2p_desc(comm, r->buf, r->count, r->dt,
                                                send, r->mode, r->peer);
    int rc = stage_span(rank, comm, &d, &s, view, dev, call);
    if (rc != MPI_SUCCESS || !s.host)
        return rc;
    amp_p2p_req_t *in = amp_p2p_stage_req(&rank->ep, amp_proc.gpu, &s, send,
                                          &r->p2p, &r->staged);
    if (!in) {
        stage_end(rank, comm, &s, 0, call);
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call,
                             "out of memory for a request");
    }
    *p = in;
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
    amp_sched_go_home();
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
    amp_gpu_stage_t s;
    void *v;
    amp_gpu_stage_desc_t d =
        amp_stage_p2p_desc(comm, x->buf, x->count, x->dt, 1, x->mode, x->peer);
    *rc = stage_span(rank, comm, &d, &s, &v, dev, call);
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
    *rc = first_error(*rc, stage_end(rank, comm, &s, 0, call));
    return 1;
}

int amp_gpu_recv(amp_rank_t *rank, amp_comm_t *comm, const amp_xfer_t *x,
                 MPI_Status *status, amp_p2p_dev_t *dev, int *rc)
{
    amp_gpu_stage_t s;
    void *v;
    amp_gpu_stage_desc_t d =
        amp_stage_p2p_desc(comm, x->buf, x->count, x->dt, 0, 0, x->peer);
    *rc = stage_span(rank, comm, &d, &s, &v, dev, "MPI_Recv");
    if (*rc != MPI_SUCCESS || !s.host)
        return *rc != MPI_SUCCESS;
    MPI_Status local;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
    *rc = PMPI_Recv(v, x->count, x->dtype, x->peer, x->tag, x->comm_h, st);
    size_t n = amp_gpu_stage_bytes(&s, (size_t)st->amp_bytes);
    *rc = first_error(*rc, stage_end(rank, comm, &s, n, "MPI_Recv"));
    return 1;
}

int amp_gpu_bcast(amp_rank_t *rank, amp_comm_t *comm, const amp_xfer_t *x,
                  int *rc)
{
    amp_gpu_stage_t s;
    void *v;
    int root = x->peer, at_root = comm->rank == root;
    amp_gpu_stage_desc_t d = amp_gpu_stage_dt(
        x->buf, x->count, x->dt, at_root ? AMP_GPU_SEND : AMP_GPU_RECV);
    *rc = stage_span(rank, comm, &d, &s, &v, NULL, "MPI_Bcast");
    if (*rc != MPI_SUCCESS || !s.host)
        return *rc != MPI_SUCCESS;
    *rc = PMPI_Bcast(v, x->count, x->dtype, root, x->comm_h);
    *rc = first_error(
        *rc, stage_end(rank, comm, &s, at_root ? 0 : s.bytes, "MPI_Bcast"));
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
    amp_gpu_stage_t ss, rs;
    void *sv, *rv = recvbuf;
    rs.host = NULL;
    amp_gpu_stage_desc_t d = amp_gpu_stage_dt(sendbuf, count, dt, AMP_GPU_SEND);
    *rc = stage_span(rank, comm, &d, &ss, &sv, NULL, call);
    if (*rc == MPI_SUCCESS && has_recv) {
        d = amp_gpu_stage_dt(recvbuf, count, dt,
                             sendbuf == MPI_IN_PLACE ? AMP_GPU_INOUT
                                                     : AMP_GPU_RECV);
        *rc = stage_span(rank, comm, &d, &rs, &rv, NULL, call);
    }
    if (*rc != MPI_SUCCESS || (!ss.host && !rs.host)) {
        stage_end(rank, comm, &ss, 0, call);
        return *rc != MPI_SUCCESS;
    }
    if (all)
        *rc = PMPI_Allreduce(sv, rv, count, dtype, op, comm_h);
    else
        *rc = PMPI_Reduce(sv, rv, count, dtype, op, root, comm_h);
    *rc = first_error(*rc, stage_end(rank, comm, &ss, 0, call));
    *rc = first_error(*rc, stage_end(rank, comm, &rs, rs.bytes, call));
    return 1;
}

/* ---- several buffers of one operation, copied back when it is done ---- */

void amp_gpu_op_drop(amp_gpu_op_t *op)
{
    amp_p2p_stage_op_free(op);
}

/* Stages d's buffer into *op (made on the first device buffer); with
 * dev, a point-to-point buffer (d->p2p) is not staged when p2p moves it
 * itself (*dev set).  An operation copies back the bytes received, not
 * whole elements (elem 1).  On an error *op is released and NULL. */
static int op_stage_peer(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t **op,
                         const amp_gpu_stage_desc_t *d, void **view,
                         amp_p2p_dev_t *dev, const char *call)
{
    amp_gpu_stage_t s;
    amp_gpu_stage_desc_t e = *d;
    e.elem = 1;
    int rc = stage_span(rank, comm, &e, &s, view, dev, call);
    if (rc == MPI_SUCCESS && s.host && !*op &&
        !(*op = amp_p2p_stage_op_new(amp_proc.gpu)))
        rc = amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call,
                           "out of memory for staging device buffers");
    if (rc == MPI_SUCCESS && s.host &&
        amp_gpu_op_add(*op, &s, d->role) != AMP_OK)
        rc = amp_mpi_error(rank, comm, MPI_ERR_INTERN, call,
                           "more than %d device buffers in one call",
                           AMP_GPU_OP_BUFS);
    if (rc != MPI_SUCCESS) {
        if (s.host)
            amp_gpu_stage_release(amp_proc.gpu, &s);
        amp_gpu_op_drop(*op);
        *op = NULL;
        *view = (void *)d->buf;
        return rc;
    }
    return MPI_SUCCESS;
}

int amp_gpu_op_stage(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t **op,
                     amp_gpu_stage_desc_t d, void **view, const char *call)
{
    return op_stage_peer(rank, comm, op, &d, view, NULL, call);
}

int amp_gpu_op_stage_p2p(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t **op,
                         amp_gpu_stage_desc_t d, void **view,
                         amp_p2p_dev_t *dev, const char *call)
{
    return op_stage_peer(rank, comm, op, &d, view, dev, call);
}

int amp_gpu_op_finish(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t *op,
                      const size_t *received, const char *call)
{
    if (!op)
        return MPI_SUCCESS;
    amp_status_t st = amp_gpu_op_wait_back(op, received);
    amp_gpu_op_drop(op);
    if (st != AMP_OK)
        return amp_mpi_error(rank, comm, MPI_ERR_OTHER, call,
                             "copying received data to the CUDA device "
                             "failed");
    return MPI_SUCCESS;
}

amp_p2p_req_t *amp_gpu_op_start(amp_rank_t *rank, amp_gpu_op_t *op,
                                amp_p2p_req_t *outer, int by_status)
{
    if (!op)
        return outer;
    return amp_p2p_stage_op_start(&rank->ep, op, outer, by_status);
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
