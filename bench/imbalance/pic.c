/*
 * pic.c - a 1-D particle-in-cell kernel whose particles gather into a
 * clump (README.md).
 *
 * The periodic domain of -N cells is split into slabs of cells, one per
 * rank (block distribution: rank r owns cells r*N/P .. (r+1)*N/P - 1, so
 * N >= P).  The -m particles start spread evenly (a hash of their id
 * places them).  Positions are fixed point, SUB units a cell.  A step:
 *
 *  1. deposit: each rank counts the particles in each of its cells (the
 *     charge) and swaps its edge cells' counts with its neighbours
 *     (MPI_Sendrecv);
 *  2. push: every particle moves by
 *       v = advection + repulsion + jitter, |v| < 1 cell, where
 *     advection pulls it towards the cell at -x% of the domain (a
 *     triangle profile, at most half a cell a step), repulsion pushes it
 *     down the gradient of the charge (charge of the cell on its left
 *     less that of the cell on its right), and jitter is a hash of its id
 *     and the step (at most a quarter of a cell); then -k rounds of work
 *     (imb_work) mix its position into its payload;
 *  3. exchange: the particles that left the slab go to the neighbour on
 *     that side (a count, then the particles, MPI_Sendrecv each way);
 *  4. MPI_Allreduce of the particle count, the sum of v^2 (the energy)
 *     and of the payloads, folded into a running hash.  A count other than
 *     -m stops the run: particles were lost or duplicated.
 *
 * The advection gathers the particles into a clump a few tens of cells
 * wide that the repulsion keeps from collapsing: the ranks that own it end
 * up with most of the particles, and so of the work (a particle's push is
 * k + 5 units).  Everything is integer arithmetic, and a particle's path
 * depends only on itself and on the charge, so the result (the running
 * hash mixed with the sum of a hash of each particle's final state) is the
 * same for any number of ranks.
 *
 *   pic [-s] [-c] [-N cells] [-m particles] [-n steps] [-k rounds]
 *       [-x centre%] [-f fault]
 */
#include "imb.h"

/* The results of the default arguments and of -s (imb_check): a change to
 * the computation changes them (run with -c to see the serial result). */
#define EXPECT_DEFAULT 0xf57d0492d3ae1159u
#define EXPECT_SMALL 0x99f5eb12a97504aeu

#define SUB 65536 /* fixed-point units in a cell */
/* Units of work of a push besides its -k rounds: with -k 0 it takes about
 * as long as 5 rounds (position, velocity, the jitter's hash, the moves
 * between arrays). */
#define PUSH_UNITS 5
#define TAG_CHARGE 1     /* + side */
#define TAG_COUNT 10     /* + side */
#define TAG_PARTICLES 20 /* + side */

typedef struct {
    uint64_t id, payload;
    int64_t x, v; /* position in 0..N*SUB-1, last move */
} particle_t;

typedef struct {
    long cells, particles, steps, rounds, centre;
    /* -f, for tests: halfway the last rank of the parallel run loses a
     * particle (1) or changes one's payload (2) */
    long fault;
} pic_params_t;

/* One rank's part: its particles, those leaving it, its charge. */
typedef struct {
    MPI_Comm comm;
    long lo, hi;     /* cells lo..hi-1 */
    int left, right; /* neighbour ranks (periodic) */
    particle_t *p, *out[2];
    long n, cap, nout[2], capout[2];
    int64_t *rho; /* hi - lo cells, rho[0] and rho[hi-lo+1] the ghosts */
} slab_t;

