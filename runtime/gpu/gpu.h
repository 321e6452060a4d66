/*
 * gpu: CUDA device memory and GPU work seen from the scheduler.
 *
 * libampi is never linked against CUDA.  At startup amp_gpu_create
 * dlopen()s the driver (libcuda.so.1) once and looks up the entry points it
 * uses; with no driver, no device, or a build without the CUDA toolkit it
 * answers NULL and the runtime is host-only: every caller tests one
 * process-wide pointer (amp_proc.gpu) before anything else.
 *
 * Each PE is bound to one device (+gpumap) and owns, in its slot of the
 * amp_gpu_t, a high-priority stream for its copies, the GPU operations it
 * waits for (opq.h: a CUDA event each, polled from the scheduler loop:
 * nothing ever blocks the PE on the GPU), a cache of the device allocations
 * seen (cache.h) and a pool of pinned host buffers.  A PE's slot is touched
 * only by that PE, except for its count of pending operations (atomic),
 * which the scheduler's deadlock check reads from any PE.
 *
 * Ordering against the program's own GPU work: every copy of the runtime
 * starts after the work queued before it on the legacy default stream of
 * the devices it touches (the PE's stream is a blocking one; memory of
 * another device adds a wait for that device's legacy stream), so a buffer
 * filled by cudaMemcpy, cudaMemset or a kernel on stream 0 is read, and a
 * receive buffer cleared so is written, in that order.  Work on the
 * program's other streams is the program's to finish first.
 */
#ifndef AMP_GPU_H
#define AMP_GPU_H

#include "base/base.h"
#include "dt/dt.h"
#include "gpu/cache.h"
#include "gpu/ipc.h"
#include "gpu/opq.h"
#include "sched/sched.h"

#include <stddef.h>

typedef struct amp_gpu amp_gpu_t;

/* The GPU layer for npes PEs, or *out = NULL (and AMP_OK) when the process
 * is host-only: no CUDA at build time, no driver, no device, or gpumap
 * "none".  gpumap (+gpumap, NULL: "rr") is parsed by amp_gpu_map_parse with
 * first, the PEs of this node's processes before this one; an invalid one
 * is AMP_ERR_ARG with a message already logged. */
AMP_MUST_USE amp_status_t amp_gpu_create(int npes, int first,
                                         const char *gpumap, amp_gpu_t **out);
/* After every PE has stopped. */
void amp_gpu_destroy(amp_gpu_t *g);

/* +gpumap: the device of each of npes PEs out of ndev, into pe_dev.  spec
 * "rr" (or NULL): PE i uses device (first + i) % ndev, first being the
 * PEs of this node's processes before this one, so that the processes of
 * a node spread over its devices before any two share one; a
 * comma-separated list of device numbers d0,d1,...: PE i uses d(i % n).
 * Returns AMP_ERR_ARG for a malformed list or a device number >= ndev. */
AMP_MUST_USE amp_status_t amp_gpu_map_parse(const char *spec, int ndev,
                                            int npes, int first, int *pe_dev);

/* Makes pe's device current on the calling kernel thread (pe's own), once
 * when the PE starts. */
void amp_gpu_pe_enter(amp_gpu_t *g, amp_pe_t *pe);
/* The device pe is bound to. */
int amp_gpu_pe_device(const amp_gpu_t *g, const amp_pe_t *pe);

/* Scheduler hooks: finish what the GPU has completed for pe (calling the
 * operations' done functions); whether pe waits for the GPU (any PE). */
void amp_gpu_poll(amp_gpu_t *g, amp_pe_t *pe);
int amp_gpu_pending(amp_gpu_t *g, amp_pe_t *pe);

/* Whether p is device memory (not host, pinned host or managed memory,
 * which the CPU reads directly); for device memory *r is its allocation.
 * Uses pe's cache (cache.h). */
int amp_gpu_is_device(amp_gpu_t *g, amp_pe_t *pe, const void *p,
                      amp_gpu_range_t *r);

/* Queues a copy of bytes from src to dst (any mix of host and device
 * memory) on pe's staging stream; done(arg, st) follows when it is
 * complete.  An error starting it is returned and done is not called. */
AMP_MUST_USE amp_status_t amp_gpu_copy(amp_gpu_t *g, amp_pe_t *pe, void *dst,
                                       const void *src, size_t bytes,
                                       amp_gpu_done_fn_t done, void *arg);
/* done(arg, st) follows when the work queued on stream (a CUstream of pe's
 * device; NULL: the legacy default stream, which also takes in what was
 * queued before on the device's blocking streams) so far is complete. */
