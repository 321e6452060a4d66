/*
 * The CUDA driver, looked up at run time (gpu.h).  Built without the CUDA
 * toolkit, amp_gpu_create answers host-only and nothing else is reached.
 */
#include "gpu/gpu.h"

#include <stdlib.h>

/* AMPI_GPU_PATH (docs/gpu.md), checked in every build, GPU or not, so that
 * a mistyped value is never silently ignored. */
static int path_mode(void)
{
    const char *v = getenv("AMPI_GPU_PATH");
    int mode = AMP_GPU_MODE_AUTO;
    if (amp_gpu_mode_parse(v, &mode) != AMP_OK)
        amp_fatal("AMPI_GPU_PATH: expected auto, pipelined or staged, got '%s'",
                  v);
    return mode;
}

#ifndef AMP_HAVE_CUDA

amp_status_t amp_gpu_create(int npes, int first, const char *gpumap,
                            amp_gpu_t **out)
{
    (void)npes;
    (void)first;
    (void)gpumap;
    path_mode();
    *out = NULL;
    return AMP_OK;
}

void amp_gpu_destroy(amp_gpu_t *g)
{
    (void)g;
}
void amp_gpu_pe_enter(amp_gpu_t *g, amp_pe_t *pe)
{
}
int amp_gpu_pe_device(const amp_gpu_t *g, const amp_pe_t *pe)
{
    return -1;
}
void amp_gpu_poll(amp_gpu_t *g, amp_pe_t *pe)
{
}
int amp_gpu_pending(amp_gpu_t *g, amp_pe_t *pe)
{
    return 0;
}

int amp_gpu_is_device(amp_gpu_t *g, amp_pe_t *pe, const void *p,
                      amp_gpu_range_t *r)
{
    return 0;
}

amp_status_t amp_gpu_copy(amp_gpu_t *g, amp_pe_t *pe, void *dst,
                          const void *src, size_t bytes, amp_gpu_done_fn_t done,
                          void *arg)
{
    return AMP_ERR_UNSUPPORTED;
}

amp_status_t amp_gpu_watch(amp_gpu_t *g, amp_pe_t *pe, void *stream,
                           amp_gpu_done_fn_t done, void *arg)
{
    return AMP_ERR_UNSUPPORTED;
}

amp_status_t amp_gpu_copy_between(amp_gpu_t *g, amp_pe_t *pe,
                                  const amp_gpu_copy_desc_t *c,
                                  amp_gpu_done_fn_t done, void *arg)
{
    return AMP_ERR_UNSUPPORTED;
}

int amp_gpu_mode(const amp_gpu_t *g)
{
    return AMP_GPU_MODE_STAGED;
}

void amp_gpu_copy_counts(const amp_gpu_t *g, uint64_t *copies, uint64_t *bytes)
{
    *copies = *bytes = 0;
}

void *amp_gpu_host_get(amp_gpu_t *g, amp_pe_t *pe, size_t bytes, size_t *cap)
{
    return NULL;
}

void amp_gpu_host_put(amp_gpu_t *g, amp_pe_t *pe, void *p, size_t cap)
{
}

amp_status_t amp_gpu_ipc_export(amp_gpu_t *g, amp_pe_t *pe,
                                const amp_gpu_range_t *r, const void *p,
                                amp_gpu_ipc_t *out)
{
    return AMP_ERR_UNSUPPORTED;
}

amp_status_t amp_gpu_ipc_open(amp_gpu_t *g, amp_pe_t *pe, int proc,
                              const amp_gpu_ipc_t *in, void **base)
{
    return AMP_ERR_UNSUPPORTED;
}

void amp_gpu_ipc_release(amp_gpu_t *g, amp_pe_t *pe, void *base)
{
}

#else

#include <cuda.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The driver's entry points.  The types come from cuda.h's prototypes;
 * where cuda.h renames an entry point (cuEventDestroy is cuEventDestroy_v2)
 * the symbol looked up is the renamed one, so type and symbol agree. */
