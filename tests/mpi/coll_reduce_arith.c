/*
 * coll_reduce_arith: MPI_Reduce and MPI_Allreduce with MPI_SUM, MPI_PROD,
 * MPI_MAX and MPI_MIN on every C integer and floating type, and MPI_SUM /
 * MPI_PROD on the C complex types (real values). Values keep every result
 * exact and in range: sums of -1..1 (0..1 for unsigned types), products
 * with one factor of 3 and one of -1 per element, maxima and minima of
 * scattered values. MPI_Reduce goes to every root for MPI_INT/MPI_SUM and
 * MPI_DOUBLE/MPI_MAX (non-roots pass a NULL receive buffer) and to a
 * rotating root for the rest; one large count too.
 */
#include "mpitest.h"

#include <complex.h>
#include <stdint.h>
#include <stdlib.h>

enum { COUNT = 7, BIG_COUNT = 30000 };

/* One-word names for the C types, to build accessor names from. */
typedef signed char schar_t;
typedef unsigned char uchar_t;
typedef unsigned short ushort_t;
typedef unsigned int uint_t;
typedef unsigned long ulong_t;
typedef long long llong_t;
typedef unsigned long long ullong_t;
typedef long double ldouble_t;
typedef float _Complex fcomplex_t;
typedef double _Complex dcomplex_t;

/* get_T / set_T: element i of a T array, through a double (every value
 * used is exact in every type). */
#define ACCESSORS(T)                                                           \
    static double get_##T(const void *buf, int i)                              \
    {                                                                          \
        return (double)((const T *)buf)[i];                                    \
    }                                                                          \
    static void set_##T(void *buf, int i, double v)                            \
    {                                                                          \
        ((T *)buf)[i] = (T)v;                                                  \
    }
ACCESSORS(schar_t)
ACCESSORS(uchar_t)
ACCESSORS(short)
ACCESSORS(ushort_t)
ACCESSORS(int)
ACCESSORS(uint_t)
ACCESSORS(long)
ACCESSORS(ulong_t)
ACCESSORS(llong_t)
ACCESSORS(ullong_t)
ACCESSORS(int8_t)
ACCESSORS(uint8_t)
ACCESSORS(int16_t)
ACCESSORS(uint16_t)
ACCESSORS(int32_t)
ACCESSORS(uint32_t)
ACCESSORS(int64_t)
ACCESSORS(uint64_t)
ACCESSORS(MPI_Aint)
ACCESSORS(MPI_Offset)
ACCESSORS(MPI_Count)
ACCESSORS(float)
ACCESSORS(double)
ACCESSORS(ldouble_t)

/* Complex results must stay real: an imaginary part shows up as an error. */
static double get_fcomplex_t(const void *buf, int i)
{
    fcomplex_t z = ((const fcomplex_t *)buf)[i];
    return crealf(z) + 1000.0 * cimagf(z);
}

static void set_fcomplex_t(void *buf, int i, double v)
{
    ((fcomplex_t *)buf)[i] = (float)v;
}

static double get_dcomplex_t(const void *buf, int i)
{
    dcomplex_t z = ((const dcomplex_t *)buf)[i];
    return creal(z) + 1000.0 * cimag(z);
}

static void set_dcomplex_t(void *buf, int i, double v)
{
    ((dcomplex_t *)buf)[i] = v;
}

enum { INTEGER, UNSIGNED, FLOATING, COMPLEX };

typedef struct {
    MPI_Datatype dt;
    const char *name;
    size_t size;
    double (*get)(const void *buf, int i);
    void (*set)(void *buf, int i, double v);
    int family;
} type_t;

#if defined(OPEN_MPI)
/* Open MPI 4.1 compares MPI_OFFSET as unsigned in MPI_MAX/MPI_MIN; give it
 * non-negative values only. */
#define OFFSET_FAMILY UNSIGNED
#else
#define OFFSET_FAMILY INTEGER
#endif

