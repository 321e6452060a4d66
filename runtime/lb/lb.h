/*
 * lb: load balancing by moving ranks between PEs.
 *
 * Strategies (strategy.c) are pure functions: each rank's load and current
 * PE in, a new PE for every rank out.
 *
 * The move (lb.c) is collective over the ranks of the process.  A thread
 * may only be handed to another PE when nothing of its old PE's channels
 * refers to it any more, so amp_lb_exchange runs in three steps:
 *
 *  1. every rank arrives (a counter); the last one in waits until every
 *     PE's inbox and rings are empty (the others only wait, so nothing new
 *     is sent: what was sent before all arrived is delivered to the ranks'
 *     queues on their old PEs), computes the new map, rebuilds the shared
 *     collective state (coll/shm) for it, and wakes the others;
 *  2. every rank whose PE changes switches out and its old PE hands the
 *     thread to the new one (amp_sched_migrate: no copy, the stack stays);
 *  3. every rank arrives again, on its new PE, before any returns, so no
 *     message is sent to a rank's old PE after it left.
 *
 * The only messages that can still reach an old PE are the wake-ups of
 * step 1; a wake-up for a thread that is no longer there is dropped (p2p),
 * since its thread waits for nothing any more.
 *
 * In a job of several processes the other processes address a rank's
 * messages to its PE too; the caller's hooks (amp_lb_hooks_t) make sure
 * before step 1's map that nothing is in flight between the processes,
 * may plan the whole job (then ranks may change process: the hook's
 * depart ships a rank, rank/move.h), let the ranks take in what is tied to
 * their PE, wait until nothing is under way any more, and after step 2
 * tell the other processes the new places (p2p.h, "moving ranks").  The
 * barriers count the ranks the process has: those that leave drop out
 * after the second, those that arrive join for the third.
 */
#ifndef AMP_LB_H
#define AMP_LB_H

#include "base/base.h"
#include "sched/sched.h"

#include <stdatomic.h>
#include <stdint.h>

/* ---- strategies (strategy.c) ---- */

typedef enum amp_lb_kind {
    AMP_LB_NONE,        /* no rebalancing */
    AMP_LB_GREEDY,      /* GreedyLB */
    AMP_LB_REFINE,      /* RefineLB */
    AMP_LB_DISTRIBUTED, /* DistributedLB */
    AMP_LB_GREEDY_COMM, /* GreedyCommLB: load and bytes sent */
    AMP_LB_HYBRID,      /* HybridLB: processes, then PEs */
    AMP_LB_GREEDY_REFINE, /* GreedyRefineLB: GreedyLB that keeps ranks put */
    AMP_LB_ROTATE,        /* RotateLB: every rank to the next PE */
    AMP_LB_RANDOM,        /* RandCentLB: every rank to a PE drawn at random */
    AMP_LB_RECBIPART      /* RecBipartLB: the PEs' halves get parts of the
                           * communication graph found breadth-first */
} amp_lb_kind_t;
#define AMP_LB_NKINDS (AMP_LB_RECBIPART + 1)

/* Whether the strategy kind weighs what ranks send each other: then every
 * point-to-point send notes its peer and bytes (amp_lb_note_send). */
static inline int amp_lb_kind_uses_sends(int kind)
{
    return kind == AMP_LB_GREEDY_COMM || kind == AMP_LB_RECBIPART;
}

/* The strategy called name (case aside), or -1 when there is none by that
 * name.  A name of Charm++'s that has no strategy of its own here gives
 * the closest one, and *mapped (if not NULL) says why (else NULL). */
int amp_lb_kind_of(const char *name);
int amp_lb_kind_mapped(const char *name, const char **mapped);
const char *amp_lb_kind_name(int kind);

/* RefineLB moves ranks until no PE is more than this much above the
 * average load (as a fraction of it). */
#define AMP_LB_REFINE_TOLERANCE 0.05

/* Heaviest rank first, each to the PE least loaded so far (a tie goes to
 * the rank's current PE, then to the lowest id). */
AMP_MUST_USE amp_status_t amp_lb_greedy(int n, const double *loads,
                                        const int *cur, int npes, int *out);
/* GreedyLB that keeps a rank on its current PE while that PE stays within
 * (1 + tol) times the larger of the average load and what the least loaded
 * PE would carry with the rank: as even as GreedyLB's map, with few moves
 * when the loads drift a little between steps. */
AMP_MUST_USE amp_status_t amp_lb_greedy_refine(int n, const double *loads,
                                               const int *cur, int npes,
                                               double tol, int *out);
