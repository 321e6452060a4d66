/*
 * The transports of p2p (private to p2p): one table of operations each.
 *
 * p2p.c matches messages against receives and completes requests; how a
 * message reaches the PE that runs its receiver, and how its data gets
 * into the receive, is its transport's.  The transport is chosen per
 * destination and buffer (tp_route in p2p.c):
 *
 *  - a rank on the same PE: no transport; the sender copies into a
 *    posted receive or queues an envelope (the hot path, DESIGN.md §6);
 *  - a rank on another PE of this process: the ring of that pair of PEs
 *    (amp_p2p_ring_tp, in p2p.c; ring.h), small messages inline in a
 *    slot.  p2p.c calls its entries by name (a send the route gives it,
 *    the scheduler's poll and pending hooks): the same functions, without
 *    an indirect call on the in-process path;
 *  - a rank of another process, host memory: net.c (amp_p2p_net_tp),
 *    whose carriers are UCX and, to the processes of this node, the rings
 *    in the memory they share (netnode.c, shmring.h), one order per pair
 *    of PEs across both;
 *  - a rank of another process, device memory: dev.c (amp_p2p_dev_tp),
 *    which speaks its protocol in active messages of the transport
 *    between processes (or hands the message to it when that transport
 *    moves device memory itself: UCX with CUDA, moves_device).
 *
 * A message that a transport brings and that must wait in an unexpected
 * queue is an envelope of kind AMP_MSG_TP whose tp is that transport:
 * what it holds besides the envelope (the data still at the sender, an
 * acknowledgement owed) is the transport's to settle when it matches, is
 * withdrawn, or is taken in before its receiver moves.
 *
 * A transport's state is its own: the world and every PE have a slot for
 * it (tp[], by enum amp_p2p_tp_slot below) that nothing else reads, set
 * up and freed by its own init and finish.  dev.c speaks to the transport
 * between processes only through that table (world->between: send, ack,
 * moves_device, cancel, am_send, am_fetch), so it runs over any transport
 * that offers those entries.
 *
 * Entries a transport does not need are NULL.  A new transport is a file
 * of its own with its table and its state, an extern and a slot below, its
 * init, finish and choice in transport.c, and its file in the runtime's
 * CMakeLists.txt (and p2p.c's tp_route when it is chosen on something
 * other than the destination's process and the buffer's memory); no
 * struct of p2p.c changes.  It calls p2p.c only through the table below
 * (amp_p2p_core_ops_t), never by name.
 */
#ifndef AMP_P2P_TRANSPORT_H
#define AMP_P2P_TRANSPORT_H

#include "p2p/msg.h"
#include "p2p/pe.h"

typedef struct amp_p2p_tp {
    const char *name;
    /* ---- one message ---- */
    /* Sends req (buf, bytes, dt, mem, peer: the world rank, ctx, src, tag
     * and sid set) in mode (enum amp_p2p_mode): eager or rendezvous as
     * the transport decides; req completes as the mode requires. */
    void (*send)(amp_pe_t *pe, amp_p2p_req_t *req, int mode);
    /* m, a message of this transport's from an unexpected queue, has met
     * receive r on pe: its data into r, r completes (now or later), and
     * m is released. */
    void (*matched)(amp_pe_t *pe, amp_msg_t *m, amp_p2p_req_t *r);
    /* A cancellation withdraws m, unmatched, from its queue: answers 0
     * when m cannot be withdrawn (it stays); else lets m's data go, tells
     * its sender as a match would, and answers 1 (p2p.c frees m). */
    int (*withdraw)(amp_pe_t *pe, amp_msg_t *m);
    /* Before m's receiver moves to another PE: when m's data is still at
     * its sender, takes it into memory of its own (m becomes an
     * AMP_MSG_HEAP envelope), answers 1 and runs done(arg, ok) once it
     * has; 0: nothing to take. */
    int (*take)(amp_pe_t *pe, amp_msg_t *m, amp_p2p_am_done_fn_t done,
                void *arg);
    /* Asks the PE that runs send req's receiver to withdraw its message;
     * the answer comes back as cancel_answer (amp_p2p_core_ops_t). */
    void (*cancel)(amp_pe_t *pe, const amp_p2p_req_t *req);
    /* Tells world rank rank, the sender of a message that awaits its
     * receiver's answer (its request: sreq), that the message matched and
     * its data was taken: to the PE that runs the rank now, in order with
     * the other messages to it. */
    void (*ack)(amp_pe_t *pe, int rank, uint64_t sreq);
    /* Whether the transport moves device memory itself between this
     * process and process proc (its send then takes a device request,
     * always as a rendezvous, and its fetch fills a device receive). */
    int (*moves_device)(amp_pe_t *pe, int proc);
    /* ---- active messages (p2p.h: amp_p2p_am_send, _fetch, _control) ---- */
    void (*am_send)(amp_pe_t *pe, const amp_p2p_am_out_t *am);
    void (*am_fetch)(amp_pe_t *pe, void *desc, void *into, size_t bytes,
                     amp_p2p_am_done_fn_t done, void *arg);
    void (*am_control)(amp_pe_t *pe, const amp_p2p_am_out_t *am);
    /* ---- one PE ---- */
    /* Takes what arrived for pe (on pe); returns how many events. */
    unsigned (*progress)(amp_pe_t *pe);
    /* Whether something waits for pe (any PE may ask). */
    int (*pending)(amp_pe_t *pe);
    /* An idle PE's sleep, which a message for it ends; its wake-up. */
    void (*sleep)(amp_pe_t *pe, long ns);
    void (*wake)(amp_pe_t *pe);
    /* ---- the process, before ranks move (p2p.h) ---- */
    void (*quiesce)(amp_p2p_world_t *w);
    void (*settle)(amp_p2p_world_t *w);
    /* The program's messages sent and received; whether a transfer is
     * under way (amp_p2p_net_traffic). */
    int (*traffic)(amp_p2p_world_t *w, uint64_t *sent, uint64_t *recv);
} amp_p2p_tp_t;