#define TYPE(dt, T) dt, #dt, sizeof(T), get_##T, set_##T
static const type_t types[] = {
    {TYPE(MPI_INT, int), INTEGER},
    {TYPE(MPI_DOUBLE, double), FLOATING},
    {TYPE(MPI_SIGNED_CHAR, schar_t), INTEGER},
    {TYPE(MPI_UNSIGNED_CHAR, uchar_t), UNSIGNED},
    {TYPE(MPI_SHORT, short), INTEGER},
    {TYPE(MPI_UNSIGNED_SHORT, ushort_t), UNSIGNED},
    {TYPE(MPI_UNSIGNED, uint_t), UNSIGNED},
    {TYPE(MPI_LONG, long), INTEGER},
    {TYPE(MPI_UNSIGNED_LONG, ulong_t), UNSIGNED},
    {TYPE(MPI_LONG_LONG, llong_t), INTEGER},
    {TYPE(MPI_UNSIGNED_LONG_LONG, ullong_t), UNSIGNED},
    {TYPE(MPI_INT8_T, int8_t), INTEGER},
    {TYPE(MPI_UINT8_T, uint8_t), UNSIGNED},
    {TYPE(MPI_INT16_T, int16_t), INTEGER},
    {TYPE(MPI_UINT16_T, uint16_t), UNSIGNED},
    {TYPE(MPI_INT32_T, int32_t), INTEGER},
    {TYPE(MPI_UINT32_T, uint32_t), UNSIGNED},
    {TYPE(MPI_INT64_T, int64_t), INTEGER},
    {TYPE(MPI_UINT64_T, uint64_t), UNSIGNED},
    {TYPE(MPI_AINT, MPI_Aint), INTEGER},
    {TYPE(MPI_OFFSET, MPI_Offset), OFFSET_FAMILY},
    {TYPE(MPI_COUNT, MPI_Count), INTEGER},
    {TYPE(MPI_FLOAT, float), FLOATING},
    {TYPE(MPI_LONG_DOUBLE, ldouble_t), FLOATING},
    {TYPE(MPI_C_FLOAT_COMPLEX, fcomplex_t), COMPLEX},
    {TYPE(MPI_C_DOUBLE_COMPLEX, dcomplex_t), COMPLEX},
};
#define NTYPES ((int)(sizeof(types) / sizeof(types[0])))
static const type_t *const int_type = &types[0], *const double_type = &types[1];

enum { OP_SUM, OP_PROD, OP_MAX, OP_MIN, NOPS };
static const char *const op_names[NOPS] = {"MPI_SUM", "MPI_PROD", "MPI_MAX",
                                           "MPI_MIN"};

static MPI_Op op_handle(int op)
{
    const MPI_Op ops[NOPS] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};
    return ops[op];
}

/* Rank r's element i for op on t; see the header for the idea. */
static double contribution(const type_t *t, int op, int r, int i, int size)
{
    int real = t->family == FLOATING || t->family == COMPLEX;
    int sign = t->family != UNSIGNED;
    if (op == OP_SUM) {
        if (real)
            return ((r + i) % 5 - 2) * 0.5;
        return sign ? (r + i) % 3 - 1 : (r + i) % 2;
    }
    if (op == OP_PROD) {
        double v = r == i % size ? 3 : 1;
        if (sign && r == (i / 2) % size)
            v = -v;
        if (real && r == (i + 1) % size)
            v *= 0.5;
        return v;
    }
    int v = (r * 37 + i * 11) % 101;
    if (real)
        return (v - 50) * 0.25;
    return sign ? v - 50 : v;
}

static double expected(const type_t *t, int op, int i, int size)
{
    double acc = contribution(t, op, 0, i, size);
    for (int r = 1; r < size; r++) {
        double v = contribution(t, op, r, i, size);
        if (op == OP_SUM)
            acc += v;
        else if (op == OP_PROD)
            acc *= v;
        else if (op == OP_MAX)
            acc = v > acc ? v : acc;
        else
            acc = v < acc ? v : acc;
    }
    return acc;
}

/* Allreduce, or Reduce to root when root >= 0. */
static void run(const type_t *t, int op, int count, int root, int null_recv)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    void *in = malloc((size_t)count * t->size);
    void *out = malloc((size_t)count * t->size);
    for (int i = 0; i < count; i++) {
        t->set(in, i, contribution(t, op, rank, i, size));
        t->set(out, i, 99);
    }
    int rc;
    if (root < 0)
        rc =
            MPI_Allreduce(in, out, count, t->dt, op_handle(op), MPI_COMM_WORLD);
    else
        rc = MPI_Reduce(in, null_recv && rank != root ? NULL : out, count,
                        t->dt, op_handle(op), root, MPI_COMM_WORLD);
    MT_CHECK_MPI(rc);
    if (root < 0 || rank == root) {
        for (int i = 0; i < count; i++) {
            if (!MT_CHECK_DBL_EQ(t->get(out, i), expected(t, op, i, size))) {
                MT_FAIL("%s %s on %s, count %d, root %d, element %d",
                        root < 0 ? "MPI_Allreduce" : "MPI_Reduce", op_names[op],
                        t->name, count, root, i);
                break;
            }
        }
    }
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (int root = 0; root < size; root++) {
        run(int_type, OP_SUM, COUNT, root, 1);
        run(double_type, OP_MAX, COUNT, root, 1);
    }
    for (int k = 0; k < NTYPES; k++) {
        for (int op = 0; op < NOPS; op++) {
            /* MAX and MIN are not defined on complex numbers. */
            if (types[k].family == COMPLEX && (op == OP_MAX || op == OP_MIN))
                continue;
            run(&types[k], op, COUNT, -1, 0);
            run(&types[k], op, COUNT, (k * NOPS + op) % size, 0);
        }
    }
    run(int_type, OP_SUM, BIG_COUNT, -1, 0);
    run(double_type, OP_MIN, BIG_COUNT, size - 1, 0);

    return mt_finish_and_finalize();
}
