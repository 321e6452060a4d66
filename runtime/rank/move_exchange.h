/*
 * The exchanges between the processes of a job around a move of ranks
 * (move.h): what each process says of its ranks before the plan, and where
 * its ranks are after the move.  Control messages of p2p's
 * (amp_p2p_am_control, id AMP_P2P_AM_PLACES) to PE 0 of every other
 * process; each call is collective over the processes (one thread each,
 * the traffic quiesced as for a move: p2p.h) and returns once every other
 * process's message has come.
 */
#ifndef AMP_RANK_MOVE_EXCHANGE_H
#define AMP_RANK_MOVE_EXCHANGE_H

#include "lb/lb.h"
#include "p2p/p2p.h"

/* What each process says of its ranks before the job plans moves between
 * processes. */
typedef struct amp_move_load {
    int32_t rank, pe;
    int32_t movable; /* may move to another process */
    int32_t wants;   /* asked for a PE (AMPI_Migrate_to_pe) */
    int32_t npes;    /* PEs of its process */
    int32_t stay;    /* cannot move now (AMP_LB_STAY): stays on its PE */
    uint64_t ident;  /* of its process: where the program is loaded */
    double load;
    double window; /* seconds the load was measured over */
    double cost;   /* seconds a move to another process is estimated to
                    * take (amp_lb_move_cost); below 0: the load is a value
                    * the program gave, not seconds */
} amp_move_load_t;

/* The state (amp_proc.move_exchange) and the handler, at startup of a job
 * of several processes, before any message can arrive. */
void amp_move_exchange_init(amp_p2p_world_t *w);
/* Sends the n records of this process's ranks and fills all (by world
 * rank) with every process's. */
void amp_move_exchange_loads(amp_p2p_world_t *w, const amp_move_load_t *mine,
                             int n, amp_move_load_t *all);
/* The most ranks a job exchanges send tables for (GreedyCommLB across
 * processes): each process sends 264 bytes a rank of its own to every
 * other; beyond, the job plans by load alone. */
#define AMP_MOVE_SENDS_MAX 65536
/* Whether the job exchanges send tables: GreedyCommLB, at most
 * AMP_MOVE_SENDS_MAX ranks. */
int amp_move_exchange_has_sends(void);
/* Sends the send tables of this process's n ranks ranks[] (tables[i] is
 * ranks[i]'s) and fills all (by world rank) with every rank's. */
void amp_move_exchange_sends(amp_p2p_world_t *w, const int *ranks,
                             const amp_lb_sends_t *const *tables, int n,
                             amp_lb_sends_t *all);
/* Tells every other process the PEs of this process's ranks (those
 * rank_proc gives it) and sets rank_pe and rank_proc with theirs
 * (amp_p2p_net_place). */
void amp_move_exchange_places(amp_p2p_world_t *w);

#endif
