/* The load-balancing strategies (runtime/lb/strategy.c): loads in, map
 * out. */
#include "unit.h"

#include "lb/lb.h"
#include "rank/period.h"

#include <string.h>

enum { N = 8, NPES = 2 };

/* Half the ranks carry 4 times the work, placed blockwise. */
static const double imbalanced[N] = {4, 4, 4, 4, 1, 1, 1, 1};
static const int block[N] = {0, 0, 0, 0, 1, 1, 1, 1};

static double max_pe_load(const double *loads, const int *map, int n, int npes)
{
    double pl[16] = {0}, max = 0;
    for (int r = 0; r < n; r++)
        pl[map[r]] += loads[r];
    for (int p = 0; p < npes; p++)
        max = pl[p] > max ? pl[p] : max;
    return max;
}

static int moves(const int *a, const int *b, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        m += a[i] != b[i];
    return m;
}

UNIT_TEST(lb_names)
{
    UNIT_EQ(amp_lb_kind_of("GreedyLB"), AMP_LB_GREEDY);
    UNIT_EQ(amp_lb_kind_of("refinelb"), AMP_LB_REFINE);
    UNIT_EQ(amp_lb_kind_of("DistributedLB"), AMP_LB_DISTRIBUTED);
    UNIT_EQ(amp_lb_kind_of("none"), AMP_LB_NONE);
    UNIT_EQ(amp_lb_kind_of("NoSuchLB"), -1);
    UNIT_TRUE(strcmp(amp_lb_kind_name(AMP_LB_GREEDY), "GreedyLB") == 0);
}

/* Greedy balances 16:4 into 10:10, and keeps ranks where ties allow. */
UNIT_TEST(lb_greedy_balances)
{
    int out[N];
    UNIT_EQ(amp_lb_greedy(N, imbalanced, block, NPES, out), AMP_OK);
    UNIT_EQ((long long)max_pe_load(imbalanced, out, N, NPES), 10);
    UNIT_EQ(out[0], 0); /* the first tie stays */
    for (int r = 0; r < N; r++)
        UNIT_TRUE(out[r] >= 0 && out[r] < NPES);
}

/* Greedy on many PEs: the heaviest ranks get a PE each. */
UNIT_TEST(lb_greedy_many_pes)
{
    double loads[6] = {9, 1, 1, 1, 1, 5};
    int cur[6] = {0, 0, 0, 0, 0, 0}, out[6];
    UNIT_EQ(amp_lb_greedy(6, loads, cur, 3, out), AMP_OK);
    UNIT_TRUE(out[0] != out[5]);
    UNIT_EQ((long long)max_pe_load(loads, out, 6, 3), 9);
}

/* Refine reaches the tolerance and moves no more than it must. */
UNIT_TEST(lb_refine_balances_with_few_moves)
{
    int out[N];
    UNIT_EQ(amp_lb_refine(N, imbalanced, block, NPES, 0.05, out), AMP_OK);
    UNIT_EQ((long long)max_pe_load(imbalanced, out, N, NPES), 10);
    int greedy[N];
    UNIT_EQ(amp_lb_greedy(N, imbalanced, block, NPES, greedy), AMP_OK);
    UNIT_TRUE(moves(block, out, N) <= moves(block, greedy, N));
    /* 16:4 -> 10:10 takes two heavy ranks over and two light ones back. */
    UNIT_EQ(moves(block, out, N), 4);
}

/* A balanced map stays as it is under refine and distributed. */
UNIT_TEST(lb_balanced_map_stays)
{
    double loads[N] = {1, 1, 1, 1, 1, 1, 1, 1};
    int out[N];
    UNIT_EQ(amp_lb_refine(N, loads, block, NPES, 0.05, out), AMP_OK);
    UNIT_EQ(moves(block, out, N), 0);
    UNIT_EQ(amp_lb_distributed(N, loads, block, NPES, 7, out), AMP_OK);
    UNIT_EQ(moves(block, out, N), 0);
}

