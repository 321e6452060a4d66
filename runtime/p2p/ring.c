#include "p2p/ring.h"

#include <string.h>

void amp_ring_init(amp_ring_t *ring)
{
    memset(ring, 0, sizeof(*ring));
    for (uint32_t i = 0; i < AMP_RING_SLOTS; i++)
        atomic_init(&ring->slots[i].seq, 0);
    atomic_init(&ring->head, 0);
}

static int put_one(amp_ring_t *ring, amp_msg_t *m)
{
    if (!amp_ring_room(ring))
        return 0;
    amp_ring_slot_t *s = &ring->slots[ring->tail % AMP_RING_SLOTS];
    s->kind = AMP_SLOT_MSG;
    s->u.msg = m;
    amp_ring_publish(ring, s);
    return 1;
}

void amp_ring_flush(amp_ring_t *ring)
{
    while (ring->ovf_head) {
        /* Once published, the envelope belongs to the consumer, which may
         * reuse its link at once: read it first. */
        amp_msg_t *m = ring->ovf_head, *next = m->next;
        if (!put_one(ring, m))
            return;
        ring->ovf_head = next;
        if (!next)
            ring->ovf_tail = NULL;
    }
}

int amp_ring_put_msg(amp_ring_t *ring, amp_msg_t *m)
{
    if (!ring->ovf_head && put_one(ring, m))
        return 1;
    m->next = NULL;
    if (ring->ovf_tail)
        ring->ovf_tail->next = m;
    else
        ring->ovf_head = m;
    ring->ovf_tail = m;
    return 0;
}
