/* Windows across the processes of one node (docs/rma.md, "Across the
 * processes of a node"): MPI_COMM_TYPE_SHARED holds every rank of the node
 * (the tests run on one), MPI_Win_allocate_shared over it gives memory
 * every rank loads and stores, whichever process it runs in, in every
 * synchronization mode; MPI_Win_allocate and MPI_Win_create windows take
 * puts, gets and accumulates from every process, and the accumulates stay
 * atomic between origins of all processes and the target's own. */
#include "mpitest.h"

#include <stdint.h>
#include <stdlib.h>

#define ROUNDS 200

/* The node's communicator holds the same ranks as the host's. */
static MPI_Comm node_comm(void)
{
    MPI_Comm node, host;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                        &node);
    MPI_Comm_split_type(MPI_COMM_WORLD, AMPI_COMM_TYPE_HOST, 0, MPI_INFO_NULL,
                        &host);
    int result;
    MPI_Comm_compare(node, host, &result);
    MT_CHECK(result == MPI_CONGRUENT);
    MPI_Comm_free(&host);
    return node;
}

/* Segments of different sizes (rank 1's empty), stores by their owners,
 * loads by everyone through MPI_Win_shared_query, in the unified model
 * under MPI_Win_lock_all with MPI_Win_sync and a barrier. */
static void shared_loads(MPI_Comm node, int me, int np)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    int n = me == 1 ? 0 : 100 + me;
    int64_t *mine;
    MPI_Win win;
    MT_CHECK_MPI(MPI_Win_allocate_shared(n * (MPI_Aint)sizeof(int64_t),
                                         sizeof(int64_t), info, node, &mine,
                                         &win));
    MPI_Info_free(&info);
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < n; i++)
        mine[i] = (int64_t)me << 32 | i;
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    for (int r = 0; r < np; r++) {
        MPI_Aint size;
        int unit;
        int64_t *base;
        MPI_Win_shared_query(win, r, &size, &unit, &base);
        int want = r == 1 ? 0 : 100 + r;
        MT_CHECK_INT_EQ(size, want * (MPI_Aint)sizeof(int64_t));
        MT_CHECK_INT_EQ(unit, sizeof(int64_t));
        for (int i = 0; i < want; i += 7)
            MT_CHECK_INT_EQ(base[i], (int64_t)r << 32 | i);
    }
    /* MPI_PROC_NULL: the first member with memory. */
    MPI_Aint size;
    int unit;
    int64_t *first;
    MPI_Win_shared_query(win, MPI_PROC_NULL, &size, &unit, &first);
    MT_CHECK_INT_EQ(first[1], 1);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
}

/* A counter in rank 0's segment that every rank increments ROUNDS times
 * with a plain load and store under the exclusive lock of rank 0, then
 * once more with MPI_Accumulate in a fence epoch, and reads with MPI_Get
 * in a post-start-complete-wait epoch. */
static void shared_sync(MPI_Comm node, int me, int np)
{
    long *mine;
    MPI_Win win;
    MPI_Win_allocate_shared(me == 0 ? 2 * sizeof(long) : 0, sizeof(long),
                            MPI_INFO_NULL, node, &mine, &win);
    MPI_Aint size;
    int unit;
    long *counter;
    MPI_Win_shared_query(win, 0, &size, &unit, &counter);
    if (me == 0)
        counter[0] = counter[1] = 0;
    MPI_Barrier(node);
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        long v = counter[0];
        counter[0] = v + 1;
        MPI_Win_unlock(0, win);
    }
    MPI_Win_fence(0, win);
    long one = 1;
    MPI_Accumulate(&one, 1, MPI_LONG, 0, 1, 1, MPI_LONG, MPI_SUM, win);
    MPI_Win_fence(0, win);
    MT_CHECK_INT_EQ(counter[0], (long)np * ROUNDS);
    MT_CHECK_INT_EQ(counter[1], np);
    /* PSCW: rank 0 exposes to everyone, everyone reads it. */
    MPI_Group world, others;
    MPI_Comm_group(node, &world);
    int zero = 0;
    if (me == 0) {
        MPI_Win_post(world, 0, win);
    }
    MPI_Group_incl(world, 1, &zero, &others);
    MPI_Win_start(others, 0, win);
    long got[2] = {-1, -1};
    MPI_Get(got, 2, MPI_LONG, 0, 0, 2, MPI_LONG, win);
    MPI_Win_complete(win);
    if (me == 0)
        MPI_Win_wait(win);
    MT_CHECK_INT_EQ(got[0], (long)np * ROUNDS);
    MT_CHECK_INT_EQ(got[1], np);
    MPI_Group_free(&others);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
}