#define AMP_CU_FUNCS(X)                                                        \
    X(cuInit, "cuInit")                                                        \
    X(cuDeviceGetCount, "cuDeviceGetCount")                                    \
    X(cuDeviceGet, "cuDeviceGet")                                              \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")                    \
    X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2")               \
    X(cuCtxGetCurrent, "cuCtxGetCurrent")                                      \
    X(cuCtxSetCurrent, "cuCtxSetCurrent")                                      \
    X(cuCtxGetStreamPriorityRange, "cuCtxGetStreamPriorityRange")              \
    X(cuStreamCreateWithPriority, "cuStreamCreateWithPriority")                \
    X(cuStreamDestroy, "cuStreamDestroy_v2")                                   \
    X(cuStreamSynchronize, "cuStreamSynchronize")                              \
    X(cuStreamWaitEvent, "cuStreamWaitEvent")                                  \
    X(cuEventCreate, "cuEventCreate")                                          \
    X(cuEventRecord, "cuEventRecord")                                          \
    X(cuEventQuery, "cuEventQuery")                                            \
    X(cuEventDestroy, "cuEventDestroy_v2")                                     \
    X(cuMemcpyAsync, "cuMemcpyAsync")                                          \
    X(cuMemcpyPeerAsync, "cuMemcpyPeerAsync")                                  \
    X(cuMemHostAlloc, "cuMemHostAlloc")                                        \
    X(cuMemFreeHost, "cuMemFreeHost")                                          \
    X(cuPointerGetAttributes, "cuPointerGetAttributes")                        \
    X(cuGetErrorName, "cuGetErrorName")                                        \
    X(cuGetErrorString, "cuGetErrorString")

/* CUDA IPC: looked up too, but a driver without it still serves (the
 * processes of a node then use the pipeline). */
#define AMP_CU_IPC_FUNCS(X)                                                    \
    X(cuIpcGetMemHandle, "cuIpcGetMemHandle")                                  \
    X(cuIpcOpenMemHandle, "cuIpcOpenMemHandle_v2")                             \
    X(cuIpcCloseMemHandle, "cuIpcCloseMemHandle")

typedef struct cu_api {
#define X(fn, sym) __typeof__(fn) *fn;
    AMP_CU_FUNCS(X)
    AMP_CU_IPC_FUNCS(X)
#undef X
} cu_api_t;

#define POOL_SLOTS 8       /* pinned host buffers kept per PE */
#define POOL_MIN (4 << 10) /* smallest one */
#define EXPORT_SLOTS 16    /* IPC handles of allocations kept per PE */

/* The IPC handle of one of this process's allocations. */
typedef struct gpu_export {
    unsigned long long id; /* buffer id; 0: slot empty */
    CUipcMemHandle handle;
} gpu_export_t;

typedef struct gpu_pe {
    int device;
    CUcontext ctx;
    /* The PE's copies, high priority; a blocking stream: ordered after the
     * work queued before on the legacy default stream of ctx. */
    CUstream stream;
    amp_gpu_opq_t ops; /* operations in flight (opq.h) */
    /* By device: an event of that device's primary context that captures
     * its legacy default stream, for copies that touch memory of another
     * device than the PE's (created when first needed). */
    CUevent *legacy;
    amp_gpu_cache_t cache;
    void *pool[POOL_SLOTS];
    size_t pool_cap[POOL_SLOTS];
    gpu_export_t exports[EXPORT_SLOTS];
    int export_next; /* round-robin replacement */
    /* Copies this PE queued and their bytes (MPI_T's gpu_device_copies);
     * written by the PE alone, read by any. */
    _Atomic uint64_t copies, copy_bytes;
} gpu_pe_t;

struct amp_gpu {
    cu_api_t cu;
    amp_gpu_ev_ops_t ev; /* the driver's events, for the PEs' queues */
    void *lib;
    int ndev;
    int npes;
    int mode;           /* enum amp_gpu_mode (AMPI_GPU_PATH) */
    CUcontext *dev_ctx; /* by device: its primary context, or NULL */
    gpu_pe_t *pes;
    int has_ipc;             /* the driver has the IPC entry points */
    amp_gpu_ipc_cache_t ipc; /* handles of other processes, mapped */
};

static gpu_pe_t *pe_of(amp_gpu_t *g, const amp_pe_t *pe)
{
    return &g->pes[pe->id];
}

/* Logs that the driver call named call failed with rc, in the driver's
 * own words (its name for rc and its description), and returns the status
 * a failed call is answered with. */
