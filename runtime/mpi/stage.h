/*
 * CUDA device buffers of MPI calls (stage.c): p2p/stage.h's staging with
 * the calls' errors.  Each caller holds an amp_gpu_op_t * or an
 * amp_gpu_stage_t that stays unused (and costs one lookup) while its
 * buffers are host memory; nothing here runs while the process is
 * host-only (amp_proc.gpu NULL).
 */
#ifndef AMP_MPI_STAGE_H
#define AMP_MPI_STAGE_H

#include "mpi/call.h"
#include "mpi/request.h"

#include "p2p/stage.h"

/* A buffer of a call and, for a point-to-point buffer (d.p2p), the world
 * rank of its peer (-1: any source; AMP_P2P_STAGE_NO_PEER: none). */
typedef struct amp_stage_buf {
    amp_gpu_stage_desc_t d;
    int peer;
} amp_stage_buf_t;

/* One buffer of a blocking call: stages b's buffer into *s (s->host NULL:
 * not staged) and sets *view to where the call finds the data; a
 * point-to-point buffer that p2p moves itself is not staged: *dev says its
 * device instead (dev NULL: not point-to-point).  NULL and MPI_IN_PLACE
 * are left alone. */
int amp_stage_begin(amp_rank_t *rank, amp_comm_t *comm,
                    const amp_stage_buf_t *b, amp_gpu_stage_t *s, void **view,
                    amp_p2p_dev_t *dev, const char *call);
/* Copies bytes of s back to the device (0: none) and gives the host copy
 * back; nothing when s is not staged. */
int amp_stage_end(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_stage_t *s,
                  size_t bytes, const char *call);

/* The buffers of one operation staged together (up to AMP_GPU_OP_BUFS,
 * gpu/stage.h), with what to copy back to the device when it is done. */

/* amp_stage_begin for one buffer of an operation, staged into *op (made
 * on the first device buffer): an operation copies back the bytes
 * received (d.elem does not count).  On an error *op is released and
 * NULL. */
int amp_stage_op_add(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t **op,
                     const amp_stage_buf_t *b, void **view, amp_p2p_dev_t *dev,
                     const char *call);
/* amp_stage_op_add of a buffer that is not point-to-point. */
int amp_gpu_op_stage(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t **op,
                     amp_gpu_stage_desc_t d, void **view, const char *call);
/* Asynchronous end: outer is made pending and the returned request (op's
 * own) is the one to hand to the operation; when it completes, what was
 * received is copied back (by_status: the bytes its status counts, else
 * whole spans), its status goes to outer and outer completes.  op NULL:
 * returns outer untouched. */
amp_p2p_req_t *amp_gpu_op_start(amp_rank_t *rank, amp_gpu_op_t *op,
                                amp_p2p_req_t *outer, int by_status);
/* Blocking end: copies back what was received (*received bytes, or whole
 * spans when received is NULL), waiting without blocking the PE, and
 * releases op.  op NULL: nothing. */
int amp_gpu_op_finish(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t *op,
                      const size_t *received, const char *call);
/* Releases op without copying anything back (op NULL: nothing). */
void amp_gpu_op_drop(amp_gpu_op_t *op);
/* Whether buf is device memory (amp_proc.gpu set). */
int amp_gpu_is_device_buf(const void *buf);
/* MPI_ERR_BUFFER naming call and arg when buf is device memory, where the
 * call cannot stage it (why says so); MPI_SUCCESS otherwise. */
int amp_gpu_refuse(amp_rank_t *rank, amp_comm_t *comm, const void *buf,
                   const char *call, const char *arg, const char *why);

#endif
