/*
 * Jacobi-3D relaxation written the way legacy codes are: everything the
 * inner loop touches lives in file-scope globals (block dimensions, strides,
 * stencil weights, the pointers to both arrays, even the loop indices, as
 * f2c output has them), and so does the bookkeeping around it (rank, sweep
 * counter, residual, timers).  It measures what globals privatization costs
 * (DESIGN.md section 10: privatized access within 2% of unprivatized).
 *
 * One source, three builds (bench/CMakeLists.txt):
 *
 *   jacobi3d-tls    ampicc -privatize=tls: the Clang plugin makes every
 *                   global thread-local, each access goes through %fs:0,
 *                   which the runtime switches per rank
 *   jacobi3d-none   ampicc -privatize=none: plain globals, shared by the
 *                   ranks of a process, so correct only with one rank per
 *                   process (+vp 1; with more, the ranks overwrite each
 *                   other's rank number and arrays, and it deadlocks)
 *   jacobi3d-hand   ampicc -privatize=none -DJACOBI3D_HAND: privatized by
 *                   hand, the globals moved into a struct that every
 *                   function gets a pointer to.  The code is the same text:
 *                   in this build the macros below turn each global's name
 *                   into a member access (nx into g->nx)
 *
 * Each rank owns an N x N x N block (weak scaling), the blocks stacked
 * along z.  A sweep swaps one halo plane with each neighbour
 * (MPI_Sendrecv), relaxes the block into the second array (a weighted
 * Jacobi step of a 7-point anisotropic Laplacian) and swaps the array
 * pointers.  Two kernels, measured one after the other in each run: resid
 * also sums the squared change in the same loop and over all ranks
 * (MPI_Allreduce) at every sweep, as a convergence test does; update
 * relaxes only.  The arrays are written in full before timing (no zero
 * pages).
 *
 * Warm-up sweeps, then REPS repetitions of SWEEPS sweeps; for each the
 * wall time per sweep (between barriers, rank 0) and the compute time per
 * grid point (the relaxation loop alone, timed by each rank around it and
 * averaged over ranks) are recorded; the medians and the minimums are
 * printed.  The compute figure is the one that isolates the access to
 * globals: the sweep also pays for messages and context switches.  The
 * checksum (sum of the final grid) must be the same for all three builds
 * in one shape; run.sh checks.
 *
 * Output, rank 0, after comment lines starting with '#': one line per
 * kernel (see relax_resid and relax), e.g.
 *   kernel=resid build=tls ranks=4 n=32 sweep_us=131.20 sweep_min_us=128.50
 *     point_ns=1.6012 point_min_ns=1.5870 checksum=1.520174133046e+03
 * (on one line).
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

#define DEFAULT_N 32
#define MAX_N 512
#define DEFAULT_SWEEPS 100
#define DEFAULT_REPS 21
#define MAX_REPS 101
#define WARMUP_SWEEPS 20
#define TAG_UP 31
#define TAG_DOWN 32

/* ---------------------------------------------------- the program's state */

#ifdef JACOBI3D_HAND
typedef struct jacobi {
    int myrank, nprocs;
    int nx, ny, nz;
    int sy, sz;
    double hx, hy, hz;
    double cx, cy, cz, cc;
    double *u, *unew;
    int i, j, k;
    int iter, niter;
    int check;
    double resid;
    double t_compute;
} jacobi_t;

/* Every function that touches the state takes it as its first parameter:
 * STATE when it is the only one, STATE_ before others (and the same for
 * the arguments). */
#define STATE jacobi_t *g
#define STATE_ jacobi_t *g,
#define STATE_ARG g
#define STATE_ARG_ g,

