/*
 * CUDA device buffers at the MPI boundary, and GPU work as MPI requests
 * (docs/gpu.md).
 *
 * A device buffer is staged: the span its elements cover is copied to a
 * pinned host buffer (or back) on the PE's high-priority stream, and the
 * host path runs on that copy, unchanged.  The rank waits for a copy as for
 * a message, blocked in the scheduler, whose loop polls the copy's event:
 * the PE runs other ranks meanwhile.  Copies in are made before the call
 * starts its messages, so that messages keep MPI's order; copies back are
 * queued when the data has arrived, and the request completes when they
 * are done.
 */
#include "mpi/impl.h"

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

/* ---- staging ---- */

int amp_stage_begin(amp_rank_t *rank, amp_comm_t *comm, const void *buf,
                    int count, const amp_dt_t *dt, int role, amp_stage_t *s,
                    void **view, const char *call)
{
    s->host = NULL;
    *view = (void *)buf;
    if (!buf || buf == MPI_IN_PLACE || count <= 0)
        return MPI_SUCCESS;
    amp_gpu_span_t sp;
    amp_gpu_span_of(count, dt->size, dt->extent, dt->true_lb, dt->true_extent,
                    dt->contig, &sp);
    char *first = (char *)buf + sp.lo;
    amp_gpu_range_t r;
    int dev = sp.bytes > 0 &&
              amp_gpu_is_device(amp_proc.gpu, amp_pe_self(), first, &r);
    int fetch;
    if (amp_gpu_path_select(dev, role, &sp, &fetch) == AMP_GPU_PATH_HOST)
        return MPI_SUCCESS;
    if ((uintptr_t)first - r.start + sp.bytes > r.size)
        return amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                             "the data (%zu bytes from %p) runs past the end "
                             "of its CUDA allocation (%zu bytes from %#lx)",
                             sp.bytes, (void *)first, r.size,
                             (unsigned long)r.start);
    s->host = amp_gpu_host_get(amp_proc.gpu, amp_pe_self(), sp.bytes, &s->cap);
    if (!s->host)
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call,
                             "cannot allocate %zu bytes of pinned host memory "
                             "to stage a device buffer",
                             sp.bytes);
    s->dev = first;
    s->bytes = sp.bytes;
    s->dense = sp.dense;
    s->elem = dt->size;
    if (fetch && copy_wait(rank, s->host, s->dev, s->bytes) != AMP_OK) {
        amp_gpu_host_put(amp_proc.gpu, amp_pe_self(), s->host, s->cap);
        s->host = NULL;
        return amp_mpi_error(rank, comm, MPI_ERR_OTHER, call,
                             "copying %zu bytes from the CUDA device failed",
                             sp.bytes);
    }
    *view = s->host - sp.lo;
    return MPI_SUCCESS;
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
    if (st != AMP_OK && r->p2p.error == AMP_OK)
        r->p2p.error = st;
    amp_gpu_host_put(amp_proc.gpu, amp_pe_self(), w->s.host, w->s.cap);
    free(w);
    amp_p2p_req_complete(&r->p2p);
}

static void staged_stored(void *arg, amp_status_t st)
{
    staged_finish(arg, st);
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
    amp_status_t st = amp_gpu_copy(amp_proc.gpu, amp_pe_self(), w->s.dev,
                                   w->s.host, n, staged_stored, w);
    if (st != AMP_OK)
        staged_finish(w, st);
}

int amp_gpu_req_stage(amp_rank_t *rank, amp_comm_t *comm, amp_req_t *r,
                      const char *call, void **view, amp_p2p_req_t **p)
{
    amp_stage_t s;
    int send = r->kind == AMP_REQ_SEND;
    *p = &r->p2p;
    int rc =
        amp_stage_begin(rank, comm, r->buf, r->count, r->dt,
                        send ? AMP_GPU_SEND : AMP_GPU_RECV, &s, view, call);
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
    return MPI_SUCCESS;
}

/* ---- GPU work as a request ---- */

static void invoke_done(void *arg, amp_status_t st)
{
    amp_req_t *r = arg;
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
    amp_status_t st =
        amp_gpu_watch(amp_proc.gpu, amp_pe_self(), stream, invoke_done, r);
    if (st != AMP_OK) {
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

int amp_gpu_send(amp_rank_t *rank, amp_comm_t *comm, const void *buf, int count,
                 const amp_dt_t *dt, MPI_Datatype dtype, int dest, int tag,
                 MPI_Comm comm_h, int mode, const char *call, int *rc)
{
    amp_stage_t s;
    void *v;
    *rc =
        amp_stage_begin(rank, comm, buf, count, dt, AMP_GPU_SEND, &s, &v, call);
    if (*rc != MPI_SUCCESS || !s.host)
        return *rc != MPI_SUCCESS;
    switch (mode) {
    case AMP_SEND_SYNC:
        *rc = PMPI_Ssend(v, count, dtype, dest, tag, comm_h);
        break;
    case AMP_SEND_READY:
        *rc = PMPI_Rsend(v, count, dtype, dest, tag, comm_h);
        break;
    case AMP_SEND_BUFFERED:
        *rc = PMPI_Bsend(v, count, dtype, dest, tag, comm_h);
        break;
    default: *rc = PMPI_Send(v, count, dtype, dest, tag, comm_h); break;
    }
    *rc = first_error(*rc, amp_stage_end(rank, comm, &s, 0, call));
    return 1;
}

int amp_gpu_recv(amp_rank_t *rank, amp_comm_t *comm, void *buf, int count,
                 const amp_dt_t *dt, MPI_Datatype dtype, int source, int tag,
                 MPI_Comm comm_h, MPI_Status *status, int *rc)
{
    amp_stage_t s;
    void *v;
    *rc = amp_stage_begin(rank, comm, buf, count, dt, AMP_GPU_RECV, &s, &v,
                          "MPI_Recv");
    if (*rc != MPI_SUCCESS || !s.host)
        return *rc != MPI_SUCCESS;
    MPI_Status local;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
    *rc = PMPI_Recv(v, count, dtype, source, tag, comm_h, st);
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
int amp_gpu_reduce(amp_rank_t *rank, amp_comm_t *comm, const void *sendbuf,
                   void *recvbuf, int count, const amp_dt_t *dt,
                   MPI_Datatype dtype, MPI_Op op, int root, int all,
                   MPI_Comm comm_h, int *rc)
{
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
