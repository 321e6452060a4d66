/*
 * MPI_Allreduce and MPI_Reduce across the sizes where the shared-memory
 * algorithms change (empty, one value, around the staging size, past the
 * per-PE chunk, large), every kind of root, MPI_IN_PLACE, a derived
 * contiguous type, a non-commutative user operation (2x2 matrix products,
 * which must come out in rank order whatever the rank-to-PE mapping), and
 * many repetitions mixed with point-to-point traffic.
 */
#include "mpitest.h"

#include <stdlib.h>

/* Rank r's value at index i: exact in a double, and sums stay exact. */
static double val(int r, long i)
{
    return (double)((r + 1) * 1000 + i % 997);
}

static double sum_at(int size, long i)
{
    double s = 0;
    for (int r = 0; r < size; r++)
        s += val(r, i);
    return s;
}

static int check_sums(const double *got, long n, int size, const char *what)
{
    for (long i = 0; i < n; i++)
        if (got[i] != sum_at(size, i)) {
            MT_FAIL("%s: element %ld of %ld is %.17g, expected %.17g", what, i,
                    n, got[i], sum_at(size, i));
            return 0;
        }
    return 1;
}

static void fill(double *buf, long n, int rank)
{
    for (long i = 0; i < n; i++)
        buf[i] = val(rank, i);
}

static void allreduce_sizes(int rank, int size, const long *counts, int ncounts)
{
    for (int k = 0; k < ncounts; k++) {
        long n = counts[k];
        double *s = malloc((size_t)(n + 1) * sizeof(double));
        double *r = malloc((size_t)(n + 1) * sizeof(double));
        fill(s, n, rank);
        r[n] = -1; /* one past the end stays untouched */
        MT_CHECK_MPI(
            MPI_Allreduce(s, r, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        check_sums(r, n, size, "allreduce");
        MT_CHECK_DBL_EQ(r[n], -1);
        /* In place. */
        fill(r, n, rank);
        MT_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, r, (int)n, MPI_DOUBLE, MPI_SUM,
                                   MPI_COMM_WORLD));
        check_sums(r, n, size, "allreduce in place");
        /* Every root, in and out of place. */
        int roots[3] = {0, size - 1, size / 2};
        for (int j = 0; j < 3; j++) {
            int root = roots[j];
            for (long i = 0; i < n; i++)
                r[i] = -2;
            MT_CHECK_MPI(MPI_Reduce(s, r, (int)n, MPI_DOUBLE, MPI_SUM, root,
                                    MPI_COMM_WORLD));
            if (rank == root)
                check_sums(r, n, size, "reduce");
            else if (n > 0)
                MT_CHECK_DBL_EQ(r[0], -2); /* non-roots get nothing */
            if (rank == root) {
                fill(r, n, rank);
                MT_CHECK_MPI(MPI_Reduce(MPI_IN_PLACE, r, (int)n, MPI_DOUBLE,
                                        MPI_SUM, root, MPI_COMM_WORLD));
                check_sums(r, n, size, "reduce in place");
            } else {
                MT_CHECK_MPI(MPI_Reduce(s, NULL, (int)n, MPI_DOUBLE, MPI_SUM,
                                        root, MPI_COMM_WORLD));
            }
        }
        free(s);
        free(r);
    }
}

/* 2x2 matrices of unsigned ints (arithmetic modulo 2^32: exact). */
typedef struct mat {
    unsigned a, b, c, d;
} mat_t;

static mat_t mat_mul(mat_t x, mat_t y)
{
    return (mat_t){x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d,
                   x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
}

static mat_t mat_of(int r, long i)
{
    return (mat_t){1u + (unsigned)(r % 3), 2u + (unsigned)(i % 5),
                   (unsigned)((r + i) % 2), 1u + (unsigned)(r % 4)};
}

/* inout = in * inout: the lower ranks' product on the left. */
static void mat_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    mat_t *x = in, *y = inout;
    for (int i = 0; i < *len; i++)
        y[i] = mat_mul(x[i], y[i]);
}

