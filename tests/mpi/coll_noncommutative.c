/*
 * coll_noncommutative: a non-commutative user operation (2x2 matrix
 * product modulo 7, on a contiguous type of four ints) through every
 * reduction: MPI_Reduce (every root, also in place), MPI_Allreduce,
 * MPI_Scan, MPI_Exscan, MPI_Reduce_scatter_block, MPI_Reduce_scatter
 * (irregular counts), their nonblocking forms, and MPI_Reduce_local.  Each
 * result is checked against the product in rank order.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { K = 3, P = 7 };

typedef struct mat {
    int a[4]; /* row-major 2x2 */
} mat_t;

/* inout = in x inout (mod P): in holds the lower ranks. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    mat_t *x = in, *y = inout;
    (void)dt;
    for (int i = 0; i < *len; i++) {
        mat_t r;
        r.a[0] = (x[i].a[0] * y[i].a[0] + x[i].a[1] * y[i].a[2]) % P;
        r.a[1] = (x[i].a[0] * y[i].a[1] + x[i].a[1] * y[i].a[3]) % P;
        r.a[2] = (x[i].a[2] * y[i].a[0] + x[i].a[3] * y[i].a[2]) % P;
        r.a[3] = (x[i].a[2] * y[i].a[1] + x[i].a[3] * y[i].a[3]) % P;
        y[i] = r;
    }
}

/* Rank r's matrix at position k (not commuting with its neighbours'). */
static mat_t value(int r, int k)
{
    mat_t m = {{(r + k) % 5 + 1, (r * 3 + 1) % P, (r + 2 * k) % 3,
                (r * r + k) % 4 + 1}};
    return m;
}

/* The product of ranks lo..hi-1 at position k (identity when empty). */
static mat_t product(int lo, int hi, int k)
{
    mat_t acc = {{1, 0, 0, 1}};
    for (int r = lo; r < hi; r++) {
        mat_t m = value(r, k);
        int one = 1;
        matmul(&acc, &m, &one, NULL);
        acc = m;
    }
    return acc;
}

static int same(const mat_t *got, mat_t want, const char *what, int k)
{
    for (int i = 0; i < 4; i++) {
        if (got->a[i] != want.a[i]) {
            MT_FAIL("%s: matrix %d entry %d is %d, expected %d", what, k, i,
                    got->a[i], want.a[i]);
            return 0;
        }
    }
    return 1;
}

#define RUN(nb, blocking, nonblocking)                                         \
    do {                                                                       \
        if (nb) {                                                              \
            MPI_Request rq = MPI_REQUEST_NULL;                                 \
            MT_CHECK_MPI(nonblocking);                                         \
            MT_CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));                    \
        } else {                                                               \
            MT_CHECK_MPI(blocking);                                            \
        }                                                                      \
    } while (0)

static void reduce_allreduce(int rank, int size, MPI_Datatype mt, MPI_Op op,
                             int nb)
{
    MPI_Comm w = MPI_COMM_WORLD;
    mat_t in[K], out[K];
    for (int k = 0; k < K; k++)
        in[k] = value(rank, k);
    for (int root = 0; root < size; root++) {
        for (int pass = 0; pass < 2; pass++) {
            int ip = pass && rank == root;
            for (int k = 0; k < K; k++)
                out[k] = ip ? value(rank, k) : (mat_t){{-1, -1, -1, -1}};
            const void *sb = ip ? MPI_IN_PLACE : in;
            RUN(nb, MPI_Reduce(sb, out, K, mt, op, root, w),
                MPI_Ireduce(sb, out, K, mt, op, root, w, &rq));
            for (int k = 0; rank == root && k < K; k++)
                same(&out[k], product(0, size, k), "reduce", k);
        }
    }
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < K; k++)
            out[k] = pass ? value(rank, k) : (mat_t){{-1, -1, -1, -1}};
        const void *sb = pass ? MPI_IN_PLACE : in;
        RUN(nb, MPI_Allreduce(sb, out, K, mt, op, w),
            MPI_Iallreduce(sb, out, K, mt, op, w, &rq));
        for (int k = 0; k < K; k++)
            same(&out[k], product(0, size, k), "allreduce", k);
    }
}