static amp_status_t cu_error(const amp_gpu_t *g, const char *call, CUresult rc)
{
    const char *name = NULL, *text = NULL;
    if (g->cu.cuGetErrorName(rc, &name) != CUDA_SUCCESS || !name)
        name = "an error the driver does not name";
    if (g->cu.cuGetErrorString(rc, &text) != CUDA_SUCCESS || !text)
        text = "no description";
    amp_log_error("CUDA: %s failed: %s (%d): %s", call, name, (int)rc, text);
    return AMP_ERR_OTHER;
}

/* ---- loading the driver ---- */

static int load_api(amp_gpu_t *g)
{
    g->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!g->lib)
        return 0;
#define X(fn, sym)                                                             \
    g->cu.fn = (__typeof__(fn) *)dlsym(g->lib, sym);                           \
    if (!g->cu.fn)                                                             \
        return 0;
    AMP_CU_FUNCS(X)
#undef X
    g->has_ipc = 1;
#define X(fn, sym)                                                             \
    if (!(g->cu.fn = (__typeof__(fn) *)dlsym(g->lib, sym)))                    \
        g->has_ipc = 0;
    AMP_CU_IPC_FUNCS(X)
#undef X
    amp_gpu_ipc_cache_init(&g->ipc);
    int n = 0;
    if (g->cu.cuInit(0) != CUDA_SUCCESS ||
        g->cu.cuDeviceGetCount(&n) != CUDA_SUCCESS || n <= 0)
        return 0;
    g->ndev = n;
    return 1;
}

/* The primary context of device d (retained once) and a stream of the
 * highest priority in it for p's copies.  The stream is a blocking one
 * (CU_STREAM_DEFAULT): the legacy default stream first waits for the work
 * queued on every blocking stream of its context and every blocking stream
 * then waits for it, so a copy queued on p's stream starts only after what
 * the program queued before on the legacy default stream (cudaMemset, a
 * cudaMemcpy from pageable memory whose DMA may still run when it returns,
 * a kernel launched on stream 0).  A non-blocking stream would overtake
 * that work.  No driver call is added per copy. */
static amp_status_t pe_setup(amp_gpu_t *g, gpu_pe_t *p, int d)
{
    cu_api_t *cu = &g->cu;
    p->device = d;
    amp_gpu_cache_init(&p->cache);
    amp_gpu_opq_init(&p->ops);
    p->legacy = calloc((size_t)g->ndev, sizeof(*p->legacy));
    if (!p->legacy)
        return AMP_ERR_NOMEM;
    CUresult rc = CUDA_SUCCESS;
    const char *call = "cuDeviceGet";
    if (!g->dev_ctx[d]) {
        CUdevice dev;
        rc = cu->cuDeviceGet(&dev, d);
        if (rc == CUDA_SUCCESS) {
            call = "cuDevicePrimaryCtxRetain";
            rc = cu->cuDevicePrimaryCtxRetain(&g->dev_ctx[d], dev);
        }
    }
    p->ctx = g->dev_ctx[d];
    int least = 0, greatest = 0;
    if (rc == CUDA_SUCCESS) {
        call = "cuCtxSetCurrent";
        rc = cu->cuCtxSetCurrent(p->ctx);
    }
    if (rc == CUDA_SUCCESS) {
        call = "cuCtxGetStreamPriorityRange";
        rc = cu->cuCtxGetStreamPriorityRange(&least, &greatest);
    }
    if (rc == CUDA_SUCCESS) {
        call = "cuStreamCreateWithPriority";
        rc = cu->cuStreamCreateWithPriority(&p->stream, CU_STREAM_DEFAULT,
                                            greatest);
    }
    return rc == CUDA_SUCCESS ? AMP_OK : cu_error(g, call, rc);
}

static amp_status_t ev_create(void *ctx, void **ev);
static amp_status_t ev_record(void *ctx, void *ev, void *stream);
static int ev_query(void *ctx, void *ev);
static void ev_destroy(void *ctx, void *ev);

