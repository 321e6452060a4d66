/* The predefined reduction operations on the predefined types. */
#include "coll/ops.h"

#include "mpi.h"

#include <complex.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <wchar.h>

/* The Fortran types of 16-byte values, where the compiler has them
 * (dt/dt.h); COMPLEX(16) has its own cases below. */
#ifdef AMP_HAVE_INTEGER16
#define INT16_TYPES(X) X(INTEGER16, amp_int16_t)
#else
#define INT16_TYPES(X)
#endif
#ifdef AMP_HAVE_REAL16
#define REAL16_TYPES(X) X(REAL16, amp_real16_t)
#else
#define REAL16_TYPES(X)
#endif

/* clang-format off */
#define INT_TYPES(X)                          \
    X(CHAR, char)                             \
    X(SIGNED_CHAR, signed char)               \
    X(UNSIGNED_CHAR, unsigned char)           \
    X(WCHAR, wchar_t)                         \
    X(SHORT, short)                           \
    X(UNSIGNED_SHORT, unsigned short)         \
    X(INT, int)                               \
    X(UNSIGNED, unsigned)                     \
    X(LONG, long)                             \
    X(UNSIGNED_LONG, unsigned long)           \
    X(LONG_LONG_INT, long long)               \
    X(UNSIGNED_LONG_LONG, unsigned long long) \
    X(INT8_T, int8_t)                         \
    X(INT16_T, int16_t)                       \
    X(INT32_T, int32_t)                       \
    X(INT64_T, int64_t)                       \
    X(UINT8_T, uint8_t)                       \
    X(UINT16_T, uint16_t)                     \
    X(UINT32_T, uint32_t)                     \
    X(UINT64_T, uint64_t)                     \
    X(AINT, MPI_Aint)                         \
    X(OFFSET, MPI_Offset)                     \
    X(COUNT, MPI_Count)                       \
    X(INTEGER, int)                           \
    X(INTEGER1, int8_t)                       \
    X(INTEGER2, int16_t)                      \
    X(INTEGER4, int32_t)                      \
    X(INTEGER8, int64_t)                      \
    INT16_TYPES(X)
#define FLOAT_TYPES(X)          \
    X(FLOAT, float)             \
    X(DOUBLE, double)           \
    X(LONG_DOUBLE, long double) \
    X(REAL, float)              \
    X(DOUBLE_PRECISION, double) \
    X(REAL4, float)             \
    X(REAL8, double)            \
    REAL16_TYPES(X)
#define COMPLEX_TYPES(X)                             \
    X(C_FLOAT_COMPLEX, float _Complex)               \
    X(C_DOUBLE_COMPLEX, double _Complex)             \
    X(C_LONG_DOUBLE_COMPLEX, long double _Complex)   \
    X(CXX_FLOAT_COMPLEX, float _Complex)             \
    X(CXX_DOUBLE_COMPLEX, double _Complex)           \
    X(CXX_LONG_DOUBLE_COMPLEX, long double _Complex) \
    X(COMPLEX, float _Complex)                       \
    X(DOUBLE_COMPLEX, double _Complex)               \
    X(COMPLEX8, float _Complex)                      \
    X(COMPLEX16, double _Complex)
#define LOGICAL_TYPES(X) \
    X(C_BOOL, bool)      \
    X(CXX_BOOL, bool)    \
    X(LOGICAL, int)
#define BYTE_TYPES(X)      \
    X(BYTE, unsigned char)

#define PAIR_TYPE(V, I)                                                        \
    struct {                                                                   \
        V v;                                                                   \
        I i;                                                                   \
    }
#define PAIR_TYPES(X)                    \
    X(FLOAT_INT, float, int)             \
    X(DOUBLE_INT, double, int)           \
    X(LONG_INT, long, int)               \
    X(2INT, int, int)                    \
    X(SHORT_INT, short, int)             \
    X(LONG_DOUBLE_INT, long double, int) \
    X(2INTEGER, int, int)                \
    X(2REAL, float, float)               \
    X(2DOUBLE_PRECISION, double, double)

/* clang-format on */