static void scans(int rank, int size, MPI_Datatype mt, MPI_Op op, int nb)
{
    MPI_Comm w = MPI_COMM_WORLD;
    mat_t in[K], out[K];
    for (int k = 0; k < K; k++)
        in[k] = value(rank, k);
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < K; k++)
            out[k] = pass ? value(rank, k) : (mat_t){{-1, -1, -1, -1}};
        const void *sb = pass ? MPI_IN_PLACE : in;
        RUN(nb, MPI_Scan(sb, out, K, mt, op, w),
            MPI_Iscan(sb, out, K, mt, op, w, &rq));
        for (int k = 0; k < K; k++)
            same(&out[k], product(0, rank + 1, k), "scan", k);
        for (int k = 0; k < K; k++)
            out[k] = pass ? value(rank, k) : (mat_t){{-1, -1, -1, -1}};
        RUN(nb, MPI_Exscan(sb, out, K, mt, op, w),
            MPI_Iexscan(sb, out, K, mt, op, w, &rq));
        for (int k = 0; rank > 0 && k < K; k++)
            same(&out[k], product(0, rank, k), "exscan", k);
    }
}

static void reduce_scatters(int rank, int size, MPI_Datatype mt, MPI_Op op,
                            int nb)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int *counts = malloc((size_t)size * sizeof(int)), total = 0, first = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = (r * 5 + 2) % 4; /* some zero */
        if (r < rank)
            first += counts[r];
        total += counts[r];
    }
    int n = total > K * size ? total : K * size;
    mat_t *in = malloc((size_t)n * sizeof(mat_t));
    mat_t *out = malloc((size_t)n * sizeof(mat_t));
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < K * size; k++) {
            in[k] = value(rank, k);
            out[k] = pass ? in[k] : (mat_t){{-1, -1, -1, -1}};
        }
        const void *sb = pass ? MPI_IN_PLACE : in;
        RUN(nb, MPI_Reduce_scatter_block(sb, out, K, mt, op, w),
            MPI_Ireduce_scatter_block(sb, out, K, mt, op, w, &rq));
        for (int k = 0; k < K; k++)
            same(&out[k], product(0, size, rank * K + k),
                 "reduce_scatter_block", k);
        for (int k = 0; k < total; k++) {
            in[k] = value(rank, k);
            out[k] = pass ? in[k] : (mat_t){{-1, -1, -1, -1}};
        }
        RUN(nb, MPI_Reduce_scatter(sb, out, counts, mt, op, w),
            MPI_Ireduce_scatter(sb, out, counts, mt, op, w, &rq));
        for (int k = 0; k < counts[rank]; k++)
            same(&out[k], product(0, size, first + k), "reduce_scatter", k);
    }
    free(out);
    free(in);
    free(counts);
}

static void reduce_local(MPI_Datatype mt, MPI_Op op)
{
    mat_t a = value(1, 0), b = value(2, 0), want = value(2, 0);
    int one = 1;
    matmul(&a, &want, &one, NULL);
    MT_CHECK_MPI(MPI_Reduce_local(&a, &b, 1, mt, op));
    same(&b, want, "reduce_local", 0);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype mt;
    MPI_Op op;
    MPI_Type_contiguous(4, MPI_INT, &mt);
    MPI_Type_commit(&mt);
    MPI_Op_create(matmul, 0, &op);
    /* The operation really does not commute on these values. */
    if (size > 1) {
        mat_t ab = product(0, 2, 0), ba = value(0, 0), b = value(1, 0);
        int one = 1;
        matmul(&b, &ba, &one, NULL);
        MT_CHECK(memcmp(&ab, &ba, sizeof(ab)) != 0);
    }
    for (int nb = 0; nb < 2; nb++) {
        reduce_allreduce(rank, size, mt, op, nb);
        scans(rank, size, mt, op, nb);
        reduce_scatters(rank, size, mt, op, nb);
    }
    reduce_local(mt, op);
    MPI_Op_free(&op);
    MPI_Type_free(&mt);
    return mt_finish_and_finalize();
}
