/*
 * The accumulate family on the pair types, whose C structs have padding
 * (MPI_SHORT_INT, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT,
 * MPI_LONG_DOUBLE_INT; MPI_2INT has none): MPI_Accumulate with
 * MPI_REPLACE and MPI_MAXLOC, MPI_Get_accumulate with MPI_NO_OP and
 * MPI_REPLACE, MPI_Fetch_and_op with both.  Each rank works on the window
 * of the next rank (in another process when there are several), under a
 * lock; values and indices land in the struct fields, the padding of the
 * target is never written.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { N = 5 };

/* One pair type: its struct, the value and index of element i of round k
 * for origin rank o, and the checks.  The window holds N structs filled
 * with 0xee bytes first, so writes into the padding show. */
#define PAIR_TEST(NAME, V, MPITYPE)                                            \
    typedef struct {                                                           \
        V v;                                                                   \
        int i;                                                                 \
    } NAME##_t;                                                                \
    static void NAME##_fill(NAME##_t *p, int o, int k)                         \
    {                                                                          \
        for (int i = 0; i < N; i++) {                                          \
            memset(&p[i], 0x5a, sizeof(p[i]));                                 \
            p[i].v = (V)(o * 100 + k * 10 + i);                                \
            p[i].i = o * 1000 + k * 10 + i;                                    \
        }                                                                      \
    }                                                                          \
    static int NAME##_same(const NAME##_t *a, const NAME##_t *b)               \
    {                                                                          \
        for (int i = 0; i < N; i++)                                            \
            if (a[i].v != b[i].v || a[i].i != b[i].i)                          \
                return 0;                                                      \
        return 1;                                                              \
    }                                                                          \
    static void NAME##_run(int rank, int size)                                 \
    {                                                                          \
        NAME##_t *mem, expect[N], got[N], origin[N];                           \
        int target = (rank + 1) % size, from = (rank + size - 1) % size;       \
        MPI_Win win;                                                           \
        MPI_Win_allocate(N * sizeof(NAME##_t), sizeof(NAME##_t),               \
                         MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);           \
        memset(mem, 0xee, N * sizeof(NAME##_t));                               \
        NAME##_fill(mem, -1, 0);                                               \
        MPI_Barrier(MPI_COMM_WORLD);                                           \
        /* Replace, then read back with no-op. */                              \
        NAME##_fill(origin, rank, 1);                                          \
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);                      \
        MT_CHECK_MPI(MPI_Accumulate(origin, N, MPITYPE, target, 0, N, MPITYPE, \
                                    MPI_REPLACE, win));                        \
        MPI_Win_flush(target, win);                                            \
        memset(got, 0, sizeof(got));                                           \
        MT_CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPITYPE, got, N, MPITYPE,     \
                                        target, 0, N, MPITYPE, MPI_NO_OP,      \
                                        win));                                 \
        MPI_Win_flush(target, win);                                            \
        MT_CHECK(NAME##_same(got, origin));                                    \
        /* Replace and fetch the old values. */                                \
        NAME##_fill(origin, rank, 2);                                          \
        MT_CHECK_MPI(MPI_Get_accumulate(origin, N, MPITYPE, got, N, MPITYPE,   \
                                        target, 0, N, MPITYPE, MPI_REPLACE,    \
                                        win));                                 \
        MPI_Win_flush(target, win);                                            \
        NAME##_fill(expect, rank, 1);                                          \
        MT_CHECK(NAME##_same(got, expect));                                    \
        /* Maxloc: round 3's values are larger. */                             \
        NAME##_fill(origin, rank, 3);                                          \
        MT_CHECK_MPI(MPI_Accumulate(origin, N, MPITYPE, target, 0, N, MPITYPE, \
                                    MPI_MAXLOC, win));                         \
        MPI_Win_flush(target, win);                                            \
        /* One element: fetch-and-op, no-op then replace. */                   \
        NAME##_t one = origin[4], old;                                         \
        one.v = (V)7;                                                          \
        one.i = 77;                                                            \
        MT_CHECK_MPI(                                                          \
            MPI_Fetch_and_op(NULL, &old, MPITYPE, target, 4, MPI_NO_OP, win)); \
        MPI_Win_flush(target, win);                                            \
        MT_CHECK(old.v == origin[4].v && old.i == origin[4].i);                \
        MT_CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPITYPE, target, 4,          \
                                      MPI_REPLACE, win));                      \
        MPI_Win_unlock(target, win);                                           \
        MT_CHECK(old.v == origin[4].v && old.i == origin[4].i);                \
        MPI_Barrier(MPI_COMM_WORLD);                                           \
        /* The rank before wrote this one's memory. */                         \
        NAME##_fill(expect, from, 3);                                          \
        expect[4].v = (V)7;                                                    \
        expect[4].i = 77;                                                      \
        MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);                           \
        MT_CHECK(NAME##_same(mem, expect));                                    \
        MPI_Win_unlock(rank, win);                                             \
        MPI_Win_free(&win);                                                    \
    }

PAIR_TEST(short_int, short, MPI_SHORT_INT)
PAIR_TEST(float_int, float, MPI_FLOAT_INT)
PAIR_TEST(double_int, double, MPI_DOUBLE_INT)
PAIR_TEST(long_int, long, MPI_LONG_INT)
PAIR_TEST(long_double_int, long double, MPI_LONG_DOUBLE_INT)
PAIR_TEST(two_int, int, MPI_2INT)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    short_int_run(rank, size);
    float_int_run(rank, size);
    double_int_run(rank, size);
    long_int_run(rank, size);
    long_double_int_run(rank, size);
    two_int_run(rank, size);
    return mt_finish_and_finalize();
}