amp_status_t amp_gpu_create(int npes, int first, const char *gpumap,
                            amp_gpu_t **out)
{
    *out = NULL;
    int mode = path_mode();
    if (gpumap && strcmp(gpumap, "none") == 0)
        return AMP_OK;
    amp_gpu_t *g = calloc(1, sizeof(*g));
    if (!g)
        return AMP_ERR_NOMEM;
    g->mode = mode;
    g->ev = (amp_gpu_ev_ops_t){ev_create, ev_record, ev_query, ev_destroy, g};
    if (!load_api(g)) {
        /* no driver or no device: host-only, silently */
        if (g->lib)
            dlclose(g->lib);
        free(g);
        return AMP_OK;
    }
    int *pe_dev = calloc((size_t)npes, sizeof(int));
    g->pes = calloc((size_t)npes, sizeof(*g->pes));
    g->dev_ctx = calloc((size_t)g->ndev, sizeof(*g->dev_ctx));
    g->npes = npes;
    amp_status_t st = pe_dev && g->pes && g->dev_ctx ? AMP_OK : AMP_ERR_NOMEM;
    if (st == AMP_OK &&
        amp_gpu_map_parse(gpumap, g->ndev, npes, first, pe_dev) != AMP_OK) {
        amp_log_error("+gpumap: expected rr, none or a list of device numbers "
                      "below %d separated by commas, got '%s'",
                      g->ndev, gpumap);
        st = AMP_ERR_ARG;
    }
    for (int i = 0; st == AMP_OK && i < npes; i++)
        if ((st = pe_setup(g, &g->pes[i], pe_dev[i])) != AMP_OK)
            amp_log_error("cannot set up CUDA device %d for PE %d", pe_dev[i],
                          i);
    free(pe_dev);
    g->cu.cuCtxSetCurrent(NULL);
    if (st != AMP_OK) {
        amp_gpu_destroy(g);
        return st;
    }
    *out = g;
    return AMP_OK;
}

static void ipc_clear(amp_gpu_t *g);
static const amp_gpu_ev_ops_t *ev_ops(amp_gpu_t *g);

/* What pe_setup made, after the PE stopped. */
static void pe_cleanup(amp_gpu_t *g, gpu_pe_t *p)
{
    cu_api_t *cu = &g->cu;
    for (int d = 0; p->legacy && d < g->ndev; d++) {
        if (!p->legacy[d])
            continue;
        cu->cuCtxSetCurrent(g->dev_ctx[d]);
        cu->cuEventDestroy(p->legacy[d]);
    }
    free(p->legacy);
    p->legacy = NULL;
    if (!p->ctx)
        return;
    cu->cuCtxSetCurrent(p->ctx);
    amp_gpu_opq_cleanup(&p->ops, ev_ops(g));
    for (int k = 0; k < POOL_SLOTS; k++)
        if (p->pool[k])
            cu->cuMemFreeHost(p->pool[k]);
    if (p->stream)
        cu->cuStreamDestroy(p->stream);
}

void amp_gpu_destroy(amp_gpu_t *g)
{
    if (!g)
        return;
    cu_api_t *cu = &g->cu;
    ipc_clear(g);
    for (int i = 0; g->pes && i < g->npes; i++)
        pe_cleanup(g, &g->pes[i]);
    cu->cuCtxSetCurrent(NULL);
    for (int d = 0; g->dev_ctx && d < g->ndev; d++) {
        CUdevice dev;
        if (g->dev_ctx[d] && cu->cuDeviceGet(&dev, d) == CUDA_SUCCESS)
            cu->cuDevicePrimaryCtxRelease(dev);
    }
    /* The driver stays loaded: the program's own CUDA use may outlive us. */
    free(g->dev_ctx);
    free(g->pes);
    free(g);
}

void amp_gpu_pe_enter(amp_gpu_t *g, amp_pe_t *pe)
{
    g->cu.cuCtxSetCurrent(pe_of(g, pe)->ctx);
}

int amp_gpu_pe_device(const amp_gpu_t *g, const amp_pe_t *pe)
{
    return g->pes[pe->id].device;
}

/* The driver calls below run with p's context current, and give the
 * thread back the context it had (a rank may have chosen another); what
 * the driver allocates meanwhile is the process's, even on a rank. */
