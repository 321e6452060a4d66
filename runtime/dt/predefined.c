/* The table of predefined datatypes. */
#include "dt/dt.h"

#include "mpi.h"

#include <complex.h>
#include <stdbool.h>
#include <wchar.h>

#define PAIR_STRUCT(name, T)                                                   \
    struct name {                                                              \
        T v;                                                                   \
        int i;                                                                 \
    }
PAIR_STRUCT(pair_float, float);
PAIR_STRUCT(pair_double, double);
PAIR_STRUCT(pair_long, long);
PAIR_STRUCT(pair_short, short);
PAIR_STRUCT(pair_ldouble, long double);

#define X32_OF(T)                                                              \
    _Generic((T)0,                                                             \
        long double: AMP_DT_X32_LDOUBLE,                                       \
        long: sizeof(long) == 4 ? AMP_DT_X32_PLAIN : AMP_DT_X32_LONG,          \
        default: AMP_DT_X32_PLAIN)
#define PAIR_BLOCKS(name, T, I)                                                \
    static const amp_dt_block_t name##_blocks[2] = {                           \
        {0, sizeof(T), sizeof(T), X32_OF(T)},                                  \
        {offsetof(struct name, i), sizeof(I), sizeof(I), AMP_DT_X32_PLAIN}}
PAIR_BLOCKS(pair_float, float, int);
PAIR_BLOCKS(pair_double, double, int);
PAIR_BLOCKS(pair_long, long, int);
PAIR_BLOCKS(pair_short, short, int);
PAIR_BLOCKS(pair_ldouble, long double, int);

/* Two values of one type (MPI_2INT, MPI_2REAL, ...) are contiguous. */
#define BASIC(id_, T, fl) NAMED(AMPI_DTID_##id_, #id_, T, fl)
#define NAMED(dtid_, name_, T, fl)                                             \
    [dtid_] = {.size = sizeof(T),                                              \
               .extent = sizeof(T),                                            \
               .true_extent = sizeof(T),                                       \
               .basic_size = sizeof(T),                                        \
               .align = _Alignof(T),                                           \
               .contig = 1,                                                    \
               .predefined = 1,                                                \
               .committed = 1,                                                 \
               .combiner = MPI_COMBINER_NAMED,                                 \
               .base_id = dtid_,                                               \
               .base_count = 1,                                                \
               .flags = (fl),                                                  \
               .name = name_}
