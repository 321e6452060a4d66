/* The load-balancing strategies (runtime/lb/strategy.c): loads in, map
 * out. */
#include "unit.h"

#include "lb/lb.h"

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
    UNIT_EQ(amp_lb_kind_of("RotateLB"), -1);
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
