/* The cache of CUDA IPC mappings of a process; see ipc.h. */
#include "gpu/ipc.h"

#include <string.h>

static void lock(amp_gpu_ipc_cache_t *c)
{
    int expect = 0;
    while (!atomic_compare_exchange_weak_explicit(
        &c->lock, &expect, 1, memory_order_acquire, memory_order_relaxed))
        expect = 0;
}

static void unlock(amp_gpu_ipc_cache_t *c)
{
    atomic_store_explicit(&c->lock, 0, memory_order_release);
}

void amp_gpu_ipc_cache_init(amp_gpu_ipc_cache_t *c)
{
    memset(c, 0, sizeof(*c));
}

static amp_gpu_ipc_entry_t *find(amp_gpu_ipc_cache_t *c, int proc, int dev,
                                 uint64_t id)
{
    for (int i = 0; i < c->n; i++) {
        amp_gpu_ipc_entry_t *e = &c->slot[i];
        if (e->proc == proc && e->dev == dev && e->id == id)
            return e;
    }
    return NULL;
}

/* A free slot, or the least recently used idle one closed; NULL when every
 * entry is in use. */
static amp_gpu_ipc_entry_t *make_room(amp_gpu_ipc_cache_t *c,
                                      const amp_gpu_ipc_ops_t *ops)
{
    if (c->n < AMP_GPU_IPC_SLOTS)
        return &c->slot[c->n++];
    amp_gpu_ipc_entry_t *old = NULL;
    for (int i = 0; i < c->n; i++) {
        amp_gpu_ipc_entry_t *e = &c->slot[i];
        if (e->refs == 0 && (!old || e->stamp < old->stamp))
            old = e;
    }
    if (old) {
        ops->close(ops->ctx, old->dev, old->base);
        c->evictions++;
    }
    return old;
}

amp_status_t amp_gpu_ipc_cache_get(amp_gpu_ipc_cache_t *c,
                                   const amp_gpu_ipc_ops_t *ops, int proc,
                                   int dev, const amp_gpu_ipc_t *in,
                                   void **base)
{
    lock(c);
    amp_status_t st = AMP_OK;
    amp_gpu_ipc_entry_t *e = find(c, proc, dev, in->id);
    if (e) {
        c->hits++;
    } else if (!(e = make_room(c, ops))) {
        st = AMP_ERR_NOMEM;
    } else {
        void *b = NULL;
        st = ops->open(ops->ctx, dev, in->handle, &b);
        if (st != AMP_OK) {
            *e = c->slot[--c->n]; /* give the slot back */
            e = NULL;
        } else {
            *e = (amp_gpu_ipc_entry_t){
                .proc = proc, .dev = dev, .id = in->id, .base = b};
            c->opens++;
        }
    }
    if (e) {
        e->refs++;
        e->stamp = ++c->clock;
        *base = e->base;
    }
    unlock(c);
    return st;
}

void amp_gpu_ipc_cache_put(amp_gpu_ipc_cache_t *c, int dev, void *base)
{
    lock(c);
    for (int i = 0; i < c->n; i++) {
        amp_gpu_ipc_entry_t *e = &c->slot[i];
        if (e->dev == dev && e->base == base && e->refs > 0) {
            e->refs--;
            break;
        }
    }
    unlock(c);
}

void amp_gpu_ipc_cache_clear(amp_gpu_ipc_cache_t *c,
                             const amp_gpu_ipc_ops_t *ops)
{
    for (int i = 0; i < c->n; i++)
        ops->close(ops->ctx, c->slot[i].dev, c->slot[i].base);
    c->n = 0;
}
