/*
 * p2p_ring: a message travels around the ring of all ranks with blocking
 * MPI_Send/MPI_Recv, once per predefined C datatype; every rank checks the
 * values, the status and the count, and adds one to each element before
 * passing it on.
 */
#include "mpitest.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <wchar.h>

enum { COUNT = 37 };

/* One-word names for the C types, to build accessor names from. */
typedef signed char schar_t;
typedef unsigned char uchar_t;
typedef unsigned short ushort_t;
typedef unsigned int uint_t;
typedef unsigned long ulong_t;
typedef long long llong_t;
typedef unsigned long long ullong_t;
typedef long double ldouble_t;

/* get_T / set_T: element i of a T array, through a double (the values used
 * are small integers, exact in every type). */
#define ACCESSORS(T)                                                           \
    static double get_##T(const void *buf, int i)                              \
    {                                                                          \
        return (double)((const T *)buf)[i];                                    \
    }                                                                          \
    static void set_##T(void *buf, int i, double v)                            \
    {                                                                          \
        ((T *)buf)[i] = (T)v;                                                  \
    }
ACCESSORS(char)
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
ACCESSORS(float)
ACCESSORS(double)
ACCESSORS(ldouble_t)
ACCESSORS(wchar_t)
ACCESSORS(bool)
ACCESSORS(int8_t)
ACCESSORS(uint8_t)
ACCESSORS(int16_t)
ACCESSORS(uint16_t)
ACCESSORS(int32_t)
ACCESSORS(uint32_t)
ACCESSORS(int64_t)
ACCESSORS(uint64_t)
ACCESSORS(MPI_Aint)

/* Complex values carry v as the real part and -v as the imaginary part;
 * anything else reads back as a value no test expects. */
static double get_dcomplex(const void *buf, int i)
{
    double parts[2]; /* a complex is laid out as {real, imaginary} */
    memcpy(parts, (const double _Complex *)buf + i, sizeof(parts));
    return parts[1] == -parts[0] ? parts[0] : -1e300;
}

static void set_dcomplex(void *buf, int i, double v)
{
    double parts[2] = {v, -v};
    memcpy((double _Complex *)buf + i, parts, sizeof(parts));
}

typedef struct {
    MPI_Datatype dt;
    const char *name;
    size_t size;
    double (*get)(const void *buf, int i);
    void (*set)(void *buf, int i, double v);
} type_t;

#define TYPE(dt, T) dt, #dt, sizeof(T), get_##T, set_##T
static const type_t types[] = {
    {TYPE(MPI_CHAR, char)},
    {TYPE(MPI_SIGNED_CHAR, schar_t)},
    {TYPE(MPI_UNSIGNED_CHAR, uchar_t)},
    {TYPE(MPI_SHORT, short)},
    {TYPE(MPI_UNSIGNED_SHORT, ushort_t)},
    {TYPE(MPI_INT, int)},
    {TYPE(MPI_UNSIGNED, uint_t)},
    {TYPE(MPI_LONG, long)},
    {TYPE(MPI_UNSIGNED_LONG, ulong_t)},
    {TYPE(MPI_LONG_LONG, llong_t)},
    {TYPE(MPI_UNSIGNED_LONG_LONG, ullong_t)},
    {TYPE(MPI_FLOAT, float)},
    {TYPE(MPI_DOUBLE, double)},
    {TYPE(MPI_LONG_DOUBLE, ldouble_t)},
    {TYPE(MPI_WCHAR, wchar_t)},
    {TYPE(MPI_C_BOOL, bool)},
    {TYPE(MPI_INT8_T, int8_t)},
    {TYPE(MPI_UINT8_T, uint8_t)},
    {TYPE(MPI_INT16_T, int16_t)},
    {TYPE(MPI_UINT16_T, uint16_t)},
    {TYPE(MPI_INT32_T, int32_t)},
    {TYPE(MPI_UINT32_T, uint32_t)},
    {TYPE(MPI_INT64_T, int64_t)},
    {TYPE(MPI_UINT64_T, uint64_t)},
    {TYPE(MPI_BYTE, uchar_t)},
    {TYPE(MPI_AINT, MPI_Aint)},
    {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", sizeof(double _Complex),
     get_dcomplex, set_dcomplex},
};
#define NTYPES ((int)(sizeof(types) / sizeof(types[0])))

/* Element i as rank `stage` sends it. C_BOOL only holds 0/1, so it
 * alternates instead of counting. */
static double expected(const type_t *t, int i, int stage)
{
    if (t->dt == MPI_C_BOOL)
        return (i + stage) % 2;
    return (i * 3) % 50 + stage % 50;
}

static void ring(const type_t *t, int rank, int size)
{
    void *buf = calloc(COUNT, t->size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int tag = (int)(t - types);
    MPI_Status st;

    if (rank == 0) {
        for (int i = 0; i < COUNT; i++)
            t->set(buf, i, expected(t, i, 0));
        MPI_Request req = MPI_REQUEST_NULL;
        /* With one rank the message goes to self: do not block in Send. */
        if (size == 1)
            MPI_Isend(buf, COUNT, t->dt, right, tag, MPI_COMM_WORLD, &req);
        else
            MPI_Send(buf, COUNT, t->dt, right, tag, MPI_COMM_WORLD);
        void *back = calloc(COUNT, t->size);
        MT_CHECK_MPI(
            MPI_Recv(back, COUNT, t->dt, left, tag, MPI_COMM_WORLD, &st));
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        memcpy(buf, back, COUNT * t->size);
        free(back);
    } else {
        MT_CHECK_MPI(
            MPI_Recv(buf, COUNT, t->dt, left, tag, MPI_COMM_WORLD, &st));
    }

    int count = -1;
    MPI_Get_count(&st, t->dt, &count);
    MT_CHECK_INT_EQ(count, COUNT);
    MT_CHECK_INT_EQ(st.MPI_SOURCE, left);
    MT_CHECK_INT_EQ(st.MPI_TAG, tag);
    /* Rank r sends stage r; the message back at rank 0 is stage size-1. */
    int stage = (rank == 0 ? size : rank) - 1;
    for (int i = 0; i < COUNT; i++) {
        if (!MT_CHECK_DBL_EQ(t->get(buf, i), expected(t, i, stage))) {
            MT_FAIL("%s element %d", t->name, i);
            break;
        }
    }

    if (rank != 0) {
        for (int i = 0; i < COUNT; i++)
            t->set(buf, i, expected(t, i, rank));
        MT_CHECK_MPI(MPI_Send(buf, COUNT, t->dt, right, tag, MPI_COMM_WORLD));
    }
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (int i = 0; i < NTYPES; i++)
        ring(&types[i], rank, size);

    return mt_finish_and_finalize();
}
