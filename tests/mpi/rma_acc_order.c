/*
 * Accumulates of one origin on one target are applied in the order they
 * were issued (MPI's default accumulate_ordering), whatever their sizes:
 * a large accumulate (data above the eager limit, which a target in
 * another process fetches from the origin) followed by small ones on the
 * same elements.  Every rank accumulates on the next one, in a fence
 * epoch and in a lock epoch, with first accumulates of several sizes:
 *
 *   MPI_Accumulate(REPLACE, v) on elements 0 .. n-1, then
 *   MPI_Accumulate(REPLACE, v + 1) on element 0,
 *   MPI_Accumulate(REPLACE, v + 2) on elements 1 and 2,
 *   MPI_Get_accumulate(NO_OP) of element 3 (reads v),
 *   MPI_Compare_and_swap(v -> v + 3) on element 4 (reads v),
 *   MPI_Fetch_and_op(SUM, 1) on element 5 (reads v);
 *
 * the target then holds v + 1, v + 2, v + 2, v, v + 3, v + 1, and v
 * beyond.  Before, a target in another process over UCX applied the small
 * accumulates as they came, while it still fetched the large one, which
 * then overwrote them (MPICH's large_small_acc).
 */
#include "mpitest.h"
#include <stdint.h>
#include <stdlib.h>

#define MAX_N 16384 /* elements of the window (128 KiB) */

/* The origin's buffers, untouched until the epoch ends. */
typedef struct origin {
    uint64_t *big, one, two[2], swap, cmp, inc, got[3];
} origin_t;

static void issue(origin_t *o, int n, uint64_t v, int target, MPI_Win win)
{
    for (int i = 0; i < n; i++)
        o->big[i] = v;
    o->one = v + 1;
    o->two[0] = o->two[1] = v + 2;
    o->swap = v + 3;
    o->cmp = v;
    o->inc = 1;
    MT_CHECK_MPI(MPI_Accumulate(o->big, n, MPI_UINT64_T, target, 0, n,
                                MPI_UINT64_T, MPI_REPLACE, win));
    MT_CHECK_MPI(MPI_Accumulate(&o->one, 1, MPI_UINT64_T, target, 0, 1,
                                MPI_UINT64_T, MPI_REPLACE, win));
    MT_CHECK_MPI(MPI_Accumulate(o->two, 2, MPI_UINT64_T, target, 1, 2,
                                MPI_UINT64_T, MPI_REPLACE, win));
    MT_CHECK_MPI(MPI_Get_accumulate(&o->inc, 1, MPI_UINT64_T, &o->got[0], 1,
                                    MPI_UINT64_T, target, 3, 1, MPI_UINT64_T,
                                    MPI_NO_OP, win));
    MT_CHECK_MPI(MPI_Compare_and_swap(&o->swap, &o->cmp, &o->got[1],
                                      MPI_UINT64_T, target, 4, win));
    MT_CHECK_MPI(MPI_Fetch_and_op(&o->inc, &o->got[2], MPI_UINT64_T, target, 5,
                                  MPI_SUM, win));
}

static void check_origin(const uint64_t got[3], uint64_t v)
{
    MT_CHECK_INT_EQ((long long)got[0], (long long)v);
    MT_CHECK_INT_EQ((long long)got[1], (long long)v);
    MT_CHECK_INT_EQ((long long)got[2], (long long)v);
}

static void check_target(const uint64_t *buf, int n, uint64_t v)
{
    const uint64_t head[6] = {v + 1, v + 2, v + 2, v, v + 3, v + 1};
    int bad = 0;
    for (int i = 0; i < n; i++) {
        uint64_t want = i < 6 ? head[i] : v;
        if (buf[i] != want && bad++ < 4)
            MT_FAIL("n %d: element %d is %llu, expected %llu", n, i,
                    (unsigned long long)buf[i], (unsigned long long)want);
    }
}

int main(int argc, char **argv)
{
    MT_CHECK_MPI(MPI_Init(&argc, &argv));
    int rank, size;
    MT_CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int target = (rank + 1) % size;
    uint64_t *buf;
    origin_t o = {.big = malloc(MAX_N * sizeof(uint64_t))};
    MPI_Win win;
    MT_CHECK(o.big != NULL);
    MT_CHECK_MPI(MPI_Win_allocate(MAX_N * sizeof(uint64_t), sizeof(uint64_t),
                                  MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win));
    const int sizes[] = {6, 1024, MAX_N};
    uint64_t v = 100;
    for (int k = 0; k < 3; k++, v += 100) {
        int n = sizes[k];
        MT_CHECK_MPI(MPI_Win_fence(0, win));
        issue(&o, n, v, target, win);
        MT_CHECK_MPI(MPI_Win_fence(0, win));
        check_origin(o.got, v);
        check_target(buf, n, v);
        MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* checked: next epoch */
        v += 50;
        MT_CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
        issue(&o, n, v, target, win);
        MT_CHECK_MPI(MPI_Win_unlock(target, win));
        check_origin(o.got, v);
        MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        MT_CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
        check_target(buf, n, v);
        MT_CHECK_MPI(MPI_Win_unlock(rank, win));
    }
    MT_CHECK_MPI(MPI_Win_free(&win));
    free(o.big);
    return mt_finish_and_finalize();
}
