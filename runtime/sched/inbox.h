/*
 * A lock-free multi-producer, single-consumer inbox.  Producers push onto a
 * Treiber stack; the one consumer takes the whole stack with one exchange
 * (so there is no ABA problem) and reverses it, which yields the items in
 * the order each producer pushed them.
 */
#ifndef AMP_SCHED_INBOX_H
#define AMP_SCHED_INBOX_H

#include <stdatomic.h>
#include <stddef.h>

typedef struct amp_inbox_item {
    struct amp_inbox_item *next;
} amp_inbox_item_t;

typedef struct amp_inbox {
    _Atomic(amp_inbox_item_t *) head;
} amp_inbox_t;

static inline void amp_inbox_init(amp_inbox_t *box)
{
    atomic_init(&box->head, NULL);
}

static inline int amp_inbox_is_empty(amp_inbox_t *box)
{
    return atomic_load_explicit(&box->head, memory_order_relaxed) == NULL;
}

static inline void amp_inbox_push(amp_inbox_t *box, amp_inbox_item_t *item)
{
    amp_inbox_item_t *old =
        atomic_load_explicit(&box->head, memory_order_relaxed);
    do {
        item->next = old;
    } while (!atomic_compare_exchange_weak_explicit(
        &box->head, &old, item, memory_order_seq_cst, memory_order_relaxed));
}

/* Everything pushed so far, oldest first (NULL when empty). */
static inline amp_inbox_item_t *amp_inbox_take_all(amp_inbox_t *box)
{
    amp_inbox_item_t *top =
        atomic_exchange_explicit(&box->head, NULL, memory_order_acquire);
    amp_inbox_item_t *fifo = NULL;
    while (top) {
        amp_inbox_item_t *next = top->next;
        top->next = fifo;
        fifo = top;
        top = next;
    }
    return fifo;
}

#endif
