/*
 * Point-to-point buffers of CUDA device memory (device.h, docs/gpu.md): a
 * buffer p2p moves itself goes to it as it is; any other device buffer is
 * staged through a pinned host copy (../stage.h), a blocking call being
 * made again on the copy, a nonblocking one chaining the copy back on its
 * request (p2p/stage.h).  And GPU work as a request (AMPI_GPU_Iinvoke).
 */
#include "mpi/pt2pt/device.h"

/* ---- the buffer of a point-to-point call ---- */

amp_stage_buf_t amp_stage_p2p_desc(amp_rank_t *rank, const amp_comm_t *comm,
                                   const amp_xfer_t *x, int send)
{
    int use = AMP_P2P_STAGE_RECV;
    if (send)
        use = x->mode == AMP_SEND_SYNC       ? AMP_P2P_STAGE_SSEND
              : x->mode == AMP_SEND_BUFFERED ? AMP_P2P_STAGE_BSEND
                                             : AMP_P2P_STAGE_SEND;
    amp_stage_buf_t b = {
        amp_p2p_stage_desc(&rank->ep, x->buf, x->count, x->dt, use),
        AMP_P2P_STAGE_NO_PEER};
    if (x->peer != MPI_PROC_NULL)
        b.peer = x->peer == MPI_ANY_SOURCE ? -1
                                           : amp_comm_peer_world(comm, x->peer);
    return b;
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
    amp_stage_buf_t b = amp_stage_p2p_desc(rank, comm,
                                           &(amp_xfer_t){.buf = r->buf,
                                                         .count = r->count,
                                                         .dt = r->dt,
                                                         .peer = r->peer,
                                                         .mode = r->mode},
                                           send);
    int rc = amp_stage_begin(rank, comm, &b, &s, view, dev, call);
    if (rc != MPI_SUCCESS || !s.host)
        return rc;
    amp_p2p_req_t *in = amp_p2p_stage_req(&rank->ep, amp_proc.gpu, &s, send,
                                          &r->p2p, &r->staged);
    if (!in) {
        amp_stage_end(rank, comm, &s, 0, call);
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call,
                             "out of memory for a request");
    }
    *p = in;
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
    amp_stage_buf_t b = amp_stage_p2p_desc(rank, comm, x, 1);
    *rc = amp_stage_begin(rank, comm, &b, &s, &v, dev, call);
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
    amp_gpu_stage_t s;
    void *v;
    amp_stage_buf_t b = amp_stage_p2p_desc(rank, comm, x, 0);
    *rc = amp_stage_begin(rank, comm, &b, &s, &v, dev, "MPI_Recv");
    if (*rc != MPI_SUCCESS || !s.host)
        return *rc != MPI_SUCCESS;
    MPI_Status local;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
    *rc = PMPI_Recv(v, x->count, x->dtype, x->peer, x->tag, x->comm_h, st);
    size_t n = amp_gpu_stage_bytes(&s, (size_t)st->amp_bytes);
    *rc = first_error(*rc, amp_stage_end(rank, comm, &s, n, "MPI_Recv"));
    return 1;
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