/* MPI_Fetch_and_op on rank 0's counter by every rank, ROUNDS times, under
 * MPI_Win_lock_all: each fetched value comes once (atomic between every
 * process's origins, the target's own process included), and MPI_Compare_
 * and_swap then claims a slot once. */
static void atomics(MPI_Win win, long *mem, int me, int np)
{
    long one = 1, old, *seen = calloc((size_t)np * ROUNDS, sizeof(long));
    long *mine = malloc(ROUNDS * sizeof(long));
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 0, MPI_SUM, win);
        MPI_Win_flush(0, win);
        mine[i] = old;
    }
    long claim = me + 1, none = 0, had = -1;
    MPI_Compare_and_swap(&claim, &none, &had, MPI_LONG, 0, 1, win);
    MPI_Win_unlock_all(win);
    MPI_Allgather(mine, ROUNDS, MPI_LONG, seen, ROUNDS, MPI_LONG,
                  MPI_COMM_WORLD);
    char *hit = calloc((size_t)np * ROUNDS, 1);
    for (int i = 0; i < np * ROUNDS; i++) {
        MT_CHECK(seen[i] >= 0 && seen[i] < (long)np * ROUNDS);
        if (seen[i] >= 0 && seen[i] < (long)np * ROUNDS) {
            MT_CHECK(!hit[seen[i]]);
            hit[seen[i]] = 1;
        }
    }
    int won = had == 0, winners = 0;
    MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MT_CHECK_INT_EQ(winners, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        MT_CHECK_INT_EQ(mem[0], (long)np * ROUNDS);
        MT_CHECK(mem[1] >= 1 && mem[1] <= np);
    }
    free(hit);
    free(mine);
    free(seen);
}

/* Puts and gets with the right neighbour, contiguous and strided, and a
 * get-accumulate, on a window of memory the program (create) or the
 * runtime (allocate) gave. */
static void puts_gets(MPI_Win win, double *mem, int n, int me, int np)
{
    int right = (me + 1) % np, left = (me + np - 1) % np;
    double *src = malloc((size_t)n * sizeof(double));
    double *got = malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; i++) {
        src[i] = me * 1e6 + i;
        mem[i] = -1;
    }
    MPI_Win_fence(0, win);
    MPI_Put(src, n, MPI_DOUBLE, right, 0, n, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < n; i += 97)
        MT_CHECK_DBL_EQ(mem[i], left * 1e6 + i);
    MPI_Datatype every3;
    MPI_Type_vector(n / 3, 1, 3, MPI_DOUBLE, &every3);
    MPI_Type_commit(&every3);
    MPI_Get(got, n / 3, MPI_DOUBLE, right, 1, 1, every3, win);
    MPI_Win_fence(0, win);
    for (int k = 0; k < n / 3; k += 31)
        MT_CHECK_DBL_EQ(got[k], me * 1e6 + 1 + 3 * k);
    double add[4] = {1, 2, 3, 4}, before[4];
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Get_accumulate(add, 4, MPI_DOUBLE, before, 4, MPI_DOUBLE, right, 0, 4,
                       MPI_DOUBLE, MPI_SUM, win);
    MPI_Win_unlock(right, win);
    for (int i = 0; i < 4; i++)
        MT_CHECK_DBL_EQ(before[i], me * 1e6 + i);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 4; i++)
        MT_CHECK_DBL_EQ(mem[i], left * 1e6 + i + 1 + i);
    MPI_Type_free(&every3);
    free(src);
    free(got);
}