static CUcontext ctx_enter(amp_gpu_t *g, gpu_pe_t *p)
{
    amp_sys_alloc_enter();
    CUcontext cur = NULL;
    g->cu.cuCtxGetCurrent(&cur);
    if (cur != p->ctx)
        g->cu.cuCtxSetCurrent(p->ctx);
    return cur;
}

static void ctx_leave(amp_gpu_t *g, gpu_pe_t *p, CUcontext prev)
{
    if (prev != p->ctx)
        g->cu.cuCtxSetCurrent(prev);
    amp_sys_alloc_leave();
}

/* ---- classification ---- */

static int cu_classify(void *ctx, const void *ptr, amp_gpu_range_t *r)
{
    amp_gpu_t *g = ctx;
    unsigned int type = 0;
    int managed = 0, ordinal = -1;
    unsigned long long id = 0;
    CUdeviceptr start = 0;
    size_t size = 0;
    CUpointer_attribute attrs[] = {
        CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
        CU_POINTER_ATTRIBUTE_BUFFER_ID,   CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
        CU_POINTER_ATTRIBUTE_RANGE_SIZE,  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
    void *vals[] = {&type, &managed, &id, &start, &size, &ordinal};
    /* Not a CUDA pointer: CUDA_SUCCESS with every value zero. */
    if (g->cu.cuPointerGetAttributes(6, attrs, vals, (CUdeviceptr)ptr) !=
            CUDA_SUCCESS ||
        type != CU_MEMORYTYPE_DEVICE || managed)
        return 0;
    r->start = (uintptr_t)start;
    r->size = size;
    r->id = id;
    r->device = ordinal;
    return 1;
}

static unsigned long long cu_buffer_id(void *ctx, const void *ptr)
{
    amp_gpu_t *g = ctx;
    unsigned long long id = 0;
    CUpointer_attribute attr = CU_POINTER_ATTRIBUTE_BUFFER_ID;
    void *val = &id;
    if (g->cu.cuPointerGetAttributes(1, &attr, &val, (CUdeviceptr)ptr) !=
        CUDA_SUCCESS)
        return 0;
    return id;
}

int amp_gpu_is_device(amp_gpu_t *g, amp_pe_t *pe, const void *p,
                      amp_gpu_range_t *r)
{
    amp_gpu_query_ops_t q = {cu_classify, cu_buffer_id, g};
    return amp_gpu_cache_lookup(&pe_of(g, pe)->cache, &q, p, r);
}

/* ---- operations completed through events (opq.h) ---- */

static amp_status_t ev_create(void *ctx, void **ev)
{
    amp_gpu_t *g = ctx;
    CUevent e = NULL;
    CUresult rc = g->cu.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING);
    if (rc != CUDA_SUCCESS)
        return cu_error(g, "cuEventCreate", rc);
    *ev = e;
    return AMP_OK;
}

/* stream NULL: the legacy default stream of the current context, named
 * as such (CU_STREAM_LEGACY) whatever the program's default stream is. */
static amp_status_t ev_record(void *ctx, void *ev, void *stream)
{
    amp_gpu_t *g = ctx;
    CUstream s = stream ? (CUstream)stream : CU_STREAM_LEGACY;
    CUresult rc = g->cu.cuEventRecord((CUevent)ev, s);
    return rc == CUDA_SUCCESS ? AMP_OK : cu_error(g, "cuEventRecord", rc);
}

static int ev_query(void *ctx, void *ev)
{
    amp_gpu_t *g = ctx;
    CUresult r = g->cu.cuEventQuery((CUevent)ev);
    if (r == CUDA_ERROR_NOT_READY)
        return AMP_GPU_EV_PENDING;
    if (r == CUDA_SUCCESS)
        return AMP_GPU_EV_DONE;
    /* The work before the event failed (or the context is lost). */
    amp_status_ignore(cu_error(g, "cuEventQuery", r)); /* the op says so */
    return AMP_GPU_EV_FAILED;
}

static void ev_destroy(void *ctx, void *ev)
{
    amp_gpu_t *g = ctx;
    g->cu.cuEventDestroy((CUevent)ev);
}

static const amp_gpu_ev_ops_t *ev_ops(amp_gpu_t *g)
{
    return &g->ev;
}