/* One case: apply EXPR (over a[i] and b[i]) to n values of type T, or, with
 * n == 0 and no buffers, just report that the combination exists. */
#define CASE(id, T, EXPR)                                                      \
    case AMPI_DTID_MPI_##id: {                                                 \
        const T *a = in;                                                       \
        T *b = io;                                                             \
        for (size_t i = 0; i < n; i++)                                         \
            b[i] = (T)(EXPR);                                                  \
        return 1;                                                              \
    }

/* Each operation starts on a cache line: where its loops fall otherwise
 * follows the size of the code linked before it, and 176 bytes more of
 * that made large MPI_SUMs 10-40% slower on this project's AMD VM
 * (docs/bench.md). */
#define DEFINE_OP(name, EXPR, LISTS)                                           \
    static __attribute__((aligned(64))) int name(const void *in, void *io,     \
                                                 size_t n, int id)             \
    {                                                                          \
        switch (id) {                                                          \
            LISTS(EXPR)                                                        \
        }                                                                      \
        return 0;                                                              \
    }

#define X_SUM(id, T) CASE(id, T, b[i] + a[i])
#define X_PROD(id, T) CASE(id, T, b[i] * a[i])
#define X_MAX(id, T) CASE(id, T, a[i] > b[i] ? a[i] : b[i])
#define X_MIN(id, T) CASE(id, T, a[i] < b[i] ? a[i] : b[i])
#define X_LAND(id, T) CASE(id, T, (a[i] && b[i]))
#define X_LOR(id, T) CASE(id, T, (a[i] || b[i]))
#define X_LXOR(id, T) CASE(id, T, (!a[i] != !b[i]))
#define X_BAND(id, T) CASE(id, T, b[i] & a[i])
#define X_BOR(id, T) CASE(id, T, b[i] | a[i])
#define X_BXOR(id, T) CASE(id, T, b[i] ^ a[i])

/* COMPLEX(16): pairs of REAL(16), as no C compiler has a complex type of
 * them that every other one has too. */
#ifdef AMP_HAVE_REAL16
#define C32_CASE(STEP)                                                         \
    case AMPI_DTID_MPI_COMPLEX32: {                                            \
        const amp_complex32_t *a = in;                                         \
        amp_complex32_t *b = io;                                               \
        for (size_t i = 0; i < n; i++) {                                       \
            STEP;                                                              \
        }                                                                      \
        return 1;                                                              \
    }
#define C32_SUM C32_CASE(b[i].re += a[i].re; b[i].im += a[i].im)
#define C32_PROD                                                               \
    C32_CASE(amp_real16_t re = b[i].re * a[i].re - b[i].im * a[i].im;          \
             b[i].im = b[i].re * a[i].im + b[i].im * a[i].re; b[i].re = re)
#else
#define C32_SUM
#define C32_PROD
#endif

#define SUM_LISTS(E)                                                           \
    INT_TYPES(X_SUM) FLOAT_TYPES(X_SUM) COMPLEX_TYPES(X_SUM) C32_SUM
#define PROD_LISTS(E)                                                          \
    INT_TYPES(X_PROD) FLOAT_TYPES(X_PROD) COMPLEX_TYPES(X_PROD) C32_PROD
#define MAX_LISTS(E) INT_TYPES(X_MAX) FLOAT_TYPES(X_MAX)
#define MIN_LISTS(E) INT_TYPES(X_MIN) FLOAT_TYPES(X_MIN)
#define LAND_LISTS(E) INT_TYPES(X_LAND) LOGICAL_TYPES(X_LAND)
#define LOR_LISTS(E) INT_TYPES(X_LOR) LOGICAL_TYPES(X_LOR)
#define LXOR_LISTS(E) INT_TYPES(X_LXOR) LOGICAL_TYPES(X_LXOR)
#define BAND_LISTS(E) INT_TYPES(X_BAND) BYTE_TYPES(X_BAND)
#define BOR_LISTS(E) INT_TYPES(X_BOR) BYTE_TYPES(X_BOR)
#define BXOR_LISTS(E) INT_TYPES(X_BXOR) BYTE_TYPES(X_BXOR)

