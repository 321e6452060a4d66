/*
 * jacobi1d: a legacy-style MPI program.  A 1-D rod of N points is split
 * into blocks, one per rank; every sweep each rank swaps its edge values
 * with its neighbours (halo exchange) and relaxes its block, and the ranks
 * agree on the global change with MPI_Allreduce.  At the end rank 0 gathers
 * every block with plain sends and receives, runs the same computation
 * serially, and checks that both agree point for point.
 *
 * Like many old codes it keeps its state in global variables (its rank, its
 * block, its neighbours, its arrays).  ampicc gives every rank its own copy
 * of them, so the program runs unchanged as many ranks in one process.
 *
 *   ampicc -O2 -o jacobi1d jacobi1d.c -lm
 *   ./jacobi1d +vp 8 +p 2          (8 ranks on 2 worker threads)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define SWEEPS 500
#define TAG_HALO 10
#define TAG_GATHER 20

/* The rank's state, in globals, as legacy codes keep it. */
int rank, size;   /* who am I, how many are we */
int first, n;     /* my block: points first .. first + n - 1 */
int left, right;  /* my neighbours, or MPI_PROC_NULL */
double *u, *unew; /* my block with one halo point at each end */
double change;    /* global change in the last sweep */
static int sweeps_done;

static double initial(int i)
{
    if (i == 0)
        return 1.0; /* hot end, held fixed */
    if (i == N - 1)
        return 0.0; /* cold end, held fixed */
    return 0.5 + 0.25 * sin(0.01 * i);
}

/* One sweep over points [lo, hi] of u (global indices, u[k] holds point
 * first + k - 1); returns the sum of squared changes. */
static double relax(double *u, double *unew, int first, int n)
{
    double change = 0.0;
    for (int k = 1; k <= n; k++) {
        int i = first + k - 1;
        if (i == 0 || i == N - 1) {
            unew[k] = u[k];
            continue;
        }
        unew[k] = 0.5 * (u[k - 1] + u[k + 1]);
        change += (unew[k] - u[k]) * (unew[k] - u[k]);
    }
    return change;
}

static void serial(double *ref, double *change_out)
{
    double *u = malloc((N + 2) * sizeof(double));
    double *unew = malloc((N + 2) * sizeof(double));
    double change = 0.0;
    for (int i = 0; i < N; i++)
        u[i + 1] = initial(i);
    for (int s = 0; s < SWEEPS; s++) {
        change = relax(u, unew, 0, N);
        double *t = u;
        u = unew;
        unew = t;
    }
    for (int i = 0; i < N; i++)
        ref[i] = u[i + 1];
    *change_out = change;
    free(u);
    free(unew);
}

static void setup(void)
{
    first = (int)((long)N * rank / size);
    n = (int)((long)N * (rank + 1) / size) - first;
    left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    u = malloc((n + 2) * sizeof(double));
    unew = malloc((n + 2) * sizeof(double));
    for (int k = 1; k <= n; k++)
        u[k] = initial(first + k - 1);
}

static void sweep(void)
{
    /* Halo exchange: my edges to my neighbours, theirs into u[0] and
     * u[n + 1]. */
    MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, TAG_HALO, &u[0], 1, MPI_DOUBLE,
                 left, TAG_HALO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, TAG_HALO, &u[n + 1], 1, MPI_DOUBLE,
                 right, TAG_HALO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double mine = relax(u, unew, first, n);
    MPI_Allreduce(&mine, &change, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double *t = u;
    u = unew;
    unew = t;
    sweeps_done++;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    setup();
    while (sweeps_done < SWEEPS)
        sweep();

    double local_sum = 0.0;
    for (int k = 1; k <= n; k++)
        local_sum += u[k];

    int ok = 1;
    if (rank != 0) {
        int range[2] = {first, n};
        MPI_Send(range, 2, MPI_INT, 0, TAG_GATHER, MPI_COMM_WORLD);
        MPI_Send(&u[1], n, MPI_DOUBLE, 0, TAG_GATHER, MPI_COMM_WORLD);
    } else {
        double *all = malloc(N * sizeof(double));
        double *ref = malloc(N * sizeof(double));
        for (int k = 0; k < n; k++)
            all[k] = u[k + 1];
        printf("jacobi1d: %d points, %d sweeps, %d ranks, state in globals "
               "(private to each rank)\n",
               N, SWEEPS, size);
        printf("  rank %3d: points %4d..%4d  sum %.12f\n", 0, 0, n - 1,
               local_sum);
        for (int r = 1; r < size; r++) {
            int range[2];
            MPI_Recv(range, 2, MPI_INT, r, TAG_GATHER, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Recv(&all[range[0]], range[1], MPI_DOUBLE, r, TAG_GATHER,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            double s = 0.0;
            for (int k = 0; k < range[1]; k++)
                s += all[range[0] + k];
            printf("  rank %3d: points %4d..%4d  sum %.12f\n", r, range[0],
                   range[0] + range[1] - 1, s);
        }
        double ref_change, maxdiff = 0.0;
        serial(ref, &ref_change);
        for (int i = 0; i < N; i++)
            maxdiff = fmax(maxdiff, fabs(all[i] - ref[i]));
        ok = maxdiff == 0.0 && fabs(change - ref_change) <= 1e-12 * ref_change;
        printf("global change in the last sweep: %.6e (serial: %.6e)\n", change,
               ref_change);
        printf("largest difference from the serial run: %g\n", maxdiff);
        printf("%s: %d ranks computed the same field as one process\n",
               ok ? "CORRECT" : "WRONG", size);
        free(all);
        free(ref);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(u);
    free(unew);
    MPI_Finalize();
    return ok ? 0 : 1;
}