/* Distributed improves the peak, and the same seed gives the same map. */
UNIT_TEST(lb_distributed_improves_deterministically)
{
    double loads[16];
    int cur[16], a[16], b[16];
    for (int r = 0; r < 16; r++) {
        loads[r] = r < 8 ? 4 : 1;
        cur[r] = r / 4; /* 4 PEs: 16, 16, 4, 4 */
    }
    UNIT_EQ(amp_lb_distributed(16, loads, cur, 4, 42, a), AMP_OK);
    UNIT_EQ(amp_lb_distributed(16, loads, cur, 4, 42, b), AMP_OK);
    UNIT_EQ(memcmp(a, b, sizeof(a)), 0);
    UNIT_TRUE(max_pe_load(loads, a, 16, 4) < 16);
    UNIT_TRUE(max_pe_load(loads, a, 16, 4) <= 12);
}

/* No balancer keeps the map; with one PE there is nowhere to go. */
UNIT_TEST(lb_plan_none_keeps_map)
{
    int out[N];
    UNIT_EQ(amp_lb_plan(AMP_LB_NONE, N, imbalanced, block, NPES, 1, out),
            AMP_OK);
    UNIT_EQ(moves(block, out, N), 0);
    UNIT_EQ(amp_lb_plan(AMP_LB_REFINE, 1, imbalanced, block, 1, 1, out),
            AMP_OK);
    UNIT_EQ(out[0], 0);
}

UNIT_TEST(lb_names_comm_hybrid)
{
    UNIT_EQ(amp_lb_kind_of("GreedyCommLB"), AMP_LB_GREEDY_COMM);
    UNIT_EQ(amp_lb_kind_of("hybridlb"), AMP_LB_HYBRID);
    UNIT_TRUE(strcmp(amp_lb_kind_name(AMP_LB_HYBRID), "HybridLB") == 0);
}

/* Four equal ranks in two talking pairs (0-2 and 1-3), each pair split
 * over the two PEs: GreedyCommLB puts each pair on one PE and stays
 * balanced, where GreedyLB, blind to the bytes, keeps them split. */
UNIT_TEST(lb_greedy_comm_keeps_talkers_together)
{
    const double loads[4] = {1, 1, 1, 1};
    const int cur[4] = {0, 0, 1, 1};
    /* 0 -> 2 and 3 -> 1, 100 GB each: far above the loads' scale. */
    const int first[5] = {0, 1, 1, 1, 2};
    const int peer[2] = {2, 1};
    const double bytes[2] = {1e11, 1e11};
    amp_lb_graph_t g = {.first = first, .peer = peer, .bytes = bytes};
    int out[4], plain[4];
    UNIT_EQ(amp_lb_greedy_comm(4, loads, cur, 2, &g, out), AMP_OK);
    UNIT_EQ(out[0], out[2]);
    UNIT_EQ(out[1], out[3]);
    UNIT_TRUE(out[0] != out[1]);
    UNIT_EQ(amp_lb_greedy(4, loads, cur, 2, plain), AMP_OK);
    UNIT_TRUE(plain[0] != plain[2] && plain[1] != plain[3]);
    /* Without bytes it is GreedyLB. */
    const int none[5] = {0, 0, 0, 0, 0};
    amp_lb_graph_t empty = {.first = none, .peer = peer, .bytes = bytes};
    UNIT_EQ(amp_lb_greedy_comm(4, loads, cur, 2, &empty, out), AMP_OK);
    UNIT_EQ(memcmp(out, plain, sizeof(out)), 0);
}

/* Two processes of two PEs each, all the load in process 0: HybridLB moves
 * about half of it to process 1 (few moves: RefineLB between processes)
 * and spreads each process's ranks over its own PEs. */
