/*
 * The p2p layer's state per PE (private to p2p): its envelope pool, the
 * rings that bring it the traffic of every other PE, and what each
 * transport keeps for it.
 */
#ifndef AMP_P2P_PE_H
#define AMP_P2P_PE_H

#include "p2p/msg.h"
#include "p2p/ring.h"

typedef struct amp_p2p_pe {
    amp_msg_pool_t pool;  /* envelopes of the eager limit */
    amp_msg_pool_t small; /* of AMP_MSG_SMALL_PAYLOAD bytes */
    amp_ring_t *in; /* by source PE: traffic to this PE */
    int npes;
    amp_p2p_world_t *world;
    /* What the transports call of p2p.c (transport.h). */
    const struct amp_p2p_core_ops *core;
    /* Each transport's state for this PE, by its slot (transport.h: enum
     * amp_p2p_tp_slot), its own to read; NULL: none. */
    void *tp[AMP_P2P_TP_SLOTS];
    /* The program's sends started on this PE and their bytes, by route
     * (amp_p2p_route_t), the messages put in and taken out of the
     * unexpected queues of the ranks it runs, and the queue entries its
     * matching compared (+stats, MPI_T): written by this PE only, on lines
     * of their own (other PEs read the fields above, in, for every message
     * they send here). */
    _Alignas(64) uint64_t sends[AMP_P2P_NROUTES], sent_bytes[AMP_P2P_NROUTES];
    uint64_t unexp_in, unexp_out, match_tries;
} amp_p2p_pe_t;

#endif
