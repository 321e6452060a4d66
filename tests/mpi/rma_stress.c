/*
 * One-sided communication under load, in the manner of MPICH's
 * datatype-pool tests: on several kinds of communicator (world, a
 * duplicate, reversed, halves, even ranks by MPI_Comm_create_group, one
 * from MPI_Intercomm_merge), every rank builds the same random datatypes
 * from the same rand() seed (with a barrier in the middle, so the ranks of
 * a PE draw in turns and those of other PEs at once), and the first member
 * moves data to the last with put, get and accumulate under fence,
 * post-start-complete-wait, lock and lock_all epochs, over windows made
 * and freed again and again.  Then every rank takes an exclusive lock on
 * rank 0 many times to increment a counter by get and put: ranks wait for
 * the lock, asleep on the window, while the holders of other PEs release
 * it; pairs of ranks on different PEs run post-start-complete-wait epochs
 * back to back.  Meant for +p 2 and more ranks than PEs.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { ROUNDS = 12, MAXN = 96, SPAN = 4 * MAXN, COUNTS = 40, PINGS = 400 };

/* A random layout of n ints within SPAN: a vector, or an indexed type
 * with increasing displacements.  Uses rand(). */
static MPI_Datatype random_type(int n)
{
    MPI_Datatype t;
    if (rand() % 2) {
        int stride = 1 + rand() % 4;
        MPI_Type_vector(n, 1, stride, MPI_INT, &t);
    } else {
        int *disp = malloc((size_t)n * sizeof(int)), at = 0;
        for (int i = 0; i < n; i++) {
            disp[i] = at;
            at += 1 + rand() % 4;
        }
        MPI_Type_create_indexed_block(n, 1, disp, MPI_INT, &t);
        free(disp);
    }
    MPI_Type_commit(&t);
    return t;
}

/* Fills buf with -1 and then v + step * i at the i-th int of n of type
 * t. */
static void fill_typed(int *buf, MPI_Datatype t, int n, int v, int step)
{
    int *packed = malloc((size_t)n * sizeof(int)), pos = 0;
    for (int i = 0; i < n; i++)
        packed[i] = v + step * i;
    for (int i = 0; i < SPAN; i++)
        buf[i] = -1;
    MPI_Unpack(packed, n * (int)sizeof(int), &pos, buf, 1, t, MPI_COMM_SELF);
    free(packed);
}

/* Whether the n ints of type t in buf are v, v + 1, ... */
static int check_typed(const int *buf, MPI_Datatype t, int n, int v)
{
    int *packed = malloc((size_t)n * sizeof(int)), pos = 0, ok = 1;
    MPI_Pack(buf, 1, t, packed, n * (int)sizeof(int), &pos, MPI_COMM_SELF);
    for (int i = 0; i < n && ok; i++)
        ok = packed[i] == v + i;
    free(packed);
    return ok;
}

/* Opens (phase 0) or closes (phase 1) an epoch of kind sync between the
 * first member (orig) and the last (target). */
static void epoch(MPI_Win win, MPI_Comm comm, int sync, int phase, int rank,
                  int orig, int target)
{
    MPI_Group g, peer;
    switch (sync) {
    case 0: MPI_Win_fence(0, win); return;
    case 1:
        MPI_Comm_group(comm, &g);
        if (phase == 0 && rank == target) {
            MPI_Group_incl(g, 1, &orig, &peer);
            MPI_Win_post(peer, 0, win);
            MPI_Group_free(&peer);
        }
        if (phase == 0 && rank == orig) {
            MPI_Group_incl(g, 1, &target, &peer);
            MPI_Win_start(peer, 0, win);
            MPI_Group_free(&peer);
        }
        if (phase == 1 && rank == orig)
            MPI_Win_complete(win);
        if (phase == 1 && rank == target)
            MPI_Win_wait(win);
        MPI_Group_free(&g);
        return;
    case 2:
        if (rank == orig && phase == 0)
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
        if (rank == orig && phase == 1)
            MPI_Win_unlock(target, win);
        if (phase == 1)
            MPI_Barrier(comm);
        return;
    default:
        if (rank == orig && phase == 0)
            MPI_Win_lock_all(0, win);
        if (rank == orig && phase == 1)
            MPI_Win_unlock_all(win);
        if (phase == 1)
            MPI_Barrier(comm);
    }
}

