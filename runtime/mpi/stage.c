/*
 * CUDA device buffers of MPI calls: what staging needs of MPI
 * (docs/gpu.md).
 *
 * p2p/stage.h decides, with one lookup, whether a buffer is host memory
 * (the call goes straight on), device memory that p2p moves itself, or
 * device memory staged through a pinned host copy.  Here: MPI_IN_PLACE
 * and NULL buffers left alone, a failure turned into the call's error
 * class and message, and the end of a staged operation.  The calls made
 * again on host copies are their chapters' (pt2pt/device.c,
 * coll/device.c).
 */
#include "mpi/stage.h"

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

/* A buffer that names no data: nothing to stage. */
static int no_data(const void *buf)
{
    return !buf || buf == MPI_IN_PLACE;
}

int amp_stage_begin(amp_rank_t *rank, amp_comm_t *comm,
                    const amp_stage_buf_t *b, amp_gpu_stage_t *s, void **view,
                    amp_p2p_dev_t *dev, const char *call)
{
    amp_gpu_staged_t out;
    s->host = NULL;
    *view = (void *)b->d.buf;
    if (no_data(b->d.buf))
        return MPI_SUCCESS;
    if (amp_p2p_stage_begin(&rank->ep, &b->d, b->peer, s, &out, dev) != AMP_OK)
        return stage_error(rank, comm, &b->d, &out, call);
    *view = out.view;
    return MPI_SUCCESS;
}

int amp_stage_end(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_stage_t *s,
                  size_t bytes, const char *call)
{
    if (amp_gpu_stage_end(amp_proc.gpu, s, bytes) != AMP_OK)
        return amp_mpi_error(rank, comm, MPI_ERR_OTHER, call,
                             "copying %zu bytes to the CUDA device failed",
                             bytes);
    return MPI_SUCCESS;
}

/* ---- several buffers of one operation, copied back when it is done ---- */

void amp_gpu_op_drop(amp_gpu_op_t *op)
{
    amp_p2p_stage_op_free(op);
}

/* The error of a failed amp_p2p_stage_op_add of d (out: what it
 * found). */
static int op_error(amp_rank_t *rank, amp_comm_t *comm,
                    const amp_gpu_stage_desc_t *d, const amp_gpu_staged_t *out,
                    const char *call)
{
    if (out->failed == AMP_P2P_STAGE_OP_MEM)
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call,
                             "out of memory for staging device buffers");
    if (out->failed == AMP_P2P_STAGE_OP_FULL)
        return amp_mpi_error(rank, comm, MPI_ERR_INTERN, call,
                             "more than %d device buffers in one call",
                             AMP_GPU_OP_BUFS);
    return stage_error(rank, comm, d, out, call);
}

int amp_stage_op_add(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t **op,
                     const amp_stage_buf_t *b, void **view, amp_p2p_dev_t *dev,
                     const char *call)
{
    amp_gpu_staged_t out;
    *view = (void *)b->d.buf;
    if (no_data(b->d.buf))
        return MPI_SUCCESS;
    if (amp_p2p_stage_op_add(&rank->ep, op, &b->d, b->peer, &out, dev) !=
        AMP_OK)
        return op_error(rank, comm, &b->d, &out, call);
    *view = out.view;
    return MPI_SUCCESS;
}

int amp_gpu_op_stage(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t **op,
                     amp_gpu_stage_desc_t d, void **view, const char *call)
{
    amp_stage_buf_t b = {d, AMP_P2P_STAGE_NO_PEER};
    return amp_stage_op_add(rank, comm, op, &b, view, NULL, call);
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
