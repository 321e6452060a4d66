/*
 * A single-producer, single-consumer ring: one per ordered pair of PEs,
 * carrying all point-to-point traffic from one PE to the other, in order.
 *
 * Each slot is two cache lines and holds either a small message inline
 * (header and payload together, so that a small message costs the
 * receiver one or two cache-line transfers) or a pointer to an envelope.
 * A slot's sequence number says what it holds: the write at position p
 * stores seq = p + 1 last, and the consumer at position p takes the slot
 * when it finds that number (what an earlier lap left there differs by a
 * multiple of AMP_RING_SLOTS).  The consumer never writes a slot: it
 * publishes how far it got (head), which the producer reads only when its
 * own copy of it says the ring is full.  So a message costs the producer
 * no read of a line the consumer wrote, and the consumer, which waits on
 * the slot where the next message will land, loses that line only to the
 * producer's write.
 *
 * When the ring is full the producer keeps further envelopes in an
 * overflow list of its own (in order) and moves them into the ring as
 * slots free up; while that list is not empty everything goes there, so
 * the order never changes.
 */
#ifndef AMP_P2P_RING_H
#define AMP_P2P_RING_H

#include "p2p/msg.h"

#include <stdatomic.h>
#include <stdint.h>

#define AMP_RING_SLOTS 64
#define AMP_RING_INLINE 96 /* largest payload carried in a slot */

enum amp_slot_kind { AMP_SLOT_INLINE, AMP_SLOT_MSG };

typedef struct amp_ring_slot {
    _Atomic uint32_t seq;
    uint8_t kind;
    uint32_t bytes;
    int ctx, src, tag, dst;
    uint32_t sid; /* the send's number (amp_p2p_req_t) */
    union {
        amp_msg_t *msg;
        char data[AMP_RING_INLINE];
    } u;
} __attribute__((aligned(128))) amp_ring_slot_t;
_Static_assert(sizeof(amp_ring_slot_t) == 128, "a ring slot is two lines");

typedef struct amp_ring {
    amp_ring_slot_t slots[AMP_RING_SLOTS];
    /* Producer's. */
    _Alignas(64) uint32_t tail;
    uint32_t seen_head;             /* the consumer's head, as last read */
    amp_msg_t *ovf_head, *ovf_tail; /* waiting for room, oldest first */
    /* Consumer's: written by it alone, read by the producer when full. */
    _Alignas(64) _Atomic uint32_t head;
} amp_ring_t;

void amp_ring_init(amp_ring_t *ring);

/* Whether the slot at the producer's position is free (the consumer's
 * head read again only when the copy says the ring is full). */
static inline int amp_ring_room(amp_ring_t *ring)
{
    if (ring->tail - ring->seen_head < AMP_RING_SLOTS)
        return 1;
    ring->seen_head = atomic_load_explicit(&ring->head, memory_order_acquire);
    return ring->tail - ring->seen_head < AMP_RING_SLOTS;
}

/* The next free slot, or NULL when full (or when older envelopes still
 * wait in the overflow list).  Fill it, then amp_ring_publish. */
static inline amp_ring_slot_t *amp_ring_reserve(amp_ring_t *ring)
{
    if (ring->ovf_head || !amp_ring_room(ring))
        return NULL;
    return &ring->slots[ring->tail % AMP_RING_SLOTS];
}

/* Hands the reserved slot to the consumer.  Sequentially consistent, so
 * that the producer's later look at whether the consumer sleeps cannot be
 * ordered before it. */
static inline void amp_ring_publish(amp_ring_t *ring, amp_ring_slot_t *s)
{
    atomic_store_explicit(&s->seq, ring->tail + 1, memory_order_seq_cst);
    ring->tail++;
}

/* The oldest filled slot, or NULL. */
static inline amp_ring_slot_t *amp_ring_peek(amp_ring_t *ring)
{
    uint32_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);
    amp_ring_slot_t *s = &ring->slots[head % AMP_RING_SLOTS];
    if (atomic_load_explicit(&s->seq, memory_order_acquire) != head + 1)
        return NULL;
    return s;
}

/* Frees the slot amp_ring_peek returned (its contents read before). */
static inline void amp_ring_release(amp_ring_t *ring, amp_ring_slot_t *s)
{
    (void)s;
    uint32_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);
    atomic_store_explicit(&ring->head, head + 1, memory_order_release);
}

/* Sends envelope m through the ring, or queues it in the overflow list.
 * Returns 1 if it went into the ring. */
int amp_ring_put_msg(amp_ring_t *ring, amp_msg_t *m);
/* Moves overflowed envelopes into the ring while there is room. */
void amp_ring_flush(amp_ring_t *ring);

/* Whether the consumer has something to take (any thread may ask). */
static inline int amp_ring_nonempty(amp_ring_t *ring)
{
    uint32_t head = atomic_load_explicit(&ring->head, memory_order_acquire);
    amp_ring_slot_t *s = &ring->slots[head % AMP_RING_SLOTS];
    return atomic_load_explicit(&s->seq, memory_order_seq_cst) == head + 1;
}

#endif
