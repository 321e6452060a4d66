/*
 * Collectives whose buffers are CUDA device memory and whose host path
 * reads them directly (device.c): made again on host copies (../stage.h).
 * The other collectives stage their buffers where they start
 * (amp_gpu_op_stage).
 */
#ifndef AMP_MPI_COLL_DEVICE_H
#define AMP_MPI_COLL_DEVICE_H

#include "mpi/comm/comm.h"
#include "mpi/pt2pt/request.h"
#include "mpi/stage.h"

/* Each returns 0 when no buffer is staged (the caller goes on), else 1
 * with *rc, the call made again on host copies. */
/* MPI_Bcast: x->peer is the root. */
int amp_gpu_bcast(amp_rank_t *rank, amp_comm_t *comm, const amp_xfer_t *x,
                  int *rc);
/* MPI_Reduce (a->all 0) and MPI_Allreduce. */
int amp_gpu_reduce(amp_rank_t *rank, amp_comm_t *comm,
                   const amp_reduce_args_t *a, const amp_dt_t *dt,
                   MPI_Comm comm_h, int *rc);

#endif
