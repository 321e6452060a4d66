/*
 * CUDA device buffers of MPI calls (gpu.c): staged through pinned host
 * memory, or handed to p2p, which moves them itself.
 */
#ifndef AMP_MPI_STAGE_H
#define AMP_MPI_STAGE_H

#include "mpi/comm/comm.h"
#include "mpi/pt2pt/request.h"

#include "gpu/stage.h"

/* ---- CUDA device buffers (gpu.c; only when amp_proc.gpu is set) ----
 * The mechanism is gpu/'s (gpu/stage.h: host copies, the staging
 * descriptor, the buffers of one operation); here, what needs MPI. */

/* The staging descriptor of a point-to-point buffer: count elements of dt
 * at buf, a send in mode to peer (send) or a receive from peer (ranks of
 * comm, MPI_ANY_SOURCE or MPI_PROC_NULL): one that p2p moves itself (the
 * direct path, amp_gpu_path_choose) is not staged. */
amp_gpu_stage_desc_t amp_stage_p2p_desc(const amp_comm_t *comm, const void *buf,
                                        int count, const amp_dt_t *dt, int send,
                                        int mode, int peer);
/* amp_req_start of a send or receive: *view is the buffer to move and *p
 * the p2p request to start (r's own, or, when r's buffer is staged device
 * memory, one that completes r once the data is back on the device);
 * dev->gpu set (dev->gpu NULL on entry): device memory that p2p moves
 * itself (amp_p2p_isend_dev / amp_p2p_irecv_dev, the peer in this
 * process). */
int amp_gpu_req_stage(amp_rank_t *rank, amp_comm_t *comm, amp_req_t *r,
                      const char *call, void **view, amp_p2p_req_t **p,
                      amp_p2p_dev_t *dev);
/* Blocking calls whose buffers may be device memory: each returns 0 when
 * none is staged (the caller goes on, with p2p moving the device memory
 * itself when dev->gpu is set, as for amp_gpu_req_stage), else 1 with
 * *rc, the call made again on host copies. */
int amp_gpu_send(amp_rank_t *rank, amp_comm_t *comm, const amp_xfer_t *x,
                 const char *call, amp_p2p_dev_t *dev, int *rc);
int amp_gpu_recv(amp_rank_t *rank, amp_comm_t *comm, const amp_xfer_t *x,
                 MPI_Status *status, amp_p2p_dev_t *dev, int *rc);
/* MPI_Bcast: x->peer is the root. */
int amp_gpu_bcast(amp_rank_t *rank, amp_comm_t *comm, const amp_xfer_t *x,
                  int *rc);
int amp_gpu_reduce(amp_rank_t *rank, amp_comm_t *comm,
                   const amp_reduce_args_t *a, const amp_dt_t *dt,
                   MPI_Comm comm_h, int *rc);

/* The buffers of one operation staged together (up to AMP_GPU_OP_BUFS,
 * gpu/stage.h), with what to copy back to the device when it is done.
 * Each caller holds an amp_gpu_op_t * that stays NULL (and costs nothing)
 * while no buffer is device memory. */

/* When d's buffer is device memory, stages it into *op (made on the first
 * device buffer) and sets *view to the buffer's place in the host copy;
 * otherwise *view = the buffer.  An operation copies back the bytes
 * received (d.elem does not count).  On an error *op is released and
 * NULL. */
int amp_gpu_op_stage(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t **op,
                     amp_gpu_stage_desc_t d, void **view, const char *call);
/* The same for a point-to-point half of a send-receive (d from
 * amp_stage_p2p_desc): a device buffer that p2p moves itself is not
 * staged but *dev says its device, and *view = the buffer. */
int amp_gpu_op_stage_p2p(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t **op,
                         amp_gpu_stage_desc_t d, void **view,
                         amp_p2p_dev_t *dev, const char *call);
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