/* ROUNDS rounds of put, get and accumulate on one window over comm. */
static void rounds(MPI_Comm comm, unsigned seed)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int orig = 0, target = size - 1;
    int *mem = malloc(SPAN * sizeof(int)), *local = malloc(SPAN * sizeof(int));
    MPI_Win win;
    MPI_Win_create(mem, SPAN * sizeof(int), sizeof(int), MPI_INFO_NULL, comm,
                   &win);
    for (int r = 0; r < ROUNDS; r++) {
        srand(seed + (unsigned)r);
        int n = 1 + rand() % MAXN, op = rand() % 3, sync = rand() % 4;
        MPI_Datatype ot = random_type(n);
        MPI_Barrier(comm); /* the other ranks draw meanwhile */
        MPI_Datatype tt = random_type(n);
        int v = 1000 * r;
        /* put: v + i from the origin; get: v + i from the target;
         * accumulate: v + i at the target from i there plus v */
        if (rank == target)
            fill_typed(mem, tt, n, op == 1 ? v : 0, 1);
        if (rank == orig)
            fill_typed(local, ot, n, op == 1 ? -5 : v, op != 2);
        MPI_Barrier(comm);
        epoch(win, comm, sync, 0, rank, orig, target);
        if (rank == orig && op == 0)
            MPI_Put(local, 1, ot, target, 0, 1, tt, win);
        if (rank == orig && op == 1)
            MPI_Get(local, 1, ot, target, 0, 1, tt, win);
        if (rank == orig && op == 2)
            MPI_Accumulate(local, 1, ot, target, 0, 1, tt, MPI_SUM, win);
        epoch(win, comm, sync, 1, rank, orig, target);
        if (rank == target && op != 1 && !check_typed(mem, tt, n, v))
            MT_FAIL("round %d (op %d, sync %d, %d ints): wrong data at the "
                    "target",
                    r, op, sync, n);
        if (rank == orig && op == 1 && !check_typed(local, ot, n, v))
            MT_FAIL("round %d (get, sync %d, %d ints): wrong data at the "
                    "origin",
                    r, sync, n);
        MPI_Type_free(&ot);
        MPI_Type_free(&tt);
    }
    MPI_Win_free(&win);
    free(mem);
    free(local);
}

/* Every rank adds one to rank 0's counter COUNTS times, under an
 * exclusive lock, by get and put. */
static void contention(void)
{
    int rank, size, *counter;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &counter, &win);
    *counter = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < COUNTS; i++) {
        int v = -1;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        v++;
        MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MT_CHECK_INT_EQ(*counter, size * COUNTS);
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
}

/* Rank r exposes to rank r + size / 2 (on another PE when ranks are
 * mapped in blocks), PINGS epochs in a row: each wait and start may sleep
 * on the window until its partner's complete or post. */
static void pscw_pairs(void)
{
    int rank, size, slot = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int half = size / 2, peer = rank < half ? rank + half : rank - half;
    MPI_Win win;
    MPI_Win_create(&slot, sizeof(int), sizeof(int), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &win);
    MPI_Group world, pg;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &peer, &pg);
    for (int i = 0; half > 0 && rank < 2 * half && i < PINGS; i++) {
        if (rank < half) {
            MPI_Win_post(pg, 0, win);
            MPI_Win_wait(win);
            if (!MT_CHECK_INT_EQ(slot, i))
                break;
        } else {
            MPI_Win_start(pg, 0, win);
            MPI_Put(&i, 1, MPI_INT, peer, 0, 1, MPI_INT, win);
            /* 0 to 20 us: the partner gives up yielding and goes to sleep
             * around the time the complete comes */
            double until = MPI_Wtime() + 1e-6 * (i * 7 % 21);
            while (MPI_Wtime() < until)
                ;
            MPI_Win_complete(win);
        }
    }
    MPI_Group_free(&pg);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm c, local, inter;
    for (unsigned kind = 0; kind < 6; kind++) {
        c = MPI_COMM_NULL;
        switch (kind) {
        case 0: MPI_Comm_dup(MPI_COMM_WORLD, &c); break;
        case 1: MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &c); break;
        case 2:
            MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &c);
            break;
        case 3: {
            MPI_Group world, even;
            int range[1][3] = {{0, size - 1, 2}};
            MPI_Comm_group(MPI_COMM_WORLD, &world);
            MPI_Group_range_incl(world, 1, range, &even);
            if (rank % 2 == 0)
                MPI_Comm_create_group(MPI_COMM_WORLD, even, 5, &c);
            MPI_Group_free(&even);
            MPI_Group_free(&world);
            break;
        }
        case 4:
            if (size < 2)
                break;
            MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &local);
            MPI_Intercomm_create(local, 0, MPI_COMM_WORLD,
                                 rank < size / 2 ? size / 2 : 0, 9, &inter);
            MPI_Intercomm_merge(inter, rank < size / 2, &c);
            MPI_Comm_free(&inter);
            MPI_Comm_free(&local);
            break;
        default: MPI_Comm_dup(MPI_COMM_WORLD, &c); break;
        }
        if (c != MPI_COMM_NULL) {
            rounds(c, 17 * kind + 1);
            MPI_Comm_free(&c);
        }
    }
    contention();
    pscw_pairs();
    return mt_finish_and_finalize();
}