#define myrank (g->myrank)
#define nprocs (g->nprocs)
#define nx (g->nx)
#define ny (g->ny)
#define nz (g->nz)
#define sy (g->sy)
#define sz (g->sz)
#define hx (g->hx)
#define hy (g->hy)
#define hz (g->hz)
#define cx (g->cx)
#define cy (g->cy)
#define cz (g->cz)
#define cc (g->cc)
#define u (g->u)
#define unew (g->unew)
#define i (g->i)
#define j (g->j)
#define k (g->k)
#define iter (g->iter)
#define niter (g->niter)
#define check (g->check)
#define resid (g->resid)
#define t_compute (g->t_compute)
#else
int myrank, nprocs;
int nx, ny, nz;        /* interior points of this rank's block */
int sy, sz;            /* strides of y and z in the arrays (x is 1) */
double hx, hy, hz;     /* grid spacings */
double cx, cy, cz, cc; /* stencil weights */
double *u, *unew;      /* (nx+2) x (ny+2) x (nz+2), halo included */
int i, j, k;           /* loop indices */
int iter, niter;       /* sweep counter and sweeps per call of iterate */
int check;             /* compute the residual at every sweep */
double resid;          /* sum of squared changes in the last sweep */
double t_compute;      /* seconds in relax since it was last zeroed */

#define STATE void
#define STATE_
#define STATE_ARG
#define STATE_ARG_
#endif

/* ------------------------------------------------------ the legacy code */

/* Weighted Jacobi (weight 0.8) for -(u_xx/hx^2 + u_yy/hy^2 + u_zz/hz^2) = 0:
 * the new value mixes the old one with the neighbours' weighted mean. */
static void set_coefficients(STATE)
{
    double w = 0.8;
    double ax = 1.0 / (hx * hx), ay = 1.0 / (hy * hy), az = 1.0 / (hz * hz);
    double diag = 2.0 * (ax + ay + az);
    cx = w * ax / diag;
    cy = w * ay / diag;
    cz = w * az / diag;
    cc = 1.0 - w;
}

/* Boundary: 1 on the bottom face of the whole domain (global z = 0), 0 on
 * every other face; the interior starts at 0.  Both arrays get the boundary,
 * since they trade places after every sweep. */
static int allocate_grid(STATE)
{
    sy = nx + 2;
    sz = (nx + 2) * (ny + 2);
    size_t bytes = (size_t)sz * (size_t)(nz + 2) * sizeof(double);
    u = malloc(bytes);
    unew = malloc(bytes);
    if (!u || !unew)
        return -1;
    for (k = 0; k <= nz + 1; k++)
        for (j = 0; j <= ny + 1; j++)
            for (i = 0; i <= nx + 1; i++) {
                int c = i + sy * j + sz * k;
                u[c] = (k == 0 && myrank == 0) ? 1.0 : 0.0;
                unew[c] = u[c];
            }
    return 0;
}

/* Halo exchange along z: the top interior plane goes up, the bottom one
 * down.  The ranks at either end keep their boundary plane. */
