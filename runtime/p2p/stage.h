/*
 * p2p: the buffers of MPI calls that may be CUDA device memory
 * (stage.c, the mechanism of gpu/stage.h put to a call's use).
 *
 * A buffer is looked up once: host memory goes straight on (nothing is
 * staged, nothing else is asked); device memory that p2p moves itself
 * (the direct path, gpu.h's amp_gpu_path_choose) is handed on as it is,
 * with its device; any other device buffer is replaced, for the call, by
 * a pinned host copy.  The layer above (mpi/stage.c) turns a failure into
 * the call's error and runs the blocking calls again on host copies.
 */
#ifndef AMP_P2P_STAGE_H
#define AMP_P2P_STAGE_H

#include "p2p/p2p.h"

#include "gpu/stage.h"

/* The peer of a point-to-point buffer when there is none (MPI_PROC_NULL). */
#define AMP_P2P_STAGE_NO_PEER (-2)

/* How a point-to-point buffer is used (amp_p2p_stage_desc). */
enum amp_p2p_stage_use {
    AMP_P2P_STAGE_RECV,  /* received into */
    AMP_P2P_STAGE_SEND,  /* a standard or ready send: eager when small */
    AMP_P2P_STAGE_SSEND, /* a synchronous send: never eager */
    AMP_P2P_STAGE_BSEND, /* a buffered send: always eager */
};

/* The descriptor of a point-to-point buffer: count elements of dt at buf,
 * used as use says (enum amp_p2p_stage_use), with whether the host path
 * would send it eagerly (ep's world's eager limit). */
amp_gpu_stage_desc_t amp_p2p_stage_desc(const amp_p2p_ep_t *ep,
                                        const void *buf, int count,
                                        const amp_dt_t *dt, int use);

/* Stages d's buffer for one call of ep's rank, on the calling thread's PE,
 * with the GPUs of ep's world (gpu/stage.h's amp_gpu_stage_begin; the
 * world has them: not host-only): host memory returns at once with
 * s->host NULL and out->view the buffer.  A point-to-point buffer (d->p2p)
 * is sent to or received from world rank peer (-1: any source,
 * AMP_P2P_STAGE_NO_PEER: none); when p2p moves it itself, dev (not NULL
 * then) gets the GPUs and its device.  On an error nothing is held and
 * out->failed says which step failed. */
AMP_MUST_USE amp_status_t amp_p2p_stage_begin(amp_p2p_ep_t *ep,
                                              const amp_gpu_stage_desc_t *d,
                                              int peer, amp_gpu_stage_t *s,
                                              amp_gpu_staged_t *out,
                                              amp_p2p_dev_t *dev);

/* The steps of amp_p2p_stage_op_add that fail beside amp_gpu_stage_begin's
 * (out->failed). */
enum amp_p2p_stage_step {
    AMP_P2P_STAGE_OP_MEM = 100, /* no memory for the operation: NOMEM */
    AMP_P2P_STAGE_OP_FULL,      /* AMP_GPU_OP_BUFS buffers already: INTERN */
};

/* amp_p2p_stage_begin for one buffer of an operation, staged into *op
 * (made on the first staged buffer: amp_p2p_stage_op_new): a dense span
 * received is copied back in bytes, not whole elements.  On an error *op
 * is freed and NULL, and out->failed says which step failed. */
AMP_MUST_USE amp_status_t amp_p2p_stage_op_add(amp_p2p_ep_t *ep,
                                               amp_gpu_op_t **op,
                                               const amp_gpu_stage_desc_t *d,
                                               int peer, amp_gpu_staged_t *out,
                                               amp_p2p_dev_t *dev);

#endif
