/*
 * hotspot.c - a grid stencil whose cost follows a moving hot spot
 * (README.md).  The kernel is stencil.h's; here a cell does one round of
 * work, and `-k` rounds while it lies within the hot spot: a disc of
 * radius r% of the grid whose centre moves back and forth along both axes
 * (integer triangle waves of periods 200 and 140 steps) over rows
 * 15%..35% and columns 20%..80% of the grid.  With 2 ranks the spot stays
 * in rank 0's half (a static imbalance); with more it crosses their slabs
 * (a moving one).
 *
 *   hotspot [-s] [-c] [-N cells] [-n steps] [-k rounds] [-r radius%] [-f 1]
 */
#include "stencil.h"

/* The results of the default arguments and of -s (imb_check): a change to
 * the computation changes them (run with -c to see the serial result). */
#define EXPECT_DEFAULT 0x2fe5b7b91b2b1277u
#define EXPECT_SMALL 0xca40eb04ad055c78u

#define ROW_PERIOD 200
#define COL_PERIOD 140

typedef struct {
    long n, rounds, radius;
} hot_t;

/* |(t mod period) - period / 2|: 0..period/2 and back. */
static long triangle(long t, long period)
{
    long d = t % period - period / 2;
    return d < 0 ? -d : d;
}

static long isqrt(long v)
{
    long s = 0;
    while ((s + 1) * (s + 1) <= v)
        s++;
    return s;
}

static stencil_span_t hot_span(const void *ctx, long step, long row)
{
    const hot_t *h = ctx;
    long half_r = ROW_PERIOD / 2, half_c = COL_PERIOD / 2;
    long cr =
        h->n * 15 / 100 + triangle(step, ROW_PERIOD) * h->n * 20 / 100 / half_r;
    long cc = h->n * 20 / 100 + triangle(step + COL_PERIOD / 4, COL_PERIOD) *
                                    h->n * 60 / 100 / half_c;
    stencil_span_t s = {1, h->rounds, 0, 0};
    long dr = row - cr, left = h->radius * h->radius - dr * dr;
    if (left >= 0) {
        long half = isqrt(left);
        s.c0 = cc - half < 0 ? 0 : cc - half;
        s.c1 = cc + half + 1 > h->n ? h->n : cc + half + 1;
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
        {'n', "steps", 480, 40, 1, 1000000, 0},
        {'k', "rounds of work of a cell in the hot spot", 64, 16, 0, 100000, 0},
        {'r', "radius of the hot spot, % of N", 12, 12, 0, 100, 0},
        {'f', "1: inject a fault (the checks must fail)", 0, 0, 0, 1, 0},
    };
    imb_args_t args = {"hotspot", opts, 5, 0, 0};
    int rc = imb_args_parse(&args, argc, argv, rank);
    if (rc == 0)
        rc = stencil_check_size(args.prog, imb_args_get(&args, 'N'));
    if (rc != 0) {
        MPI_Finalize();
        return rc == 1 ? 0 : 2;
    }
    long n = imb_args_get(&args, 'N');
    hot_t hot = {n, imb_args_get(&args, 'k'),
                 n * imb_args_get(&args, 'r') / 100};
    stencil_params_t p = {n,    imb_args_get(&args, 'n'), 10, hot_span,
                          &hot, imb_args_get(&args, 'f')};
    imb_main_t m = {&args,   stencil_run,    &p,
                    p.steps, EXPECT_DEFAULT, EXPECT_SMALL};
    rc = imb_main(&m);
    MPI_Finalize();
    return rc;
}
