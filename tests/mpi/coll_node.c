/*
 * coll_node: MPI_Allreduce, MPI_Bcast and MPI_Barrier on communicators whose
 * processes share the node (the process leaders meet in node shared
 * memory, coll/nodelevel.c, for up to 256 KiB of cover values), and
 * larger ones (320 KiB of 16-byte elements: the leaders meet over
 * point-to-point), on MPI_COMM_WORLD and on communicators made after the
 * first collectives: duplicates, splits in halves, a split in reverse
 * order, communicators freed and made again many times (their context ids
 * come back).
 *
 *  - a non-commutative user operation (affine maps x -> a x + b modulo a
 *    prime, composed in rank order), in and out of place;
 *  - MPI_SUM of doubles of very different magnitudes, whose bits depend
 *    on the combining order: they must be those of the tree of
 *    coll/tree.h (docs/collectives.md), evaluated here in one rank;
 *  - many calls in a row with values that change each call, and barriers
 *    between them.
 */
#include "mpitest.h"

#include <stdlib.h>
#include <string.h>

enum { PRIME = 1000003, MAXN = 20000 };

typedef struct affine {
    long long a, b;
} affine_t;

/* inout = in then inout: x -> inout.a (in.a x + in.b) + inout.b. */
static void compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const affine_t *x = in;
    affine_t *y = inout;
    (void)dt;
    for (int i = 0; i < *len; i++) {
        affine_t r = {y[i].a * x[i].a % PRIME,
                      (y[i].a * x[i].b + y[i].b) % PRIME};
        y[i] = r;
    }
}

static affine_t map_of(int r, int k, int call)
{
    affine_t m = {(r * 7 + k * 3 + call) % 97 + 2,
                  (r * 13 + k + call * 5) % 89};
    return m;
}

/* Rank r's double at position k of call number call. */
static double dbl_of(int r, int k, int call)
{
    double scale = (r + k + call) % 3 == 0 ? 1e16 : (r % 2 ? 1e-3 : 1.0);
    return scale * (1.0 + (double)((r * 31 + k * 7 + call) % 101) / 7.0);
}

/* The value of tree node [lo, hi) (coll/tree.h) at position k. */
static double tree_sum(int lo, int hi, int k, int call)
{
    if (hi - lo == 1)
        return dbl_of(lo, k, call);
    unsigned below = (unsigned)(hi - lo - 1);
    int mid = lo + (int)(1u << (31 - __builtin_clz(below)));
    double left = tree_sum(lo, mid, k, call);
    double right = tree_sum(mid, hi, k, call);
    return left + right;
}

static int check_affine(MPI_Comm comm, MPI_Datatype t, MPI_Op op, int n,
                        int call, int in_place)
{
    int rank, size, bad = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    affine_t *s = malloc(sizeof(affine_t) * (size_t)n);
    affine_t *r = malloc(sizeof(affine_t) * (size_t)n);
    for (int k = 0; k < n; k++)
        (in_place ? r : s)[k] = map_of(rank, k, call);
    MT_CHECK(MPI_Allreduce(in_place ? MPI_IN_PLACE : s, r, n, t, op, comm) ==
             MPI_SUCCESS);
    for (int k = 0; k < n && !bad; k++) {
        affine_t want = map_of(0, k, call);
        for (int q = 1; q < size; q++) {
            affine_t m = map_of(q, k, call);
            int one = 1;
            compose(&want, &m, &one, NULL);
            want = m;
        }
        if (r[k].a != want.a || r[k].b != want.b) {
            MT_FAIL("affine allreduce (n %d, call %d, %s): position %d is "
                    "(%lld, %lld), expected (%lld, %lld)",
                    n, call, in_place ? "in place" : "out of place", k, r[k].a,
                    r[k].b, want.a, want.b);
            bad = 1;
        }
    }
    free(s);
    free(r);
    return bad;
}

