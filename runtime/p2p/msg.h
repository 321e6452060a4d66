/*
 * Envelopes and their per-PE pools (private to p2p).
 *
 * An envelope is allocated from the pool of the PE that sends it and goes
 * back to that pool when the message is consumed, wherever that happens:
 * a PE returning another PE's envelope pushes it onto that pool's lock-free
 * return stack, which the owner takes whole when its free list runs dry.
 */
#ifndef AMP_P2P_MSG_H
#define AMP_P2P_MSG_H

#include "p2p/p2p.h"

#include <stdatomic.h>
#include <stdint.h>

enum amp_msg_kind {
    AMP_MSG_EAGER,       /* payload inline */
    AMP_MSG_RNDV,        /* data at the sender's buffer */
    AMP_MSG_RNDV_DONE,   /* back to the sender: the data was copied */
    AMP_MSG_CANCEL,      /* to the receiver's PE: withdraw the message
                            (ctx, src, tag, sid) to dst */
    AMP_MSG_CANCEL_DONE, /* back to the sender: whether it was (ok) */
    AMP_MSG_WAKE,        /* make data (an amp_thread_t) ready */
    AMP_MSG_HEAP,        /* data in a block of its own (freed with it): a
                            message from another process taken in before
                            its receiver moved */
    AMP_MSG_TP,          /* brought by a transport (tp, p2p/transport.h),
                            which settles it when it matches */
};

typedef struct amp_msg_pool amp_msg_pool_t;

typedef struct amp_msg {
    amp_inbox_item_t item;
    struct amp_msg *next, *prev; /* unexpected queue or free list */
    amp_msg_pool_t *home;
    unsigned char kind;
    unsigned char queued;    /* in a receiver's unexpected queue */
    unsigned char in_bucket; /* there, in a bucket (exact context) */
    unsigned char ok;        /* CANCEL_DONE: the message was withdrawn */
    unsigned char tp_kind;   /* AMP_MSG_TP: the transport's own kind */
    uint32_t sid;            /* the send's number (amp_p2p_req_t), 0: none */
    unsigned seq;            /* arrival number at the receiver */
    int ctx, src, tag;
    int dst; /* world rank */
    size_t bytes;
    const void *data;
    amp_p2p_req_t *sreq;
    amp_p2p_ep_t *sender;
    /* From another process (AMP_MSG_TP: its transport's, and whom to
     * acknowledge the match) */
    const struct amp_p2p_tp *tp;
    int from_proc, from_rank;
    uint64_t remote_sreq;
    _Alignas(16) char payload[];
} amp_msg_t;

struct amp_msg_pool {
    amp_msg_t *free;
    const void *owner; /* the PE whose thread alone takes from free */
    _Alignas(64) _Atomic(amp_msg_t *) returned;
    _Alignas(64) size_t payload; /* bytes of payload per envelope */
};

/* Bytes of a small envelope, header and payload: what a message of at
 * most AMP_MSG_SMALL_PAYLOAD bytes, a rendezvous or a control message
 * takes while it waits, instead of an envelope of the eager limit (a
 * receiver of 100,000 small messages at once kept 8 KiB for each). */
#define AMP_MSG_SMALL_BYTES 256
#define AMP_MSG_SMALL_PAYLOAD (AMP_MSG_SMALL_BYTES - sizeof(amp_msg_t))

amp_msg_t *amp_msg_get(amp_msg_pool_t *pool);
/* Returns m to its pool; mine is a pool of the calling PE. */
void amp_msg_put(amp_msg_pool_t *mine, amp_msg_t *m);

#endif