/* RotateLB: rank r to PE cur[r] + 1 (the last to 0), to test moves. */
void amp_lb_rotate(int n, const int *cur, int npes, int *out);
/* RandCentLB: every rank to a PE drawn at random (seeded by seed). */
void amp_lb_random(int n, int npes, unsigned long seed, int *out);
/* Starting from cur: moves ranks off the most loaded PE while it is above
 * (1 + tol) times the average, to the least loaded PE, heaviest that fits
 * under that limit first; when none fits, swaps a rank there for a lighter
 * one of the least loaded PE (the exchange that lowers it most). */
AMP_MUST_USE amp_status_t amp_lb_refine(int n, const double *loads,
                                        const int *cur, int npes, double tol,
                                        int *out);
/* Each PE above the average learns the loads of a few PEs drawn at random
 * (a generator seeded with seed), and hands its ranks, heaviest first, to
 * the least loaded of those while that stays below its own load; a few
 * rounds, PE by PE. */
AMP_MUST_USE amp_status_t amp_lb_distributed(int n, const double *loads,
                                             const int *cur, int npes,
                                             unsigned long seed, int *out);
/* +lbpredict: the load of a rank over the coming period, of the length
 * cur_len of the one just measured, from its load cur then and prev over
 * the period before, of length prev_len (0: none; cur is returned): the
 * rate of work extrapolated by one period, kept between half and twice
 * the last rate (a load that drifts, as particles or a hot spot moving
 * through the ranks' parts, is met where it will be). */
double amp_lb_predict(double prev, double prev_len, double cur, double cur_len);

/* ---- strategies that see more than loads (strategy.c) ---- */

/* The bytes n ranks sent each other: rank i sent bytes[k] to rank peer[k]
 * (an index 0 .. n-1) for k in first[i] .. first[i + 1] - 1. */
typedef struct amp_lb_graph {
    const int *first, *peer;
    const double *bytes;
} amp_lb_graph_t;

/* Seconds a byte sent between two PEs is taken to cost (GreedyCommLB
 * weighs it against load), and what a message costs besides its bytes, as
 * bytes: 0.5 us, about what a message between two PEs or two processes
 * of a node costs a PE beyond one within a PE (docs/bench.md). */
#define AMP_LB_BYTE_COST 2e-10
#define AMP_LB_MSG_BYTES 2500.0

/* The graph of n ranks' send tables (sends[i]: rank i's; a peer is a
 * world rank, index[peer] its place in 0 .. n-1, or -1 to leave it out),
 * a message weighing AMP_LB_MSG_BYTES besides its bytes; free it with
 * amp_lb_graph_free. */
struct amp_lb_sends;
AMP_MUST_USE amp_status_t
amp_lb_graph_of(int n, const struct amp_lb_sends *const *sends,
                const int *index, int nranks, amp_lb_graph_t *g);
void amp_lb_graph_free(amp_lb_graph_t *g);

/* Heaviest rank first, each to the PE where its load plus what it would
 * send to and receive from ranks placed on other PEs so far (bytes times
 * AMP_LB_BYTE_COST) is least: heavy talkers end up together. */
AMP_MUST_USE amp_status_t amp_lb_greedy_comm(int n, const double *loads,
                                             const int *cur, int npes,
                                             const amp_lb_graph_t *g, int *out);
/* Recursive bisection: the PEs split in halves, and the ranks in two
 * parts whose loads are in the halves' proportion, the first part grown
 * breadth-first over g (NULL: ranks next in rank order are neighbours)
 * from its lowest rank, taking ranks in rank order among equals; each
 * half then splits its part the same way.  Ranks that talk end up
 * together, in a process when the PEs of a process are consecutive, and
 * where the loads drift the parts' edges move by a few ranks. */
AMP_MUST_USE amp_status_t amp_lb_recbipart(int n, const double *loads, int npes,
                                           const amp_lb_graph_t *g, int *out);
/* Two levels: ranks move between processes (pe_proc: PE -> its process;
 * the PEs of a process are consecutive) as RefineLB moves them between
 * PEs, heaviest that fits first from a process above the average to the
 * least loaded one, so few ranks change process; then each process's
 * ranks are spread over its PEs as GreedyLB does. */
AMP_MUST_USE amp_status_t amp_lb_hybrid(int n, const double *loads,
                                        const int *cur, int npes,
                                        const int *pe_proc, int *out);

/* What a strategy may use: loads and places always; where the PEs are
 * (pe_proc, NULL: one process) and the bytes sent (graph, NULL: not
 * measured) when known. */
typedef struct amp_lb_input {
    int n, npes;
    const double *loads;
    const int *cur;
    const int *pe_proc;
    const amp_lb_graph_t *graph;
    unsigned long seed;
    /* A strategy that balances load keeps cur unless its plan lowers the
     * most loaded PE's load by at least this fraction (+lbmingain). */
    double min_gain;
    /* With pe_proc: the seconds rank r's move to another process is
     * estimated to cost (move_cost[r], amp_lb_move_cost; NULL: moves are
     * free), and how many seconds the plan has to pay them back for each
     * second the loads were measured over (horizon; 0 counts as 1).  A
     * plan that lowers the most loaded PE's load over that by less than its
     * moves cost the process that takes in the most is not made: the
     * ranks stay (with min_gain above 0 only; loads in seconds). */
    const double *move_cost;
    double horizon;
} amp_lb_input_t;

