/*
 * runtime/gpu without a GPU: the cache of device allocations (fed with
 * allocations of the test's own through the query functions it takes),
 * the staging plans, the path policy (AMPI_GPU_PATH) and +gpumap.
 */
#include "unit.h"

#include "gpu/gpu.h"

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

UNIT_TEST(gpu_map)
{
    int d[5];
    UNIT_EQ(amp_gpu_map_parse(NULL, 2, 5, d), AMP_OK);
    UNIT_EQ(d[0], 0);
    UNIT_EQ(d[1], 1);
    UNIT_EQ(d[4], 0);
    UNIT_EQ(amp_gpu_map_parse("rr", 3, 5, d), AMP_OK);
    UNIT_EQ(d[4], 1);
    UNIT_EQ(amp_gpu_map_parse("1,0", 2, 5, d), AMP_OK);
    UNIT_EQ(d[0], 1);
    UNIT_EQ(d[1], 0);
    UNIT_EQ(d[2], 1);
    UNIT_EQ(d[3], 0);
    UNIT_EQ(amp_gpu_map_parse("0,2", 2, 5, d), AMP_ERR_ARG);
    UNIT_EQ(amp_gpu_map_parse("0,", 2, 5, d), AMP_ERR_ARG);
    UNIT_EQ(amp_gpu_map_parse("x", 2, 5, d), AMP_ERR_ARG);
    UNIT_EQ(amp_gpu_map_parse("-1", 2, 5, d), AMP_ERR_ARG);
    UNIT_EQ(amp_gpu_map_parse("rr", 0, 5, d), AMP_ERR_ARG);
}

/* The point-to-point path: direct only for a dense device buffer whose
 * peer is in this process, in auto mode, and never for an eager send. */
UNIT_TEST(gpu_path_choose)
{
    amp_gpu_span_t dense, strided, empty;
    amp_gpu_peer_t local = {1, 0}, remote = {0, 0}, eager = {1, 1};
    int fetch = -1;
    amp_gpu_span_of(1000, 4, 4, 0, 4, 1, &dense);
    amp_gpu_span_of(3, 16, 32, 0, 24, 0, &strided);
    amp_gpu_span_of(0, 4, 4, 0, 4, 1, &empty);
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_AUTO, 1, AMP_GPU_SEND, &dense,
                                &local, &fetch),
            AMP_GPU_PATH_DIRECT);
    UNIT_EQ(fetch, 0);
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_AUTO, 1, AMP_GPU_RECV, &dense,
                                &local, &fetch),
            AMP_GPU_PATH_DIRECT);
    /* a receive does not care whether the sender goes eagerly */
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_AUTO, 1, AMP_GPU_RECV, &dense,
                                &eager, &fetch),
            AMP_GPU_PATH_DIRECT);
    /* staged: an eager send, another process, a gap, both directions */
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_AUTO, 1, AMP_GPU_SEND, &dense,
                                &eager, &fetch),
            AMP_GPU_PATH_STAGE);
    UNIT_EQ(fetch, 1);
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_AUTO, 1, AMP_GPU_RECV, &dense,
                                &remote, &fetch),
            AMP_GPU_PATH_STAGE);
    UNIT_EQ(fetch, 0);
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_AUTO, 1, AMP_GPU_RECV, &strided,
                                &local, &fetch),
            AMP_GPU_PATH_STAGE);
    UNIT_EQ(fetch, 1);
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_AUTO, 1, AMP_GPU_INOUT, &dense,
                                &local, &fetch),
            AMP_GPU_PATH_STAGE);
    /* forced staging */
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_STAGED, 1, AMP_GPU_SEND, &dense,
                                &local, &fetch),
            AMP_GPU_PATH_STAGE);
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_STAGED, 1, AMP_GPU_RECV, &dense,
                                &local, &fetch),
            AMP_GPU_PATH_STAGE);
    /* host memory, or nothing to move: the host path in every mode */
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_AUTO, 0, AMP_GPU_SEND, &dense,
                                &local, &fetch),
            AMP_GPU_PATH_HOST);
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_AUTO, 1, AMP_GPU_SEND, &empty,
                                &local, &fetch),
            AMP_GPU_PATH_HOST);
    UNIT_EQ(amp_gpu_path_choose(AMP_GPU_MODE_STAGED, 0, AMP_GPU_RECV, &dense,
                                &local, &fetch),
            AMP_GPU_PATH_HOST);
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
    UNIT_EQ(amp_gpu_mode_parse("direct", &mode), AMP_ERR_ARG);
    UNIT_EQ(amp_gpu_mode_parse("Staged", &mode), AMP_ERR_ARG);
    UNIT_EQ(amp_gpu_mode_parse("auto ", &mode), AMP_ERR_ARG);
}

/* Without a UCP context there is nothing to ask: no CUDA support. */
UNIT_TEST(gpu_ucx_none)
{
    UNIT_EQ(amp_gpu_ucx_cuda(NULL), 0);
}
