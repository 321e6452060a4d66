/*
 * runtime/gpu without a GPU: the cache of device allocations (fed with
 * allocations of the test's own through the query functions it takes),
 * the staging plans, the path policy (AMPI_GPU_PATH) and +gpumap.
 */
#include "unit.h"

#include "gpu/gpu.h"
#include "mpi.h"

#include <string.h>

/* A fake address space: the live device allocations, and how often the
 * cache asked about them. */
typedef struct space {
    amp_gpu_range_t live[8];
    int n;
    int classify_calls, id_calls;
} space_t;

static const amp_gpu_range_t *find(space_t *sp, const void *p)
{
    uintptr_t a = (uintptr_t)p;
    for (int i = 0; i < sp->n; i++)
        if (a >= sp->live[i].start && a - sp->live[i].start < sp->live[i].size)
            return &sp->live[i];
    return NULL;
}

static int classify(void *ctx, const void *p, amp_gpu_range_t *r)
{
    space_t *sp = ctx;
    sp->classify_calls++;
    const amp_gpu_range_t *f = find(sp, p);
    if (f)
        *r = *f;
    return f != NULL;
}

static unsigned long long buffer_id(void *ctx, const void *p)
{
    space_t *sp = ctx;
    sp->id_calls++;
    const amp_gpu_range_t *f = find(sp, p);
    return f ? f->id : 0;
}

static void space_alloc(space_t *sp, uintptr_t start, size_t size,
                        unsigned long long id)
{
    amp_gpu_range_t r = {start, size, id, 0};
    sp->live[sp->n++] = r;
}

static void space_free(space_t *sp, uintptr_t start)
{
    for (int i = 0; i < sp->n; i++)
        if (sp->live[i].start == start)
            sp->live[i] = sp->live[--sp->n];
}

static space_t sp;
static amp_gpu_cache_t cache;

static int lookup(uintptr_t a, amp_gpu_range_t *r)
{
    amp_gpu_query_ops_t q = {classify, buffer_id, &sp};
    return amp_gpu_cache_lookup(&cache, &q, (const void *)a, r);
}

static void reset(void)
{
    memset(&sp, 0, sizeof(sp));
    amp_gpu_cache_init(&cache);
}

/* A device pointer is classified once in full; later lookups anywhere in
 * its allocation only check its buffer id. */
UNIT_TEST(gpu_cache_hit)
{
    reset();
    amp_gpu_range_t r;
    space_alloc(&sp, 0x10000, 4096, 7);
    UNIT_EQ(lookup(0x10000, &r), 1);
    UNIT_EQ(r.start, 0x10000);
    UNIT_EQ(r.size, 4096);
    UNIT_EQ(sp.classify_calls, 1);
    UNIT_EQ(lookup(0x10ff0, &r), 1);
    UNIT_EQ(r.id, 7);
    UNIT_EQ(sp.classify_calls, 1);
    UNIT_EQ(sp.id_calls, 1);
    UNIT_EQ(cache.hits, 1);
}

/* Host pointers are answered by the full query and not cached. */
UNIT_TEST(gpu_cache_host)
{
    reset();
    amp_gpu_range_t r;
    space_alloc(&sp, 0x10000, 4096, 7);
    UNIT_EQ(lookup(0x20000, &r), 0);
    UNIT_EQ(lookup(0x20000, &r), 0);
    UNIT_EQ(sp.classify_calls, 2);
    UNIT_EQ(cache.n, 0);
    /* just past the end of the allocation */
    UNIT_EQ(lookup(0x11000, &r), 0);
}

/* cudaFree then cudaMalloc at the same address, bigger: the old entry's
 * id no longer matches, and the new allocation is seen whole. */
UNIT_TEST(gpu_cache_address_reuse)
{
    reset();
    amp_gpu_range_t r;
    space_alloc(&sp, 0x10000, 4096, 7);
    UNIT_EQ(lookup(0x10000, &r), 1);
    space_free(&sp, 0x10000);
    space_alloc(&sp, 0x10000, 65536, 8);
    UNIT_EQ(lookup(0x10010, &r), 1);
    UNIT_EQ(r.id, 8);
    UNIT_EQ(r.size, 65536);
    UNIT_EQ(cache.stale, 1);
    /* beyond the old size, inside the new one: a hit of the new entry */
    UNIT_EQ(lookup(0x18000, &r), 1);
    UNIT_EQ(r.id, 8);
    UNIT_EQ(cache.n, 1);
}