AMP_MUST_USE amp_status_t amp_gpu_watch(amp_gpu_t *g, amp_pe_t *pe,
                                        void *stream, amp_gpu_done_fn_t done,
                                        void *arg);

/* One copy between memories: bytes from src to dst, ddev and sdev being
 * the devices of dst and src (-1: host memory). */
typedef struct amp_gpu_copy_desc {
    void *dst;
    const void *src;
    size_t bytes;
    int ddev, sdev;
} amp_gpu_copy_desc_t;

/* Like amp_gpu_copy, where the caller knows each side (c).  Between two
 * different devices it is a peer copy (cuMemcpyPeerAsync between their
 * primary contexts, or cuMemcpyAsync through unified addressing where a
 * device has no PE and so no context here); otherwise one cuMemcpyAsync. */
AMP_MUST_USE amp_status_t amp_gpu_copy_between(amp_gpu_t *g, amp_pe_t *pe,
                                               const amp_gpu_copy_desc_t *c,
                                               amp_gpu_done_fn_t done,
                                               void *arg);

/* The path policy of the process (enum amp_gpu_mode, AMPI_GPU_PATH). */
int amp_gpu_mode(const amp_gpu_t *g);

/* The copies the GPU made for the PEs so far (within a device, between
 * devices, between device and host) and their bytes; 0 for a host-only
 * process (g NULL).  Read while the PEs run: values that held lately. */
void amp_gpu_copy_counts(const amp_gpu_t *g, uint64_t *copies,
                         uint64_t *bytes);

/* The devices, other than pe_dev (the device of the PE whose stream
 * copies), whose legacy default stream a copy from memory of device sdev to
 * memory of device ddev (-1: host memory; devices outside 0 .. ndev - 1
 * are left out) must wait for, into out: 0, 1 or 2 of them, each once.
 * The PE's own device needs no wait (its stream is blocking).  plan.c. */
int amp_gpu_order_devices(int pe_dev, int sdev, int ddev, int ndev, int out[2]);

/* Whether the UCX context ucp_context (a ucp_context_h) reports support
 * for CUDA memory (ucp_context_query, UCP_ATTR_FIELD_MEMORY_TYPES has
 * UCS_MEMORY_TYPE_CUDA), so that device buffers can be handed to UCX
 * between processes as they are.  gpu/ucx.c; p2p/net.c asks it once. */
int amp_gpu_ucx_cuda(void *ucp_context);

/* CUDA IPC (ipc.h).  Exports the allocation r that holds p, a device
 * buffer seen on pe (the handle is cached per PE by r's buffer id), into
 * *out; an error when the driver cannot (memory from a stream-ordered
 * pool, for one): the caller moves the data another way. */
AMP_MUST_USE amp_status_t amp_gpu_ipc_export(amp_gpu_t *g, amp_pe_t *pe,
                                             const amp_gpu_range_t *r,
                                             const void *p, amp_gpu_ipc_t *out);
/* Maps in (from process proc) into the context of pe's device, or finds
 * it mapped: *base is the allocation's start there, usable as device
 * memory of pe's device until amp_gpu_ipc_release(g, pe, *base). */
AMP_MUST_USE amp_status_t amp_gpu_ipc_open(amp_gpu_t *g, amp_pe_t *pe, int proc,
                                           const amp_gpu_ipc_t *in,
                                           void **base);
void amp_gpu_ipc_release(amp_gpu_t *g, amp_pe_t *pe, void *base);

/* A pinned host buffer of at least bytes from pe's pool (*cap: its size),
 * or NULL; amp_gpu_host_put gives it back. */
void *amp_gpu_host_get(amp_gpu_t *g, amp_pe_t *pe, size_t bytes, size_t *cap);
void amp_gpu_host_put(amp_gpu_t *g, amp_pe_t *pe, void *p, size_t cap);

/* ---- staging plans (plan.c: no CUDA needed) ---- */

/* The bytes count elements of a type (contig: its elements are back to
 * back) touch: [lo, lo + bytes) relative to the buffer; dense when they are
 * exactly the data, in order, with no gaps. */
typedef struct amp_gpu_span {
    ptrdiff_t lo;
    size_t bytes;
    int dense;
} amp_gpu_span_t;

void amp_gpu_span_of(int count, size_t size, ptrdiff_t extent,
                     ptrdiff_t true_lb, ptrdiff_t true_extent, int contig,
                     amp_gpu_span_t *s);
