/*
 * In a job of several processes the balancer moves ranks between the
 * processes: the ranks of process 0 report four times the load of the
 * others (AMPI_Load_set_value), so GreedyLB sends some of them to the
 * other process.  A rank that changed process finds its stack, heap,
 * privatized globals, communicators (a dup and a split), a derived
 * datatype and its error handler as they were, and point-to-point and
 * collectives work with every rank wherever it is; results are the same
 * as without moves.  What a rank allocates after a move is in its own slot
 * and travels with it at the next move.  Three rounds, so ranks also come
 * back.
 */
#include "mpitest.h"

#include <stdlib.h>
#include <string.h>

static int my_global = -1; /* privatized per rank */
static int just_calls;

static void just_migrated(void)
{
    just_calls++;
}

static int attr_int(int key)
{
    int *v, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, key, &v, &flag);
    MT_CHECK(flag);
    return flag ? *v : -1;
}

typedef struct state {
    unsigned char *heap;
    size_t heap_bytes;
    MPI_Comm dup, half;
    MPI_Datatype vec;
} state_t;

static void check_state(const state_t *s, int rank, int size,
                        const unsigned char *stack, size_t stack_bytes)
{
    MT_CHECK_INT_EQ(my_global, 1000 + rank);
    MT_CHECK_PATTERN(s->heap, s->heap_bytes, (unsigned)rank);
    MT_CHECK_PATTERN(stack, stack_bytes, (unsigned)rank + 77);
    int r = -1, n = -1;
    MT_CHECK_MPI(MPI_Comm_rank(s->dup, &r));
    MT_CHECK_INT_EQ(r, rank);
    MT_CHECK_MPI(MPI_Comm_size(s->half, &n));
    MT_CHECK_INT_EQ(n, (size + (rank % 2 == 0)) / 2);
    MPI_Errhandler eh;
    MT_CHECK_MPI(MPI_Comm_get_errhandler(s->dup, &eh));
    MT_CHECK(eh == MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
}

/* A ring exchange with the derived type, then collectives. */
static void communicate(const state_t *s, int rank, int size, int round)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int out[8], got[8] = {0};
    for (int i = 0; i < 8; i++)
        out[i] = rank * 100 + i + round;
    MT_CHECK_MPI(MPI_Sendrecv(out, 1, s->vec, right, round, got, 1, s->vec,
                              left, round, s->dup, MPI_STATUS_IGNORE));
    for (int i = 0; i < 8; i++)
        MT_CHECK_INT_EQ(got[i], i % 2 == 0 ? left * 100 + i + round : 0);
    int sum = 0;
    MT_CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, s->dup));
    MT_CHECK_INT_EQ(sum, size * (size - 1) / 2);
    int hr, hn, hsum = 0;
    MPI_Comm_rank(s->half, &hr);
    MPI_Comm_size(s->half, &hn);
    MT_CHECK_MPI(MPI_Allreduce(&hr, &hsum, 1, MPI_INT, MPI_SUM, s->half));
    MT_CHECK_INT_EQ(hsum, hn * (hn - 1) / 2);
    int v = rank == size - 1 ? 7 + round : 0;
    MT_CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, size - 1, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(v, 7 + round);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    my_global = 1000 + rank;
    state_t s = {.heap_bytes = (size_t)(1 + rank % 3) << 20};
    s.heap = malloc(s.heap_bytes);
    MT_CHECK(s.heap != NULL);
    mt_fill(s.heap, s.heap_bytes, (unsigned)rank);
    enum { STACK = 512 };
    unsigned char stack[STACK];
    mt_fill(stack, STACK, (unsigned)rank + 77);
    MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &s.dup));
    MT_CHECK_MPI(MPI_Comm_set_errhandler(s.dup, MPI_ERRORS_RETURN));
    MT_CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &s.half));
    MT_CHECK_MPI(MPI_Type_vector(4, 1, 2, MPI_INT, &s.vec));
    MT_CHECK_MPI(MPI_Type_commit(&s.vec));
    MT_CHECK_MPI(AMPI_Register_just_migrated(just_migrated));

    int procs = attr_int(AMPI_NUM_PROCESSES), changed = 0;
    enum { LATER = 3 << 16 };
    unsigned char *later[3] = {NULL, NULL, NULL};
    for (int round = 0; round < 3; round++) {
        int before = attr_int(AMPI_MY_PROCESS);
        /* The ranks in process 0 weigh four times the others. */
        MT_CHECK_MPI(AMPI_Load_set_value(before == 0 ? 4.0 : 1.0));
        MT_CHECK_MPI(AMPI_Migrate(AMPI_INFO_LB_SYNC));
        int after = attr_int(AMPI_MY_PROCESS);
        changed += after != before;
        check_state(&s, rank, size, stack, STACK);
        communicate(&s, rank, size, round);
        for (int k = 0; k < round; k++)
            MT_CHECK_PATTERN(later[k], LATER, (unsigned)(rank * 7 + k));
        later[round] = malloc(LATER);
        MT_CHECK(later[round] != NULL);
        int owner = -1;
        MT_CHECK_MPI(AMPI_Isomalloc_rank(later[round], &owner));
        MT_CHECK_INT_EQ(owner, rank);
        mt_fill(later[round], LATER, (unsigned)(rank * 7 + round));
    }
    for (int k = 0; k < 3; k++) {
        MT_CHECK_PATTERN(later[k], LATER, (unsigned)(rank * 7 + k));
        free(later[k]);
    }
    /* Every rank counts the ranks that changed process in some round: with
     * two processes of unequal loads some must have. */
    int any = 0;
    MT_CHECK_MPI(MPI_Allreduce(&changed, &any, 1, MPI_INT, MPI_SUM,
                               MPI_COMM_WORLD));
    if (procs > 1 && size >= 4)
        MT_CHECK(any > 0);
    if (procs == 1)
        MT_CHECK_INT_EQ(any, 0);
    MT_CHECK(just_calls >= changed);
    MPI_Type_free(&s.vec);
    MPI_Comm_free(&s.half);
    MPI_Comm_free(&s.dup);
    free(s.heap);
    return mt_finish_and_finalize();
}