/* Freed and the address now host memory: not device any more. */
UNIT_TEST(gpu_cache_freed)
{
    reset();
    amp_gpu_range_t r;
    space_alloc(&sp, 0x10000, 4096, 7);
    UNIT_EQ(lookup(0x10000, &r), 1);
    space_free(&sp, 0x10000);
    UNIT_EQ(lookup(0x10000, &r), 0);
    UNIT_EQ(cache.n, 0);
}

/* A new allocation overlapping stale entries replaces all of them. */
UNIT_TEST(gpu_cache_overlap)
{
    reset();
    amp_gpu_range_t r;
    space_alloc(&sp, 0x10000, 4096, 1);
    space_alloc(&sp, 0x11000, 4096, 2);
    UNIT_EQ(lookup(0x10000, &r), 1);
    UNIT_EQ(lookup(0x11000, &r), 1);
    UNIT_EQ(cache.n, 2);
    space_free(&sp, 0x10000);
    space_free(&sp, 0x11000);
    space_alloc(&sp, 0x10000, 8192, 3);
    UNIT_EQ(lookup(0x11800, &r), 1);
    UNIT_EQ(r.id, 3);
    UNIT_EQ(cache.n, 1);
}

/* More allocations than slots: the cache stays bounded and right. */
UNIT_TEST(gpu_cache_full)
{
    reset();
    amp_gpu_range_t r;
    amp_gpu_query_ops_t q = {classify, buffer_id, &sp};
    for (int i = 0; i < 3 * AMP_GPU_CACHE_SLOTS; i++) {
        sp.n = 0;
        space_alloc(&sp, 0x100000 + (uintptr_t)i * 0x1000, 0x1000,
                    (unsigned long long)i + 1);
        UNIT_EQ(amp_gpu_cache_lookup(
                    &cache, &q, (void *)(0x100000 + (uintptr_t)i * 0x1000), &r),
                1);
        UNIT_EQ(r.id, i + 1);
    }
    UNIT_EQ(cache.n, AMP_GPU_CACHE_SLOTS);
}

/* Spans of contiguous and strided types, and the path each role takes. */
UNIT_TEST(gpu_plan)
{
    amp_gpu_span_t s;
    int fetch;
    /* 10 ints */
    amp_gpu_span_of(10, 4, 4, 0, 4, 1, &s);
    UNIT_EQ(s.lo, 0);
    UNIT_EQ(s.bytes, 40);
    UNIT_EQ(s.dense, 1);
    UNIT_EQ(amp_gpu_path_select(0, AMP_GPU_RECV, &s, &fetch),
            AMP_GPU_PATH_HOST);
    UNIT_EQ(fetch, 0);
    UNIT_EQ(amp_gpu_path_select(1, AMP_GPU_RECV, &s, &fetch),
            AMP_GPU_PATH_STAGE);
    UNIT_EQ(fetch, 0);
    UNIT_EQ(amp_gpu_path_select(1, AMP_GPU_SEND, &s, &fetch),
            AMP_GPU_PATH_STAGE);
    UNIT_EQ(fetch, 1);
    UNIT_EQ(amp_gpu_path_select(1, AMP_GPU_INOUT, &s, &fetch),
            AMP_GPU_PATH_STAGE);
    UNIT_EQ(fetch, 1);
    /* 3 elements of a vector type: 2 doubles, stride 4 doubles (extent
     * 48, true extent 48 - 16 = 40... data 16 bytes per element) */
    amp_gpu_span_of(3, 16, 32, 0, 24, 0, &s);
    UNIT_EQ(s.lo, 0);
    UNIT_EQ(s.bytes, 2 * 32 + 24);
    UNIT_EQ(s.dense, 0);
    UNIT_EQ(amp_gpu_path_select(1, AMP_GPU_RECV, &s, &fetch),
            AMP_GPU_PATH_STAGE);
    UNIT_EQ(fetch, 1); /* the gaps keep their values */
    /* a negative extent runs downwards from the buffer */
    amp_gpu_span_of(3, 4, -8, 0, 4, 0, &s);
    UNIT_EQ(s.lo, -16);
    UNIT_EQ(s.bytes, 20);
    /* nothing to move: the host path */
    amp_gpu_span_of(0, 4, 4, 0, 4, 1, &s);
    UNIT_EQ(s.bytes, 0);
    UNIT_EQ(amp_gpu_path_select(1, AMP_GPU_SEND, &s, &fetch),
            AMP_GPU_PATH_HOST);
}

/* The spans of datatypes, and several blocks of one call widened into
 * one span (the buffers of a v or w collective). */
