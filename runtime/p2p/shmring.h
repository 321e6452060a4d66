/*
 * A single-producer, single-consumer ring of variable-sized records in
 * memory shared by two processes (private to p2p): one per ordered pair of
 * PEs of two processes of one node (p2p/net.c), carrying that pair's
 * messages in order.
 *
 * Records start on a 64-byte line and take whole lines: a word of 8 bytes
 * (the record's length, which says it is there, the length of its header
 * and its flags), the header, and the data 8-byte aligned after it.  A
 * small message is one line (a plain eager message of up to 16 bytes,
 * after its 40-byte header: p2p/net_impl.h), header and data together, so
 * the consumer pays one cache-line transfer for it.
 *
 * The producer writes the record and stores its word last (release); the
 * consumer finds a record at its position when that word is not zero.
 * The consumer, done with a record, zeroes the first word of each of its
 * lines and then says how far it got (head, which the producer reads only
 * when its own copy says the ring is full): so every line the producer
 * has not written since starts with a zero word, and a stale word (or
 * data) of an earlier lap is never taken for a record.  The line where
 * the next record will start stays in the consumer's cache while it
 * waits: only the producer's record moves it.  A record that would cross
 * the end of the ring is preceded by a filler record to the end.
 *
 * Each side keeps its position in its own process (amp_shr_tx_t,
 * amp_shr_rx_t); only the lines and head are shared.
 */
#ifndef AMP_P2P_SHMRING_H
#define AMP_P2P_SHMRING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define AMP_SHR_LINE 64
/* Flags of a record (the one of every record keeps its word non-zero). */
#define AMP_SHR_VALID 0x8000u
#define AMP_SHR_FILL 0x1u /* a filler record to the end of the ring */
#define AMP_SHR_RNDV 0x2u /* the data is where to copy the message from */

/* The shared part: head, then size bytes of lines. */
typedef struct amp_shr {
    _Alignas(64) _Atomic uint64_t head; /* bytes the consumer released */
    _Alignas(64) char lines[];
} amp_shr_t;

/* Bytes of shared memory a ring of size bytes of lines takes. */
#define AMP_SHR_BYTES(size) (sizeof(amp_shr_t) + (size))

/* The first word of a record; all zero: no record (yet). */
typedef struct amp_shr_word {
    uint32_t bytes; /* of data */
    uint16_t hlen;  /* of header */
    uint16_t flags; /* AMP_SHR_VALID and others */
} amp_shr_word_t;

typedef struct amp_shr_tx {
    amp_shr_t *r;
    uint64_t tail; /* bytes written */
    uint64_t head; /* the consumer's head, as last read */
    uint32_t size;
} amp_shr_tx_t;

typedef struct amp_shr_rx {
    amp_shr_t *r;
    uint64_t head; /* bytes consumed */
    uint32_t size;
} amp_shr_rx_t;

static inline uint32_t amp_shr_align8(uint32_t n)
{
    return (n + 7u) & ~7u;
}

/* Bytes of lines a record of an hlen-byte header and bytes of data takes. */
static inline uint64_t amp_shr_need(size_t hlen, size_t bytes)
{
    uint64_t n = sizeof(amp_shr_word_t) + amp_shr_align8((uint32_t)hlen) +
                 (uint64_t)bytes;
    return (n + AMP_SHR_LINE - 1) & ~(uint64_t)(AMP_SHR_LINE - 1);
}

/* Where a record's header and data go or are. */
static inline char *amp_shr_hdr(amp_shr_word_t *w)
{
    return (char *)(w + 1);
}
static inline char *amp_shr_data(amp_shr_word_t *w, size_t hlen)
{
    return amp_shr_hdr(w) + amp_shr_align8((uint32_t)hlen);
}

/* Room for a record of an hlen-byte header and bytes of data: its first
 * word (fill in the header and data, then amp_shr_commit), or NULL when
 * the ring has no room now (or the record is larger than half the ring). */
amp_shr_word_t *amp_shr_reserve(amp_shr_tx_t *tx, size_t hlen, size_t bytes);

/* Hands the record to the consumer (a release store of its word).  A
 * producer that then looks at whether the consumer sleeps calls
 * amp_shr_fence_producer first. */
static inline void amp_shr_commit(amp_shr_tx_t *tx, amp_shr_word_t *w,
                                  size_t hlen, size_t bytes, unsigned flags)
{
    uint64_t len = amp_shr_need(hlen, bytes);
    amp_shr_word_t v = {(uint32_t)bytes, (uint16_t)hlen,
                        (uint16_t)(flags | AMP_SHR_VALID)};
    uint64_t bits;
    __builtin_memcpy(&bits, &v, sizeof(bits));
    atomic_store_explicit((_Atomic uint64_t *)w, bits, memory_order_release);
    tx->tail += len;
}

/*
 * The sleep handshake.  A consumer about to sleep sets a flag of its own
 * (a sequentially consistent store), calls amp_shr_fence_sleeper, and
 * looks at its rings once more; a producer commits its record, calls
 * amp_shr_fence_producer, and then looks at the flag.  Either the consumer
 * sees the record or the producer sees the flag (and wakes the consumer).
 *
 * Plainly that takes a full fence on both sides.  Where the kernel offers
 * membarrier's global expedited command, the fence is asymmetric: the
 * sleeper (the rare side) makes every running thread of the registered
 * processes pass a full barrier, and the producer (the side of every
 * message) needs none.  asym is 1 only where both the producer's process
 * and the consumer's registered (amp_shr_fence_register); a consumer whose
 * process registered passes asym 1 always, whatever its producers do.
 */

/* Registers the calling process for asymmetric fences: 1 when it may use
 * them, 0 when the kernel refuses (or has no membarrier). */
int amp_shr_fence_register(void);

/* The sleeper's side, after its flag is set: 0 when the barrier could not
 * be made (then the consumer must not sleep this time). */
int amp_shr_fence_sleeper(int asym);

static inline void amp_shr_fence_producer(int asym)
{
    if (asym)
        atomic_signal_fence(memory_order_seq_cst); /* the compiler's only */
    else
        atomic_thread_fence(memory_order_seq_cst);
}

/* The record at the consumer's position, or NULL (fillers are skipped). */
amp_shr_word_t *amp_shr_peek(amp_shr_rx_t *rx);
/* Frees the record amp_shr_peek returned. */
void amp_shr_release(amp_shr_rx_t *rx, amp_shr_word_t *w);
/* Whether a record waits (any thread may ask; a hint). */
int amp_shr_nonempty(const amp_shr_rx_t *rx);

#endif
