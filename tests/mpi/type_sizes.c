/*
 * type_sizes: every predefined C datatype has MPI_Type_size equal to the
 * sizeof of its C type, lower bound 0 and extent equal to that size. The
 * pair types (MPI_FLOAT_INT, ..., MPI_LONG_DOUBLE_INT) hold the bytes of
 * their two members (size = sizeof(T) + sizeof(int)) and span the C struct
 * { T v; int i; } (extent = sizeof of the struct).
 */
#include "mpitest.h"

#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#define BASIC(dt, ctype) dt, #dt, sizeof(ctype), sizeof(ctype)

/* The C layouts the pair types describe: { T v; int i; }. */
typedef struct {
    float v;
    int i;
} float_int_t;
typedef struct {
    double v;
    int i;
} double_int_t;
typedef struct {
    long v;
    int i;
} long_int_t;
typedef struct {
    int v;
    int i;
} int_int_t;
typedef struct {
    short v;
    int i;
} short_int_t;
typedef struct {
    long double v;
    int i;
} long_double_int_t;

/* A pair type holds its members' bytes and spans the whole struct. */
#define PAIR(dt, T, S) dt, #dt, sizeof(T) + sizeof(int), sizeof(S)

static const struct {
    MPI_Datatype dt;
    const char *name;
    size_t size, extent;
} types[] = {
    {BASIC(MPI_CHAR, char)},
    {BASIC(MPI_SIGNED_CHAR, signed char)},
    {BASIC(MPI_UNSIGNED_CHAR, unsigned char)},
    {BASIC(MPI_SHORT, short)},
    {BASIC(MPI_UNSIGNED_SHORT, unsigned short)},
    {BASIC(MPI_INT, int)},
    {BASIC(MPI_UNSIGNED, unsigned)},
    {BASIC(MPI_LONG, long)},
    {BASIC(MPI_UNSIGNED_LONG, unsigned long)},
    {BASIC(MPI_LONG_LONG_INT, long long)},
    {BASIC(MPI_LONG_LONG, long long)},
    {BASIC(MPI_UNSIGNED_LONG_LONG, unsigned long long)},
    {BASIC(MPI_FLOAT, float)},
    {BASIC(MPI_DOUBLE, double)},
    {BASIC(MPI_LONG_DOUBLE, long double)},
    {BASIC(MPI_WCHAR, wchar_t)},
    {BASIC(MPI_C_BOOL, bool)},
    {BASIC(MPI_INT8_T, int8_t)},
    {BASIC(MPI_INT16_T, int16_t)},
    {BASIC(MPI_INT32_T, int32_t)},
    {BASIC(MPI_INT64_T, int64_t)},
    {BASIC(MPI_UINT8_T, uint8_t)},
    {BASIC(MPI_UINT16_T, uint16_t)},
    {BASIC(MPI_UINT32_T, uint32_t)},
    {BASIC(MPI_UINT64_T, uint64_t)},
    {BASIC(MPI_C_COMPLEX, float _Complex)},
    {BASIC(MPI_C_FLOAT_COMPLEX, float _Complex)},
    {BASIC(MPI_C_DOUBLE_COMPLEX, double _Complex)},
    {BASIC(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex)},
    {BASIC(MPI_BYTE, unsigned char)},
    {BASIC(MPI_PACKED, unsigned char)},
    {BASIC(MPI_AINT, MPI_Aint)},
    {BASIC(MPI_OFFSET, MPI_Offset)},
    {BASIC(MPI_COUNT, MPI_Count)},
    {PAIR(MPI_FLOAT_INT, float, float_int_t)},
    {PAIR(MPI_DOUBLE_INT, double, double_int_t)},
    {PAIR(MPI_LONG_INT, long, long_int_t)},
    {PAIR(MPI_2INT, int, int_int_t)},
    {PAIR(MPI_SHORT_INT, short, short_int_t)},
    {PAIR(MPI_LONG_DOUBLE_INT, long double, long_double_int_t)},
};
#define NTYPES ((int)(sizeof(types) / sizeof(types[0])))

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);

    for (int k = 0; k < NTYPES; k++) {
        int size = -1;
        MPI_Aint lb = -1, extent = -1;
        MPI_Count size_x = -1;
        if (!MT_CHECK_MPI(MPI_Type_size(types[k].dt, &size)) ||
            !MT_CHECK_INT_EQ(size, types[k].size))
            MT_FAIL("MPI_Type_size(%s)", types[k].name);
        if (!MT_CHECK_MPI(MPI_Type_size_x(types[k].dt, &size_x)) ||
            !MT_CHECK_INT_EQ(size_x, types[k].size))
            MT_FAIL("MPI_Type_size_x(%s)", types[k].name);
        if (!MT_CHECK_MPI(MPI_Type_get_extent(types[k].dt, &lb, &extent)) ||
            !MT_CHECK_INT_EQ(lb, 0) ||
            !MT_CHECK_INT_EQ(extent, types[k].extent))
            MT_FAIL("MPI_Type_get_extent(%s)", types[k].name);
    }

    return mt_finish_and_finalize();
}