/* The seconds a rank whose memory takes bytes (heap and rank area) is
 * estimated to take to move to another process of the node: a fixed part
 * and the pages made present where it arrives (docs/bench.md, "Moving one
 * rank to another process": about 0.2 ms, and 1.3 ms a MiB). */
#define AMP_LB_MOVE_FIXED_S 2e-4
/* The least time a plan has to pay back its moves between processes (its
 * gain lasts while the loads do, beyond the next period). */
#define AMP_LB_PAYBACK_S 1.0
#define AMP_LB_MOVE_BYTE_S (1.3e-3 / 1048576.0)
static inline double amp_lb_move_cost(double bytes)
{
    return AMP_LB_MOVE_FIXED_S + AMP_LB_MOVE_BYTE_S * bytes;
}
/* amp_lb_input_t's horizon: the seconds a plan has to pay back its moves
 * (the next period, period_s, or as long as the window the loads were
 * measured over when there is no period; at least AMP_LB_PAYBACK_S) per
 * second of that window; 1 when the window is unknown (0). */
static inline double amp_lb_horizon(double period_s, double window)
{
    if (window <= 0)
        return 1;
    double next = period_s > 0 ? period_s : window;
    return (next > AMP_LB_PAYBACK_S ? next : AMP_LB_PAYBACK_S) / window;
}
AMP_MUST_USE amp_status_t amp_lb_plan_input(int kind, const amp_lb_input_t *in,
                                            int *out);

/* What the moves of map between processes cost (in->move_cost): the most
 * any one process takes in, whose PE takes them one after another; 0
 * without move_cost or pe_proc, or out of memory. */
double amp_lb_moves_cost(const amp_lb_input_t *in, const int *map);
/* The most loaded PE's load when in's ranks are placed by map (0 when out
 * of memory). */
double amp_lb_max_pe_load(const amp_lb_input_t *in, const int *map);
/* +lbdebug: the busiest PE's load before step and as planned (out), and
 * the mean, on stderr; proc >= 0: a process's own plan. */
void amp_lb_debug_spread(unsigned long step, const amp_lb_input_t *in,
                         const int *out, int proc);

/* The strategy kind's map (AMP_LB_NONE: out = cur). */
AMP_MUST_USE amp_status_t amp_lb_plan(int kind, int n, const double *loads,
                                      const int *cur, int npes,
                                      unsigned long seed, int *out);

/* ---- moving ranks in one process (lb.c) ---- */

typedef void (*amp_lb_callback_fn_t)(void);

/* The bytes a rank sent to the peers it sent most to since the last step
 * (its point-to-point sends, while a balancer that uses them is chosen:
 * amp_lb_t.comm); a peer that finds no room is left out. */
#define AMP_LB_PEERS 16
typedef struct amp_lb_sends {
    int peer1[AMP_LB_PEERS]; /* world rank + 1; 0: free */
    uint32_t msgs[AMP_LB_PEERS];
    uint64_t bytes[AMP_LB_PEERS];
} amp_lb_sends_t;

static inline void amp_lb_note_send(amp_lb_sends_t *s, int peer, size_t bytes)
{
    unsigned h = (unsigned)peer * 2654435761u;
    for (int k = 0; k < 4; k++) {
        int i = (int)((h >> 28) + (unsigned)k) % AMP_LB_PEERS;
        if (s->peer1[i] == peer + 1 || !s->peer1[i]) {
            s->peer1[i] = peer + 1;
            s->msgs[i]++;
            s->bytes[i] += bytes;
            return;
        }
    }
}

/* What a rank keeps for load balancing (in its amp_rank_t). */
typedef struct amp_lb_rank {
    amp_lb_callback_fn_t about_to_migrate, just_migrated;
    uint64_t mark; /* busy ticks when the measured period began */
    uint64_t acc;  /* busy ticks of earlier measured stretches */
    int stopped;   /* AMPI_Load_stop_measure is in effect */
    int has_value; /* AMPI_Load_set_value gave the load */
    double value;
    /* +lbpredict: the cycle count when the measured period began, and the
     * last period's load and length (prev_len 0: none yet). */
    uint64_t since;
    double prev, prev_len;
    amp_lb_sends_t sends;
} amp_lb_rank_t;

/* The process's state (in amp_proc).  Arrays are by world rank; only
 * the entries of this process's ranks mean anything, except where said. */
