/* One-sided operations whose targets may run in another process: large
 * puts and gets (past the eager limit), derived layouts on both sides,
 * request-based operations, get-accumulate and compare-and-swap, an
 * exclusive lock that must exclude origins of every process, and an
 * operation outside what a dynamic window's target attached. */
#include "mpitest.h"

#include <stdint.h>
#include <stdlib.h>

#define BIG (256 * 1024) /* doubles: 2 MiB per rank */
#define ROUNDS 20

/* Large and strided puts and gets with the right neighbour. */
static void big(int me, int np)
{
    double *mem;
    MPI_Win win;
    MPI_Win_allocate(BIG * sizeof(double), sizeof(double), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &mem, &win);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    double *src = malloc(BIG * sizeof(double));
    double *got = malloc(BIG * sizeof(double));
    for (int i = 0; i < BIG; i++) {
        src[i] = me * 1e6 + i;
        mem[i] = -1;
    }
    MPI_Win_fence(0, win);
    MPI_Put(src, BIG, MPI_DOUBLE, right, 0, BIG, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < BIG; i += 997)
        MT_CHECK(mem[i] == left * 1e6 + i);
    MT_CHECK(mem[BIG - 1] == left * 1e6 + BIG - 1);
    MPI_Get(got, BIG, MPI_DOUBLE, right, 0, BIG, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < BIG; i += 997)
        MT_CHECK(got[i] == me * 1e6 + i);
    /* Every other double of the first half, into every other double of
     * the target (both sides strided, large). */
    MPI_Datatype every2;
    MPI_Type_vector(BIG / 4, 1, 2, MPI_DOUBLE, &every2);
    MPI_Type_commit(&every2);
    for (int i = 0; i < BIG; i++)
        src[i] = -(me * 1e6 + i);
    MPI_Put(src, 1, every2, right, 1, 1, every2, win);
    MPI_Win_fence(0, win);
    for (int k = 0; k < BIG / 4; k += 331) {
        MT_CHECK(mem[1 + 2 * k] == -(left * 1e6 + 2 * k));
        MT_CHECK(mem[2 * k] == left * 1e6 + 2 * k);
    }
    MPI_Get(got, 1, every2, right, 1, 1, every2, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    for (int k = 0; k < BIG / 4; k += 331)
        MT_CHECK(got[2 * k] == -(me * 1e6 + 2 * k));
    MPI_Type_free(&every2);
    free(src);
    free(got);
    MPI_Win_free(&win);
}

/* Request-based operations, get-accumulate and compare-and-swap on
 * rank 0's window, in one lock-all epoch. */
static void atomics(int me, int np)
{
    int64_t *mem;
    MPI_Win win;
    MPI_Win_allocate(4 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &mem, &win);
    mem[0] = mem[1] = mem[2] = 0;
    mem[3] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    int64_t one = 1, old = -5, mine = me;
    MPI_Request req[2];
    MPI_Rget_accumulate(&one, 1, MPI_INT64_T, &old, 1, MPI_INT64_T, 0, 0, 1,
                        MPI_INT64_T, MPI_SUM, win, &req[0]);
    MPI_Raccumulate(&mine, 1, MPI_INT64_T, 0, 1, 1, MPI_INT64_T, MPI_SUM, win,
                    &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    MT_CHECK(old >= 0 && old < np);
    /* Whoever swaps -1 first wins slot 3; the others see the winner. */
    int64_t minus1 = -1, prev = -7;
    MPI_Compare_and_swap(&mine, &minus1, &prev, MPI_INT64_T, 0, 3, win);
    MPI_Win_flush(0, win);
    MT_CHECK(prev == -1 || (prev >= 0 && prev < np));
    int64_t seen = -9;
    MPI_Fetch_and_op(NULL, &seen, MPI_INT64_T, 0, 3, MPI_NO_OP, win);
    MPI_Win_flush_all(win);
    MT_CHECK(seen >= 0 && seen < np);
    if (prev == -1)
        MT_CHECK_INT_EQ(seen, me);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        MT_CHECK_INT_EQ(mem[0], np);
        MT_CHECK_INT_EQ(mem[1], (int64_t)np * (np - 1) / 2);
    }
    MPI_Win_free(&win);
}

/* A read-modify-write under an exclusive lock: no update may be lost. */
static void exclusive(int me, int np)
{
    int *mem;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &mem, &win);
    *mem = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    int target = np - 1;
    for (int i = 0; i < ROUNDS; i++) {
        int v = -1;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
        MPI_Get(&v, 1, MPI_INT, target, 0, 1, MPI_INT, win);
        MPI_Win_flush(target, win);
        v++;
        MPI_Put(&v, 1, MPI_INT, target, 0, 1, MPI_INT, win);
        MPI_Win_unlock(target, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == target)
        MT_CHECK_INT_EQ(*mem, np * ROUNDS);
    (void)me;
    MPI_Win_free(&win);
}

/* An operation outside what the target attached fails with
 * MPI_ERR_RMA_RANGE: at the call when the target shares this process, at
 * the synchronization that waits for it otherwise. */
static void outside(int me, int np)
{
    MPI_Win win;
    int *mem = calloc(4, sizeof(int));
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_attach(win, mem, 4 * sizeof(int));
    MPI_Aint mine, *all = malloc((size_t)np * sizeof(MPI_Aint));
    MPI_Get_address(mem, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
    int right = (me + 1) % np, v = 7;
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    int rc = MPI_Put(&v, 1, MPI_INT, right, all[right] + 4 * sizeof(int), 1,
                     MPI_INT, win);
    if (rc == MPI_SUCCESS)
        rc = MPI_Win_flush(right, win);
    MT_CHECK_ERR_CLASS(rc, MPI_ERR_RMA_RANGE);
    /* In range, it works (and the epoch is still usable). */
    MT_CHECK_INT_EQ(MPI_Put(&v, 1, MPI_INT, right, all[right], 1, MPI_INT, win),
                    MPI_SUCCESS);
    MT_CHECK_INT_EQ(MPI_Win_unlock(right, win), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    MT_CHECK_INT_EQ(mem[0], 7);
    MPI_Win_detach(win, mem);
    MPI_Win_free(&win);
    free(all);
    free(mem);
}

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    big(me, np);
    atomics(me, np);
    exclusive(me, np);
    outside(me, np);
    return mt_finish_and_finalize();
}
