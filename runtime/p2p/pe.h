/*
 * The p2p layer's state per PE (private to p2p): its envelope pool and the
 * rings that bring it the traffic of every other PE.
 */
#ifndef AMP_P2P_PE_H
#define AMP_P2P_PE_H

#include "p2p/msg.h"
#include "p2p/ring.h"

typedef struct amp_p2p_pe {
    amp_msg_pool_t pool;
    amp_ring_t *in; /* by source PE: traffic to this PE */
    int npes;
    amp_p2p_world_t *world;
    struct amp_net_pe *net; /* net.c: this PE's UCX worker, or NULL */
} amp_p2p_pe_t;

#endif