/* Makes p's stream wait (on the GPU) for the work queued so far on the
 * legacy default stream of device d's primary context, another device
 * than p's: p's blocking stream follows only its own context's legacy
 * stream.  The event is recorded in d's context (an event and the stream
 * it is recorded on must share one) and waited for from p's (a stream may
 * wait for an event of another context); a wait takes what the event
 * holds at the call, so one event per device serves every copy.  Runs with
 * p's context current, and leaves it so. */
static amp_status_t wait_legacy_of(amp_gpu_t *g, gpu_pe_t *p, int d)
{
    cu_api_t *cu = &g->cu;
    CUcontext c = g->dev_ctx[d];
    if (!c)
        return AMP_OK; /* no PE uses d: documented as the program's job */
    cu->cuCtxSetCurrent(c);
    CUresult rc = CUDA_SUCCESS;
    const char *call = "cuEventCreate";
    if (!p->legacy[d])
        rc = cu->cuEventCreate(&p->legacy[d], CU_EVENT_DISABLE_TIMING);
    if (rc == CUDA_SUCCESS) {
        call = "cuEventRecord";
        rc = cu->cuEventRecord(p->legacy[d], CU_STREAM_LEGACY);
    }
    cu->cuCtxSetCurrent(p->ctx);
    if (rc == CUDA_SUCCESS) {
        call = "cuStreamWaitEvent";
        rc = cu->cuStreamWaitEvent(p->stream, p->legacy[d], 0);
    }
    return rc == CUDA_SUCCESS ? AMP_OK : cu_error(g, call, rc);
}

/* Queues the copy c (its devices aside) on pe's stream, between the
 * contexts dctx and sctx when both are given (a peer copy between two
 * devices), else within the current one; done(arg, st) follows. */
static amp_status_t copy_on_stream(amp_gpu_t *g, gpu_pe_t *p,
                                   const amp_gpu_copy_desc_t *c, CUcontext dctx,
                                   CUcontext sctx, amp_gpu_done_fn_t done,
                                   void *arg)
{
    void *dst = c->dst;
    const void *src = c->src;
    size_t bytes = c->bytes;
    /* Queued on this PE's stream, so its event tells when it is done;
     * between devices the driver copies directly where they can reach
     * each other, else through the host. */
    CUresult rc =
        dctx && sctx
            ? g->cu.cuMemcpyPeerAsync((CUdeviceptr)dst, dctx, (CUdeviceptr)src,
                                      sctx, bytes, p->stream)
            : g->cu.cuMemcpyAsync((CUdeviceptr)dst, (CUdeviceptr)src, bytes,
                                  p->stream);
    if (rc != CUDA_SUCCESS)
        return cu_error(g, dctx && sctx ? "cuMemcpyPeerAsync" : "cuMemcpyAsync",
                        rc);
    atomic_fetch_add_explicit(&p->copies, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&p->copy_bytes, bytes, memory_order_relaxed);
    amp_status_t st =
        amp_gpu_opq_push(&p->ops, ev_ops(g), p->stream, done, arg);
    if (st != AMP_OK) {
        /* The copy is queued but nothing will say when it is done: wait
         * for it, so that the caller may reuse its buffers at once. */
        rc = g->cu.cuStreamSynchronize(p->stream);
        if (rc != CUDA_SUCCESS) /* st already says the copy failed */
            amp_status_ignore(cu_error(g, "cuStreamSynchronize", rc));
    }
    return st;
}

amp_status_t amp_gpu_copy(amp_gpu_t *g, amp_pe_t *pe, void *dst,
                          const void *src, size_t bytes, amp_gpu_done_fn_t done,
                          void *arg)
{
    gpu_pe_t *p = pe_of(g, pe);
    const amp_gpu_copy_desc_t c = {dst, src, bytes, -1, -1};
    CUcontext prev = ctx_enter(g, p);
    amp_status_t st = copy_on_stream(g, p, &c, NULL, NULL, done, arg);
    ctx_leave(g, p, prev);
    return st;
}

/* The primary context of device d if a PE uses it, else NULL. */
static CUcontext dev_ctx_of(const amp_gpu_t *g, int d)
{
    return d >= 0 && d < g->ndev ? g->dev_ctx[d] : NULL;
}