UNIT_TEST(gpu_span_dt)
{
    const amp_dt_t *i4 = amp_dt_predefined(AMPI_DTID_MPI_INT);
    amp_gpu_span_t s;
    amp_gpu_span_dt(&s, 10, i4);
    UNIT_EQ(s.lo, 0);
    UNIT_EQ(s.bytes, 40);
    UNIT_EQ(s.dense, 1);
    amp_gpu_span_t w = {0, 0, 1};
    amp_gpu_span_add(&w, 0, 0, i4); /* no elements: nothing */
    UNIT_EQ(w.bytes, 0);
    amp_gpu_span_add(&w, 16, 2, i4); /* the first block: its span */
    UNIT_EQ(w.lo, 16);
    UNIT_EQ(w.bytes, 8);
    UNIT_EQ(w.dense, 1);
    amp_gpu_span_add(&w, 40, 1, i4); /* after a gap */
    UNIT_EQ(w.lo, 16);
    UNIT_EQ(w.bytes, 28);
    UNIT_EQ(w.dense, 0);
    amp_gpu_span_add(&w, -8, 1, i4); /* before the start */
    UNIT_EQ(w.lo, -8);
    UNIT_EQ(w.bytes, 52);
}

UNIT_TEST(gpu_map)
{
    int d[5];
    UNIT_EQ(amp_gpu_map_parse(NULL, 2, 5, 0, d), AMP_OK);
    UNIT_EQ(d[0], 0);
    UNIT_EQ(d[1], 1);
    UNIT_EQ(d[4], 0);
    UNIT_EQ(amp_gpu_map_parse("rr", 3, 5, 0, d), AMP_OK);
    UNIT_EQ(d[4], 1);
    UNIT_EQ(amp_gpu_map_parse("1,0", 2, 5, 0, d), AMP_OK);
    UNIT_EQ(d[0], 1);
    UNIT_EQ(d[1], 0);
    UNIT_EQ(d[2], 1);
    UNIT_EQ(d[3], 0);
    UNIT_EQ(amp_gpu_map_parse("0,2", 2, 5, 0, d), AMP_ERR_ARG);
    UNIT_EQ(amp_gpu_map_parse("0,", 2, 5, 0, d), AMP_ERR_ARG);
    UNIT_EQ(amp_gpu_map_parse("x", 2, 5, 0, d), AMP_ERR_ARG);
    UNIT_EQ(amp_gpu_map_parse("-1", 2, 5, 0, d), AMP_ERR_ARG);
    UNIT_EQ(amp_gpu_map_parse("rr", 0, 5, 0, d), AMP_ERR_ARG);
    /* the second process of a node with 2 PEs each starts at device 2 */
    UNIT_EQ(amp_gpu_map_parse("rr", 4, 2, 2, d), AMP_OK);
    UNIT_EQ(d[0], 2);
    UNIT_EQ(d[1], 3);
    UNIT_EQ(amp_gpu_map_parse(NULL, 3, 2, 2, d), AMP_OK);
    UNIT_EQ(d[0], 2);
    UNIT_EQ(d[1], 0);
    /* one device: every process shares it */
    UNIT_EQ(amp_gpu_map_parse(NULL, 1, 2, 6, d), AMP_OK);
    UNIT_EQ(d[0], 0);
    UNIT_EQ(d[1], 0);
    /* a list is this process's own, whatever the others */
    UNIT_EQ(amp_gpu_map_parse("1,0", 2, 2, 2, d), AMP_OK);
    UNIT_EQ(d[0], 1);
    UNIT_EQ(amp_gpu_map_parse("rr", 2, 2, -1, d), AMP_ERR_ARG);
}

/* The point-to-point path: direct for a dense device buffer that is a send
 * or a receive (not both), to or from any process, unless staging is
 * forced; never for an eager send. */