UNIT_TEST(lb_hybrid_two_levels)
{
    enum { R = 8, P = 4 };
    const double loads[R] = {3, 3, 2, 2, 1, 1, 1, 1};
    const int cur[R] = {0, 0, 0, 0, 1, 1, 1, 1}; /* process 0: 14, 1: 0 */
    const int pe_proc[P] = {0, 0, 1, 1};
    int out[R];
    UNIT_EQ(amp_lb_hybrid(R, loads, cur, P, pe_proc, out), AMP_OK);
    double proc_load[2] = {0, 0};
    for (int r = 0; r < R; r++) {
        UNIT_TRUE(out[r] >= 0 && out[r] < P);
        proc_load[pe_proc[out[r]]] += loads[r];
    }
    UNIT_TRUE(proc_load[0] <= 7.35 && proc_load[1] <= 7.35);
    UNIT_TRUE(max_pe_load(loads, out, R, P) <= 4);
    int changed = 0;
    for (int r = 0; r < R; r++)
        changed += pe_proc[out[r]] != pe_proc[cur[r]];
    UNIT_TRUE(changed <= 4);
    /* Through amp_lb_plan_input; without pe_proc it is GreedyLB. */
    amp_lb_input_t in = {
        .n = R, .npes = P, .loads = loads, .cur = cur, .pe_proc = pe_proc};
    int again[R];
    UNIT_EQ(amp_lb_plan_input(AMP_LB_HYBRID, &in, again), AMP_OK);
    UNIT_EQ(memcmp(out, again, sizeof(out)), 0);
}

/* Loads that drift a little from a balanced map (16 ranks, 2 PEs, the
 * clump moving by one rank; no two loads equal, as measured loads are):
 * GreedyLB deals the ranks out afresh and moves many; GreedyRefineLB keeps
 * all but a few where they are and is as even within its tolerance. */
UNIT_TEST(lb_greedy_refine_moves_few)
{
    double loads[16];
    int cur[16], greedy[16], refine[16];
    for (int r = 0; r < 16; r++) {
        loads[r] = (r >= 4 && r < 8 ? 5.0 : 1.0) + 0.01 * r; /* clump 4..7 */
        cur[r] = 0;
    }
    UNIT_EQ(amp_lb_greedy(16, loads, cur, 2, cur), AMP_OK);
    loads[4] = 1.04;
    loads[8] = 5.08; /* the clump moved on by one rank */
    double total = 0;
    for (int r = 0; r < 16; r++)
        total += loads[r];
    UNIT_EQ(amp_lb_greedy(16, loads, cur, 2, greedy), AMP_OK);
    UNIT_EQ(amp_lb_greedy_refine(16, loads, cur, 2, 0.05, refine), AMP_OK);
    UNIT_TRUE(max_pe_load(loads, refine, 16, 2) <= total / 2 * 1.05);
    UNIT_TRUE(moves(cur, refine, 16) <= 3);
    UNIT_TRUE(moves(cur, refine, 16) < moves(cur, greedy, 16));
    UNIT_EQ(amp_lb_kind_of("GreedyRefineLB"), AMP_LB_GREEDY_REFINE);
    int planned[16];
    UNIT_EQ(amp_lb_plan(AMP_LB_GREEDY_REFINE, 16, loads, cur, 2, 1, planned),
            AMP_OK);
    UNIT_EQ(memcmp(planned, refine, sizeof(planned)), 0);
}

/* +lbperiod's questions (rank/period.h): as many collectives apart as fit
 * in what is left of the period, at the pace measured since the last
 * question, a little short of it; never more than twice the last gap. */
UNIT_TEST(lb_period_gap_follows_the_pace)
{
    /* 10 collectives in 10 ms, 20 ms left: 18 (0.9 of 20). */
    UNIT_EQ(amp_period_gap(10, 10000000, 20000000, 16), 18);
    /* The same pace after a gap of 4: 8 at most. */
    UNIT_EQ(amp_period_gap(10, 10000000, 20000000, 4), 8);
    /* A period as good as over, or nothing measured: the next one. */
    UNIT_EQ(amp_period_gap(10, 10000000, 100, 16), 1);
    UNIT_EQ(amp_period_gap(10, 10000000, 0, 16), 1);
    UNIT_EQ(amp_period_gap(0, 10000000, 20000000, 16), 1);
    /* Fast collectives: bounded by AMP_PERIOD_GAP_MAX. */
    UNIT_EQ(amp_period_gap(1000, 1000, 1000000000, AMP_PERIOD_GAP_MAX),
            AMP_PERIOD_GAP_MAX);
}