extern const amp_p2p_tp_t amp_p2p_ring_tp;
extern const amp_p2p_tp_t amp_p2p_net_tp;
extern const amp_p2p_tp_t amp_p2p_dev_tp;

/* Where a transport keeps its state: the slot of the world's and of each
 * PE's tp[] (p2p.h, pe.h) that only it reads and writes, set up and freed
 * by its own init and finish (transport.c).  The ring keeps none. */
enum amp_p2p_tp_slot {
    AMP_P2P_TP_NET, /* net.c: amp_net_t, and amp_net_pe_t per PE */
    AMP_P2P_TP_DEV, /* dev.c: the device transfers under way */
    AMP_P2P_TP_NSLOTS
};
_Static_assert(AMP_P2P_TP_NSLOTS <= AMP_P2P_TP_SLOTS,
               "a slot for every transport's state");

/* ---- p2p.c, for the transports ----------------------------------------
 * What a transport needs of p2p's matching and requests.  p2p.c gives it
 * to every PE it sets up (amp_p2p_pe_init: amp_p2p_pe_t's core, pe.h), and
 * the transports reach it only there (amp_p2p_core): none calls p2p.c by
 * name, so p2p.c, which calls them through their tables, stays above
 * them. */
typedef struct amp_p2p_core_ops {
    /* The receive posted by world rank dst (which pe must run) that the
     * message (ctx, src, tag) from process from_proc matches, taken out of
     * its queue; NULL when none does. */
    amp_p2p_req_t *(*match)(amp_pe_t *pe, int dst, int ctx, int src, int tag,
                            int from_proc);
    /* An envelope of tp's (kind AMP_MSG_TP; tp NULL: a plain eager
     * message, AMP_MSG_EAGER) for a message that matched no receive; the
     * transport fills in data and what it needs, then queues it. */
    amp_msg_t *(*msg)(amp_pe_t *pe, const amp_p2p_tp_t *tp, int ctx, int src,
                      int tag, int dst, size_t bytes, int from_proc);
    /* Queues m as an unexpected message of its receiver (m->dst, on pe). */
    void (*queue)(amp_pe_t *pe, amp_msg_t *m);
    /* bytes of plain data into matched receive r (by the GPU when r is
     * device memory) and r completes; m, when given, holds data and is
     * released after the copy; without m data is copied before the call
     * returns. */
    void (*copy)(amp_pe_t *pe, amp_p2p_req_t *r, const void *data, size_t bytes,
                 int src, int tag, amp_msg_t *m);
    /* A matched message's data has been copied: its envelope goes back
     * (and an in-process rendezvous completes its sender). */
    void (*release)(amp_pe_t *pe, amp_msg_t *m);
    /* On pe, which runs (or ran) world rank dst: withdraws the message
     * (ctx, src, tag, sid) to dst from its unexpected queues if it is
     * there, and finishes its transport as a match would.  Returns whether
     * it did. */
    int (*withdraw)(amp_pe_t *pe, int dst, int ctx, int src, int tag,
                    uint32_t sid);
    /* The receiver's answer to a send's cancellation (amp_p2p_cancel), on
     * the sender's PE: ok, the message was withdrawn. */
    void (*cancel_answer)(amp_p2p_req_t *req, int ok);
    /* Copies data (plain bytes) into receive r and records the status. */
    void (*copy_into)(amp_p2p_req_t *r, const void *data, size_t bytes, int src,
                      int tag);
    /* r completes (p2p.h: amp_p2p_req_complete). */
    void (*complete)(amp_p2p_req_t *r);
} amp_p2p_core_ops_t;

/* p2p's functions for the transports on pe. */
static inline const amp_p2p_core_ops_t *amp_p2p_core(amp_pe_t *pe)
{
    return ((const amp_p2p_pe_t *)pe->upper)->core;
}

/* The eager limit of pe's envelopes. */
static inline size_t amp_p2p_tp_payload(amp_pe_t *pe)
{
    return ((const amp_p2p_pe_t *)pe->upper)->pool.payload;
}

/* ---- dev.c, for the transports between processes ------------------------ */

/* Whether the process has no device transfer under way (no GPU operation
 * pending on a PE, no transfer with another process): the answers of such
 * a transfer (acknowledgements, chunks) go out only when the GPU is done,
 * so a transport's quiesce counts messages only once this holds. */
int amp_p2p_dev_idle(amp_p2p_world_t *w);

#endif
