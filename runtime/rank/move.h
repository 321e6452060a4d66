/*
 * Moving ranks between the processes of a job (docs/load-balancing.md).
 *
 * In a job of several processes AMPI_Migrate plans the moves of the whole
 * job: every process reports its ranks' loads (move_exchange.h), and
 * each computes the same map over all PEs of all processes with the
 * balancer's strategy.  A rank whose new PE is in another process is
 * shipped there: the parts of its slot in use (its stack from where it
 * stopped with its rank area and privatized globals, its used heap, and
 * with -privatize=pie the writable part of its program copy, which the
 * other process maps and relocates at the same address first) go as one
 * active message each (UCX rendezvous, read straight from the slot into
 * the same addresses of the other process's slot), and the description of
 * its MPI objects travels in its heap, as for a checkpoint
 * (checkpoint.h).  The receiving process sets the rank up as a
 * restart does and lets it resume on its new PE, where it rebuilds its
 * objects under the same handles.
 *
 * The steps, inside lb/'s amp_lb_exchange (lb.h), every process's ranks
 * waiting in AMPI_Migrate:
 *  1. quiesce; every rank reports whether it can move (nothing pending,
 *     objects a checkpoint can hold: amp_ckpt_check) and has described its
 *     objects; the loads are exchanged and the job's map made (a rank that
 *     cannot move, or a process that would be left without ranks, keeps
 *     its process); rank_proc and rank_pe take the new places;
 *  2. each rank takes in its data from other processes and detaches its
 *     communicators' shared collective state (membership changes); the
 *     process settles and from then on accepts arriving ranks;
 *  3. ranks that leave ship themselves and end in this process; the
 *     others move to their PE; arrivals rebuild their objects;
 *  4. every process has all its ranks: a job-wide exchange of places,
 *     then every rank that did not arrive attaches its communicators
 *     again.
 * A rank's slot in the process it left is given back at the next step.
 */
#ifndef AMP_RANK_MOVE_H
#define AMP_RANK_MOVE_H

#include "rank/checkpoint.h"

#include <pthread.h>

typedef struct amp_move_arrival amp_move_arrival_t;
typedef struct amp_move_held amp_move_held_t;

/* The process's state (amp_proc.move). */
typedef struct amp_move {
    uint64_t ident; /* where the program is loaded; 0: ASLR on */
    int *movable;   /* by world rank: may leave this process this step */
    amp_ckpt_blob_t *blobs; /* by world rank: described objects */
    pthread_mutex_t lock;   /* accepting and pending */
    int accepting;
    amp_move_arrival_t *pending;
    amp_move_arrival_t **incoming; /* by world rank: being received */
    /* Slots of ranks that left (ngone of departing so far), given back at
     * the next step: each with the bytes from its start the rank had made
     * accessible (program copy, heap committed). */
    struct amp_move_gone {
        int slot;
        size_t used;  /* program copy and heap committed */
        size_t bytes; /* the ranges it sent */
    } *gone;
    int ngone, departing;
    /* Slots of ranks that left whose pages the process keeps (move_keep.c),
     * oldest first through kept[]; kept_bytes in all. */
    struct amp_move_kept *kept; /* by world rank, made at the first */
    int kept_first, kept_last;
    size_t kept_bytes;
    int leaving; /* ranks that leave at this step */
    /* A process of one PE takes in the ranks that arrive once its own
     * ranks that leave are sent (to_send of them still to go): the
     * messages that come before wait in held, in order. */
    int holding, to_send;
    amp_move_held_t *held, **held_tail;
    _Atomic uint64_t shipped; /* bytes of their slots sent (+lbdebug) */
    /* By PE: a stack for the writer of a rank that leaves. */
    void **writers;
    amp_move_map_fn_t map_copy; /* amp_move_init's */
} amp_move_t;

/* amp_move_init is in proc.h. */

/* ---- move_keep.c: the pages of ranks that left, kept for their return.
 * A rank that comes back to a process finds its pages there: no system
 * call gives them back when it leaves, none makes them present again, and
 * its memory is copied into pages already touched (on a virtual machine
 * ten times faster than into new ones: docs/bench.md).  The process keeps
 * up to AMP_MOVE_KEEP_BYTES of them, the longest kept given back first.
 * All under m->lock. */

#define AMP_MOVE_KEEP_BYTES ((size_t)64 << 20)

typedef struct amp_move_kept {
    int prev, next;     /* world ranks; -1: none */
    size_t used, bytes; /* as amp_move_gone's; bytes 0: not kept */
} amp_move_kept_t;

/* Keeps the slot g of a rank that left (or gives it back at once when its
 * record cannot be made), then gives back the longest kept until the
 * process keeps no more than AMP_MOVE_KEEP_BYTES. */
void amp_move_keep(amp_move_t *m, const struct amp_move_gone *g);
/* Rank r arrives in this process: its slot, if kept, is no longer (the
 * part of a heap committed only grows, so what the rank brings covers
 * what its slot kept).  1 when it was kept, with the bytes of its heap
 * still accessible in *heap_open; 0 when it was not. */
int amp_move_keep_reuse(amp_move_t *m, int r, size_t *heap_open);

/* The remap hook of a move within each process (lb.h): runs while no
 * rank of the process is inside a collective; the shared collective state
 * follows the new PEs. */
void amp_move_remap(amp_lb_t *lb, void *arg);

/* The hooks of AMPI_Migrate in jobs of several processes (lb.h). */
extern const amp_lb_hooks_t amp_move_hooks;

/* In each rank before amp_lb_exchange: whether it may leave the process,
 * for the plan (a rank the plan sends away describes its objects once the
 * plan is known). */
void amp_move_rank_ready(amp_rank_t *rank);
/* In each rank after amp_lb_exchange answered how: attaches its
 * communicators again when ranks changed process, frees its description. */
void amp_move_rank_done(amp_rank_t *rank, int how);

#endif