/* Puts and gets whose target type is a basic type resized (its one block
 * from the basic type, lb and extent of its own), as MPICH's suite builds
 * them: on a member of another process they go through cross-memory
 * copies, which take the type's one block as the whole element. */
static void resized_targets(MPI_Win win, int *mem, int n, int me, int np)
{
    int right = (me + 1) % np, left = (me + np - 1) % np;
    MPI_Datatype spread;
    MPI_Type_create_resized(MPI_INT, -8, 3 * sizeof(int), &spread);
    MPI_Type_commit(&spread);
    int k = n / 3 - 1, *src = malloc((size_t)k * sizeof(int));
    int *got = malloc((size_t)k * sizeof(int));
    for (int i = 0; i < n; i++)
        mem[i] = -1;
    for (int i = 0; i < k; i++)
        src[i] = me * 100000 + i;
    MPI_Win_fence(0, win);
    MPI_Put(src, k, MPI_INT, right, 1, k, spread, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < n; i++)
        MT_CHECK_INT_EQ(mem[i], i % 3 == 1 && i / 3 < k ? left * 100000 + i / 3
                                                        : -1);
    MPI_Get(got, k, MPI_INT, right, 1, k, spread, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < k; i++)
        MT_CHECK_INT_EQ(got[i], me * 100000 + i);
    MPI_Type_free(&spread);
    free(src);
    free(got);
}

/* The world ranks whose host name is this rank's: the node (one, unless
 * the job runs on several hosts). */
static int ranks_on_my_host(int wnp)
{
    char mine[MPI_MAX_PROCESSOR_NAME] = "";
    char *all = calloc((size_t)wnp, MPI_MAX_PROCESSOR_NAME);
    int len, n = 0;
    MPI_Get_processor_name(mine, &len);
    MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all,
                  MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; r < wnp; r++)
        n += strcmp(all + (size_t)r * MPI_MAX_PROCESSOR_NAME, mine) == 0;
    free(all);
    return n;
}

int main(int argc, char **argv)
{
    int me, np, wme, wnp;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wme);
    MPI_Comm_size(MPI_COMM_WORLD, &wnp);
    MPI_Comm node = node_comm();
    MPI_Comm_rank(node, &me);
    MPI_Comm_size(node, &np);
    MT_CHECK_INT_EQ(np, ranks_on_my_host(wnp));
    shared_loads(node, me, np);
    shared_sync(node, me, np);

    long *lmem;
    MPI_Win win;
    MPI_Win_allocate(2 * sizeof(long), sizeof(long), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &lmem, &win);
    lmem[0] = lmem[1] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    atomics(win, lmem, wme, wnp);
    MPI_Win_free(&win);

    enum { N = 20000 };
    double *dmem;
    MPI_Win_allocate(N * sizeof(double), sizeof(double), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &dmem, &win);
    puts_gets(win, dmem, N, wme, wnp);
    MPI_Win_free(&win);
    dmem = malloc(N * sizeof(double));
    MPI_Win_create(dmem, N * sizeof(double), sizeof(double), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &win);
    puts_gets(win, dmem, N, wme, wnp);
    MPI_Win_free(&win);
    free(dmem);
    int *imem = malloc(3000 * sizeof(int));
    MPI_Win_create(imem, 3000 * sizeof(int), sizeof(int), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &win);
    resized_targets(win, imem, 3000, wme, wnp);
    MPI_Win_free(&win);
    free(imem);
    lmem = malloc(2 * sizeof(long));
    lmem[0] = lmem[1] = 0;
    MPI_Win_create(lmem, 2 * sizeof(long), sizeof(long), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &win);
    atomics(win, lmem, wme, wnp);
    MPI_Win_free(&win);
    free(lmem);
    MPI_Comm_free(&node);
    return mt_finish_and_finalize();
}
