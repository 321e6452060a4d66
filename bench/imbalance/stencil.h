/*
 * stencil.h - the grid kernel of hotspot.c, refine.c and balanced.c: an
 * n x n grid of integers split into slabs of rows, one per rank (block
 * distribution: rank r owns rows r*n/P .. (r+1)*n/P - 1, so n >= P).
 *
 * A step swaps one halo row with each neighbour (MPI_Sendrecv; the rows
 * above the first and below the last are fixed zeros, the columns wrap
 * around) and updates every cell from its 5-point neighbourhood:
 *
 *     v   = (4 u[i][j] + u[i-1][j] + u[i+1][j] + u[i][j-1] + u[i][j+1]) / 8
 *     h   = imb_work(v ^ key(i, j, step), rounds(step, i, j))
 *     u'  = (v + (h & 255)) mod 2^24
 *
 * where rounds comes from the program (stencil_span_fn_t: per row, one
 * count of rounds inside a span of columns and another outside it).  A
 * cell's work is its rounds plus one unit for the update.  Every `every`
 * steps the sum of |u' - u| since the last time is reduced over all ranks
 * (MPI_Allreduce) and folded into a running hash.  The result is that
 * hash mixed with the sum over all cells of imb_mix(u ^ key): integer
 * arithmetic and sums modulo 2^64 throughout, so it is the same for any
 * number of ranks and any compiler.
 */
#ifndef BENCH_IMBALANCE_STENCIL_H
#define BENCH_IMBALANCE_STENCIL_H

#include "imb.h"

#define STENCIL_MASK ((1u << 24) - 1)

/* Row `row` of step `step`: columns c0 <= j < c1 do `inner` rounds, the
 * others `outer`. */
typedef struct {
    long outer, inner, c0, c1;
} stencil_span_t;

typedef stencil_span_t (*stencil_span_fn_t)(const void *ctx, long step,
                                            long row);

typedef struct {
    long n;     /* n x n cells */
    long steps; /* steps run */
    long every; /* steps between two reductions of the residual */
    stencil_span_fn_t span;
    const void *ctx;
    long fault; /* 1: the last rank flips a bit halfway (-f, for tests) */
} stencil_params_t;

static inline uint64_t stencil_key(long row, long col, long step)
{
    return ((uint64_t)row << 40) ^ ((uint64_t)col << 20) ^ (uint64_t)step;
}

/* One row of a step; returns its work, adds sum |u' - u| to *residual. */
static inline uint64_t stencil_row(const uint32_t *up, const uint32_t *mid,
                                   const uint32_t *down, uint32_t *out, long n,
                                   long row, long step, stencil_span_t span,
                                   uint64_t *residual)
{
    uint64_t res = 0;
    for (long j = 1; j <= n; j++) {
        long col = j - 1;
        uint64_t s =
            4 * (uint64_t)mid[j] + mid[j - 1] + mid[j + 1] + up[j] + down[j];
        uint32_t v = (uint32_t)(s >> 3);
        long k = col >= span.c0 && col < span.c1 ? span.inner : span.outer;
        uint64_t h = imb_work(v ^ stencil_key(row, col, step), k);
        out[j] = (v + (uint32_t)(h & 255)) & STENCIL_MASK;
        res += out[j] > mid[j] ? out[j] - mid[j] : mid[j] - out[j];
    }
    *residual += res;
    long inner = span.c1 > span.c0 ? span.c1 - span.c0 : 0;
    return (uint64_t)n + (uint64_t)inner * (uint64_t)span.inner +
           (uint64_t)(n - inner) * (uint64_t)span.outer;
}

/* Copies the first and last columns into the other side's ghost. */
static inline void stencil_wrap(uint32_t *row, long n)
{
    row[0] = row[n];
    row[n + 1] = row[1];
}

/* imb_run_fn_t of the three grid programs; params: stencil_params_t. */
static int stencil_run(MPI_Comm comm, const void *params, imb_load_t *load,
                       uint64_t *result, double *time_s, char *why,
                       size_t whylen)
{
    const stencil_params_t *p = params;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    long n = p->n, w = n + 2;
    long lo = rank * n / size, hi = (rank + 1) * n / size, rows = hi - lo;
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    /* Rows 0 and rows + 1 are the halos, columns 0 and n + 1 the ghosts. */
    uint32_t *u = calloc((size_t)((rows + 2) * w), sizeof *u);
    uint32_t *next = calloc((size_t)((rows + 2) * w), sizeof *next);
    if (u == NULL || next == NULL) {
        fprintf(stderr, "stencil: out of memory for %ld rows\n", rows);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (long i = 1; i <= rows; i++)
        for (long j = 1; j <= n; j++)
            u[i * w + j] =
                (uint32_t)imb_mix(stencil_key(lo + i - 1, j - 1, 0)) &
                STENCIL_MASK;
    uint64_t hash = 0, residual = 0;
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (long step = 0; step < p->steps; step++) {
        MPI_Sendrecv(u + w + 1, (int)n, MPI_UINT32_T, up, 1,
                     u + (rows + 1) * w + 1, (int)n, MPI_UINT32_T, down, 1,
                     comm, MPI_STATUS_IGNORE);
        MPI_Sendrecv(u + rows * w + 1, (int)n, MPI_UINT32_T, down, 2, u + 1,
                     (int)n, MPI_UINT32_T, up, 2, comm, MPI_STATUS_IGNORE);
        for (long i = 0; i <= rows + 1; i++)
            stencil_wrap(u + i * w, n);
        uint64_t work = 0;
        for (long i = 1; i <= rows; i++) {
            long row = lo + i - 1;
            work += stencil_row(u + (i - 1) * w, u + i * w, u + (i + 1) * w,
                                next + i * w, n, row, step,
                                p->span(p->ctx, step, row), &residual);
        }
        if (load != NULL)
            load->step[step] += work;
        if (p->fault && load != NULL && rank == size - 1 &&
            step == p->steps / 2)
            next[w + 1] ^= 1;
        uint32_t *t = u;
        u = next;
        next = t;
        if ((step + 1) % p->every == 0 || step + 1 == p->steps) {
            uint64_t all;
            MPI_Allreduce(&residual, &all, 1, MPI_UINT64_T, MPI_SUM, comm);
            hash = imb_mix(hash ^ all ^ (uint64_t)step);
            residual = 0;
        }
    }
    MPI_Barrier(comm);
    *time_s = MPI_Wtime() - t0;
    uint64_t sum = 0, all = 0;
    for (long i = 1; i <= rows; i++)
        for (long j = 1; j <= n; j++)
            sum += imb_mix(u[i * w + j] ^ stencil_key(lo + i - 1, j - 1, 0));
    MPI_Allreduce(&sum, &all, 1, MPI_UINT64_T, MPI_SUM, comm);
    *result = imb_mix(hash) ^ all;
    free(u);
    free(next);
    (void)why;
    (void)whylen;
    return 0;
}

/* Checks what every grid program needs: n >= the number of ranks.  0, or
 * 2 after rank 0 said why. */
static inline int stencil_check_size(const char *prog, long n)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (n >= size)
        return 0;
    if (rank == 0)
        fprintf(stderr, "%s: -N %ld: at least one row per rank (%d ranks)\n",
                prog, n, size);
    return 2;
}

#endif
