/*
 * refine.c - a grid stencil in which one region is refined, its work
 * doubling every few steps (README.md).  The kernel is stencil.h's; a
 * cell does `-b` rounds of work, and a cell of the refined region (rows
 * 10%..40%, columns 25%..75% of the grid) does b * 2^level, where level
 * is step / T, at most L: from step T on it doubles at T, 2T, ... LT.
 * With 2 ranks the region lies in rank 0's half, so the imbalance grows
 * from none to (b * 2^L)-fold on 15% of the grid.
 *
 *   refine [-s] [-c] [-N cells] [-n steps] [-b rounds] [-t T] [-L levels]
 *          [-f 1]
 */
#include "stencil.h"

/* The results of the default arguments and of -s (imb_check): a change to
 * the computation changes them (run with -c to see the serial result). */
#define EXPECT_DEFAULT 0x8b5a09a20eafcc95u
#define EXPECT_SMALL 0x679773356a48a6e8u

typedef struct {
    long n, base, period, levels;
} refine_t;

static stencil_span_t refine_span(const void *ctx, long step, long row)
{
    const refine_t *r = ctx;
    long level = step / r->period;
    if (level > r->levels)
        level = r->levels;
    stencil_span_t s = {r->base, r->base << level, 0, 0};
    if (row >= r->n * 10 / 100 && row < r->n * 40 / 100) {
        s.c0 = r->n * 25 / 100;
        s.c1 = r->n * 75 / 100;
    }
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    imb_opt_t opts[] = {
        {'N', "grid of N x N cells", 512, 64, 1, 1 << 14, 0},
        {'n', "steps", 400, 40, 1, 1000000, 0},
        {'b', "rounds of work of a cell before refinement", 2, 2, 0, 10000, 0},
        {'t', "steps between two refinements", 70, 6, 1, 1000000, 0},
        {'L', "refinements at most", 5, 5, 0, 20, 0},
        {'f', "1: inject a fault (the checks must fail)", 0, 0, 0, 1, 0},
    };
    imb_args_t args = {"refine", opts, 6, 0, 0};
    int rc = imb_args_parse(&args, argc, argv, rank);
    if (rc == 0)
        rc = stencil_check_size(args.prog, imb_args_get(&args, 'N'));
    if (rc != 0) {
        MPI_Finalize();
        return rc == 1 ? 0 : 2;
    }
    refine_t ref = {imb_args_get(&args, 'N'), imb_args_get(&args, 'b'),
                    imb_args_get(&args, 't'), imb_args_get(&args, 'L')};
    stencil_params_t p = {ref.n, imb_args_get(&args, 'n'), 10, refine_span,
                          &ref,  imb_args_get(&args, 'f')};
    imb_main_t m = {&args,   stencil_run,    &p,
                    p.steps, EXPECT_DEFAULT, EXPECT_SMALL};
    rc = imb_main(&m);
    MPI_Finalize();
    return rc;
}