static void *grow(void *buf, long *cap, long need, size_t each)
{
    if (need <= *cap)
        return buf;
    long cap2 = *cap * 2 > need ? *cap * 2 : need;
    void *b = realloc(buf, (size_t)cap2 * each);
    if (b == NULL) {
        fprintf(stderr, "pic: out of memory for %ld particles\n", cap2);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    *cap = cap2;
    return b;
}

static void slab_init(slab_t *s, MPI_Comm comm, const pic_params_t *p)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    memset(s, 0, sizeof *s);
    s->comm = comm;
    s->lo = rank * p->cells / size;
    s->hi = (rank + 1) * p->cells / size;
    s->left = (rank + size - 1) % size;
    s->right = (rank + 1) % size;
    s->rho = calloc((size_t)(s->hi - s->lo + 2), sizeof *s->rho);
    if (s->rho == NULL) {
        fprintf(stderr, "pic: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (long id = 0; id < p->particles; id++) {
        int64_t x =
            (int64_t)(imb_mix((uint64_t)id) % ((uint64_t)p->cells * SUB));
        if (x / SUB < s->lo || x / SUB >= s->hi)
            continue;
        s->p = grow(s->p, &s->cap, s->n + 1, sizeof *s->p);
        s->p[s->n++] = (particle_t){(uint64_t)id, imb_mix(~(uint64_t)id), x, 0};
    }
}

static void slab_cleanup(slab_t *s)
{
    free(s->p);
    free(s->out[0]);
    free(s->out[1]);
    free(s->rho);
}

/* 1. The charge of each cell, and of the cell on either side. */
static void deposit(slab_t *s)
{
    long w = s->hi - s->lo;
    memset(s->rho, 0, (size_t)(w + 2) * sizeof *s->rho);
    for (long i = 0; i < s->n; i++)
        s->rho[s->p[i].x / SUB - s->lo + 1]++;
    MPI_Sendrecv(&s->rho[1], 1, MPI_INT64_T, s->left, TAG_CHARGE,
                 &s->rho[w + 1], 1, MPI_INT64_T, s->right, TAG_CHARGE, s->comm,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&s->rho[w], 1, MPI_INT64_T, s->right, TAG_CHARGE + 1,
                 &s->rho[0], 1, MPI_INT64_T, s->left, TAG_CHARGE + 1, s->comm,
                 MPI_STATUS_IGNORE);
}

/* The move of particle q in step `step` (fixed point, |v| < SUB). */
static int64_t velocity(const slab_t *s, const pic_params_t *p,
                        const particle_t *q, long step)
{
    int64_t len = (int64_t)p->cells * SUB, quarter = len / 4;
    int64_t d = q->x - p->centre * len / 100; /* q->x, centre in 0..len-1 */
    if (d < 0)
        d += len;
    int64_t tri = d < quarter ? d : d < 3 * quarter ? 2 * quarter - d : d - len;
    int64_t v = -(SUB / 2) * tri / quarter;
    long c = q->x / SUB - s->lo + 1;
    int64_t grad = s->rho[c - 1] - s->rho[c + 1];
    v += grad * SUB * (int64_t)p->cells / (8 * (int64_t)p->particles);
    uint64_t h = imb_mix(q->id ^ ((uint64_t)step << 40));
    v += (int64_t)(h % (SUB / 2 + 1)) - SUB / 4;
    return v >= SUB ? SUB - 1 : v <= -SUB ? -(SUB - 1) : v;
}

/* 2. Moves every particle; those that leave go to out[0] (left) or out[1]
 * (right).  Returns the work done. */
static uint64_t push(slab_t *s, const pic_params_t *p, long step)
{
    int64_t len = (int64_t)p->cells * SUB;
    long kept = 0;
    s->nout[0] = s->nout[1] = 0;
    for (long i = 0; i < s->n; i++) {
        particle_t q = s->p[i];
        q.v = velocity(s, p, &q, step);
        q.x += q.v; /* |v| < SUB: at most once around */
        if (q.x < 0)
            q.x += len;
        else if (q.x >= len)
            q.x -= len;
        q.payload = imb_work(q.payload ^ (uint64_t)q.x, p->rounds);
        long cell = q.x / SUB;
        if (cell >= s->lo && cell < s->hi) {
            s->p[kept++] = q;
            continue;
        }
        int side = q.v > 0;
        s->out[side] =
            grow(s->out[side], &s->capout[side], s->nout[side] + 1, sizeof q);
        s->out[side][s->nout[side]++] = q;
    }
    uint64_t work = (uint64_t)s->n * (uint64_t)(p->rounds + PUSH_UNITS);
    s->n = kept;
    return work;
}

/* 3. Sends out[side] to that neighbour and appends what comes from the
 * other one. */
static void exchange(slab_t *s, int side)
{
    int to = side ? s->right : s->left, from = side ? s->left : s->right;
    long count = 0;
    MPI_Sendrecv(&s->nout[side], 1, MPI_LONG, to, TAG_COUNT + side, &count, 1,
                 MPI_LONG, from, TAG_COUNT + side, s->comm, MPI_STATUS_IGNORE);
    s->p = grow(s->p, &s->cap, s->n + count + 1, sizeof *s->p);
    MPI_Sendrecv(s->out[side], (int)(s->nout[side] * sizeof(particle_t)),
                 MPI_BYTE, to, TAG_PARTICLES + side, s->p + s->n,
                 (int)(count * sizeof(particle_t)), MPI_BYTE, from,
                 TAG_PARTICLES + side, s->comm, MPI_STATUS_IGNORE);
    s->n += count;
}

/* -f: on the last rank, drops its last particle (1) or flips a bit of
 * its payload (2). */
static void inject(slab_t *s, long fault)
{
    int rank, size;
    MPI_Comm_rank(s->comm, &rank);
    MPI_Comm_size(s->comm, &size);
    if (rank != size - 1 || s->n == 0)
        return;
    if (fault == 1)
        s->n--;
    else
        s->p[s->n - 1].payload ^= 1;
}

/* imb_run_fn_t; params: pic_params_t. */
static int pic_run(MPI_Comm comm, const void *params, imb_load_t *load,
                   uint64_t *result, double *time_s, char *why, size_t whylen)
{
    const pic_params_t *p = params;
    slab_t s;
    slab_init(&s, comm, p);
    uint64_t hash = 0;
    int rc = 0;
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (long step = 0; step < p->steps; step++) {
        deposit(&s);
        uint64_t work = push(&s, p, step);
        exchange(&s, 0);
        exchange(&s, 1);
        if (load != NULL)
            load->step[step] += work;
        if (p->fault && load != NULL && step == p->steps / 2)
            inject(&s, p->fault);
        uint64_t mine[3] = {(uint64_t)s.n, 0, 0}, all[3];
        for (long i = 0; i < s.n; i++) {
            mine[1] += (uint64_t)(s.p[i].v * s.p[i].v);
            mine[2] += s.p[i].payload;
        }
        MPI_Allreduce(mine, all, 3, MPI_UINT64_T, MPI_SUM, comm);
        if (all[0] != (uint64_t)p->particles) {
            snprintf(why, whylen,
                     "%" PRIu64 " particles after step %ld, not %ld", all[0],
                     step, p->particles);
            rc = -1;
            break;
        }
        hash = imb_mix(hash ^ all[1]) ^ all[2];
    }
    MPI_Barrier(comm);
    *time_s = MPI_Wtime() - t0;
    uint64_t sum = 0, all = 0;
    for (long i = 0; i < s.n; i++)
        sum += imb_mix(s.p[i].id ^
                       imb_mix((uint64_t)s.p[i].x ^ imb_mix(s.p[i].payload)));
    MPI_Allreduce(&sum, &all, 1, MPI_UINT64_T, MPI_SUM, comm);
    *result = imb_mix(hash) ^ all;
    slab_cleanup(&s);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    imb_opt_t opts[] = {
        {'N', "cells", 256, 64, 1, 1 << 20, 0},
        {'m', "particles", 50000, 4000, 1, 1L << 30, 0},
        {'n', "steps", 300, 40, 1, 1000000, 0},
        {'k', "rounds of work of a particle's push", 32, 8, 0, 100000, 0},
        {'x', "where the particles gather, % of the domain", 30, 30, 0, 99, 0},
        {'f', "inject a fault (1: lose a particle, 2: change one)", 0, 0, 0, 2,
         0},
    };
    imb_args_t args = {"pic", opts, 6, 0, 0};
    int rc = imb_args_parse(&args, argc, argv, rank);
    pic_params_t p = {imb_args_get(&args, 'N'), imb_args_get(&args, 'm'),
                      imb_args_get(&args, 'n'), imb_args_get(&args, 'k'),
                      imb_args_get(&args, 'x'), imb_args_get(&args, 'f')};
    if (rc == 0 && p.cells < size) {
        if (rank == 0)
            fprintf(stderr,
                    "pic: -N %ld: at least one cell per rank (%d ranks)\n",
                    p.cells, size);
        rc = 2;
    }
    if (rc != 0) {
        MPI_Finalize();
        return rc == 1 ? 0 : 2;
    }
    imb_main_t m = {&args, pic_run, &p, p.steps, EXPECT_DEFAULT, EXPECT_SMALL};
    rc = imb_main(&m);
    MPI_Finalize();
    return rc;
}
