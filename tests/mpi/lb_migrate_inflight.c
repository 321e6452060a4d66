/*
 * Messages in flight across AMPI_Migrate_to_pe, in a job of one process
 * or several (where the moves stay within each process and every process
 * learns the new places).  Before each move every rank sends, without
 * waiting, to its right neighbour (receives posted before the move) and
 * to the rank half the job away, often in the other process (received
 * only after the move: unexpected, or taken with MPI_Mprobe before it):
 * eager, rendezvous and synchronous messages.  After the move everything
 * arrives intact and complete, sends cross between the processes at once in
 * both directions, and collectives and a window (fence and passive target)
 * work.  Three moves, so ranks leave a PE and come back.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { SMALL = 64, LARGE = 96 * 1024, ROUNDS = 3 };

/* What rank r sends with tag t in round k, byte by byte. */
static unsigned seed_of(int r, int t, int k)
{
    return (unsigned)(r * 131 + t * 17 + k * 7919);
}

static int my_pe(void)
{
    int *v, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_MY_WTH, &v, &flag);
    return flag ? *v : -1;
}

static int num_pes(void)
{
    int *v, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_NUM_WTHS, &v, &flag);
    return flag ? *v : 1;
}

typedef struct bufs {
    unsigned char *out[5], *in[5]; /* by tag - 1 */
} bufs_t;

static size_t len_of(int tag)
{
    return tag == 2 || tag == 4 ? LARGE : SMALL;
}

/* Tags: 1 small and 2 large to the right, posted before the move; 3 small,
 * 4 large and 5 small synchronous to the far rank, unexpected there. */
static void round_trip(int rank, int size, int k, bufs_t *b)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int far = (rank + size / 2) % size;
    int from_far = (rank - size / 2 % size + size) % size;
    MPI_Request reqs[10];
    int n = 0;
    for (int t = 1; t <= 2; t++)
        MT_CHECK_MPI(MPI_Irecv(b->in[t - 1], (int)len_of(t), MPI_BYTE, left, t,
                               MPI_COMM_WORLD, &reqs[n++]));
    for (int t = 1; t <= 5; t++) {
        mt_fill(b->out[t - 1], len_of(t), seed_of(rank, t, k));
        int to = t <= 2 ? right : far;
        if (t == 5)
            MT_CHECK_MPI(MPI_Issend(b->out[t - 1], (int)len_of(t), MPI_BYTE, to,
                                    t, MPI_COMM_WORLD, &reqs[n++]));
        else
            MT_CHECK_MPI(MPI_Isend(b->out[t - 1], (int)len_of(t), MPI_BYTE, to,
                                   t, MPI_COMM_WORLD, &reqs[n++]));
    }
    /* In odd rounds the large one is taken out with MPI_Mprobe first. */
    MPI_Message msg = MPI_MESSAGE_NULL;
    if (k % 2)
        MT_CHECK_MPI(
            MPI_Mprobe(from_far, 4, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE));
    int npes = num_pes(), before = my_pe();
    MT_CHECK_MPI(AMPI_Migrate_to_pe((before + 1) % npes));
    MT_CHECK_INT_EQ(my_pe(), (before + 1) % npes);
    for (int t = 3; t <= 5; t++) {
        if (t == 4 && k % 2)
            MT_CHECK_MPI(MPI_Imrecv(b->in[t - 1], (int)len_of(t), MPI_BYTE,
                                    &msg, &reqs[n++]));
        else
            MT_CHECK_MPI(MPI_Irecv(b->in[t - 1], (int)len_of(t), MPI_BYTE,
                                   from_far, t, MPI_COMM_WORLD, &reqs[n++]));
    }
    MPI_Status st[10];
    MT_CHECK_MPI(MPI_Waitall(n, reqs, st));
    for (int t = 1; t <= 5; t++) {
        int src = t <= 2 ? left : from_far;
        MT_CHECK_PATTERN(b->in[t - 1], len_of(t), seed_of(src, t, k));
    }
    for (int i = 0; i < 2; i++) {
        MT_CHECK_INT_EQ(st[i].MPI_SOURCE, left);
        MT_CHECK_INT_EQ(st[i].MPI_TAG, i + 1);
    }
}

/* Right after the move: both ways across at once, small and large. */
static void exchange(int rank, int size, int k, bufs_t *b)
{
    int far = (rank + size / 2) % size;
    int from_far = (rank - size / 2 % size + size) % size;
    for (int t = 3; t <= 4; t++) {
        mt_fill(b->out[t - 1], len_of(t), seed_of(rank, t + 10, k));
        MT_CHECK_MPI(MPI_Sendrecv(b->out[t - 1], (int)len_of(t), MPI_BYTE, far,
                                  20 + t, b->in[t - 1], (int)len_of(t),
                                  MPI_BYTE, from_far, 20 + t, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE));
        MT_CHECK_PATTERN(b->in[t - 1], len_of(t), seed_of(from_far, t + 10, k));
    }
}

static void collectives(int rank, int size, int k)
{
    long sum = 0, v = rank + k;
    MT_CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(sum, (long)size * (size - 1) / 2 + (long)size * k);
    int root = (k + 1) % size, x = rank == root ? 1000 + k : -1;
    MT_CHECK_MPI(MPI_Bcast(&x, 1, MPI_INT, root, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(x, 1000 + k);
    int *all = malloc((size_t)size * sizeof(int));
    MT_CHECK_MPI(
        MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        MT_CHECK_INT_EQ(all[r], r);
    free(all);
}

/* A window over every rank: a put to the right under fences, then a get
 * from the far rank under a shared lock. */
static void window(int rank, int size, int k, MPI_Win win, int *mem)
{
    int right = (rank + 1) % size, far = (rank + size / 2) % size;
    int left = (rank + size - 1) % size;
    int v = rank * 10 + k, got = -1;
    MT_CHECK_MPI(MPI_Win_fence(0, win));
    MT_CHECK_MPI(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win));
    MT_CHECK_MPI(MPI_Win_fence(0, win));
    MT_CHECK_INT_EQ(mem[0], left * 10 + k);
    MT_CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, far, 0, win));
    MT_CHECK_MPI(MPI_Get(&got, 1, MPI_INT, far, 0, 1, MPI_INT, win));
    MT_CHECK_MPI(MPI_Win_unlock(far, win));
    int far_left = (far + size - 1) % size;
    MT_CHECK_INT_EQ(got, far_left * 10 + k);
    MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bufs_t b;
    for (int t = 1; t <= 5; t++) {
        b.out[t - 1] = malloc(len_of(t));
        b.in[t - 1] = malloc(len_of(t));
    }
    int *mem;
    MPI_Win win;
    MT_CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL,
                                  MPI_COMM_WORLD, &mem, &win));
    mem[0] = -1;
    for (int k = 0; k < ROUNDS; k++) {
        round_trip(rank, size, k, &b);
        exchange(rank, size, k, &b);
        collectives(rank, size, k);
        window(rank, size, k, win, mem);
    }
    MT_CHECK_MPI(MPI_Win_free(&win));
    for (int t = 1; t <= 5; t++) {
        free(b.out[t - 1]);
        free(b.in[t - 1]);
    }
    return mt_finish_and_finalize();
}
