/*
 * gpu/cache.h: a per-PE cache of the device allocations that MPI calls have
 * seen, so that classifying a buffer usually costs one cheap driver query.
 *
 * Address reuse.  After cudaFree and a new cudaMalloc, one address may
 * belong to a different allocation of a different size, or to none.  The
 * cache therefore never trusts a range by its address alone: every entry
 * keeps the allocation's CU_POINTER_ATTRIBUTE_BUFFER_ID, which the driver
 * documents as unique within the process for the process's lifetime (ids
 * are never reused), and a hit is confirmed by asking the driver for the
 * buffer id at the pointer (one attribute) and comparing.  A different id,
 * or none (the memory is gone), drops the entry and the pointer is
 * classified afresh (memory type, id, range start and size, device: one
 * cuPointerGetAttributes call), the new range replacing every entry it
 * overlaps.  Host pointers are not cached: the full query answers them.
 *
 * The queries come in as functions (amp_gpu_query_ops_t) so that the unit
 * tests can drive the cache with ranges of their own; gpu.c passes the
 * driver's.  Fixed size, linear scan, round-robin replacement: a handful
 * of live buffers per PE is the common case.
 */
#ifndef AMP_GPU_CACHE_H
#define AMP_GPU_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* One device allocation. */
typedef struct amp_gpu_range {
    uintptr_t start;
    size_t size;
    unsigned long long id; /* CU_POINTER_ATTRIBUTE_BUFFER_ID, never 0 */
    int device;
} amp_gpu_range_t;

typedef struct amp_gpu_query_ops {
    /* Whether p is device memory; if so *r is its allocation. */
    int (*classify)(void *ctx, const void *p, amp_gpu_range_t *r);
    /* The buffer id of the device allocation holding p, 0 if none. */
    unsigned long long (*buffer_id)(void *ctx, const void *p);
    void *ctx;
} amp_gpu_query_ops_t;

#define AMP_GPU_CACHE_SLOTS 32

typedef struct amp_gpu_cache {
    amp_gpu_range_t slot[AMP_GPU_CACHE_SLOTS];
    int n;      /* slots in use: slot[0 .. n) */
    int victim; /* next slot to replace when full */
    unsigned long hits, misses, stale;
} amp_gpu_cache_t;

void amp_gpu_cache_init(amp_gpu_cache_t *c);
/* Whether p is device memory (through the cache, asking q as described
 * above); if so *r is its allocation. */
int amp_gpu_cache_lookup(amp_gpu_cache_t *c, const amp_gpu_query_ops_t *q,
                         const void *p, amp_gpu_range_t *r);

#endif
