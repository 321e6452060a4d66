/* Passive target: exclusive locks serialize read-modify-write, shared
 * locks read, lock_all with flushes and request-based operations, a mutex
 * made of MPI_Compare_and_swap. */
#include "mpitest.h"

#include <ampi.h>

#include <stdlib.h>

#define ROUNDS 20

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int *mem;
    MPI_Win win;
    /* [0] counter (exclusive locks), [1] mutex, [2] counter (mutex),
     * [3 + r] slot of rank r (lock_all). */
    MPI_Win_allocate((MPI_Aint)(3 + np) * sizeof(int), sizeof(int),
                     MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < 3 + np; i++)
        mem[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    /* Unprotected get-increment-put: only the exclusive lock keeps updates
     * from getting lost. */
    for (int i = 0; i < ROUNDS; i++) {
        int v;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        AMPI_Yield(); /* let another rank try to get in meanwhile */
        v++;
        MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int v = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    MT_CHECK_INT_EQ(v, ROUNDS * np);

    /* A mutex on rank 0's [1] from compare-and-swap; [2] is counted under
     * it with plain get and put. */
    int zero = 0, one = 1;
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < ROUNDS; i++) {
        int old = 1;
        while (old != 0) {
            MPI_Compare_and_swap(&one, &zero, &old, MPI_INT, 0, 1, win);
            MPI_Win_flush(0, win);
            if (old != 0)
                AMPI_Yield();
        }
        int c;
        MPI_Get(&c, 1, MPI_INT, 0, 2, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        c++;
        MPI_Put(&c, 1, MPI_INT, 0, 2, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        int prev;
        MPI_Fetch_and_op(&zero, &prev, MPI_INT, 0, 1, MPI_REPLACE, win);
        MPI_Win_flush(0, win);
        MT_CHECK_INT_EQ(prev, 1);
    }
    /* Request-based: each rank writes its slot at every rank. */
    MPI_Request *reqs = malloc((size_t)np * sizeof(MPI_Request));
    int tag = 7 * me + 1;
    for (int r = 0; r < np; r++)
        MPI_Rput(&tag, 1, MPI_INT, r, 3 + me, 1, MPI_INT, win, &reqs[r]);
    MPI_Waitall(np, reqs, MPI_STATUSES_IGNORE);
    MPI_Win_flush_all(win);
    free(reqs);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    int c = -1;
    MPI_Request rq;
    MPI_Rget(&c, 1, MPI_INT, 0, 2, 1, MPI_INT, win, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MT_CHECK_INT_EQ(c, ROUNDS * np);
    int sum = 0, got = 0;
    MPI_Raccumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Rget_accumulate(NULL, 0, MPI_INT, &got, 1, MPI_INT, 0, 0, 1, MPI_INT,
                        MPI_NO_OP, win, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MT_CHECK(got > ROUNDS * np && got <= (ROUNDS + 1) * np);
    MPI_Win_unlock_all(win);
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int r = 0; r < np; r++)
        sum += mem[3 + r] == 7 * r + 1;
    MT_CHECK_INT_EQ(sum, np);
    MPI_Win_free(&win);
    return mt_finish_and_finalize();
}