/* +lbearly: how busy a PE was since a mark, in thousandths, and when the
 * early look balances. */
UNIT_TEST(lb_period_early_look)
{
    /* 750 busy ticks in 1000 cycles. */
    UNIT_EQ(amp_period_busy(250, 1000, 5000, 6000), 750);
    UNIT_EQ(amp_period_busy(0, 2000, 0, 1000), 1000); /* rounding: capped */
    /* No time, or counters from another process (a restart): unknown. */
    UNIT_EQ(amp_period_busy(0, 10, 100, 100), -1);
    UNIT_EQ(amp_period_busy(20, 10, 0, 100), -1);
    UNIT_EQ(amp_period_busy(0, 10, 100, 50), -1);
    /* The least busy 0.75 of the busiest: balance; 0.85: not. */
    UNIT_TRUE(amp_period_uneven(1000, 750));
    UNIT_TRUE(!amp_period_uneven(1000, 850));
    UNIT_TRUE(!amp_period_uneven(600, 600));
    /* Nothing known, or every PE idle: no step. */
    UNIT_TRUE(!amp_period_uneven(-1, -1));
    UNIT_TRUE(!amp_period_uneven(1000, -1));
    UNIT_TRUE(!amp_period_uneven(0, 0));
}

/* Charm++'s names: RotateLB and RandCentLB are strategies here; others
 * give the closest strategy and say why; an unknown name is none. */
UNIT_TEST(lb_charm_names)
{
    const char *why = "x";
    UNIT_EQ(amp_lb_kind_mapped("RotateLB", &why), AMP_LB_ROTATE);
    UNIT_TRUE(why == NULL);
    UNIT_EQ(amp_lb_kind_mapped("randcentlb", &why), AMP_LB_RANDOM);
    UNIT_EQ(amp_lb_kind_mapped("MetisLB", &why), AMP_LB_GREEDY_COMM);
    UNIT_TRUE(why != NULL);
    UNIT_EQ(amp_lb_kind_mapped("TreeLB", &why), AMP_LB_HYBRID);
    UNIT_EQ(amp_lb_kind_mapped("RefineCommLB", &why), AMP_LB_REFINE);
    UNIT_EQ(amp_lb_kind_mapped("NoSuchLB", &why), -1);
    UNIT_TRUE(strcmp(amp_lb_kind_name(AMP_LB_RANDOM), "RandCentLB") == 0);
}

/* RotateLB moves every rank to the next PE; RandCentLB draws PEs in range,
 * the same for the same seed. */
UNIT_TEST(lb_rotate_and_random)
{
    int out[N], again[N];
    UNIT_EQ(amp_lb_plan(AMP_LB_ROTATE, N, imbalanced, block, NPES, 1, out),
            AMP_OK);
    for (int r = 0; r < N; r++)
        UNIT_EQ(out[r], (block[r] + 1) % NPES);
    UNIT_EQ(amp_lb_plan(AMP_LB_RANDOM, N, imbalanced, block, 4, 7, out),
            AMP_OK);
    UNIT_EQ(amp_lb_plan(AMP_LB_RANDOM, N, imbalanced, block, 4, 7, again),
            AMP_OK);
    int differ = 0;
    for (int r = 0; r < N; r++) {
        UNIT_TRUE(out[r] >= 0 && out[r] < 4);
        UNIT_EQ(out[r], again[r]);
        differ += out[r] != out[0];
    }
    UNIT_TRUE(differ > 0);
}

/* +lbpredict: a rate that rose from 1 to 2 per unit of time is met at 3;
 * one that fell from 2 to 1 at the floor of half the last rate; a load
 * without a period before it is taken as it is; periods of other lengths
 * compare as rates. */