amp_status_t amp_gpu_copy_between(amp_gpu_t *g, amp_pe_t *pe,
                                  const amp_gpu_copy_desc_t *c,
                                  amp_gpu_done_fn_t done, void *arg)
{
    int ddev = c->ddev, sdev = c->sdev;
    gpu_pe_t *p = pe_of(g, pe);
    CUcontext dctx = dev_ctx_of(g, ddev), sctx = dev_ctx_of(g, sdev);
    if (ddev < 0 || sdev < 0 || ddev == sdev || !dctx || !sctx)
        dctx = sctx = NULL;
    CUcontext prev = ctx_enter(g, p);
    int other[2];
    int n = amp_gpu_order_devices(p->device, sdev, ddev, g->ndev, other);
    amp_status_t st = AMP_OK;
    for (int i = 0; i < n && st == AMP_OK; i++)
        st = wait_legacy_of(g, p, other[i]);
    if (st == AMP_OK)
        st = copy_on_stream(g, p, c, dctx, sctx, done, arg);
    ctx_leave(g, p, prev);
    return st;
}

int amp_gpu_mode(const amp_gpu_t *g)
{
    return g->mode;
}

void amp_gpu_copy_counts(const amp_gpu_t *g, uint64_t *copies, uint64_t *bytes)
{
    *copies = *bytes = 0;
    for (int i = 0; g && i < g->npes; i++) {
        *copies +=
            atomic_load_explicit(&g->pes[i].copies, memory_order_relaxed);
        *bytes +=
            atomic_load_explicit(&g->pes[i].copy_bytes, memory_order_relaxed);
    }
}

amp_status_t amp_gpu_watch(amp_gpu_t *g, amp_pe_t *pe, void *stream,
                           amp_gpu_done_fn_t done, void *arg)
{
    gpu_pe_t *p = pe_of(g, pe);
    CUcontext prev = ctx_enter(g, p);
    amp_status_t st = amp_gpu_opq_push(&p->ops, ev_ops(g), stream, done, arg);
    ctx_leave(g, p, prev);
    return st;
}

void amp_gpu_poll(amp_gpu_t *g, amp_pe_t *pe)
{
    gpu_pe_t *p = pe_of(g, pe);
    if (!p->ops.head)
        return;
    CUcontext prev = ctx_enter(g, p);
    /* Take the finished operations out first: their done functions may
     * queue new ones. */
    amp_gpu_opq_entry_t *fin = amp_gpu_opq_take(&p->ops, ev_ops(g));
    ctx_leave(g, p, prev);
    amp_gpu_opq_finish(&p->ops, fin);
}

int amp_gpu_pending(amp_gpu_t *g, amp_pe_t *pe)
{
    return amp_gpu_opq_pending(&pe_of(g, pe)->ops) > 0;
}

/* ---- pinned host buffers ---- */

void *amp_gpu_host_get(amp_gpu_t *g, amp_pe_t *pe, size_t bytes, size_t *cap)
{
    gpu_pe_t *p = pe_of(g, pe);
    for (int k = 0; k < POOL_SLOTS; k++) {
        if (p->pool[k] && p->pool_cap[k] >= bytes) {
            void *buf = p->pool[k];
            *cap = p->pool_cap[k];
            p->pool[k] = NULL;
            return buf;
        }
    }
    size_t c = POOL_MIN;
    while (c < bytes)
        c *= 2;
    void *buf = NULL;
    CUcontext prev = ctx_enter(g, p);
    if (g->cu.cuMemHostAlloc(&buf, c, CU_MEMHOSTALLOC_PORTABLE) != CUDA_SUCCESS)
        buf = NULL;
    ctx_leave(g, p, prev);
    *cap = c;
    return buf;
}

void amp_gpu_host_put(amp_gpu_t *g, amp_pe_t *pe, void *buf, size_t cap)
{
    gpu_pe_t *p = pe_of(g, pe);
    int slot = -1;
    for (int k = 0; k < POOL_SLOTS; k++) {
        if (!p->pool[k]) {
            slot = k;
            break;
        }
        if (slot < 0 || p->pool_cap[k] < p->pool_cap[slot])
            slot = k; /* else replace the smallest */
    }
    if (p->pool[slot] && p->pool_cap[slot] >= cap) {
        CUcontext prev = ctx_enter(g, p);
        g->cu.cuMemFreeHost(buf);
        ctx_leave(g, p, prev);
        return;
    }
    if (p->pool[slot]) {
        CUcontext prev = ctx_enter(g, p);
        g->cu.cuMemFreeHost(p->pool[slot]);
        ctx_leave(g, p, prev);
    }
    p->pool[slot] = buf;
    p->pool_cap[slot] = cap;
}

