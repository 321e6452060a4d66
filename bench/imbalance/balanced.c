/*
 * balanced.c - the control: the grid stencil of hotspot.c and refine.c
 * (stencil.h) with the same work in every cell, `-k` rounds, so every rank
 * of a run has the same load within one row (README.md).
 *
 *   balanced [-s] [-c] [-N cells] [-n steps] [-k rounds] [-f 1]
 */
#include "stencil.h"

/* The results of the default arguments and of -s (imb_check): a change to
 * the computation changes them (run with -c to see the serial result). */
#define EXPECT_DEFAULT 0x689ebafbf70665e7u
#define EXPECT_SMALL 0xa578323a13e1bceau

static stencil_span_t even_span(const void *ctx, long step, long row)
{
    const long *rounds = ctx;
    (void)step;
    (void)row;
    stencil_span_t s = {*rounds, *rounds, 0, 0};
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    imb_opt_t opts[] = {
        {'N', "grid of N x N cells", 512, 64, 1, 1 << 14, 0},
        {'n', "steps", 480, 40, 1, 1000000, 0},
        {'k', "rounds of work of every cell", 4, 4, 0, 100000, 0},
        {'f', "1: inject a fault (the checks must fail)", 0, 0, 0, 1, 0},
    };
    imb_args_t args = {"balanced", opts, 4, 0, 0};
    int rc = imb_args_parse(&args, argc, argv, rank);
    if (rc == 0)
        rc = stencil_check_size(args.prog, imb_args_get(&args, 'N'));
    if (rc != 0) {
        MPI_Finalize();
        return rc == 1 ? 0 : 2;
    }
    long rounds = imb_args_get(&args, 'k');
    stencil_params_t p = {imb_args_get(&args, 'N'),
                          imb_args_get(&args, 'n'),
                          10,
                          even_span,
                          &rounds,
                          imb_args_get(&args, 'f')};
    imb_main_t m = {&args,   stencil_run,    &p,
                    p.steps, EXPECT_DEFAULT, EXPECT_SMALL};
    rc = imb_main(&m);
    MPI_Finalize();
    return rc;
}