UNIT_TEST(gpu_path_choose)
{
    amp_gpu_span_t dense, strided, empty;
    amp_gpu_peer_t rndv = {.eager = 0}, eager = {.eager = 1};
    int fetch = -1;
    amp_gpu_span_of(1000, 4, 4, 0, 4, 1, &dense);
    amp_gpu_span_of(3, 16, 32, 0, 24, 0, &strided);
    amp_gpu_span_of(0, 4, 4, 0, 4, 1, &empty);
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_AUTO, 1, AMP_GPU_SEND, &dense,
                                &rndv, &fetch),
            AMP_GPU_PATH_DIRECT);
    UNIT_EQ(fetch, 0);
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_AUTO, 1, AMP_GPU_RECV, &dense,
                                &rndv, &fetch),
            AMP_GPU_PATH_DIRECT);
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_PIPELINED, 1, AMP_GPU_SEND, &dense,
                                &rndv, &fetch),
            AMP_GPU_PATH_DIRECT);
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_PIPELINED, 1, AMP_GPU_RECV, &dense,
                                &rndv, &fetch),
            AMP_GPU_PATH_DIRECT);
    /* a receive does not care whether the sender goes eagerly */
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_AUTO, 1, AMP_GPU_RECV, &dense,
                                &eager, &fetch),
            AMP_GPU_PATH_DIRECT);
    /* staged: an eager send, a gap, both directions */
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_AUTO, 1, AMP_GPU_SEND, &dense,
                                &eager, &fetch),
            AMP_GPU_PATH_STAGE);
    UNIT_EQ(fetch, 1);
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_PIPELINED, 1, AMP_GPU_SEND, &dense,
                                &eager, &fetch),
            AMP_GPU_PATH_STAGE);
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_AUTO, 1, AMP_GPU_RECV, &strided,
                                &rndv, &fetch),
            AMP_GPU_PATH_STAGE);
    UNIT_EQ(fetch, 1);
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_AUTO, 1, AMP_GPU_INOUT, &dense,
                                &rndv, &fetch),
            AMP_GPU_PATH_STAGE);
    /* forced staging */
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_STAGED, 1, AMP_GPU_SEND, &dense,
                                &rndv, &fetch),
            AMP_GPU_PATH_STAGE);
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_STAGED, 1, AMP_GPU_RECV, &dense,
                                &rndv, &fetch),
            AMP_GPU_PATH_STAGE);
    UNIT_EQ(fetch, 0);
    /* host memory, or nothing to move: the host path in every mode */
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_AUTO, 0, AMP_GPU_SEND, &dense,
                                &rndv, &fetch),
            AMP_GPU_PATH_HOST);
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_AUTO, 1, AMP_GPU_SEND, &empty,
                                &rndv, &fetch),
            AMP_GPU_PATH_HOST);
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_STAGED, 0, AMP_GPU_RECV, &dense,
                                &rndv, &fetch),
            AMP_GPU_PATH_HOST);
}

/* Between processes: CUDA IPC on one node, UCX when both processes' UCX
 * moves CUDA memory, the pipeline otherwise or when asked for. */
UNIT_TEST(gpu_xfer_choose)
{
    UNIT_EQ(amp_gpu_xfer_choose(AMP_GPU_MODE_AUTO, 1, 0), AMP_GPU_XFER_IPC);
    UNIT_EQ(amp_gpu_xfer_choose(AMP_GPU_MODE_AUTO, 1, 1), AMP_GPU_XFER_IPC);
    UNIT_EQ(amp_gpu_xfer_choose(AMP_GPU_MODE_AUTO, 0, 1), AMP_GPU_XFER_UCX);
    UNIT_EQ(amp_gpu_xfer_choose(AMP_GPU_MODE_AUTO, 0, 0),
            AMP_GPU_XFER_PIPELINE);
    UNIT_EQ(amp_gpu_xfer_choose(AMP_GPU_MODE_PIPELINED, 1, 1),
            AMP_GPU_XFER_PIPELINE);
    UNIT_EQ(amp_gpu_xfer_choose(AMP_GPU_MODE_PIPELINED, 0, 1),
            AMP_GPU_XFER_PIPELINE);
}

/* ---- the cache of CUDA IPC mappings (gpu/ipc.h) ---- */

/* A fake driver: every open maps a fresh base; the test sees which
 * handles are mapped and how often it was asked. */
typedef struct fake_ipc {
    int opens, closes, fail;
    uintptr_t next_base;
    int open_now; /* mappings not closed */
} fake_ipc_t;

static amp_status_t fake_open(void *ctx, int dev, const unsigned char *handle,
                              void **base)
{
    fake_ipc_t *f = ctx;
    if (f->fail)
        return AMP_ERR_UNSUPPORTED;
    f->opens++;
    f->open_now++;
    f->next_base += 0x100000;
    *base = (void *)(f->next_base + (uintptr_t)handle[0] * 0x10 + dev);
    return AMP_OK;
}

static void fake_close(void *ctx, int dev, void *base)
{
    fake_ipc_t *f = ctx;
    f->closes++;
    f->open_now--;
}

static amp_gpu_ipc_t ipc_of(uint64_t id)
{
    amp_gpu_ipc_t in = {.id = id, .offset = 64};
    in.handle[0] = (unsigned char)id;
    return in;
}

