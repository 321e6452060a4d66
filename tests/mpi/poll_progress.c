/*
 * Ranks that poll let the other ranks of their PE run, so that what they
 * poll for can happen: an MCS queue lock whose trylock callers spin on
 * MPI_Compare_and_swap with MPI_Win_flush while the rank they wait for
 * shares their PE, blocked in a receive its message has reached; a ring of
 * receives completed by MPI_Test, MPI_Testall, MPI_Testany and MPI_Iprobe
 * loops; MPI_Win_test for post-start-complete-wait; and a rank that waits
 * by polling while the rank it waits for computes for a while (not a
 * deadlock, even with a short AMPI_POLL_DEADLOCK).  The lock is MPICH's
 * test suite's design (mcs_mutex.c): a waiter blocks in MPI_Recv for its
 * predecessor's word, a trylock spins on MPI_Compare_and_swap.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { NEXT, TAIL, COUNT, NSLOTS };
enum { ITERS = 60 };

typedef struct mcs {
    MPI_Win win;
    int me;
} mcs_t;

static int fetch(mcs_t *m, int target, int slot)
{
    int v = -7;
    MPI_Fetch_and_op(NULL, &v, MPI_INT, target, slot, MPI_NO_OP, m->win);
    MPI_Win_flush(target, m->win);
    return v;
}

static void store(mcs_t *m, int target, int slot, int v)
{
    MPI_Accumulate(&v, 1, MPI_INT, target, slot, 1, MPI_INT, MPI_REPLACE,
                   m->win);
    MPI_Win_flush(target, m->win);
}

/* Queues up behind the tail (rank 0's TAIL), then waits in MPI_Recv for
 * the predecessor's word (so the trylock spinners of its PE run
 * meanwhile). */
static void lock(mcs_t *m)
{
    store(m, m->me, NEXT, -1);
    int prev;
    MPI_Fetch_and_op(&m->me, &prev, MPI_INT, 0, TAIL, MPI_REPLACE, m->win);
    MPI_Win_flush(0, m->win);
    if (prev == -1)
        return;
    store(m, prev, NEXT, m->me);
    MPI_Recv(NULL, 0, MPI_BYTE, prev, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Takes the lock only when nobody holds it: compare-and-swap. */
static int trylock(mcs_t *m)
{
    int nobody = -1, prev;
    store(m, m->me, NEXT, -1);
    MPI_Compare_and_swap(&m->me, &nobody, &prev, MPI_INT, 0, TAIL, m->win);
    MPI_Win_flush(0, m->win);
    return prev == -1;
}

static void unlock(mcs_t *m)
{
    int next = fetch(m, m->me, NEXT);
    if (next == -1) {
        int nobody = -1, tail;
        MPI_Compare_and_swap(&nobody, &m->me, &tail, MPI_INT, 0, TAIL, m->win);
        MPI_Win_flush(0, m->win);
        if (tail == m->me)
            return;
        while ((next = fetch(m, m->me, NEXT)) == -1) /* the successor comes */
            ;
    }
    MPI_Send(NULL, 0, MPI_BYTE, next, 11, MPI_COMM_WORLD);
}

static void mcs_lock(int rank, int size)
{
    mcs_t m = {MPI_WIN_NULL, rank};
    int *mem;
    MPI_Win_allocate(NSLOTS * sizeof(int), sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &mem, &m.win);
    mem[NEXT] = mem[TAIL] = -1;
    mem[COUNT] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, m.win);
    for (int i = 0; i < ITERS; i++) {
        if (rank % 2)
            while (!trylock(&m))
                ;
        else
            lock(&m);
        store(&m, 0, COUNT, fetch(&m, 0, COUNT) + 1);
        unlock(&m);
    }
    MPI_Win_unlock_all(m.win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MT_CHECK_INT_EQ(mem[COUNT], ITERS * size);
    MPI_Win_free(&m.win);
}

/* Rank 0 starts a token round the ring; every other rank polls for it
 * (with the test call of its kind) before passing it on. */
static void ring(int rank, int size)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int token = -1, flag = 0, index;
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (rank == 0)
        token = 42;
    if (rank == 0 && size > 1)
        MPI_Send(&token, 1, MPI_INT, right, 7, MPI_COMM_WORLD);
    if (rank == 0 && size > 1)
        token = -1;
    if (size == 1)
        return;
    switch (rank % 4) {
    case 0:
        MPI_Irecv(&token, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &req[0]);
        while (!flag)
            MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
        break;
    case 1:
        MPI_Irecv(&token, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &req[1]);
        while (!flag)
            MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE);
        break;
    case 2:
        MPI_Irecv(&token, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &req[0]);
        while (!flag)
            MPI_Testany(2, req, &index, &flag, MPI_STATUS_IGNORE);
        break;
    default:
        while (!flag)
            MPI_Iprobe(left, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        MPI_Recv(&token, 1, MPI_INT, left, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    }
    MT_CHECK_INT_EQ(token, 42);
    if (rank != 0)
        MPI_Send(&token, 1, MPI_INT, right, 7, MPI_COMM_WORLD);
}

/* Each rank exposes to the next and waits with MPI_Win_test. */
static void win_test(int rank, int size)
{
    int cell = -1, flag = 0, next = (rank + 1) % size,
        prev = (rank + size - 1) % size;
    MPI_Win win;
    MPI_Group world, to, from;
    MPI_Win_create(&cell, sizeof(int), sizeof(int), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &win);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &next, &to);
    MPI_Group_incl(world, 1, &prev, &from);
    MPI_Win_post(from, 0, win);
    MPI_Win_start(to, 0, win);
    MPI_Put(&rank, 1, MPI_INT, next, 0, 1, MPI_INT, win);
    MPI_Win_complete(win);
    while (!flag)
        MPI_Win_test(win, &flag);
    MT_CHECK_INT_EQ(cell, prev);
    MPI_Group_free(&to);
    MPI_Group_free(&from);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
}

/* The last rank computes for 0.3 s before it sends; rank 0 polls for it
 * meanwhile. */
static void slow_sender(int rank, int size)
{
    int v = 0, flag = 0;
    if (rank == size - 1) {
        double until = MPI_Wtime() + 0.3;
        while (MPI_Wtime() < until)
            ;
        MPI_Send(&rank, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
    }
    if (rank == 0) {
        MPI_Request req;
        MPI_Irecv(&v, 1, MPI_INT, size - 1, 9, MPI_COMM_WORLD, &req);
        while (!flag)
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        MT_CHECK_INT_EQ(v, size - 1);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mcs_lock(rank, size);
    ring(rank, size);
    win_test(rank, size);
    slow_sender(rank, size);
    return mt_finish_and_finalize();
}