/* The span of count elements of dt. */
void amp_gpu_span_dt(amp_gpu_span_t *sp, int count, const amp_dt_t *dt);
/* Widens *sp (start with bytes 0) by count elements of dt at disp bytes
 * from the buffer; a span of several blocks is not dense. */
void amp_gpu_span_add(amp_gpu_span_t *sp, ptrdiff_t disp, int count,
                      const amp_dt_t *dt);

enum amp_gpu_path {
    AMP_GPU_PATH_HOST,   /* host memory: the host path, unchanged */
    AMP_GPU_PATH_STAGE,  /* device memory: through a host copy of the span */
    AMP_GPU_PATH_DIRECT, /* device memory: p2p moves it with the GPU */
};

/* The process's policy, from AMPI_GPU_PATH. */
enum amp_gpu_mode {
    AMP_GPU_MODE_AUTO,   /* "auto" (default): the fastest path available */
    AMP_GPU_MODE_STAGED, /* "staged": every device buffer is staged */
    /* "pipelined": as auto inside a process; between processes always the
     * pipelined staging (no CUDA IPC, no UCX with CUDA memory) */
    AMP_GPU_MODE_PIPELINED,
};

/* AMPI_GPU_PATH (NULL or empty: auto) into *mode; AMP_ERR_ARG for any
 * other word than auto, pipelined or staged. */
AMP_MUST_USE amp_status_t amp_gpu_mode_parse(const char *s, int *mode);

/* Staged messages between device and host memory are moved in chunks of
 * this many bytes, each with its event, so that the GPU copies one chunk
 * while the CPU (or the network) moves the next (p2p/dev.c). */
#define AMP_GPU_CHUNK ((size_t)1 << 20)
/* Chunks of one message between processes in flight at once (pipelined
 * staging: copied off the device, or travelling). */
#define AMP_GPU_WINDOW 4

/* How a device buffer of a direct send reaches a rank of another
 * process. */
enum amp_gpu_xfer {
    AMP_GPU_XFER_IPC,      /* same node: the receiver maps it (CUDA IPC) */
    AMP_GPU_XFER_UCX,      /* UCX moves device memory itself */
    AMP_GPU_XFER_PIPELINE, /* staged through pinned host buffers in chunks,
                              device copies overlapping the network */
};

/* The transfer for mode (enum amp_gpu_mode): CUDA IPC between processes
 * of one node in auto mode; else UCX when both processes' UCX reports CUDA
 * memory (ucx_cuda) in auto mode; else the pipeline.  The receiver falls
 * back to the pipeline when it cannot map the handle. */
int amp_gpu_xfer_choose(int mode, int same_node, int ucx_cuda);

/* The role a buffer plays in a call. */
enum amp_gpu_role {
    AMP_GPU_SEND,  /* read only: copied in from the device */
    AMP_GPU_RECV,  /* written: copied back to the device */
    AMP_GPU_INOUT, /* read and written (MPI_IN_PLACE, bcast root) */
};

/* How a buffer of the given role (enum amp_gpu_role) is moved: the path,
 * and in *fetch whether its host copy must first be filled from the device
 * (send data; and received data that leaves gaps in the span, which must
 * keep their values when the span is copied back). */
int amp_gpu_path_select(int is_device, int role, const amp_gpu_span_t *s,
                        int *fetch);

/* The other side of a point-to-point buffer. */
typedef struct amp_gpu_peer {
    int eager; /* a send the host path would complete before it is matched
                  (standard or ready mode, at most the eager limit; a
                  buffered send): forcing it to wait would change what the
                  program sees, so it is staged */
    int order; /* on the direct path the GPU reads or writes the buffer
                  outside the runtime's streams (CUDA IPC or UCX with
                  another process): the call first waits for the GPU's
                  earlier work on the legacy default stream */
} amp_gpu_peer_t;

/* amp_gpu_path_select for a point-to-point buffer in mode (enum
 * amp_gpu_mode): AMP_GPU_PATH_DIRECT when mode is not staged, the buffer
 * is device memory, its data is dense (one contiguous block), it is a send
 * or a receive (not both) and, for a send, peer is not eager; otherwise
 * what amp_gpu_path_select answers.  The peer may be in any process: p2p
 * moves device memory between processes too (amp_gpu_xfer_choose). */
int amp_gpu_path_choose(int mode, int is_device, int role,
                        const amp_gpu_span_t *s, const amp_gpu_peer_t *peer,
                        int *fetch);

#endif