/* A handle is opened once per (process, allocation, device) and found
 * again after; another process, allocation or device opens anew. */
UNIT_TEST(gpu_ipc_cache_reuse)
{
    static amp_gpu_ipc_cache_t c;
    fake_ipc_t f = {0};
    amp_gpu_ipc_ops_t ops = {fake_open, fake_close, &f};
    amp_gpu_ipc_cache_init(&c);
    amp_gpu_ipc_t a = ipc_of(7), b = ipc_of(8);
    void *b1, *b2, *b3, *b4, *b5;
    UNIT_EQ(amp_gpu_ipc_cache_get(&c, &ops, 1, 0, &a, &b1), AMP_OK);
    UNIT_EQ(amp_gpu_ipc_cache_get(&c, &ops, 1, 0, &a, &b2), AMP_OK);
    UNIT_EQ(b1 == b2, 1);
    UNIT_EQ(f.opens, 1);
    UNIT_EQ(amp_gpu_ipc_cache_get(&c, &ops, 2, 0, &a, &b3), AMP_OK);
    UNIT_EQ(amp_gpu_ipc_cache_get(&c, &ops, 1, 0, &b, &b4), AMP_OK);
    UNIT_EQ(amp_gpu_ipc_cache_get(&c, &ops, 1, 1, &a, &b5), AMP_OK);
    UNIT_EQ(f.opens, 4);
    UNIT_EQ(b3 != b1 && b4 != b1 && b5 != b1, 1);
    UNIT_EQ(c.hits, 1);
    amp_gpu_ipc_cache_clear(&c, &ops);
    UNIT_EQ(f.open_now, 0);
}

/* Full: the least recently used idle mapping is closed for a new one; a
 * mapping in use is never closed; with every one in use the answer is
 * AMP_ERR_NOMEM and nothing is closed. */
UNIT_TEST(gpu_ipc_cache_evict)
{
    static amp_gpu_ipc_cache_t c;
    fake_ipc_t f = {0};
    amp_gpu_ipc_ops_t ops = {fake_open, fake_close, &f};
    amp_gpu_ipc_cache_init(&c);
    void *base[AMP_GPU_IPC_SLOTS], *b;
    for (int i = 0; i < AMP_GPU_IPC_SLOTS; i++) {
        amp_gpu_ipc_t in = ipc_of((uint64_t)i + 1);
        UNIT_EQ(amp_gpu_ipc_cache_get(&c, &ops, 1, 0, &in, &base[i]), AMP_OK);
    }
    amp_gpu_ipc_t extra = ipc_of(1000);
    UNIT_EQ(amp_gpu_ipc_cache_get(&c, &ops, 1, 0, &extra, &b), AMP_ERR_NOMEM);
    UNIT_EQ(f.closes, 0);
    /* entries 3 and 5 go idle; 3 was used last, so 5 is the older one */
    amp_gpu_ipc_cache_put(&c, 0, base[5]);
    amp_gpu_ipc_t again = ipc_of(4);
    void *b3;
    UNIT_EQ(amp_gpu_ipc_cache_get(&c, &ops, 1, 0, &again, &b3), AMP_OK);
    UNIT_EQ(b3 == base[3], 1);
    amp_gpu_ipc_cache_put(&c, 0, base[3]);
    amp_gpu_ipc_cache_put(&c, 0, base[3]);
    UNIT_EQ(amp_gpu_ipc_cache_get(&c, &ops, 1, 0, &extra, &b), AMP_OK);
    UNIT_EQ(f.closes, 1);
    UNIT_EQ(c.evictions, 1);
    /* 5 was closed: asking for it again opens it anew (evicting 3) */
    amp_gpu_ipc_t five = ipc_of(6);
    UNIT_EQ(amp_gpu_ipc_cache_get(&c, &ops, 1, 0, &five, &b), AMP_OK);
    UNIT_EQ(f.closes, 2);
    UNIT_EQ(f.opens, AMP_GPU_IPC_SLOTS + 2);
    amp_gpu_ipc_cache_clear(&c, &ops);
    UNIT_EQ(f.open_now, 0);
}