static int check_sum(MPI_Comm comm, int n, int call, int in_place)
{
    int rank, size, bad = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double *s = malloc(sizeof(double) * (size_t)n);
    double *r = malloc(sizeof(double) * (size_t)n);
    for (int k = 0; k < n; k++)
        (in_place ? r : s)[k] = dbl_of(rank, k, call);
    MT_CHECK(MPI_Allreduce(in_place ? MPI_IN_PLACE : s, r, n, MPI_DOUBLE,
                           MPI_SUM, comm) == MPI_SUCCESS);
    for (int k = 0; k < n && !bad; k++) {
        double want = tree_sum(0, size, k, call);
        if (memcmp(&r[k], &want, sizeof(want)) != 0) {
            MT_FAIL("sum allreduce (n %d, call %d): position %d is %.17g, the "
                    "tree's order gives %.17g",
                    n, call, k, r[k], want);
            bad = 1;
        }
    }
    free(s);
    free(r);
    return bad;
}

/* MPI_Bcast of n longs from root (call % size): odd ranks receive them
 * into every other long of a buffer twice as long (a vector type of the
 * same signature), the others contiguously. */
static int check_bcast(MPI_Comm comm, int n, int call)
{
    int rank, size, bad = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int root = call % size, strided = rank % 2 && rank != root;
    long *b = calloc(2 * (size_t)n, sizeof(long));
    MPI_Datatype every_other;
    MPI_Type_vector(n, 1, 2, MPI_LONG, &every_other);
    MPI_Type_commit(&every_other);
    if (rank == root)
        for (int k = 0; k < n; k++)
            b[k] = (long)k * 1000003L + call * 7 + root;
    if (strided)
        MT_CHECK(MPI_Bcast(b, 1, every_other, root, comm) == MPI_SUCCESS);
    else
        MT_CHECK(MPI_Bcast(b, n, MPI_LONG, root, comm) == MPI_SUCCESS);
    for (int k = 0; k < n && !bad; k++) {
        long got = b[strided ? 2 * k : k];
        long want = (long)k * 1000003L + call * 7 + root;
        if (got != want || (strided && b[2 * k + 1] != 0)) {
            MT_FAIL("bcast (n %d, call %d, root %d): position %d is %ld, "
                    "expected %ld",
                    n, call, root, k, got, want);
            bad = 1;
        }
    }
    MPI_Type_free(&every_other);
    free(b);
    return bad;
}

/* A round of checks on comm: counts for node memory and a large one. */
static void round_on(MPI_Comm comm, MPI_Datatype t, MPI_Op op, int calls)
{
    static const int counts[] = {1, 3, 40, 600, MAXN};
    for (int call = 0; call < calls; call++) {
        int n = counts[call % 5];
        if (check_affine(comm, t, op, n, call, call % 2) ||
            check_bcast(comm, n, call) ||
            check_sum(comm, n, call, (call / 2) % 2))
            return;
        if (call % 3 == 0)
            MT_CHECK(MPI_Barrier(comm) == MPI_SUCCESS);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype t;
    MPI_Op op;
    MPI_Type_contiguous(2, MPI_LONG_LONG, &t);
    MPI_Type_commit(&t);
    MPI_Op_create(compose, 0, &op);

    round_on(MPI_COMM_WORLD, t, op, 200);
    /* Communicators made after the first collectives, freed and made
     * again: the same context ids come back. */
    for (int again = 0; again < 20; again++) {
        MPI_Comm dup, half, rev;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        round_on(dup, t, op, 12);
        MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);
        round_on(half, t, op, 12);
        MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
        round_on(rev, t, op, 8);
        MPI_Comm_free(&rev);
        MPI_Comm_free(&half);
        if (again % 2)
            MPI_Comm_free(&dup);
        else
            round_on(MPI_COMM_WORLD, t, op, 4), MPI_Comm_free(&dup);
    }
    round_on(MPI_COMM_WORLD, t, op, 40);
    MPI_Op_free(&op);
    MPI_Type_free(&t);
    return mt_finish_and_finalize();
}