static void exchange(STATE)
{
    int up = myrank + 1 < nprocs ? myrank + 1 : MPI_PROC_NULL;
    int down = myrank > 0 ? myrank - 1 : MPI_PROC_NULL;
    MPI_Sendrecv(&u[sz * nz], sz, MPI_DOUBLE, up, TAG_UP, &u[0], sz, MPI_DOUBLE,
                 down, TAG_UP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[sz], sz, MPI_DOUBLE, down, TAG_DOWN, &u[sz * (nz + 1)], sz,
                 MPI_DOUBLE, up, TAG_DOWN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* The inner loops: every name in them but c, v, d and r is a global.
 * relax_resid also sums the squared change, the usual convergence test,
 * which chains every point's addition to the last one's and keeps the loop
 * scalar.  relax does the update alone, and the compiler vectorizes it
 * (behind a run-time check that unew overlaps neither u nor the weights).
 * docs/bench.md says what each build makes of them. */
static void relax_resid(STATE)
{
    double r = 0.0;
    for (k = 1; k <= nz; k++)
        for (j = 1; j <= ny; j++)
            for (i = 1; i <= nx; i++) {
                int c = i + sy * j + sz * k;
                double v = cc * u[c] + cx * (u[c - 1] + u[c + 1]) +
                           cy * (u[c - sy] + u[c + sy]) +
                           cz * (u[c - sz] + u[c + sz]);
                double d = v - u[c];
                r += d * d;
                unew[c] = v;
            }
    resid = r;
}

static void relax(STATE)
{
    for (k = 1; k <= nz; k++)
        for (j = 1; j <= ny; j++)
            for (i = 1; i <= nx; i++) {
                int c = i + sy * j + sz * k;
                unew[c] = cc * u[c] + cx * (u[c - 1] + u[c + 1]) +
                          cy * (u[c - sy] + u[c + sy]) +
                          cz * (u[c - sz] + u[c + sz]);
            }
}

/* niter sweeps; with check set, each one ends by agreeing on the global
 * residual. */
static void iterate(STATE)
{
    for (iter = 0; iter < niter; iter++) {
        exchange(STATE_ARG);
        double t0 = MPI_Wtime();
        if (check)
            relax_resid(STATE_ARG);
        else
            relax(STATE_ARG);
        t_compute += MPI_Wtime() - t0;
        double *t = u;
        u = unew;
        unew = t;
        if (check) {
            double mine = resid;
            MPI_Allreduce(&mine, &resid, 1, MPI_DOUBLE, MPI_SUM,
                          MPI_COMM_WORLD);
        }
    }
}

/* Sum of the interior of the whole domain. */
static double checksum(STATE)
{
    double s = 0.0, total = 0.0;
    for (k = 1; k <= nz; k++)
        for (j = 1; j <= ny; j++)
            for (i = 1; i <= nx; i++)
                s += u[i + sy * j + sz * k];
    MPI_Allreduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

/* ------------------------------------------------------ the measurement */

typedef struct options {
    long n, sweeps, reps;
} options_t;

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
            "usage: %s [-n N] [-s SWEEPS] [-r REPS]\n"
            "  -n N       each rank's block is N x N x N points (default %d)\n"
            "  -s SWEEPS  sweeps per repetition (default %d)\n"
            "  -r REPS    repetitions, median reported (default %d, at most "
            "%d)\n",
            prog, DEFAULT_N, DEFAULT_SWEEPS, DEFAULT_REPS, MAX_REPS);
}

static int parse_long(const char *arg, const char *flag, long lo, long hi,
                      long *out, FILE *err)
{
    return bench_parse_long("jacobi3d", arg, flag, lo, hi, out, err);
}

/* Returns 0 to run, 1 for -h, -1 on a bad command line (reason printed to
 * err unless it is NULL). */
static int parse_args(int argc, char **argv, options_t *o, FILE *err)
{
    o->n = DEFAULT_N;
    o->sweeps = DEFAULT_SWEEPS;
    o->reps = DEFAULT_REPS;
    for (int a = 1; a < argc; a++) {
        const char *flag = argv[a];
        if (strcmp(flag, "-h") == 0 || strcmp(flag, "--help") == 0)
            return 1;
        long *slot = NULL, hi = 0;
        if (strcmp(flag, "-n") == 0) {
            slot = &o->n;
            hi = MAX_N;
        } else if (strcmp(flag, "-s") == 0) {
            slot = &o->sweeps;
            hi = 100000000L;
        } else if (strcmp(flag, "-r") == 0) {
            slot = &o->reps;
            hi = MAX_REPS;
        }
        if (!slot || a + 1 >= argc) {
            if (err)
                fprintf(err, "jacobi3d: unknown or incomplete option '%s'\n",
                        flag);
            return -1;
        }
        if (parse_long(argv[++a], flag, 1, hi, slot, err) != 0)
            return -1;
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_sorted(const double *v, int n)
{
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* What this binary is: hand-privatized, or whether its globals sit in the
 * running rank's TLS block (just below the thread pointer at %fs:0) or in
 * the executable's own data. */
static const char *build_name(STATE)
{
#ifdef JACOBI3D_HAND
    (void)g;
    return "hand";
#else
    uintptr_t tp;
    __asm__ volatile("movq %%fs:0, %0" : "=r"(tp));
    uintptr_t below = tp - (uintptr_t)&nx;
    return below < (uintptr_t)1 << 20 ? "tls" : "none";
#endif
}

typedef struct result {
    double sweep_us, sweep_min_us; /* wall time per sweep */
    double point_ns, point_min_ns; /* relaxation time per grid point */
} result_t;

/* Warm-up, then opts->reps repetitions of opts->sweeps sweeps with the
 * kernel that check selects.  Every rank gets the medians. */
static void measure(STATE_ const options_t *opts, result_t *res)
{
    double sweep_us[MAX_REPS], point_ns[MAX_REPS];
    int reps = (int)opts->reps;
    double points = (double)nx * ny * nz * (double)opts->sweeps;

    niter = WARMUP_SWEEPS;
    iterate(STATE_ARG);
    niter = (int)opts->sweeps;
    for (int rep = 0; rep < reps; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        t_compute = 0.0;
        double t0 = MPI_Wtime();
        iterate(STATE_ARG);
        MPI_Barrier(MPI_COMM_WORLD);
        sweep_us[rep] = (MPI_Wtime() - t0) * 1e6 / (double)opts->sweeps;
        double ns = t_compute * 1e9 / points, ns_sum = 0.0;
        MPI_Allreduce(&ns, &ns_sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        point_ns[rep] = ns_sum / nprocs;
    }
    /* Rank 0's wall times stand for all: the barriers make them agree. */
    MPI_Bcast(sweep_us, reps, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    qsort(sweep_us, (size_t)reps, sizeof(double), cmp_double);
    qsort(point_ns, (size_t)reps, sizeof(double), cmp_double);
    res->sweep_us = median_sorted(sweep_us, reps);
    res->sweep_min_us = sweep_us[0];
    res->point_ns = median_sorted(point_ns, reps);
    res->point_min_ns = point_ns[0];
}

int main(int argc, char **argv)
{
#ifdef JACOBI3D_HAND
    jacobi_t state;
    memset(&state, 0, sizeof(state));
    jacobi_t *g = &state;
#endif
    options_t opts;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    /* Every rank parses the same argv, so all of them agree on the outcome. */
    int parsed = parse_args(argc, argv, &opts, myrank == 0 ? stderr : NULL);
    if (parsed != 0) {
        if (myrank == 0)
            usage(parsed > 0 ? stdout : stderr, argv[0]);
        MPI_Finalize();
        return parsed > 0 ? 0 : 2;
    }

    nx = ny = nz = (int)opts.n;
    hx = 1.0;
    hy = 0.5;
    hz = 2.0;
    set_coefficients(STATE_ARG);
    int ok = allocate_grid(STATE_ARG) == 0, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all_ok) {
        if (!ok)
            fprintf(stderr,
                    "jacobi3d: rank %d: out of memory for a %ld^3 block "
                    "(-n)\n",
                    myrank, opts.n);
        MPI_Finalize();
        return 1;
    }

    if (myrank == 0)
        printf("# jacobi3d: %d ranks, %ld^3 points each; %d warm-up sweeps, "
               "then %ld sweeps per repetition, median of %ld\n",
               nprocs, opts.n, WARMUP_SWEEPS, opts.sweeps, opts.reps);
    static const char *const kernels[] = {"resid", "update"};
    const options_t *o = &opts;
    for (int kernel = 0; kernel < 2; kernel++) {
        result_t res;
        check = kernel == 0;
        measure(STATE_ARG_ o, &res);
        double sum = checksum(STATE_ARG);
        if (myrank != 0)
            continue;
        printf("kernel=%s build=%s ranks=%d n=%ld sweep_us=%.2f "
               "sweep_min_us=%.2f point_ns=%.4f point_min_ns=%.4f "
               "checksum=%.12e\n",
               kernels[kernel], build_name(STATE_ARG), nprocs, opts.n,
               res.sweep_us, res.sweep_min_us, res.point_ns, res.point_min_ns,
               sum);
        fflush(stdout);
    }
    free(u);
    free(unew);
    MPI_Finalize();
    return 0;
}
