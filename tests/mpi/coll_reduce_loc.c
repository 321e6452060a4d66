/*
 * coll_reduce_loc: MPI_MAXLOC and MPI_MINLOC on MPI_FLOAT_INT,
 * MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT and
 * MPI_LONG_DOUBLE_INT with many ties: on equal values the lowest index
 * wins. Indices fall as ranks rise, so "lowest index" and "lowest rank"
 * disagree. MPI_Allreduce and MPI_Reduce to every root.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { COUNT = 8 };

typedef struct {
    float v;
    int i;
} float_int;
typedef struct {
    double v;
    int i;
} double_int;
typedef struct {
    long v;
    int i;
} long_int;
typedef struct {
    int v;
    int i;
} int_int;
typedef struct {
    short v;
    int i;
} short_int;
typedef struct {
    long double v;
    int i;
} ldouble_int;

typedef enum { P_FLOAT, P_DOUBLE, P_LONG, P_INT, P_SHORT, P_LDOUBLE } kind_t;

typedef struct {
    kind_t kind;
    MPI_Datatype dt;
    size_t size; /* of the C struct */
    const char *name;
} type_t;

static const type_t types[] = {
    {P_FLOAT, MPI_FLOAT_INT, sizeof(float_int), "MPI_FLOAT_INT"},
    {P_DOUBLE, MPI_DOUBLE_INT, sizeof(double_int), "MPI_DOUBLE_INT"},
    {P_LONG, MPI_LONG_INT, sizeof(long_int), "MPI_LONG_INT"},
    {P_INT, MPI_2INT, sizeof(int_int), "MPI_2INT"},
    {P_SHORT, MPI_SHORT_INT, sizeof(short_int), "MPI_SHORT_INT"},
    {P_LDOUBLE, MPI_LONG_DOUBLE_INT, sizeof(ldouble_int),
     "MPI_LONG_DOUBLE_INT"},
};
#define NTYPES ((int)(sizeof(types) / sizeof(types[0])))

typedef struct {
    double v;
    int i;
} pair_t;

static void set(const type_t *t, void *buf, int k, pair_t p)
{
    switch (t->kind) {
    case P_FLOAT: ((float_int *)buf)[k] = (float_int){(float)p.v, p.i}; break;
    case P_DOUBLE: ((double_int *)buf)[k] = (double_int){p.v, p.i}; break;
    case P_LONG: ((long_int *)buf)[k] = (long_int){(long)p.v, p.i}; break;
    case P_INT: ((int_int *)buf)[k] = (int_int){(int)p.v, p.i}; break;
    case P_SHORT: ((short_int *)buf)[k] = (short_int){(short)p.v, p.i}; break;
    case P_LDOUBLE: ((ldouble_int *)buf)[k] = (ldouble_int){p.v, p.i}; break;
    }
}

static pair_t get(const type_t *t, const void *buf, int k)
{
    switch (t->kind) {
    case P_FLOAT: {
        float_int x = ((const float_int *)buf)[k];
        return (pair_t){x.v, x.i};
    }
    case P_DOUBLE: {
        double_int x = ((const double_int *)buf)[k];
        return (pair_t){x.v, x.i};
    }
    case P_LONG: {
        long_int x = ((const long_int *)buf)[k];
        return (pair_t){(double)x.v, x.i};
    }
    case P_INT: {
        int_int x = ((const int_int *)buf)[k];
        return (pair_t){x.v, x.i};
    }
    case P_SHORT: {
        short_int x = ((const short_int *)buf)[k];
        return (pair_t){x.v, x.i};
    }
    case P_LDOUBLE: {
        ldouble_int x = ((const ldouble_int *)buf)[k];
        return (pair_t){(double)x.v, x.i};
    }
    }
    return (pair_t){0, 0};
}

/* Rank r's element k. Values repeat every 3 ranks (so maxima and minima
 * tie across ranks) or are all equal (k == 0); indices decrease with the
 * rank, with a per-element offset; element 1 has negative values. */
static pair_t contribution(int r, int k)
{
    pair_t p;
    if (k == 0)
        p.v = 5;
    else
        p.v = (double)((r + k) % 3) - (k == 1 ? 10 : 0);
    if (k == 7)
        p.v += 0.5; /* not an integer, for the floating types */
    p.i = 1000 - 3 * r + k;
    return p;
}

static int is_floating(const type_t *t)
{
    return t->kind == P_FLOAT || t->kind == P_DOUBLE || t->kind == P_LDOUBLE;
}

static pair_t expected(const type_t *t, int maxloc, int k, int size)
{
    pair_t best = contribution(0, k);
    for (int r = 1; r < size; r++) {
        pair_t p = contribution(r, k);
        int better = maxloc ? p.v > best.v : p.v < best.v;
        if (better || (p.v == best.v && p.i < best.i))
            best = p;
    }
    if (!is_floating(t))
        best.v = (double)(long)best.v; /* what the integer types hold */
    return best;
}

static void check(const type_t *t, int maxloc, const void *out, int size,
                  const char *call, int root)
{
    for (int k = 0; k < COUNT; k++) {
        pair_t got = get(t, out, k), want = expected(t, maxloc, k, size);
        if (got.v != want.v || got.i != want.i) {
            MT_FAIL("%s %s on %s (root %d), element %d: got (%g, %d), want "
                    "(%g, %d)",
                    call, maxloc ? "MPI_MAXLOC" : "MPI_MINLOC", t->name, root,
                    k, got.v, got.i, want.v, want.i);
            return;
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    void *in = malloc(COUNT * sizeof(ldouble_int));
    void *out = malloc(COUNT * sizeof(ldouble_int));

    for (int k = 0; k < NTYPES; k++) {
        const type_t *t = &types[k];
        for (int e = 0; e < COUNT; e++)
            set(t, in, e, contribution(rank, e));
        for (int maxloc = 0; maxloc <= 1; maxloc++) {
            MPI_Op op = maxloc ? MPI_MAXLOC : MPI_MINLOC;
            memset(out, 0, COUNT * t->size);
            MT_CHECK_MPI(
                MPI_Allreduce(in, out, COUNT, t->dt, op, MPI_COMM_WORLD));
            check(t, maxloc, out, size, "MPI_Allreduce", -1);
            for (int root = 0; root < size; root++) {
                memset(out, 0, COUNT * t->size);
                MT_CHECK_MPI(MPI_Reduce(in, out, COUNT, t->dt, op, root,
                                        MPI_COMM_WORLD));
                if (rank == root)
                    check(t, maxloc, out, size, "MPI_Reduce", root);
            }
        }
    }

    free(in);
    free(out);
    return mt_finish_and_finalize();
}