static void noncommutative(int rank, int size, MPI_Datatype mat_type,
                           const long *counts, int ncounts)
{
    MPI_Op op;
    MT_CHECK_MPI(MPI_Op_create(mat_op, 0, &op));
    for (int k = 0; k < ncounts; k++) {
        long n = counts[k];
        mat_t *s = malloc((size_t)(n + 1) * sizeof(mat_t));
        mat_t *r = malloc((size_t)(n + 1) * sizeof(mat_t));
        for (long i = 0; i < n; i++)
            s[i] = mat_of(rank, i);
        MT_CHECK_MPI(MPI_Allreduce(s, r, (int)n, mat_type, op, MPI_COMM_WORLD));
        int root = size - 1;
        mat_t *t = malloc((size_t)(n + 1) * sizeof(mat_t));
        MT_CHECK_MPI(
            MPI_Reduce(s, t, (int)n, mat_type, op, root, MPI_COMM_WORLD));
        for (long i = 0; i < n; i++) {
            mat_t want = mat_of(0, i);
            for (int q = 1; q < size; q++)
                want = mat_mul(want, mat_of(q, i));
            if (r[i].a != want.a || r[i].b != want.b || r[i].c != want.c ||
                r[i].d != want.d) {
                MT_FAIL("matrix product %ld of %ld: [%u %u; %u %u], expected "
                        "[%u %u; %u %u]",
                        i, n, r[i].a, r[i].b, r[i].c, r[i].d, want.a, want.b,
                        want.c, want.d);
                break;
            }
            if (rank == root && (t[i].a != want.a || t[i].d != want.d)) {
                MT_FAIL("reduced matrix product %ld of %ld is wrong", i, n);
                break;
            }
        }
        free(s);
        free(r);
        free(t);
    }
    MT_CHECK_MPI(MPI_Op_free(&op));
}

/* A derived contiguous type with a predefined operation, and MPI_MAX and
 * MPI_MINLOC on a pair type. */
static void typed(int rank, int size)
{
    MPI_Datatype three;
    MT_CHECK_MPI(MPI_Type_contiguous(3, MPI_DOUBLE, &three));
    MT_CHECK_MPI(MPI_Type_commit(&three));
    double *s = malloc(3 * 500 * sizeof(double));
    double *r = malloc(3 * 500 * sizeof(double));
    int counts[2] = {5, 500};
    for (int k = 0; k < 2; k++) {
        fill(s, 3L * counts[k], rank);
        MT_CHECK_MPI(
            MPI_Allreduce(s, r, counts[k], three, MPI_SUM, MPI_COMM_WORLD));
        check_sums(r, 3L * counts[k], size, "allreduce of a contiguous type");
    }
    MT_CHECK_MPI(MPI_Type_free(&three));
    free(s);
    free(r);

    int mx = rank * 7 % (size + 3), got = -1;
    MT_CHECK_MPI(MPI_Allreduce(&mx, &got, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    int want = 0;
    for (int q = 0; q < size; q++)
        want = q * 7 % (size + 3) > want ? q * 7 % (size + 3) : want;
    MT_CHECK_INT_EQ(got, want);

    struct {
        int v, i;
    } in = {(rank * 5) % 3, rank}, out = {-1, -1};
    MT_CHECK_MPI(
        MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(out.v, 0);
    MT_CHECK_INT_EQ(out.i, 0);
}

/* Many small reductions in a row, with messages between them: a stale
 * episode or a reused buffer shows up as a wrong sum. */
static void repeat(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int it = 0; it < 300; it++) {
        long v = rank + it, sum = 0;
        MT_CHECK_MPI(
            MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
        if (!MT_CHECK_INT_EQ(sum,
                             (long)size * (size - 1) / 2 + (long)size * it))
            break;
        int token = it * 100 + rank, from = -1;
        MT_CHECK_MPI(MPI_Sendrecv(&token, 1, MPI_INT, right, it, &from, 1,
                                  MPI_INT, left, it, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE));
        MT_CHECK_INT_EQ(from, it * 100 + left);
        long mx = -1;
        MT_CHECK_MPI(MPI_Reduce(&v, &mx, 1, MPI_LONG, MPI_MAX, it % size,
                                MPI_COMM_WORLD));
        if (rank == it % size)
            MT_CHECK_INT_EQ(mx, size - 1 + it);
    }
}

/* The same on a communicator whose ranks are reversed and split. */
static void subcomm(int rank, int size)
{
    MPI_Comm half;
    MT_CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half));
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    for (int it = 0; it < 50; it++) {
        int v = hr * (it + 1), sum = -1;
        MT_CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, half));
        MT_CHECK_INT_EQ(sum, hs * (hs - 1) / 2 * (it + 1));
    }
    MT_CHECK_MPI(MPI_Comm_free(&half));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    long counts[] = {0,   1,    7,    128,
                     129, 1000, 5000, size <= 8 ? 1L << 18 : 1L << 14};
    allreduce_sizes(rank, size, counts,
                    (int)(sizeof(counts) / sizeof(*counts)));

    MPI_Datatype mat_type;
    MT_CHECK_MPI(MPI_Type_contiguous(4, MPI_UNSIGNED, &mat_type));
    MT_CHECK_MPI(MPI_Type_commit(&mat_type));
    long mcounts[] = {1, 7, 64, 1000, 3000};
    noncommutative(rank, size, mat_type, mcounts,
                   (int)(sizeof(mcounts) / sizeof(*mcounts)));
    MT_CHECK_MPI(MPI_Type_free(&mat_type));

    typed(rank, size);
    repeat(rank, size);
    subcomm(rank, size);
    return mt_finish_and_finalize();
}