/* A handle the driver refuses leaves no entry behind. */
UNIT_TEST(gpu_ipc_cache_refused)
{
    static amp_gpu_ipc_cache_t c;
    fake_ipc_t f = {.fail = 1};
    amp_gpu_ipc_ops_t ops = {fake_open, fake_close, &f};
    amp_gpu_ipc_cache_init(&c);
    amp_gpu_ipc_t in = ipc_of(3);
    void *b;
    UNIT_EQ(amp_gpu_ipc_cache_get(&c, &ops, 1, 0, &in, &b),
            AMP_ERR_UNSUPPORTED);
    UNIT_EQ(c.n, 0);
    f.fail = 0;
    UNIT_EQ(amp_gpu_ipc_cache_get(&c, &ops, 1, 0, &in, &b), AMP_OK);
    UNIT_EQ(c.n, 1);
    UNIT_EQ(f.opens, 1);
    amp_gpu_ipc_cache_clear(&c, &ops);
}

UNIT_TEST(gpu_mode_parse)
{
    int mode = -1;
    UNIT_EQ(amp_gpu_mode_parse(NULL, &mode), AMP_OK);
    UNIT_EQ(mode, AMP_GPU_MODE_AUTO);
    UNIT_EQ(amp_gpu_mode_parse("", &mode), AMP_OK);
    UNIT_EQ(mode, AMP_GPU_MODE_AUTO);
    UNIT_EQ(amp_gpu_mode_parse("staged", &mode), AMP_OK);
    UNIT_EQ(mode, AMP_GPU_MODE_STAGED);
    UNIT_EQ(amp_gpu_mode_parse("auto", &mode), AMP_OK);
    UNIT_EQ(mode, AMP_GPU_MODE_AUTO);
    UNIT_EQ(amp_gpu_mode_parse("pipelined", &mode), AMP_OK);
    UNIT_EQ(mode, AMP_GPU_MODE_PIPELINED);
    UNIT_EQ(amp_gpu_mode_parse("direct", &mode), AMP_ERR_ARG);
    UNIT_EQ(amp_gpu_mode_parse("Staged", &mode), AMP_ERR_ARG);
    UNIT_EQ(amp_gpu_mode_parse("auto ", &mode), AMP_ERR_ARG);
}

/* Without a UCP context there is nothing to ask: no CUDA support. */
UNIT_TEST(gpu_ucx_none)
{
    UNIT_EQ(amp_gpu_ucx_cuda(NULL), 0);
}

/* ---- the operations a PE waits for (gpu/opq.h) ---- */

/* A fake device: each stream runs its work in order; an event records the
 * position of its stream's work, and is done once the stream has run that
 * far.  The test moves the streams on by hand. */
#define FAKE_STREAMS 12

typedef struct fake_ev {
    int stream; /* -1: never recorded (done, as in CUDA) */
    int seq;
} fake_ev_t;

typedef struct fake_dev {
    int queued[FAKE_STREAMS], ran[FAKE_STREAMS];
    int failed_stream; /* its events fail; -1: none */
    int refuse_record, created, destroyed;
    fake_ev_t evs[64];
} fake_dev_t;

static amp_status_t fd_create(void *ctx, void **ev)
{
    fake_dev_t *d = ctx;
    if (d->created == 64)
        return AMP_ERR_NOMEM;
    fake_ev_t *e = &d->evs[d->created++];
    e->stream = -1;
    *ev = e;
    return AMP_OK;
}

static amp_status_t fd_record(void *ctx, void *ev, void *stream)
{
    fake_dev_t *d = ctx;
    if (d->refuse_record)
        return AMP_ERR_OTHER;
    fake_ev_t *e = ev;
    e->stream = (int)(intptr_t)stream;
    e->seq = ++d->queued[e->stream];
    return AMP_OK;
}

static int fd_query(void *ctx, void *ev)
{
    fake_dev_t *d = ctx;
    fake_ev_t *e = ev;
    if (e->stream < 0)
        return AMP_GPU_EV_DONE;
    if (e->stream == d->failed_stream)
        return AMP_GPU_EV_FAILED;
    return d->ran[e->stream] >= e->seq ? AMP_GPU_EV_DONE : AMP_GPU_EV_PENDING;
}

static void fd_destroy(void *ctx, void *ev)
{
    fake_dev_t *d = ctx;
    d->destroyed++;
}

/* The done functions' log: which operation finished, how, and how many
 * the queue still counted as pending while it ran. */
typedef struct done_log {
    int n, id[32], st[32], pending[32];
    amp_gpu_opq_t *q;
    const amp_gpu_ev_ops_t *ops;
    int push_again; /* the next done pushes one more on stream 0 */
} done_log_t;

typedef struct done_arg {
    done_log_t *log;
    int id;
} done_arg_t;

