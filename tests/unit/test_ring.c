/* The per-PE-pair ring: order, inline slots, the overflow list. */
#include "unit.h"

#include "p2p/ring.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define TOTAL 200000

static amp_ring_t ring;
static amp_msg_t *msgs;

static void *produce(void *arg)
{
    (void)arg;
    for (int i = 0; i < TOTAL; i++) {
        if (i % 3 == 0) {
            amp_ring_slot_t *s = amp_ring_reserve(&ring);
            if (s) {
                s->kind = AMP_SLOT_INLINE;
                s->tag = i;
                amp_ring_publish(&ring, s);
                continue;
            }
        }
        msgs[i].tag = i;
        amp_ring_put_msg(&ring, &msgs[i]);
        amp_ring_flush(&ring);
    }
    while (ring.ovf_head)
        amp_ring_flush(&ring);
    return NULL;
}

/* Everything arrives once and in order, through slots and the overflow
 * list alike, although the consumer reuses each envelope's link the moment
 * it has it (as the unexpected queue does). */
UNIT_TEST(ring_keeps_order_through_overflow)
{
    pthread_t t;
    msgs = calloc(TOTAL, sizeof(*msgs));
    amp_ring_init(&ring);
    pthread_create(&t, NULL, produce, NULL);
    int next = 0, overflowed_seen = 0;
    while (next < TOTAL) {
        amp_ring_slot_t *s = amp_ring_peek(&ring);
        if (!s)
            continue;
        int tag = s->kind == AMP_SLOT_INLINE ? s->tag : s->u.msg->tag;
        if (s->kind == AMP_SLOT_MSG) {
            s->u.msg->next = (amp_msg_t *)(uintptr_t)0xdead;
            overflowed_seen++;
        }
        UNIT_EQ(tag, next);
        next++;
        amp_ring_release(&ring, s);
    }
    pthread_join(t, NULL);
    UNIT_TRUE(overflowed_seen > 0);
    UNIT_TRUE(!amp_ring_nonempty(&ring));
}

UNIT_TEST(ring_reports_full_and_empty)
{
    amp_ring_init(&ring);
    UNIT_TRUE(amp_ring_peek(&ring) == NULL);
    for (int i = 0; i < AMP_RING_SLOTS; i++) {
        amp_ring_slot_t *s = amp_ring_reserve(&ring);
        UNIT_TRUE(s != NULL);
        s->tag = i;
        amp_ring_publish(&ring, s);
    }
    UNIT_TRUE(amp_ring_reserve(&ring) == NULL);
    amp_msg_t m = {0};
    UNIT_EQ(amp_ring_put_msg(&ring, &m), 0); /* full: into the overflow */
    UNIT_TRUE(ring.ovf_head == &m);
    amp_ring_slot_t *s = amp_ring_peek(&ring);
    UNIT_EQ(s->tag, 0);
    amp_ring_release(&ring, s);
    UNIT_TRUE(amp_ring_reserve(&ring) == NULL); /* the overflow goes first */
    amp_ring_flush(&ring);
    UNIT_TRUE(ring.ovf_head == NULL);
}

/* The consumer never writes a slot (only its own head): a producer that
 * sends into a slot then finds the line as its last write left it, and
 * never waits for a line the consumer wrote.  The producer reads that
 * head only once its copy says the ring is full. */
UNIT_TEST(ring_consumer_leaves_the_slots_alone)
{
    static amp_ring_slot_t before[AMP_RING_SLOTS];
    amp_ring_init(&ring);
    for (int lap = 0; lap < 3; lap++) {
        for (int i = 0; i < AMP_RING_SLOTS; i++) {
            amp_ring_slot_t *s = amp_ring_reserve(&ring);
            UNIT_TRUE(s != NULL);
            s->tag = lap * AMP_RING_SLOTS + i;
            amp_ring_publish(&ring, s);
        }
        UNIT_TRUE(amp_ring_reserve(&ring) == NULL);
        UNIT_EQ(ring.seen_head, (uint32_t)(lap * AMP_RING_SLOTS));
        memcpy(before, ring.slots, sizeof(before));
        for (int i = 0; i < AMP_RING_SLOTS; i++) {
            amp_ring_slot_t *s = amp_ring_peek(&ring);
            UNIT_TRUE(s != NULL);
            UNIT_EQ(s->tag, lap * AMP_RING_SLOTS + i);
            amp_ring_release(&ring, s);
        }
        UNIT_TRUE(amp_ring_peek(&ring) == NULL);
        UNIT_TRUE(!amp_ring_nonempty(&ring));
        UNIT_EQ(memcmp(before, ring.slots, sizeof(before)), 0);
    }
}
