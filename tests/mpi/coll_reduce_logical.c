/*
 * coll_reduce_logical: MPI_LAND, MPI_LOR and MPI_LXOR on every C integer
 * type and MPI_C_BOOL (true is any nonzero value; results are compared as
 * truth values, and MPI_C_BOOL results must be 0 or 1), and MPI_BAND,
 * MPI_BOR and MPI_BXOR on every C integer type and MPI_BYTE, with bit
 * patterns that use the full width. MPI_Allreduce, and MPI_Reduce to a
 * root that moves with each combination.
 */
#include "mpitest.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

enum { COUNT = 10 };

typedef struct {
    MPI_Datatype dt;
    size_t size;
    int logical, bitwise; /* which op families apply */
    const char *name;
} type_t;

#define T(dt, c, logical, bitwise) dt, sizeof(c), logical, bitwise, #dt
static const type_t types[] = {
    {T(MPI_SIGNED_CHAR, signed char, 1, 1)},
    {T(MPI_UNSIGNED_CHAR, unsigned char, 1, 1)},
    {T(MPI_SHORT, short, 1, 1)},
    {T(MPI_UNSIGNED_SHORT, unsigned short, 1, 1)},
    {T(MPI_INT, int, 1, 1)},
    {T(MPI_UNSIGNED, unsigned, 1, 1)},
    {T(MPI_LONG, long, 1, 1)},
    {T(MPI_UNSIGNED_LONG, unsigned long, 1, 1)},
    {T(MPI_LONG_LONG, long long, 1, 1)},
    {T(MPI_UNSIGNED_LONG_LONG, unsigned long long, 1, 1)},
    {T(MPI_INT8_T, int8_t, 1, 1)},
    {T(MPI_UINT8_T, uint8_t, 1, 1)},
    {T(MPI_INT16_T, int16_t, 1, 1)},
    {T(MPI_UINT16_T, uint16_t, 1, 1)},
    {T(MPI_INT32_T, int32_t, 1, 1)},
    {T(MPI_UINT32_T, uint32_t, 1, 1)},
    {T(MPI_INT64_T, int64_t, 1, 1)},
    {T(MPI_UINT64_T, uint64_t, 1, 1)},
    {T(MPI_AINT, MPI_Aint, 1, 1)},
    {T(MPI_OFFSET, MPI_Offset, 1, 1)},
    {T(MPI_COUNT, MPI_Count, 1, 1)},
    {T(MPI_C_BOOL, bool, 1, 0)},
    {T(MPI_BYTE, unsigned char, 0, 1)},
};
#undef T
#define NTYPES ((int)(sizeof(types) / sizeof(types[0])))

enum { OP_LAND, OP_LOR, OP_LXOR, OP_BAND, OP_BOR, OP_BXOR, NOPS };
static const char *const op_names[NOPS] = {"MPI_LAND", "MPI_LOR", "MPI_LXOR",
                                           "MPI_BAND", "MPI_BOR", "MPI_BXOR"};

static MPI_Op op_handle(int op)
{
    const MPI_Op ops[NOPS] = {MPI_LAND, MPI_LOR, MPI_LXOR,
                              MPI_BAND, MPI_BOR, MPI_BXOR};
    return ops[op];
}

/* Elements are handled as unsigned integers of the type's width: the
 * representation of a signed integer or a bool is the same bits. */