UNIT_TEST(lb_predict_extrapolates_the_rate)
{
    UNIT_TRUE(amp_lb_predict(1.0, 1.0, 2.0, 1.0) == 3.0);
    UNIT_TRUE(amp_lb_predict(2.0, 1.0, 1.0, 1.0) == 0.5);
    UNIT_TRUE(amp_lb_predict(0.0, 0.0, 5.0, 1.0) == 5.0);
    UNIT_TRUE(amp_lb_predict(1.0, 2.0, 2.0, 2.0) == 3.0); /* 0.5 -> 1 -> 1.5 */
    UNIT_TRUE(amp_lb_predict(0.0, 1.0, 1.0, 1.0) == 2.0); /* capped at 2x */
    /* A drifting load: rank 0's work moves to rank 1 at one rank a period;
     * the prediction already puts more on rank 1 than rank 0. */
    double r0 = amp_lb_predict(4.0, 1.0, 3.0, 1.0);
    double r1 = amp_lb_predict(1.0, 1.0, 2.0, 1.0);
    UNIT_TRUE(r1 > r0);
}

/* +lbmingain: a load strategy keeps the ranks where they are unless its
 * plan lowers the most loaded PE by the fraction asked; RotateLB moves. */
UNIT_TEST(lb_min_gain_keeps_an_even_placement)
{
    double even[8] = {1.0, 1.02, 0.99, 1.0, 1.01, 1.0, 0.98, 1.0};
    int cur[8] = {0, 0, 0, 0, 1, 1, 1, 1}, out[8];
    amp_lb_input_t in = {.n = 8, .npes = 2, .loads = even, .cur = cur,
                         .min_gain = 0.05};
    UNIT_TRUE(amp_lb_plan_input(AMP_LB_GREEDY, &in, out) == AMP_OK);
    UNIT_TRUE(memcmp(out, cur, sizeof(cur)) == 0);
    /* Without the threshold GreedyLB deals afresh and moves some. */
    in.min_gain = 0;
    UNIT_TRUE(amp_lb_plan_input(AMP_LB_GREEDY, &in, out) == AMP_OK);
    UNIT_TRUE(memcmp(out, cur, sizeof(cur)) != 0);
    /* An uneven load moves under the threshold too. */
    double uneven[8] = {4, 4, 4, 4, 1, 1, 1, 1};
    in.loads = uneven;
    in.min_gain = 0.05;
    UNIT_TRUE(amp_lb_plan_input(AMP_LB_GREEDY, &in, out) == AMP_OK);
    UNIT_TRUE(memcmp(out, cur, sizeof(cur)) != 0);
    in.loads = even;
    UNIT_TRUE(amp_lb_plan_input(AMP_LB_ROTATE, &in, out) == AMP_OK);
    UNIT_TRUE(out[0] == 1 && out[4] == 0);
}

/* Across processes a plan must also gain, over the horizon, more than
 * its moves cost the process that takes in the most: 2 processes of one
 * PE, 8 ranks, the first process's 4 twice as heavy.  GreedyLB lowers
 * the busiest PE from 0.08 to 0.06 s by moving ranks each way. */
UNIT_TEST(lb_moves_between_processes_must_pay_for_themselves)
{
    double loads[8] = {0.02, 0.02, 0.02, 0.02, 0.01, 0.01, 0.01, 0.01};
    double cheap[8], dear[8];
    int cur[8] = {0, 0, 0, 0, 1, 1, 1, 1}, pe_proc[2] = {0, 1}, out[8];
    for (int r = 0; r < 8; r++) {
        cheap[r] = 0.001;
        dear[r] = 0.02;
    }
    amp_lb_input_t in = {.n = 8,
                         .npes = 2,
                         .loads = loads,
                         .cur = cur,
                         .pe_proc = pe_proc,
                         .min_gain = 0.05,
                         .move_cost = cheap,
                         .horizon = 1};
    UNIT_TRUE(amp_lb_plan_input(AMP_LB_GREEDY, &in, out) == AMP_OK);
    UNIT_TRUE(memcmp(out, cur, sizeof(cur)) != 0);
    /* 20 ms a rank: whatever GreedyLB sends costs more than 20 ms saved. */
    in.move_cost = dear;
    UNIT_TRUE(amp_lb_plan_input(AMP_LB_GREEDY, &in, out) == AMP_OK);
    UNIT_TRUE(memcmp(out, cur, sizeof(cur)) == 0);
    /* Loads measured over an eighth of the coming period: the gain holds
     * eight times as long, and pays. */
    in.horizon = 8;
    UNIT_TRUE(amp_lb_plan_input(AMP_LB_GREEDY, &in, out) == AMP_OK);
    UNIT_TRUE(memcmp(out, cur, sizeof(cur)) != 0);
    /* +lbmingain 0 moves whatever the strategy says. */
    in.horizon = 1;
    in.min_gain = 0;
    UNIT_TRUE(amp_lb_plan_input(AMP_LB_GREEDY, &in, out) == AMP_OK);
    UNIT_TRUE(memcmp(out, cur, sizeof(cur)) != 0);
    /* Moves within a process cost nothing here: one process of 2 PEs. */
    int one[2] = {0, 0};
    in.pe_proc = one;
    in.min_gain = 0.05;
    UNIT_TRUE(amp_lb_plan_input(AMP_LB_GREEDY, &in, out) == AMP_OK);
    UNIT_TRUE(memcmp(out, cur, sizeof(cur)) != 0);
}

