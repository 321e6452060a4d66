/*
 * CUDA device memory in p2p (private to p2p): the data of a message moved
 * by the GPU, within a process and between processes (p2p.h, amp_p2p_dev_t).
 *
 * Within a process, wherever a message meets its receive, the GPU copies
 * it on the receiving PE's stream (dev.c: amp_p2p_dev_copy_in).
 *
 * Between processes a device send (always a rendezvous) goes one of three
 * ways (gpu.h, amp_gpu_xfer_choose):
 *
 *  - the transport between processes moves device memory itself (its
 *    table's moves_device: both processes' UCX reports CUDA memory): an
 *    ordinary rendezvous message through it (net.c: buffers tagged as
 *    CUDA memory);
 *  - otherwise the sender announces the message (RTS, an active message
 *    that is matched like any message), with a CUDA IPC handle of its
 *    buffer when the receiver is on its node.  The receiver, once matched,
 *    maps the handle and the GPU copies straight from the sender's buffer
 *    into the receive (IPC); then it acknowledges, which completes the
 *    send;
 *  - or, without a handle or when the receiver cannot map it, the
 *    receiver answers with a clear-to-send (CTS) and the sender streams
 *    the data in chunks of AMP_GPU_CHUNK: each chunk is copied off the
 *    device into a pinned buffer and sent when its copy is done, at most
 *    AMP_GPU_WINDOW chunks in flight, so device copies overlap the
 *    network; the receiver copies each arrived chunk onto its device.
 *
 * Every message of this protocol travels as an active message of p2p's own
 * (id AMP_P2P_AM_GPU) in order with the rest of what a PE sends to
 * another; dev.c reaches the transport between processes only through its
 * table (transport.h), and keeps its own state (the count of transfers
 * under way, for the quiesce of rank moves: amp_p2p_dev_idle) in its
 * slot of the world.
 */
#ifndef AMP_P2P_DEV_H
#define AMP_P2P_DEV_H

#include "gpu/ipc.h"
#include "p2p/msg.h"

/* An announced device message from another process, kept with its
 * unexpected envelope (AMP_MSG_TP of amp_p2p_dev_tp) until it is
 * matched. */
typedef struct amp_p2p_dev_rts {
    uint64_t sreq;  /* the sender's request */
    uint64_t bytes; /* the message's length */
    int32_t from_rank, has_ipc;
    amp_gpu_ipc_t ipc; /* with has_ipc: the sender's buffer */
} amp_p2p_dev_rts_t;

/* ---- dev.c (between processes: its table amp_p2p_dev_tp, transport.h) */

/* A matched message on its way into a receive: bytes of data in layout dt
 * (NULL: plain), from src with tag; from: the send whose buffer data is,
 * NULL when data is a copy in an envelope, a ring slot or from another
 * process; m: its envelope, or NULL; sreq: a send that completes with
 * the copy, or NULL. */
typedef struct amp_p2p_dev_in {
    const void *data;
    const amp_dt_t *dt;
    const amp_p2p_req_t *from;
    size_t bytes;
    int src, tag;
    amp_msg_t *m;
    amp_p2p_req_t *sreq;
} amp_p2p_dev_in_t;

/* Whether the GPU moves a message (from: its send, or NULL) into r:
 * either side is device memory. */
static inline int amp_p2p_dev_moves(const amp_p2p_req_t *r,
                                    const amp_p2p_req_t *from)
{
    return amp_p2p_on_device(r) || (from && amp_p2p_on_device(from));
}

/* Message in into r (amp_p2p_dev_moves holds or not).  When either side
 * is device memory the GPU moves it: answers 1, and r, in->sreq (if any)
 * complete and in->m (if any) is released when the GPU is done.
 * Otherwise 0: the CPU copies.  With in->from or in->m given, the data
 * must stay valid until then (it is read a chunk at a time); without
 * either it is copied before the call returns. */
int amp_p2p_dev_copy_in(amp_pe_t *pe, amp_p2p_req_t *r,
                        const amp_p2p_dev_in_t *in);
/* An active message of p2p's device protocol (AMP_P2P_AM_GPU) on pe. */
void amp_p2p_dev_am(amp_pe_t *pe, const amp_p2p_am_t *m);
/* The protocol's state of the process (its slot AMP_P2P_TP_DEV), once the
 * transport between processes is up (sched: the process's PEs); freed
 * by amp_p2p_dev_finish. */
AMP_MUST_USE amp_status_t amp_p2p_dev_init(amp_p2p_world_t *w,
                                           amp_sched_t *sched);
void amp_p2p_dev_finish(amp_p2p_world_t *w);

#endif