static void log_done(void *arg, amp_status_t st)
{
    done_arg_t *a = arg;
    done_log_t *l = a->log;
    if (l->push_again) {
        static done_arg_t again;
        l->push_again = 0;
        again = (done_arg_t){l, 99};
        UNIT_EQ(amp_gpu_opq_push(l->q, l->ops, (void *)0, log_done, &again),
                AMP_OK);
    }
    l->id[l->n] = a->id;
    l->st[l->n] = st;
    l->pending[l->n++] = amp_gpu_opq_pending(l->q);
}

#define FAKE_OPS(d) {fd_create, fd_record, fd_query, fd_destroy, &(d)}

/* Operations finish in the order they were pushed, once their stream has
 * run that far; a busy stream's later events are not asked about in the
 * same poll; a done function sees its operation still pending. */
UNIT_TEST(gpu_opq_order)
{
    fake_dev_t d = {.failed_stream = -1};
    amp_gpu_ev_ops_t ops = FAKE_OPS(d);
    amp_gpu_opq_t q;
    amp_gpu_opq_init(&q);
    done_log_t log = {.q = &q, .ops = &ops};
    done_arg_t a[4];
    for (int i = 0; i < 4; i++) {
        a[i] = (done_arg_t){&log, i};
        /* 0, 1, 3 on stream 0; 2 on stream 1 */
        void *s = (void *)(intptr_t)(i == 2);
        UNIT_EQ(amp_gpu_opq_push(&q, &ops, s, log_done, &a[i]), AMP_OK);
    }
    UNIT_EQ(amp_gpu_opq_pending(&q), 4);
    UNIT_EQ(amp_gpu_opq_poll(&q, &ops), 0);
    UNIT_EQ(q.queries, 2); /* one per stream */
    d.ran[0] = 2;
    UNIT_EQ(amp_gpu_opq_poll(&q, &ops), 2);
    UNIT_EQ(log.n, 2);
    UNIT_EQ(log.id[0], 0);
    UNIT_EQ(log.id[1], 1);
    UNIT_EQ(log.pending[0], 4); /* counted until its done returns */
    UNIT_EQ(log.pending[1], 3);
    UNIT_EQ(log.st[0], AMP_OK);
    UNIT_EQ(amp_gpu_opq_pending(&q), 2);
    d.ran[0] = 3;
    d.ran[1] = 1;
    UNIT_EQ(amp_gpu_opq_poll(&q, &ops), 2);
    UNIT_EQ(log.id[2], 2);
    UNIT_EQ(log.id[3], 3);
    UNIT_EQ(amp_gpu_opq_pending(&q), 0);
    UNIT_TRUE(q.head == NULL && q.tail == NULL);
    amp_gpu_opq_cleanup(&q, &ops);
    UNIT_EQ(d.destroyed, d.created);
}

/* Events are made once and reused: a thousand operations, two at a time,
 * create two events. */
UNIT_TEST(gpu_opq_reuse)
{
    fake_dev_t d = {.failed_stream = -1};
    amp_gpu_ev_ops_t ops = FAKE_OPS(d);
    amp_gpu_opq_t q;
    amp_gpu_opq_init(&q);
    done_log_t log = {.q = &q, .ops = &ops};
    done_arg_t a = {&log, 0};
    for (int i = 0; i < 1000; i++) {
        log.n = 0;
        UNIT_EQ(amp_gpu_opq_push(&q, &ops, (void *)0, log_done, &a), AMP_OK);
        UNIT_EQ(amp_gpu_opq_push(&q, &ops, (void *)0, log_done, &a), AMP_OK);
        d.ran[0] = d.queued[0];
        UNIT_EQ(amp_gpu_opq_poll(&q, &ops), 2);
    }
    UNIT_EQ(d.created, 2);
    UNIT_EQ(q.created, 2);
    amp_gpu_opq_cleanup(&q, &ops);
    UNIT_EQ(d.destroyed, 2);
}

/* A done function may push: the new operation waits for its own event, in
 * a later poll. */
UNIT_TEST(gpu_opq_push_from_done)
{
    fake_dev_t d = {.failed_stream = -1};
    amp_gpu_ev_ops_t ops = FAKE_OPS(d);
    amp_gpu_opq_t q;
    amp_gpu_opq_init(&q);
    done_log_t log = {.q = &q, .ops = &ops, .push_again = 1};
    done_arg_t a = {&log, 1};
    UNIT_EQ(amp_gpu_opq_push(&q, &ops, (void *)0, log_done, &a), AMP_OK);
    d.ran[0] = 1;
    UNIT_EQ(amp_gpu_opq_poll(&q, &ops), 1);
    UNIT_EQ(amp_gpu_opq_pending(&q), 1);
    UNIT_EQ(log.pending[0], 2); /* itself and the one it pushed */
    UNIT_EQ(amp_gpu_opq_poll(&q, &ops), 0);
    d.ran[0] = 2;
    UNIT_EQ(amp_gpu_opq_poll(&q, &ops), 1);
    UNIT_EQ(log.id[1], 99);
    UNIT_EQ(amp_gpu_opq_pending(&q), 0);
    amp_gpu_opq_cleanup(&q, &ops);
}