/* The payback horizon: the next period or a second, whichever is longer,
 * per second the loads were measured over; without a period, as long as
 * the window itself (at least a second); unknown window: 1. */
UNIT_TEST(lb_horizon_is_the_next_period_or_a_second)
{
    UNIT_TRUE(amp_lb_horizon(0.2, 0.2) == AMP_LB_PAYBACK_S / 0.2);
    UNIT_TRUE(amp_lb_horizon(0.2, 0.05) == AMP_LB_PAYBACK_S / 0.05);
    UNIT_TRUE(amp_lb_horizon(4.0, 2.0) == 2.0);
    UNIT_TRUE(amp_lb_horizon(0, 2.0) == 1.0);
    UNIT_TRUE(amp_lb_horizon(0, 0.5) == AMP_LB_PAYBACK_S / 0.5);
    UNIT_TRUE(amp_lb_horizon(0.2, 0) == 1.0);
}

/* RecBipartLB without a graph: ranks next in rank order are neighbours,
 * so each PE gets a run of ranks whose load is near its share. */
UNIT_TEST(lb_recbipart_splits_rank_order_into_runs)
{
    double even[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    int out[8], want[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    UNIT_TRUE(amp_lb_recbipart(8, even, 2, NULL, out) == AMP_OK);
    UNIT_TRUE(memcmp(out, want, sizeof(want)) == 0);
    /* Four PEs: runs of two. */
    int four[8] = {0, 0, 1, 1, 2, 2, 3, 3};
    UNIT_TRUE(amp_lb_recbipart(8, even, 4, NULL, out) == AMP_OK);
    UNIT_TRUE(memcmp(out, four, sizeof(four)) == 0);
    /* A heavy rank 0 (4 of 11): the first run stops near half (a rank
     * that leaves the run as far above half as it was below joins). */
    double heavy[8] = {4, 1, 1, 1, 1, 1, 1, 1};
    int split[8] = {0, 0, 0, 1, 1, 1, 1, 1};
    UNIT_TRUE(amp_lb_recbipart(8, heavy, 2, NULL, out) == AMP_OK);
    UNIT_TRUE(memcmp(out, split, sizeof(split)) == 0);
}

/* With a graph the halves grow breadth-first over it: ranks r and r + 4
 * talk, so each pair shares a PE, four ranks a PE. */
UNIT_TEST(lb_recbipart_keeps_talkers_together)
{
    double even[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    int first[9] = {0, 1, 2, 3, 4, 4, 4, 4, 4}, peer[4] = {4, 5, 6, 7};
    double bytes[4] = {1e6, 1e6, 1e6, 1e6};
    amp_lb_graph_t g = {.first = first, .peer = peer, .bytes = bytes};
    int out[8], per_pe[2] = {0, 0};
    UNIT_TRUE(amp_lb_recbipart(8, even, 2, &g, out) == AMP_OK);
    for (int r = 0; r < 4; r++)
        UNIT_EQ(out[r], out[r + 4]);
    for (int r = 0; r < 8; r++)
        per_pe[out[r]]++;
    UNIT_EQ(per_pe[0], 4);
    UNIT_EQ(per_pe[1], 4);
    UNIT_EQ(amp_lb_kind_of("RecBipartLB"), AMP_LB_RECBIPART);
    UNIT_TRUE(amp_lb_kind_uses_sends(AMP_LB_RECBIPART));
}

/* The send tables as a graph: a message weighs AMP_LB_MSG_BYTES besides
 * its bytes, and peers outside the index are left out. */
UNIT_TEST(lb_graph_of_send_tables)
{
    amp_lb_sends_t s[2];
    memset(s, 0, sizeof(s));
    amp_lb_note_send(&s[0], 1, 100);
    amp_lb_note_send(&s[0], 1, 100);
    amp_lb_note_send(&s[0], 5, 8); /* not in the index */
    amp_lb_note_send(&s[1], 0, 0); /* a message of no bytes still counts */
    const amp_lb_sends_t *tables[2] = {&s[0], &s[1]};
    int index[6] = {0, 1, -1, -1, -1, -1};
    amp_lb_graph_t g;
    UNIT_TRUE(amp_lb_graph_of(2, tables, index, 6, &g) == AMP_OK);
    UNIT_EQ(g.first[1] - g.first[0], 1);
    UNIT_EQ(g.first[2] - g.first[1], 1);
    UNIT_EQ(g.peer[0], 1);
    UNIT_TRUE(g.bytes[0] == 200 + 2 * AMP_LB_MSG_BYTES);
    UNIT_EQ(g.peer[1], 0);
    UNIT_TRUE(g.bytes[1] == AMP_LB_MSG_BYTES);
    amp_lb_graph_free(&g);
}

/* ---- RefineLB against its definition ---- */

/* RefineLB as the strategy defines it, one pass over all ranks for each
 * choice (strategy.c finds the same ranks by searching each PE's ranks):
 * while the heaviest PE (the first of equals) is over the limit, move to
 * the lightest PE the heaviest rank of it (equal loads: the lowest rank)
 * that fits, or else swap the pair, first by rank, that lowers it most. */
static void ref_refine(int n, const double *loads, const int *cur, int npes,
                       double tol, int *out)
{
    double pl[8] = {0}, total = 0;
    memcpy(out, cur, (size_t)n * sizeof(int));
    for (int r = 0; r < n; r++)
        pl[cur[r]] += loads[r];
    for (int p = 0; p < npes; p++)
        total += pl[p];
    double limit = total / npes * (1.0 + tol);
    for (int step = 0; step < n; step++) {
        int heavy = 0, light = 0;
        for (int p = 1; p < npes; p++) {
            heavy = pl[p] > pl[heavy] ? p : heavy;
            light = pl[p] < pl[light] ? p : light;
        }
        if (pl[heavy] <= limit)
            return;
        double room = limit - pl[light];
        if (pl[heavy] - pl[light] <= room)
            room = pl[heavy] - pl[light] - 1e-12;
        int fit = -1;
        for (int r = 0; r < n; r++)
            if (out[r] == heavy && loads[r] > 0 && loads[r] <= room &&
                (fit < 0 || loads[r] > loads[fit]))
                fit = r;
        int a = fit, b = -1;
        double best = 0, gap = pl[heavy] - pl[light];
        for (int i = 0; fit < 0 && i < n; i++)
            for (int j = 0; out[i] == heavy && j < n; j++) {
                double d = loads[i] - loads[j];
                if (out[j] == light && d > best && d < gap) {
                    best = d;
                    a = i;
                    b = j;
                }
            }
        if (a < 0)
            return;
        pl[heavy] -= loads[a];
        pl[light] += loads[a];
        out[a] = light;
        if (b >= 0) {
            pl[light] -= loads[b];
            pl[heavy] += loads[b];
            out[b] = heavy;
        }
    }
}

/* Random placements with many equal loads and zero loads, some where no
 * rank fits and steps swap, some where ranks are moved onto a PE and then
 * away from it: the same map as the definition. */
UNIT_TEST(lb_refine_matches_its_definition)
{
    enum { MAXN = 300 };
    static double loads[MAXN];
    static int cur[MAXN], got[MAXN], want[MAXN];
    unsigned long long s = 12345;
    for (int t = 0; t < 3000; t++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int n = 1 + (int)(s >> 33) % (t % 10 == 0 ? MAXN : 40);
        int npes = 1 + (int)(s >> 40) % 6, shape = (int)(s >> 50) % 4;
        for (int r = 0; r < n; r++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            unsigned v = (unsigned)(s >> 33);
            cur[r] = shape == 3 ? (r < n / 2 ? 0 : npes - 1) : (int)(v % npes);
            loads[r] = shape == 0   ? (double)(v % 5)
                       : shape == 1 ? (double)(v % 1000) / 100.0
                       : shape == 2 ? (v % 3 == 0 ? 0.0 : 1.0 + v % 3)
                                    : (cur[r] == 0 ? 100.0 : 99.9) +
                                          (double)(v % 5) * 0.001;
        }
        double tol = shape == 3 ? 0 : (double)(t % 3) * 0.05;
        ref_refine(n, loads, cur, npes, tol, want);
        UNIT_EQ(amp_lb_refine(n, loads, cur, npes, tol, got), AMP_OK);
        UNIT_EQ(memcmp(got, want, (size_t)n * sizeof(int)), 0);
    }
}

/* GreedyLB and GreedyRefineLB by their definition: the ranks heaviest
 * first (equal loads by rank), each to the least loaded PE at that moment
 * (its own PE where that is one of them, else the lowest); GreedyRefineLB
 * keeps a rank home while home stays within tol of that choice's bound. */
static void ref_greedy(int n, const double *loads, const int *cur, int npes,
                       double tol, int refine, int *out)
{
    static int order[400];
    static double pl[8];
    double total = 0;
    for (int r = 0; r < n; r++) {
        order[r] = r;
        total += loads[r];
    }
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0; k--) {
            int a = order[k], b = order[k - 1];
            if (!(loads[a] > loads[b] || (loads[a] == loads[b] && a < b)))
                break;
            order[k] = b;
            order[k - 1] = a;
        }
    for (int p = 0; p < npes; p++)
        pl[p] = 0;
    for (int i = 0; i < n; i++) {
        int r = order[i], best = cur[r];
        for (int p = 0; p < npes; p++)
            if (pl[p] < pl[best])
                best = p;
        out[r] = best;
        if (refine) {
            double bound = pl[best] + loads[r];
            if (bound < total / npes)
                bound = total / npes;
            if (pl[cur[r]] + loads[r] <= bound * (1.0 + tol))
                out[r] = cur[r];
        }
        pl[out[r]] += loads[r];
    }
}

/* The heap of PE loads the greedy strategies keep gives their definition's
 * placements, ties of loads and of PEs included. */
UNIT_TEST(lb_greedy_matches_its_definition)
{
    enum { MAXN = 400 };
    static double loads[MAXN];
    static int cur[MAXN], got[MAXN], want[MAXN];
    unsigned long long s = 777;
    for (int t = 0; t < 4000; t++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int n = 1 + (int)(s >> 33) % (t % 10 == 0 ? MAXN : 50);
        int npes = 1 + (int)(s >> 40) % 8, shape = (int)(s >> 50) % 3;
        for (int r = 0; r < n; r++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            unsigned v = (unsigned)(s >> 33);
            cur[r] = (int)(v % npes);
            loads[r] = shape == 0   ? (double)(v % 4)
                       : shape == 1 ? (double)(v % 1000) / 100.0
                                    : (v % 3 == 0 ? 0.0 : 1.0);
        }
        double tol = (double)(t % 3) * 0.05;
        ref_greedy(n, loads, cur, npes, 0, 0, want);
        UNIT_EQ(amp_lb_greedy(n, loads, cur, npes, got), AMP_OK);
        UNIT_EQ(memcmp(got, want, (size_t)n * sizeof(int)), 0);
        ref_greedy(n, loads, cur, npes, tol, 1, want);
        UNIT_EQ(amp_lb_greedy_refine(n, loads, cur, npes, tol, got), AMP_OK);
        UNIT_EQ(memcmp(got, want, (size_t)n * sizeof(int)), 0);
    }
}