DEFINE_OP(op_sum, _, SUM_LISTS)
DEFINE_OP(op_prod, _, PROD_LISTS)
DEFINE_OP(op_max, _, MAX_LISTS)
DEFINE_OP(op_min, _, MIN_LISTS)
DEFINE_OP(op_land, _, LAND_LISTS)
DEFINE_OP(op_lor, _, LOR_LISTS)
DEFINE_OP(op_lxor, _, LXOR_LISTS)
DEFINE_OP(op_band, _, BAND_LISTS)
DEFINE_OP(op_bor, _, BOR_LISTS)
DEFINE_OP(op_bxor, _, BXOR_LISTS)

/* MAXLOC/MINLOC: the better value wins; on a tie, the lower index. */
#define LOC_CASE(id, V, I, BETTER)                                             \
    case AMPI_DTID_MPI_##id: {                                                 \
        typedef PAIR_TYPE(V, I) pair_t;                                        \
        const pair_t *a = in;                                                  \
        pair_t *b = io;                                                        \
        for (size_t i = 0; i < n; i++) {                                       \
            if (a[i].v BETTER b[i].v)                                          \
                b[i] = a[i];                                                   \
            else if (a[i].v == b[i].v && a[i].i < b[i].i)                      \
                b[i].i = a[i].i;                                               \
        }                                                                      \
        return 1;                                                              \
    }
#define X_MAXLOC(id, V, I) LOC_CASE(id, V, I, >)
#define X_MINLOC(id, V, I) LOC_CASE(id, V, I, <)

static int op_maxloc(const void *in, void *io, size_t n, int id)
{
    switch (id) {
        PAIR_TYPES(X_MAXLOC)
    }
    return 0;
}

static int op_minloc(const void *in, void *io, size_t n, int id)
{
    switch (id) {
        PAIR_TYPES(X_MINLOC)
    }
    return 0;
}

typedef int (*op_fn_t)(const void *in, void *io, size_t n, int id);

static const struct {
    const char *name;
    op_fn_t fn;
} ops[AMPI_OP_COUNT] = {
    [1] = {"MPI_MAX", op_max},        [2] = {"MPI_MIN", op_min},
    [3] = {"MPI_SUM", op_sum},        [4] = {"MPI_PROD", op_prod},
    [5] = {"MPI_LAND", op_land},      [6] = {"MPI_BAND", op_band},
    [7] = {"MPI_LOR", op_lor},        [8] = {"MPI_BOR", op_bor},
    [9] = {"MPI_LXOR", op_lxor},      [10] = {"MPI_BXOR", op_bxor},
    [11] = {"MPI_MINLOC", op_minloc}, [12] = {"MPI_MAXLOC", op_maxloc},
    [13] = {"MPI_REPLACE", NULL},     [14] = {"MPI_NO_OP", NULL},
};

const char *amp_op_name(int op_id)
{
    if (op_id <= 0 || op_id >= AMPI_OP_COUNT)
        return "user-defined operation";
    return ops[op_id].name;
}

/* Whether the base values of a type with holes can be found from its
 * blocks: for a base type without padding each block holds whole values;
 * for a padded pair (MPI_DOUBLE_INT, ...) the blocks alternate value and
 * index, exactly as in the pair. */
static int walkable(const amp_dt_t *dt)
{
    const amp_dt_t *base = amp_dt_predefined(dt->base_id);
    amp_dt_block_t one;
    int n;
    const amp_dt_block_t *b = amp_dt_blocks(dt, &n, &one);
    if (!base || base->size == 0)
        return 0;
    if (base->contig) {
        for (int j = 0; j < n; j++)
            if (b[j].len % base->size)
                return 0;
        return 1;
    }
    if (n % 2 || base->nblocks != 2)
        return 0;
    for (int j = 0; j < n; j += 2)
        if (b[j].len != base->blocks[0].len ||
            b[j + 1].len != base->blocks[1].len)
            return 0;
    return 1;
}

