/* Rings of records between two processes; see shmring.h. */
#include "p2p/shmring.h"

#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/membarrier.h>
#endif

static amp_shr_word_t *word_at(amp_shr_t *r, uint64_t pos, uint32_t size)
{
    return (amp_shr_word_t *)(r->lines + pos % size);
}

static uint64_t load_word(const amp_shr_word_t *w, memory_order mo)
{
    return atomic_load_explicit((_Atomic uint64_t *)w, mo);
}

/* Whether n more bytes fit after tail; re-reads the consumer's head once
 * when the copy says no. */
static int fits(amp_shr_tx_t *tx, uint64_t n)
{
    if (tx->tail + n - tx->head <= tx->size)
        return 1;
    tx->head = atomic_load_explicit(&tx->r->head, memory_order_acquire);
    return tx->tail + n - tx->head <= tx->size;
}

amp_shr_word_t *amp_shr_reserve(amp_shr_tx_t *tx, size_t hlen, size_t bytes)
{
    uint64_t need = amp_shr_need(hlen, bytes);
    if (need > tx->size / 2)
        return NULL;
    uint64_t off = tx->tail % tx->size, fill = 0;
    if (off + need > tx->size)
        fill = tx->size - off;
    if (!fits(tx, fill + need))
        return NULL;
    if (fill) {
        amp_shr_word_t v = {(uint32_t)fill - sizeof(v), 0,
                            AMP_SHR_VALID | AMP_SHR_FILL};
        uint64_t bits;
        memcpy(&bits, &v, sizeof(bits));
        atomic_store_explicit(
            (_Atomic uint64_t *)word_at(tx->r, tx->tail, tx->size), bits,
            memory_order_release);
        tx->tail += fill;
    }
    return word_at(tx->r, tx->tail, tx->size);
}

/* Moves past the record whose word is v: zeroes the first word of each of
 * its lines, then publishes the new head (release: the producer, once it
 * read it, finds those words zero). */
static void clear(amp_shr_rx_t *rx, amp_shr_word_t v)
{
    uint64_t len = amp_shr_need(v.hlen, v.bytes);
    for (uint64_t off = 0; off < len; off += AMP_SHR_LINE)
        atomic_store_explicit(
            (_Atomic uint64_t *)word_at(rx->r, rx->head + off, rx->size), 0,
            memory_order_relaxed);
    rx->head += len;
    atomic_store_explicit(&rx->r->head, rx->head, memory_order_release);
}

amp_shr_word_t *amp_shr_peek(amp_shr_rx_t *rx)
{
    for (;;) {
        amp_shr_word_t *w = word_at(rx->r, rx->head, rx->size);
        uint64_t bits = load_word(w, memory_order_acquire);
        if (!bits)
            return NULL;
        amp_shr_word_t v;
        memcpy(&v, &bits, sizeof(v));
        if (!(v.flags & AMP_SHR_FILL))
            return w;
        clear(rx, v);
    }
}

void amp_shr_release(amp_shr_rx_t *rx, amp_shr_word_t *w)
{
    clear(rx, *w);
}

int amp_shr_nonempty(const amp_shr_rx_t *rx)
{
    return load_word(word_at(rx->r, rx->head, rx->size),
                     memory_order_seq_cst) != 0;
}

int amp_shr_fence_register(void)
{
#if defined(__linux__) && defined(SYS_membarrier)
    long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (cmds < 0 || !(cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED))
        return 0;
    return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED,
                   0, 0) == 0;
#else
    return 0;
#endif
}

int amp_shr_fence_sleeper(int asym)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (!asym)
        return 1;
#if defined(__linux__) && defined(SYS_membarrier)
    return syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0) == 0;
#else
    return 0;
#endif
}