/* ---- CUDA IPC (ipc.h) ---- */

amp_status_t amp_gpu_ipc_export(amp_gpu_t *g, amp_pe_t *pe,
                                const amp_gpu_range_t *r, const void *p,
                                amp_gpu_ipc_t *out)
{
    gpu_pe_t *q = pe_of(g, pe);
    if (!g->has_ipc)
        return AMP_ERR_UNSUPPORTED;
    gpu_export_t *e = NULL;
    for (int k = 0; k < EXPORT_SLOTS && !e; k++)
        if (q->exports[k].id == r->id)
            e = &q->exports[k];
    if (!e) {
        gpu_export_t fresh = {.id = r->id};
        CUcontext prev = ctx_enter(g, q);
        CUresult rc =
            g->cu.cuIpcGetMemHandle(&fresh.handle, (CUdeviceptr)r->start);
        ctx_leave(g, q, prev);
        if (rc != CUDA_SUCCESS)
            return AMP_ERR_UNSUPPORTED;
        e = &q->exports[q->export_next];
        q->export_next = (q->export_next + 1) % EXPORT_SLOTS;
        *e = fresh;
    }
    _Static_assert(sizeof(e->handle) == AMP_GPU_IPC_HANDLE, "IPC handle");
    memcpy(out->handle, &e->handle, AMP_GPU_IPC_HANDLE);
    out->id = r->id;
    out->offset = (uint64_t)((uintptr_t)p - r->start);
    return AMP_OK;
}

/* The driver's side of the cache (ipc.h): ctx is the amp_gpu_t, dev the
 * device whose primary context maps the memory. */
static amp_status_t ipc_map(void *ctx, int dev, const unsigned char *handle,
                            void **base)
{
    amp_gpu_t *g = ctx;
    CUipcMemHandle h;
    memcpy(&h, handle, sizeof(h));
    CUcontext prev = NULL;
    g->cu.cuCtxGetCurrent(&prev);
    g->cu.cuCtxSetCurrent(g->dev_ctx[dev]);
    CUdeviceptr d = 0;
    CUresult rc =
        g->cu.cuIpcOpenMemHandle(&d, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    g->cu.cuCtxSetCurrent(prev);
    *base = (void *)d;
    return rc == CUDA_SUCCESS ? AMP_OK : AMP_ERR_UNSUPPORTED;
}

static void ipc_unmap(void *ctx, int dev, void *base)
{
    amp_gpu_t *g = ctx;
    CUcontext prev = NULL;
    g->cu.cuCtxGetCurrent(&prev);
    g->cu.cuCtxSetCurrent(g->dev_ctx[dev]);
    g->cu.cuIpcCloseMemHandle((CUdeviceptr)base);
    g->cu.cuCtxSetCurrent(prev);
}

amp_status_t amp_gpu_ipc_open(amp_gpu_t *g, amp_pe_t *pe, int proc,
                              const amp_gpu_ipc_t *in, void **base)
{
    if (!g->has_ipc)
        return AMP_ERR_UNSUPPORTED;
    amp_gpu_ipc_ops_t ops = {ipc_map, ipc_unmap, g};
    amp_sys_alloc_enter();
    amp_status_t st = amp_gpu_ipc_cache_get(&g->ipc, &ops, proc,
                                            pe_of(g, pe)->device, in, base);
    amp_sys_alloc_leave();
    return st;
}

void amp_gpu_ipc_release(amp_gpu_t *g, amp_pe_t *pe, void *base)
{
    amp_gpu_ipc_cache_put(&g->ipc, pe_of(g, pe)->device, base);
}

static void ipc_clear(amp_gpu_t *g)
{
    if (!g->has_ipc)
        return;
    amp_gpu_ipc_ops_t ops = {ipc_map, ipc_unmap, g};
    amp_gpu_ipc_cache_clear(&g->ipc, &ops);
}

#endif
