/*
 * The inter-process transport (private to p2p): UCX active messages
 * between the PEs of the job's processes.
 *
 * Every PE has its own UCX worker, progressed only by that PE, so nothing
 * on the path of a message takes a lock.  A message to a rank of another
 * process goes from the sender's PE straight to the worker of the PE that
 * runs the receiver there, whose handler matches it on the spot.
 *
 *  - eager (<= the eager limit, standard mode): the data travels with the
 *    header; UCX copies it out of the sender's buffer;
 *  - synchronous and small: the same, and the receiver acknowledges the
 *    match, which completes the send;
 *  - larger: UCX rendezvous.  The receiver, once it has matched the
 *    header, has UCX fetch the data straight into the receive buffer
 *    (zero-copy where the transport can); the send completes when UCX says
 *    the data was taken.  Non-contiguous layouts are packed into (or
 *    unpacked from) a temporary buffer at the end that has them.
 *
 * UCX does not promise that active messages arrive in the order they were
 * sent, so every message carries a sequence number per pair of PEs and the
 * receiver holds back early arrivals until their turn.
 */
#ifndef AMP_P2P_NET_H
#define AMP_P2P_NET_H

#include "p2p/transport.h"

#include <stdint.h>

enum amp_net_kind {
    AMP_NET_EAGER,  /* data inline */
    AMP_NET_SYNC,   /* data inline; acknowledge the match */
    AMP_NET_RNDV,   /* data to be fetched through UCX */
    AMP_NET_ACK,    /* to the sender: its synchronous send matched */
    AMP_NET_UPPER,  /* a layer above's message (amp_p2p_am_send) */
    AMP_NET_CANCEL, /* to the receiver: withdraw the message (ctx, src, tag,
                       sid) to dst; answer sreq */
    AMP_NET_CANCEL_ANSWER, /* to the sender: whether it was (flag) */
    AMP_NET_FIN,           /* to the sender of a rendezvous through a ring: its
                              data was copied (sreq: its record; ctx: whether the
                              copy succeeded) */
    /* A layer above's control message (amp_p2p_am_control: not counted,
     * outside the per-pair order, data inline). */
    AMP_NET_CONTROL,
    /* Rank moves: messages sent to each PE there (seq: the step; ctx: the
     * sender's PEs; bytes: its total); not counted, outside the order, to
     * PE 0, with data. */
    AMP_NET_COUNTS,
    /* Through UCX to a sleeping PE that a ring holds a message for: wake
     * up (not counted, outside the order, no data). */
    AMP_NET_WAKE,
    /* Through a ring to the sender of a large rendezvous: copy chunks of
     * it into the receiver's buffer too (ctx: the copy's episode; data:
     * netnode.c's description; not counted, outside the order). */
    AMP_NET_HELP,
};

/* ---- net.c, for transport.c (the rest: its table) ---------------------- */

/* amp_p2p_net_init and amp_p2p_net_finish (p2p.h) of this transport. */
AMP_MUST_USE amp_status_t amp_net_init(amp_p2p_world_t *w, amp_sched_t *sched,
                                       amp_boot_t *boot, int first, int nlocal,
                                       const int *local_pe);
void amp_net_finish(amp_p2p_world_t *w, amp_sched_t *sched, amp_boot_t *boot);

/* Has the rendezvous message desc (bytes long) fetched into receive r. */
void amp_net_fetch(amp_pe_t *pe, void *desc, size_t bytes, amp_p2p_req_t *r,
                   int src, int tag);
/* Tells world rank rank, the sender of a synchronous message, that it
 * matched (the table's ack): the acknowledgement goes to the PE that runs
 * the rank now, in order with the other messages to it. */
void amp_net_ack(amp_pe_t *pe, int rank, uint64_t sreq);

/* Asks the PE that runs req's receiver (in another process) to withdraw
 * req's message; the answer comes back as the core's cancel_answer. */
void amp_net_cancel(amp_pe_t *pe, const amp_p2p_req_t *req);
/* Drops the rendezvous message desc unfetched: its sender's send
 * completes as if the data had been taken. */
void amp_net_discard(amp_pe_t *pe, void *desc);

/* Progresses pe's worker (on pe); returns the events it handled. */
unsigned amp_net_progress(amp_pe_t *pe);

#endif