/* A failed event finishes its operation with an error; an event that
 * cannot be recorded fails the push, calls nothing, and is kept for the
 * next one. */
UNIT_TEST(gpu_opq_errors)
{
    fake_dev_t d = {.failed_stream = 1};
    amp_gpu_ev_ops_t ops = FAKE_OPS(d);
    amp_gpu_opq_t q;
    amp_gpu_opq_init(&q);
    done_log_t log = {.q = &q, .ops = &ops};
    done_arg_t a = {&log, 5};
    UNIT_EQ(amp_gpu_opq_push(&q, &ops, (void *)1, log_done, &a), AMP_OK);
    UNIT_EQ(amp_gpu_opq_poll(&q, &ops), 1);
    UNIT_EQ(log.st[0], AMP_ERR_OTHER);
    d.refuse_record = 1;
    UNIT_EQ(amp_gpu_opq_push(&q, &ops, (void *)0, log_done, &a), AMP_ERR_OTHER);
    UNIT_EQ(amp_gpu_opq_pending(&q), 0);
    UNIT_EQ(log.n, 1);
    d.refuse_record = 0;
    UNIT_EQ(amp_gpu_opq_push(&q, &ops, (void *)0, log_done, &a), AMP_OK);
    UNIT_EQ(d.created, 1);
    d.ran[0] = 1;
    UNIT_EQ(amp_gpu_opq_poll(&q, &ops), 1);
    UNIT_EQ(log.st[1], AMP_OK);
    amp_gpu_opq_cleanup(&q, &ops);
}

/* More busy streams than the poll keeps track of: every event of the
 * others is asked about, and the answers stay right. */
UNIT_TEST(gpu_opq_many_streams)
{
    fake_dev_t d = {.failed_stream = -1};
    amp_gpu_ev_ops_t ops = FAKE_OPS(d);
    amp_gpu_opq_t q;
    amp_gpu_opq_init(&q);
    done_log_t log = {.q = &q, .ops = &ops};
    done_arg_t a[20];
    for (int i = 0; i < 20; i++) {
        a[i] = (done_arg_t){&log, i};
        UNIT_EQ(amp_gpu_opq_push(&q, &ops, (void *)(intptr_t)(i % 10), log_done,
                                 &a[i]),
                AMP_OK);
    }
    UNIT_EQ(amp_gpu_opq_poll(&q, &ops), 0);
    UNIT_EQ(q.queries, 8 + 2 * 2); /* streams 8 and 9: both events */
    for (int s = 0; s < 10; s++)
        d.ran[s] = 2;
    UNIT_EQ(amp_gpu_opq_poll(&q, &ops), 20);
    for (int i = 0; i < 20; i++)
        UNIT_EQ(log.id[i], i);
    amp_gpu_opq_cleanup(&q, &ops);
}

/* The devices whose legacy default stream a copy waits for: the buffers'
 * devices other than the PE's, each once, host memory and unknown devices
 * left out. */
UNIT_TEST(gpu_order_devices)
{
    int out[2] = {-9, -9};
    UNIT_EQ(amp_gpu_order_devices(0, 0, 0, 2, out), 0);
    UNIT_EQ(amp_gpu_order_devices(0, -1, 0, 2, out), 0);
    UNIT_EQ(amp_gpu_order_devices(0, 0, -1, 2, out), 0);
    UNIT_EQ(amp_gpu_order_devices(0, 1, 0, 2, out), 1);
    UNIT_EQ(out[0], 1);
    UNIT_EQ(amp_gpu_order_devices(0, -1, 1, 2, out), 1);
    UNIT_EQ(out[0], 1);
    UNIT_EQ(amp_gpu_order_devices(0, 1, 1, 2, out), 1);
    UNIT_EQ(amp_gpu_order_devices(2, 0, 1, 3, out), 2);
    UNIT_EQ(out[0], 0);
    UNIT_EQ(out[1], 1);
    UNIT_EQ(amp_gpu_order_devices(0, 5, 1, 2, out), 1); /* 5: no such */
    UNIT_EQ(out[0], 1);
}
