/*
 * gpu: device buffers of a call staged through pinned host memory.
 *
 * A buffer of device memory that the host path cannot read or write is
 * replaced, for one call, by a host copy of the span its elements cover: a
 * pinned buffer from the PE's pool (gpu.h), filled from the device first
 * where the call reads it (or where the data leaves gaps in the span, which
 * must keep their values), and copied back where the call writes it.  The
 * calling thread waits for such a copy blocked in the scheduler, whose loop
 * polls the copy's event: the PE runs its other threads meanwhile.  A
 * point-to-point buffer that p2p moves with the GPU itself (the direct
 * path, amp_gpu_path_choose) is not staged.
 *
 * The buffers of one operation (up to AMP_GPU_OP_BUFS) are staged together
 * in an amp_gpu_op_t, which remembers which of them to copy back: when the
 * operation is done, either the caller waits for the copies back
 * (amp_gpu_op_wait_back) or they are queued and a function follows when
 * they are done (amp_gpu_op_copy_back; p2p.h chains that on a request).
 * The layer above makes and frees the amp_gpu_op_t (p2p.h's
 * amp_p2p_stage_op_new); nothing here runs while the process is host-only.
 */
#ifndef AMP_GPU_STAGE_H
#define AMP_GPU_STAGE_H

#include "gpu/gpu.h"

/* A device buffer's host copy for one call (host NULL: not staged). */
typedef struct amp_gpu_stage {
    char *host; /* pinned copy of the span, cap bytes */
    char *dev;  /* the span's start in device memory */
    size_t bytes, cap, elem;
    int dense;
} amp_gpu_stage_t;

/* The staging descriptor: a buffer of a call and how the call uses it. */
typedef struct amp_gpu_stage_desc {
    const void *buf;     /* NULL: nothing to stage */
    amp_gpu_span_t span; /* the bytes its elements touch, from buf */
    size_t elem;         /* bytes of an element: a dense span received is
                            copied back in whole elements (0: 1) */
    int role;            /* enum amp_gpu_role */
    int p2p;             /* a point-to-point buffer: p2p may move it itself
                            (amp_gpu_path_choose, with peer) */
    amp_gpu_peer_t peer;
} amp_gpu_stage_desc_t;

/* The descriptor of count elements of dt at buf used in role (elem: dt's
 * size; not point-to-point). */
amp_gpu_stage_desc_t amp_gpu_stage_dt(const void *buf, int count,
                                      const amp_dt_t *dt, int role);
/* The descriptor of the span sp of buf used in role (elem 1; not
 * point-to-point). */
amp_gpu_stage_desc_t amp_gpu_stage_span(const void *buf,
                                        const amp_gpu_span_t *sp, int role);

/* The step of amp_gpu_stage_begin that failed. */
enum amp_gpu_stage_step {
    AMP_GPU_STAGE_RANGE, /* the span runs past its allocation: ERR_BUFFER */
    AMP_GPU_STAGE_ORDER, /* waiting for the default stream's earlier work */
    AMP_GPU_STAGE_HOST,  /* no pinned host memory: AMP_ERR_NOMEM */
    AMP_GPU_STAGE_FETCH, /* copying the span from the device */
};

/* What amp_gpu_stage_begin found. */
typedef struct amp_gpu_staged {
    void *view;            /* where the call finds the data */
    int direct;            /* the direct path: p2p moves the buffer itself */
    int device;            /* ... and the buffer's device (else -1) */
    int failed;            /* on an error, the step (enum amp_gpu_stage_step) */
    amp_gpu_range_t range; /* device memory: its allocation */
} amp_gpu_staged_t;

/* Stages d's buffer for one call, on the calling thread's PE: device
 * memory on the host path gets a host copy in s (filled from the device
 * when the role needs it, the thread waiting without blocking its PE) and
 * out->view is the buffer's place in it; device memory on the direct path
 * is not staged (s->host NULL), out->device says its device, after the
 * wait for the GPU's earlier work where d->peer.order asks for it;
 * otherwise s->host is NULL and out->view is the buffer.  On an error
 * nothing is held and out->failed says which step failed. */
AMP_MUST_USE amp_status_t amp_gpu_stage_begin(amp_gpu_t *g,
                                              const amp_gpu_stage_desc_t *d,
                                              amp_gpu_stage_t *s,
                                              amp_gpu_staged_t *out);
/* The bytes of s to copy back after receiving received bytes into it. */
size_t amp_gpu_stage_bytes(const amp_gpu_stage_t *s, size_t received);
/* Copies bytes of the span back to the device (0: none; at most the span),
 * waiting without blocking the PE, and gives the host copy back; nothing
 * when s is not staged. */
AMP_MUST_USE amp_status_t amp_gpu_stage_end(amp_gpu_t *g, amp_gpu_stage_t *s,
                                            size_t bytes);
/* Gives s's host copy back to the PE's pool without copying anything. */
void amp_gpu_stage_release(amp_gpu_t *g, const amp_gpu_stage_t *s);

/* ---- the buffers of one operation ---- */

#define AMP_GPU_OP_BUFS 3

typedef struct amp_gpu_op {
    amp_gpu_t *g;
    int n;
    amp_gpu_stage_t s[AMP_GPU_OP_BUFS];
    int back[AMP_GPU_OP_BUFS]; /* copied back: not a send buffer */
    /* The asynchronous end (amp_gpu_op_copy_back). */
    int pending; /* copies back not yet done */
    amp_status_t error;
    amp_gpu_done_fn_t done;
    void *arg;
} amp_gpu_op_t;

/* Adds s, staged for role (enum amp_gpu_role), to op; AMP_ERR_INTERN when
 * op holds AMP_GPU_OP_BUFS already (s is then the caller's). */
AMP_MUST_USE amp_status_t amp_gpu_op_add(amp_gpu_op_t *op,
                                         const amp_gpu_stage_t *s, int role);
/* Gives op's host copies back without copying anything (op stays the
 * caller's to free). */
void amp_gpu_op_release(amp_gpu_op_t *op);
/* The blocking end: copies back what was received (*received bytes, or
 * whole spans when received is NULL), waiting without blocking the PE,
 * until the first error. */
AMP_MUST_USE amp_status_t amp_gpu_op_wait_back(amp_gpu_op_t *op,
                                               const size_t *received);
/* The asynchronous end, on the PE where the operation completed: queues
 * the copies back (none when cancelled) and done(arg, st) follows when the
 * last is done (at once when there is none), st the first copy's error. */
void amp_gpu_op_copy_back(amp_gpu_op_t *op, const size_t *received,
                          int cancelled, amp_gpu_done_fn_t done, void *arg);

#endif