static void set_bits(void *buf, int i, size_t size, uint64_t v)
{
    unsigned char *p = (unsigned char *)buf + (size_t)i * size;
    uint8_t v8 = (uint8_t)v;
    uint16_t v16 = (uint16_t)v;
    uint32_t v32 = (uint32_t)v;
    switch (size) {
    case 1: memcpy(p, &v8, 1); break;
    case 2: memcpy(p, &v16, 2); break;
    case 4: memcpy(p, &v32, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

static uint64_t get_bits(const void *buf, int i, size_t size)
{
    const unsigned char *p = (const unsigned char *)buf + (size_t)i * size;
    uint8_t v8;
    uint16_t v16;
    uint32_t v32;
    uint64_t v64;
    switch (size) {
    case 1: memcpy(&v8, p, 1); return v8;
    case 2: memcpy(&v16, p, 2); return v16;
    case 4: memcpy(&v32, p, 4); return v32;
    default: memcpy(&v64, p, 8); return v64;
    }
}

static uint64_t width_mask(size_t size)
{
    return size >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * size)) - 1;
}

static uint64_t mix(uint64_t x)
{
    x = (x ^ (x >> 31)) * UINT64_C(0x7fb5d329728ea185);
    x = (x ^ (x >> 27)) * UINT64_C(0x81dadef4bc2dd44d);
    return x ^ (x >> 33);
}

/* Whether rank r's element i is true, in a few shapes: all true, all
 * false, only the last rank true, only rank 0 false, even ranks, and
 * scattered. */
static int truth(int r, int i, int size)
{
    switch (i % 6) {
    case 0: return 1;
    case 1: return 0;
    case 2: return r == size - 1;
    case 3: return r != 0;
    case 4: return r % 2 == 0;
    default: return mix((uint64_t)(r * 131 + i)) % 3 == 0;
    }
}

static uint64_t contribution(const type_t *t, int op, int r, int i, int size)
{
    unsigned bits = 8 * (unsigned)t->size;
    if (op <= OP_LXOR) {
        if (!truth(r, i, size))
            return 0;
        return t->dt == MPI_C_BOOL ? 1 : 1 + (uint64_t)((r + i) % 3);
    }
    uint64_t v = mix((uint64_t)(r * 1000 + i + 1));
    /* Odd elements: one bit clear (BAND) or set (BOR) per rank, so that
     * the result is neither all zeros nor all ones. */
    if (i % 2 == 1 && op == OP_BAND)
        v = ~(UINT64_C(1) << ((unsigned)(r + i) % bits));
    else if (i % 2 == 1 && op == OP_BOR)
        v = UINT64_C(1) << ((unsigned)(r + i) % bits);
    return v & width_mask(t->size);
}

static uint64_t expected(const type_t *t, int op, int i, int size)
{
    uint64_t acc = contribution(t, op, 0, i, size);
    for (int r = 1; r < size; r++) {
        uint64_t v = contribution(t, op, r, i, size);
        switch (op) {
        case OP_LAND: acc = acc && v; break;
        case OP_LOR: acc = acc || v; break;
        case OP_LXOR: acc = !acc != !v; break;
        case OP_BAND: acc &= v; break;
        case OP_BOR: acc |= v; break;
        default: acc ^= v; break;
        }
    }
    if (op <= OP_LXOR)
        return acc != 0;
    return acc;
}

static void check_result(const type_t *t, int op, const void *out, int size,
                         const char *call)
{
    for (int i = 0; i < COUNT; i++) {
        uint64_t got = get_bits(out, i, t->size),
                 want = expected(t, op, i, size);
        int ok;
        if (op <= OP_LXOR) {
            ok = (got != 0) == (want != 0);
            if (t->dt == MPI_C_BOOL)
                ok = ok && got <= 1;
        } else {
            ok = got == want;
        }
        if (!ok) {
            MT_FAIL("%s %s on %s, element %d: got 0x%llx, want 0x%llx", call,
                    op_names[op], t->name, i, (unsigned long long)got,
                    (unsigned long long)want);
            return;
        }
    }
}

static void run(const type_t *t, int op, int root)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char in[COUNT * 8], out[COUNT * 8];

    for (int i = 0; i < COUNT; i++)
        set_bits(in, i, t->size, contribution(t, op, rank, i, size));

    memset(out, 0x5a, sizeof(out));
    MT_CHECK_MPI(
        MPI_Allreduce(in, out, COUNT, t->dt, op_handle(op), MPI_COMM_WORLD));
    check_result(t, op, out, size, "MPI_Allreduce");

    memset(out, 0x5a, sizeof(out));
    MT_CHECK_MPI(
        MPI_Reduce(in, out, COUNT, t->dt, op_handle(op), root, MPI_COMM_WORLD));
    if (rank == root)
        check_result(t, op, out, size, "MPI_Reduce");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int n = 0;
    for (int k = 0; k < NTYPES; k++) {
        for (int op = 0; op < NOPS; op++) {
            int logical = op <= OP_LXOR;
            if (logical ? types[k].logical : types[k].bitwise)
                run(&types[k], op, n++ % size);
        }
    }

    return mt_finish_and_finalize();
}