typedef struct amp_lb {
    int kind;   /* amp_lb_kind_t from +balancer */
    int debug;  /* +lbdebug: report every move */
    int comm;   /* the strategy weighs bytes sent: ranks count them */
    int nranks; /* in the whole job */
    int nlocal; /* ranks in this process now */
    int proc;   /* this process's index */
    amp_sched_t *sched;
    int *rank_pe;   /* world rank -> its PE; updated by the moves */
    int *rank_proc; /* world rank -> its process, or NULL: one process */
    amp_thread_t **threads;
    unsigned long *waitgen; /* the barrier generation a rank waits for */
    double *loads;
    const amp_lb_rank_t **rls; /* each rank's, during a step */
    int *want;                 /* PE asked for (AMPI_Migrate_to_pe), or -1 */
    int *map;                  /* the new PE of every rank ... */
    int *map_proc;   /* ... in this process (every rank: see plan_job) */
    int nlocal_next; /* ranks here once the moves are done */
    int cross;       /* some rank of the job changes process this step */
    unsigned long rounds;
    double plan_s; /* the last step's decision time (+lbdebug) */
    double min_gain; /* +lbmingain (amp_lb_input_t) */
    long step_from_ns; /* when the last rank came into the step */
    double plan_total_s; /* every step's decision time so far (MPI_T) */
    _Atomic int arrived;
    _Atomic unsigned long gen;
    uint64_t cycles0; /* cycle counter and clock at startup: the rate */
    long ns0;
} amp_lb_t;

/* Sets lb up for a job of nranks ranks, world rank r running on PE
 * rank_pe[r] of process rank_proc[r] (rank_proc NULL: every rank here);
 * both arrays are kept and updated.  kind and debug are set by the
 * caller. */
AMP_MUST_USE amp_status_t amp_lb_init(amp_lb_t *lb, amp_sched_t *sched,
                                      int nranks, int proc, int *rank_pe,
                                      int *rank_proc);
void amp_lb_cleanup(amp_lb_t *lb);

/* Whether world rank r runs in this process. */
static inline int amp_lb_is_local(const amp_lb_t *lb, int r)
{
    return !lb->rank_proc || lb->rank_proc[r] == lb->proc;
}

/* A step of a move run by the last rank in of a barrier of the process's
 * ranks (nothing else runs in the process then). */
typedef void (*amp_lb_remap_fn_t)(amp_lb_t *lb, void *arg);

/* What the caller adds to a move; any may be NULL.  In order: */
typedef struct amp_lb_hooks {
    amp_lb_remap_fn_t quiesce; /* every rank in, before the map is made */
    /* Every rank in, quiesced: may plan the moves of the whole job (sets
     * map and map_proc of every rank, and nlocal_next) and return 1; 0:
     * the process plans its own ranks' PEs. */
    int (*plan_job)(amp_lb_t *lb, void *arg);
    /* The map made by the process (plan_job answered 0), before any rank
     * moves. */
    amp_lb_remap_fn_t remap;
    /* With settle: each rank runs prepare on its PE once the map is
     * known, then every rank meets again and the last one in runs settle
     * before any rank moves. */
    void (*prepare)(void *arg);
    amp_lb_remap_fn_t settle;
    /* Once settle's barrier is behind every rank: ranks of other
     * processes may join from then on. */
    amp_lb_remap_fn_t accept;
    /* A rank that goes to another process (map_proc) calls this instead of
     * moving to a PE; it returns in the new process, on the rank's new
     * PE, once the rank is there. */
    void (*depart)(amp_lb_t *lb, int me, void *arg);
    amp_lb_remap_fn_t placed; /* every rank in place, before any returns */
    void *arg;                /* of them all */
} amp_lb_hooks_t;

/* A want of amp_lb_exchange: the rank cannot move now (a nonblocking
 * collective under way, kernel threads bound to its PE); it stays where it
 * is while the strategy places the others, and +lbdebug counts it. */
#define AMP_LB_STAY (-2)

/* What amp_lb_exchange did with the rank. */
enum { AMP_LB_STAYED, AMP_LB_MOVED, AMP_LB_ARRIVED };

/* Collective over the process's ranks: world rank me (the calling thread)
 * with load load asks for PE want (-1: the strategy's choice;
 * AMP_LB_STAY).  Returns
 * AMP_LB_MOVED if the rank changed PE in its process, AMP_LB_ARRIVED if it
 * came from another process (hooks' depart).  hooks (may be NULL) run as
 * described there; a rank that moves calls rl's about_to_migrate before it
 * leaves (nothing may communicate then) and just_migrated once every rank
 * is in place. */
int amp_lb_exchange(amp_lb_t *lb, int me, double load, int want,
                    const amp_lb_rank_t *rl, const amp_lb_hooks_t *hooks);

/* Ticks of the cycle counter per second, measured since amp_lb_init. */
double amp_lb_cycles_per_second(const amp_lb_t *lb);

#endif
