/*
 * rma_lock_fair: exclusive locks of one member are granted in the order
 * they were asked for, whether the asker runs in the member's process or
 * in another.  In each round one rank (the writer) locks rank 0's member
 * exclusively to put the round's number there, while every other rank
 * spins on the same lock (lock exclusive, get, unlock) until it sees that
 * number, as MPICH's rma/linked_list waits for a link.  Across processes,
 * the lock requests of the spinners of the other process queue at rank 0's
 * process while its own ranks lock it directly: a writer that is a rank of
 * that process starved as long as the queue was never empty when the lock
 * was released (a grant went to the next request of the other process
 * every time).  Every rank is the writer of some rounds, so writers local
 * and remote to rank 0 both meet spinners local and remote.
 */
#include "mpitest.h"

#include <stdint.h>
#include <stdlib.h>

enum { ROUNDS_PER_WRITER = 12 };
#define WAIT_S 30.0 /* a wait this long is a hang: reported, then stop */

/* Rank 0's value, read under an exclusive lock. */
static int64_t read_value(MPI_Win win)
{
    int64_t v = -1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Get(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win);
    MPI_Win_unlock(0, win);
    return v;
}

static void write_value(MPI_Win win, int64_t v)
{
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Put(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win);
    MPI_Win_unlock(0, win);
}

/* Spins until rank 0's value is at least round; whether it got there. */
static int wait_round(MPI_Win win, int64_t round)
{
    double start = MPI_Wtime();
    int64_t v = -1;
    while ((v = read_value(win)) < round && MPI_Wtime() - start < WAIT_S)
        ;
    return v >= round;
}

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int64_t *mem;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &mem, &win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
    *mem = 0;
    MPI_Win_unlock(me, win);
    MPI_Barrier(MPI_COMM_WORLD);

    int rounds = np > 1 ? ROUNDS_PER_WRITER * np : 0;
    for (int64_t round = 1; round <= rounds; round++) {
        int writer = (int)(round % np);
        if (me == writer) {
            double start = MPI_Wtime();
            write_value(win, round);
            if (MPI_Wtime() - start >= WAIT_S) {
                MT_FAIL("round %lld: the writer waited over %g s for the "
                        "lock while %d ranks spun on it",
                        (long long)round, WAIT_S, np - 1);
                break;
            }
        } else if (!wait_round(win, round)) {
            MT_FAIL("round %lld: rank %d's value never came (it never got "
                    "the lock)",
                    (long long)round, writer);
            break;
        }
    }
    /* After the rounds, the value is the last round's. */
    MPI_Barrier(MPI_COMM_WORLD);
    MT_CHECK_INT_EQ(read_value(win), rounds);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    return mt_finish_and_finalize();
}
