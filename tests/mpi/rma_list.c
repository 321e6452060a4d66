/*
 * rma_list: a linked list shared through a dynamic window, the way
 * one-sided codes build one.  Every rank appends ELEMS elements of its own
 * (memory it attached): it swaps the shared tail word (rank 0's) for its
 * new element with MPI_Fetch_and_op(MPI_REPLACE), then writes the link of
 * the element it got back with MPI_Accumulate(MPI_REPLACE), each under an
 * exclusive lock of its target.  Every rank then walks the list from rank
 * 0's head, reading each word under an exclusive lock (lock, get, unlock)
 * and polling where a link is not written yet, with MPI_Iprobe calls in
 * between (another rank's memory, often in another process, while that
 * rank may still be appending).  Each rank walks the list once it has
 * appended its elements; a rank that is done walking waits in a barrier,
 * whose messages cross the window traffic.  Each rank must find
 * every element of every rank exactly once.  Under ampirun with several
 * ranks per PE, the PEs of both processes serve each other's operations
 * while their own ranks poll.
 */
#include "mpitest.h"

#include <stdint.h>
#include <stdlib.h>

enum { ELEMS = 300 };
#define WAIT_S 20.0 /* a wait this long is a hang: reported, then stop */

/* An element: the next one (encoded, -1: not linked yet) and a value. */
typedef struct elem {
    int64_t next, value;
} elem_t;

/* Element i of rank r (index ELEMS of rank 0: the head). */
static int64_t code(int r, int i)
{
    return (int64_t)r * (ELEMS + 1) + i;
}

/* Word field of element c, under an exclusive lock. */
static int64_t read_word(MPI_Win win, const MPI_Aint *base, int64_t c,
                         int field)
{
    int r = (int)(c / (ELEMS + 1)), i = (int)(c % (ELEMS + 1));
    MPI_Aint at = base[r] + (MPI_Aint)(i * sizeof(elem_t) +
                                       (size_t)field * sizeof(int64_t));
    int64_t v;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, r, 0, win);
    MPI_Get(&v, 1, MPI_INT64_T, r, at, 1, MPI_INT64_T, win);
    MPI_Win_unlock(r, win);
    return v;
}

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    elem_t *mine = calloc(ELEMS + 1, sizeof(elem_t));
    int64_t *tail = calloc(1, sizeof(int64_t));
    for (int i = 0; i <= ELEMS; i++) {
        mine[i].next = -1;
        mine[i].value = (int64_t)me * ELEMS + i;
    }
    *tail = code(0, ELEMS);
    MPI_Win_attach(win, mine, (ELEMS + 1) * sizeof(elem_t));
    MPI_Win_attach(win, tail, sizeof(int64_t));
    MPI_Aint *base = malloc((size_t)np * sizeof(MPI_Aint)), tail_disp;
    MPI_Get_address(mine, &base[me]);
    MPI_Get_address(tail, &tail_disp);
    MPI_Allgather(MPI_IN_PLACE, 1, MPI_AINT, base, 1, MPI_AINT,
                  MPI_COMM_WORLD);
    MPI_Bcast(&tail_disp, 1, MPI_AINT, 0, MPI_COMM_WORLD);

    for (int i = 0; i < ELEMS; i++) {
        int64_t mine_c = code(me, i), prev;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Fetch_and_op(&mine_c, &prev, MPI_INT64_T, 0, tail_disp,
                         MPI_REPLACE, win);
        MPI_Win_unlock(0, win);
        int pr = (int)(prev / (ELEMS + 1)), pi = (int)(prev % (ELEMS + 1));
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, pr, 0, win);
        MPI_Accumulate(&mine_c, 1, MPI_INT64_T, pr,
                       base[pr] + (MPI_Aint)(pi * sizeof(elem_t)), 1,
                       MPI_INT64_T, MPI_REPLACE, win);
        MPI_Win_unlock(pr, win);
    }

    char *seen = calloc((size_t)np * ELEMS, 1);
    int64_t at = code(0, ELEMS);
    int found = 0, stuck = 0;
    double start = MPI_Wtime();
    while (found < np * ELEMS && !stuck) {
        int64_t next = read_word(win, base, at, 0);
        if (next < 0) { /* not linked yet: poll */
            int flag;
            for (int k = 0; k < 4; k++)
                MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
                           MPI_STATUS_IGNORE);
            stuck = MPI_Wtime() - start > WAIT_S;
            continue;
        }
        int64_t v = read_word(win, base, next, 1);
        if (v < 0 || v >= (int64_t)np * ELEMS || seen[v]) {
            MT_FAIL("element value %lld found twice or out of range",
                    (long long)v);
            break;
        }
        seen[v] = 1;
        found++;
        at = next;
        start = MPI_Wtime();
    }
    if (stuck)
        MT_FAIL("rank %d: a link stayed unwritten for %.0f s after %d of %d "
                "elements",
                me, WAIT_S, found, np * ELEMS);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_detach(win, mine);
    MPI_Win_detach(win, tail);
    MPI_Win_free(&win);
    free(seen);
    free(base);
    free(mine);
    free(tail);
    return mt_finish_and_finalize();
}
