/* The per-PE cache of device allocations; see cache.h. */
#include "gpu/cache.h"

#include <string.h>

void amp_gpu_cache_init(amp_gpu_cache_t *c)
{
    memset(c, 0, sizeof(*c));
}

static int contains(const amp_gpu_range_t *r, uintptr_t a)
{
    return a >= r->start && a - r->start < r->size;
}

static int overlaps(const amp_gpu_range_t *x, const amp_gpu_range_t *y)
{
    return x->start < y->start + y->size && y->start < x->start + x->size;
}

static void drop(amp_gpu_cache_t *c, int i)
{
    c->slot[i] = c->slot[--c->n];
    if (c->victim >= c->n)
        c->victim = 0;
}

/* Adds r, dropping the stale entries it overlaps. */
static void insert(amp_gpu_cache_t *c, const amp_gpu_range_t *r)
{
    for (int i = 0; i < c->n;) {
        if (overlaps(&c->slot[i], r))
            drop(c, i);
        else
            i++;
    }
    if (c->n < AMP_GPU_CACHE_SLOTS) {
        c->slot[c->n++] = *r;
        return;
    }
    c->slot[c->victim] = *r;
    c->victim = (c->victim + 1) % AMP_GPU_CACHE_SLOTS;
}

int amp_gpu_cache_lookup(amp_gpu_cache_t *c, const amp_gpu_query_ops_t *q,
                         const void *p, amp_gpu_range_t *r)
{
    uintptr_t a = (uintptr_t)p;
    for (int i = 0; i < c->n; i++) {
        if (!contains(&c->slot[i], a))
            continue;
        if (q->buffer_id(q->ctx, p) == c->slot[i].id) {
            c->hits++;
            *r = c->slot[i];
            return 1;
        }
        c->stale++; /* freed, perhaps reallocated: ask afresh */
        drop(c, i);
        break;
    }
    c->misses++;
    if (!q->classify(q->ctx, p, r))
        return 0;
    if (r->id != 0 && r->size > 0)
        insert(c, r);
    return 1;
}