int amp_op_defined(int op_id, const amp_dt_t *dt)
{
    if (op_id == 13 || op_id == 14 || (dt->size == 0 && op_id > 0))
        return op_id < AMPI_OP_COUNT;
    if (!dt->base_id || op_id <= 0 || op_id >= AMPI_OP_COUNT)
        return 0;
    if (dt->base_holes && !walkable(dt))
        return 0;
    return ops[op_id].fn(NULL, NULL, 0, dt->base_id);
}

/* A padded pair at a time: gathered into pair layout, combined, and the
 * result scattered back. */
static void apply_pairs(op_fn_t fn, const amp_dt_t *base,
                        const amp_dt_block_t *b, int n, const char *in,
                        char *io)
{
    _Alignas(16) char pin[64], pio[64];
    const amp_dt_block_t *pb = base->blocks;
    amp_assert(base->extent <= 64);
    for (int j = 0; j < n; j += 2) {
        for (int k = 0; k < 2; k++) {
            memcpy(pin + pb[k].off, in + b[j + k].off, pb[k].len);
            memcpy(pio + pb[k].off, io + b[j + k].off, pb[k].len);
        }
        fn(pin, pio, 1, base->base_id);
        for (int k = 0; k < 2; k++)
            memcpy(io + b[j + k].off, pio + pb[k].off, pb[k].len);
    }
}

/* A predefined operation on a type whose base values have holes between
 * them: walks the blocks of each element (amp_op_defined checked that the
 * layout is walkable). */
static void apply_holes(op_fn_t fn, const amp_dt_t *dt, int count,
                        const char *in, char *io)
{
    const amp_dt_t *base = amp_dt_predefined(dt->base_id);
    amp_dt_block_t one;
    int n;
    const amp_dt_block_t *b = amp_dt_blocks(dt, &n, &one);
    long long reps = amp_dt_reps(dt);
    /* back at zero after each element's last repetition */
    long long idx[AMP_DT_MAX_DIMS] = {0};
    for (int i = 0; i < count; i++) {
        ptrdiff_t at = (ptrdiff_t)i * dt->extent;
        for (long long r = 0; r < reps; r++, at += amp_dt_rep_next(dt, idx)) {
            if (!base->contig) {
                apply_pairs(fn, base, b, n, in + at, io + at);
                continue;
            }
            for (int j = 0; j < n; j++)
                fn(in + at + b[j].off, io + at + b[j].off,
                   b[j].len / base->size, dt->base_id);
        }
    }
}

/* A user function on count elements of dt, in the program's elements. */
static void apply_user(const amp_coll_op_t *op, int count, const char *in,
                       char *inout)
{
    int h = op->dt_handle;
    if (op->unit <= 1) {
        long long n = count;
        int len = count;
        if (op->large)
            ((amp_coll_user_fn_c_t)op->user)((void *)in, inout, &n, &h);
        else
            op->user((void *)in, inout, &len, &h);
        return;
    }
    long long n = (long long)count * op->unit;
    if (op->large) {
        ((amp_coll_user_fn_c_t)op->user)((void *)in, inout, &n, &h);
        return;
    }
    while (n > 0) {
        int len = n > INT_MAX ? INT_MAX : (int)n;
        op->user((void *)in, inout, &len, &h);
        in += (ptrdiff_t)len * op->unit_extent;
        inout += (ptrdiff_t)len * op->unit_extent;
        n -= len;
    }
}

void amp_coll_apply(const amp_coll_op_t *op, const amp_dt_t *dt, int count,
                    const void *in, void *inout)
{
    if (count == 0 || dt->size == 0)
        return; /* no values */
    if (!op->op_id) {
        apply_user(op, count, in, inout);
        return;
    }
    if (op->op_id == 14)
        return;
    if (op->op_id == 13) {
        amp_dt_copy(dt, count, inout, in);
        return;
    }
    amp_assert(dt->base_id != 0);
    if (dt->base_holes)
        apply_holes(ops[op->op_id].fn, dt, count, in, inout);
    else
        ops[op->op_id].fn(in, inout, (size_t)count * (size_t)dt->base_count,
                          dt->base_id);
}
