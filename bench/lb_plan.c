/*
 * The time a balancing strategy takes to plan (runtime/lb/strategy.c),
 * alone, for many ranks: GreedyLB, RefineLB, DistributedLB and
 * GreedyRefineLB on 10,000 to 1,000,000 ranks over 4, 64 and 1024 PEs, the
 * first PE's ranks carrying twice the load of the others (random loads
 * between 1 and 2, or 2 and 3); and RefineLB where no single rank fits
 * and every step swaps two (two PEs, loads 100 against 99.9, tolerance
 * 0).  Prints one line per case: milliseconds, ranks moved, the heaviest
 * PE over the mean.  Not pass/fail.
 *
 *   build/bench/lb_plan [MAX_RANKS]   (default 1000000)
 */
#include "lb/lb.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct input {
    int n, npes;
    double *loads;
    int *cur, *out;
} input_t;

static void report(const char *what, const input_t *in, double s)
{
    double *pl = calloc((size_t)in->npes, sizeof(double)), max = 0, sum = 0;
    int moved = 0;
    for (int r = 0; r < in->n; r++) {
        pl[in->out[r]] += in->loads[r];
        moved += in->out[r] != in->cur[r];
    }
    for (int p = 0; p < in->npes; p++) {
        sum += pl[p];
        max = pl[p] > max ? pl[p] : max;
    }
    printf("%-16s ranks %8d PEs %4d: %9.2f ms, %7d moved, max/mean %.3f\n",
           what, in->n, in->npes, s * 1e3, moved, max / (sum / in->npes));
    free(pl);
}

static void imbalanced(input_t *in, unsigned seed)
{
    srand(seed);
    for (int r = 0; r < in->n; r++) {
        in->cur[r] = (int)((long)r * in->npes / in->n);
        in->loads[r] = 1.0 + (double)(rand() % 1000) / 1000.0 +
                       (in->cur[r] == 0 ? 1.0 : 0.0);
    }
}

static void plan(const char *name, int kind, input_t *in)
{
    imbalanced(in, 1);
    double t = now_s();
    amp_status_t st =
        kind == AMP_LB_REFINE /* as amp_lb_plan calls it */
            ? amp_lb_refine(in->n, in->loads, in->cur, in->npes,
                            AMP_LB_REFINE_TOLERANCE, in->out)
            : amp_lb_plan(kind, in->n, in->loads, in->cur, in->npes, 1,
                          in->out);
    double s = now_s() - t;
    if (st != AMP_OK) {
        printf("%s: out of memory\n", name);
        return;
    }
    report(name, in, s);
}

/* Two PEs, loads 100 against 99.9: no rank fits, every step swaps. */
static void swaps(input_t *in)
{
    for (int r = 0; r < in->n; r++) {
        in->cur[r] = r < in->n / 2 ? 0 : 1;
        in->loads[r] = in->cur[r] == 0 ? 100.0 + (r % 7) * 0.001
                                       : 99.9 + (r % 5) * 0.001;
    }
    double t = now_s();
    amp_status_t st = amp_lb_refine(in->n, in->loads, in->cur, 2, 0, in->out);
    double s = now_s() - t;
    in->npes = 2;
    if (st == AMP_OK)
        report("RefineLB swaps", in, s);
}

int main(int argc, char **argv)
{
    int max = argc > 1 ? atoi(argv[1]) : 1000000;
    static const struct {
        const char *name;
        int kind;
    } kinds[] = {{"GreedyLB", AMP_LB_GREEDY},
                 {"RefineLB", AMP_LB_REFINE},
                 {"DistributedLB", AMP_LB_DISTRIBUTED},
                 {"GreedyRefineLB", AMP_LB_GREEDY_REFINE}};
    input_t in = {.loads = malloc((size_t)max * sizeof(double)),
                  .cur = malloc((size_t)max * sizeof(int)),
                  .out = malloc((size_t)max * sizeof(int))};
    if (!in.loads || !in.cur || !in.out)
        return 1;
    for (int n = 10000; n <= max; n *= 10)
        for (int npes = 4; npes <= 1024; npes *= 16)
            for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
                in.n = n;
                in.npes = npes;
                plan(kinds[k].name, kinds[k].kind, &in);
            }
    static const int swap_ranks[] = {2001, 4001, 8001, 16001};
    for (size_t i = 0; i < sizeof(swap_ranks) / sizeof(swap_ranks[0]); i++) {
        in.n = swap_ranks[i];
        if (in.n <= max)
            swaps(&in);
    }
    return 0;
}