#define TWO(id_, T, fl)                                                        \
    [AMPI_DTID_##id_] = {.size = 2 * sizeof(T),                                \
                         .extent = 2 * sizeof(T),                              \
                         .true_extent = 2 * sizeof(T),                         \
                         .basic_size = sizeof(T),                              \
                         .align = _Alignof(T),                                 \
                         .contig = 1,                                          \
                         .predefined = 1,                                      \
                         .committed = 1,                                       \
                         .combiner = MPI_COMBINER_NAMED,                       \
                         .base_id = AMPI_DTID_##id_,                           \
                         .base_count = 1,                                      \
                         .flags = (fl) | AMP_DT_PAIR,                          \
                         .name = #id_}
#define PAIR(id_, S, T)                                                        \
    [AMPI_DTID_##                                                              \
        id_] = {.size = sizeof(T) + sizeof(int),                               \
                .extent = sizeof(struct S),                                    \
                .true_extent = offsetof(struct S, i) + sizeof(int),            \
                .contig = sizeof(T) + sizeof(int) == sizeof(struct S),         \
                .nblocks = 2,                                                  \
                .blocks = S##_blocks,                                          \
                .align = _Alignof(struct S),                                   \
                .predefined = 1,                                               \
                .committed = 1,                                                \
                .combiner = MPI_COMBINER_NAMED,                                \
                .base_id = AMPI_DTID_##id_,                                    \
                .base_count = 1,                                               \
                .flags = AMP_DT_PAIR,                                          \
                .name = #id_}

enum {
    K_INT = AMP_DT_INTEGER,
    K_FLT = AMP_DT_FLOAT,
    K_CPX = AMP_DT_COMPLEX,
    K_LOG = AMP_DT_LOGICAL,
    K_BYT = AMP_DT_BYTE
};

/* clang-format off */
const amp_dt_t amp_dt_predefined_table[AMPI_DTID_COUNT] = {
    BASIC(MPI_CHAR, char, K_INT),
    BASIC(MPI_SIGNED_CHAR, signed char, K_INT),
    BASIC(MPI_UNSIGNED_CHAR, unsigned char, K_INT),
    BASIC(MPI_BYTE, unsigned char, K_BYT),
    BASIC(MPI_WCHAR, wchar_t, K_INT),
    BASIC(MPI_SHORT, short, K_INT),
    BASIC(MPI_UNSIGNED_SHORT, unsigned short, K_INT),
    BASIC(MPI_INT, int, K_INT),
    BASIC(MPI_UNSIGNED, unsigned, K_INT),
    BASIC(MPI_LONG, long, K_INT),
    BASIC(MPI_UNSIGNED_LONG, unsigned long, K_INT),
    BASIC(MPI_LONG_LONG_INT, long long, K_INT),
    BASIC(MPI_UNSIGNED_LONG_LONG, unsigned long long, K_INT),
    BASIC(MPI_FLOAT, float, K_FLT),
    BASIC(MPI_DOUBLE, double, K_FLT),
    BASIC(MPI_LONG_DOUBLE, long double, K_FLT),
    BASIC(MPI_C_BOOL, bool, K_LOG),
    BASIC(MPI_INT8_T, int8_t, K_INT),
    BASIC(MPI_INT16_T, int16_t, K_INT),
    BASIC(MPI_INT32_T, int32_t, K_INT),
    BASIC(MPI_INT64_T, int64_t, K_INT),
    BASIC(MPI_UINT8_T, uint8_t, K_INT),
    BASIC(MPI_UINT16_T, uint16_t, K_INT),
    BASIC(MPI_UINT32_T, uint32_t, K_INT),
    BASIC(MPI_UINT64_T, uint64_t, K_INT),
    /* MPI_C_COMPLEX and MPI_C_FLOAT_COMPLEX are one type (mpi.h); it has
     * the first name, as in other implementations. */
    NAMED(AMPI_DTID_MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX", float _Complex, K_CPX),
    BASIC(MPI_C_DOUBLE_COMPLEX, double _Complex, K_CPX),
    BASIC(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, K_CPX),
    BASIC(MPI_AINT, MPI_Aint, K_INT),
    BASIC(MPI_OFFSET, MPI_Offset, K_INT),
    BASIC(MPI_COUNT, MPI_Count, K_INT),
    BASIC(MPI_PACKED, unsigned char, K_BYT),
    PAIR(MPI_FLOAT_INT, pair_float, float),
    PAIR(MPI_DOUBLE_INT, pair_double, double),
    PAIR(MPI_LONG_INT, pair_long, long),
    TWO(MPI_2INT, int, K_INT),
    PAIR(MPI_SHORT_INT, pair_short, short),
    PAIR(MPI_LONG_DOUBLE_INT, pair_ldouble, long double),
    BASIC(MPI_CXX_BOOL, bool, K_LOG),
    BASIC(MPI_CXX_FLOAT_COMPLEX, float _Complex, K_CPX),
    BASIC(MPI_CXX_DOUBLE_COMPLEX, double _Complex, K_CPX),
    BASIC(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex, K_CPX),
    BASIC(MPI_INTEGER, int, K_INT),
    BASIC(MPI_REAL, float, K_FLT),
    BASIC(MPI_DOUBLE_PRECISION, double, K_FLT),
    BASIC(MPI_COMPLEX, float _Complex, K_CPX),
    BASIC(MPI_DOUBLE_COMPLEX, double _Complex, K_CPX),
    BASIC(MPI_LOGICAL, int, K_LOG),
    BASIC(MPI_CHARACTER, char, K_BYT),
    BASIC(MPI_INTEGER1, int8_t, K_INT),
    BASIC(MPI_INTEGER2, int16_t, K_INT),
    BASIC(MPI_INTEGER4, int32_t, K_INT),
    BASIC(MPI_INTEGER8, int64_t, K_INT),
    BASIC(MPI_REAL4, float, K_FLT),
    BASIC(MPI_REAL8, double, K_FLT),
    TWO(MPI_2INTEGER, int, K_INT),
    TWO(MPI_2REAL, float, K_FLT),
    TWO(MPI_2DOUBLE_PRECISION, double, K_FLT),
#ifdef AMP_HAVE_REAL16
    BASIC(MPI_REAL16, amp_real16_t, K_FLT),
    BASIC(MPI_COMPLEX32, amp_complex32_t, K_CPX),
#endif
    BASIC(MPI_COMPLEX8, float _Complex, K_CPX),
    BASIC(MPI_COMPLEX16, double _Complex, K_CPX),
#ifdef AMP_HAVE_INTEGER16
    BASIC(MPI_INTEGER16, amp_int16_t, K_INT),
#endif
    [AMPI_DTID_MPI_LB] = {.sticky = AMP_DT_STICKY_LB, .contig = 1, .predefined = 1, .committed = 1,
                          .combiner = MPI_COMBINER_NAMED, .name = "MPI_LB"},
    [AMPI_DTID_MPI_UB] = {.sticky = AMP_DT_STICKY_UB, .contig = 1, .predefined = 1, .committed = 1,
                          .combiner = MPI_COMBINER_NAMED, .name = "MPI_UB"},
};
/* clang-format on */

