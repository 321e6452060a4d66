/*
 * Point-to-point buffers of CUDA device memory (device.c): on the direct
 * path (p2p moves them itself) or staged through host copies
 * (../stage.h), and GPU work as a request (AMPI_GPU_Iinvoke).
 */
#ifndef AMP_MPI_PT2PT_DEVICE_H
#define AMP_MPI_PT2PT_DEVICE_H

#include "mpi/comm/comm.h"
#include "mpi/pt2pt/request.h"
#include "mpi/stage.h"

/* The buffer of x, sent (send, in x->mode) or received, with its peer
 * (x->peer, a rank of comm, MPI_ANY_SOURCE or MPI_PROC_NULL). */
amp_stage_buf_t amp_stage_p2p_desc(amp_rank_t *rank, const amp_comm_t *comm,
                                   const amp_xfer_t *x, int send);
/* amp_req_start of a send or receive: *view is the buffer to move and *p
 * the p2p request to start (r's own, or, when r's buffer is staged device
 * memory, one that completes r once the data is back on the device);
 * dev->gpu set (dev->gpu NULL on entry): device memory that p2p moves
 * itself (amp_p2p_isend_dev / amp_p2p_irecv_dev). */
int amp_gpu_req_stage(amp_rank_t *rank, amp_comm_t *comm, amp_req_t *r,
                      const char *call, void **view, amp_p2p_req_t **p,
                      amp_p2p_dev_t *dev);
/* Blocking calls whose buffer may be device memory: each returns 0 when
 * it is not staged (the caller goes on, with p2p moving the device memory
 * itself when dev->gpu is set), else 1 with *rc, the call made again on a
 * host copy. */
int amp_gpu_send(amp_rank_t *rank, amp_comm_t *comm, const amp_xfer_t *x,
                 const char *call, amp_p2p_dev_t *dev, int *rc);
int amp_gpu_recv(amp_rank_t *rank, amp_comm_t *comm, const amp_xfer_t *x,
                 MPI_Status *status, amp_p2p_dev_t *dev, int *rc);

#endif
