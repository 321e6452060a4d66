#include "p2p/msg.h"

#include <stdlib.h>

static amp_msg_t *take_returned(amp_msg_pool_t *pool)
{
    if (!atomic_load_explicit(&pool->returned, memory_order_relaxed))
        return NULL;
    return atomic_exchange_explicit(&pool->returned, NULL,
                                    memory_order_acquire);
}

/* Cold path: the pool is empty. */
static __attribute__((noinline)) amp_msg_t *refill(amp_msg_pool_t *pool)
{
    amp_msg_t *m = take_returned(pool);
    if (m) {
        pool->free = m->next;
        return m;
    }
    m = aligned_alloc(64, AMP_ROUND_UP(sizeof(*m) + pool->payload, 64));
    if (!m)
        amp_fatal("out of memory allocating a message envelope");
    m->home = pool;
    return m;
}

amp_msg_t *amp_msg_get(amp_msg_pool_t *pool)
{
    amp_msg_t *m = pool->free;
    if (m) {
        pool->free = m->next;
        return m;
    }
    return refill(pool);
}

void amp_msg_put(amp_msg_pool_t *mine, amp_msg_t *m)
{
    amp_msg_pool_t *home = m->home;
    if (home->owner == mine->owner) {
        m->next = home->free;
        home->free = m;
        return;
    }
    amp_msg_t *old =
        atomic_load_explicit(&home->returned, memory_order_relaxed);
    do {
        m->next = old;
    } while (!atomic_compare_exchange_weak_explicit(
        &home->returned, &old, m, memory_order_release, memory_order_relaxed));
}
