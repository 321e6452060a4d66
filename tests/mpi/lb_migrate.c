/*
 * AMPI_Migrate_to_pe moves every rank to the next PE of its process: the
 * rank's stack, heap, privatized globals, communicators, datatypes and a
 * receive posted before the move are intact afterwards, and the migration
 * callbacks ran.  In a job of several processes too, where ranks move
 * between the PEs of their own process and the processes learn the new
 * places (the send to the right neighbour may cross to the other process).
 * Also the argument checks and the predefined AMPI_INFO_* objects.
 */
#include "mpitest.h"

#include <stdlib.h>
#include <string.h>

/* Privatized per rank by ampicc (the default privatization). */
static int my_global = -1;
static int about_calls, just_calls;

static void about_to_migrate(void)
{
    about_calls++;
}

static void just_migrated(void)
{
    just_calls++;
}

static int my_pe(void)
{
    int *v, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_MY_WTH, &v, &flag);
    MT_CHECK(flag);
    return flag ? *v : -1;
}

static int num_pes(void)
{
    int *v, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_NUM_WTHS, &v, &flag);
    MT_CHECK(flag);
    return flag ? *v : 1;
}

static void check_errors(int rank)
{
    int npes = num_pes();
    MT_CHECK_MPI(AMPI_Migrate(AMPI_INFO_CHKPT_IN_MEMORY));
    MT_CHECK_ERR_CLASS(AMPI_Migrate_to_pe(npes * 4), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(AMPI_Migrate_to_pe(-2), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(AMPI_Load_set_value(-1.0), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(AMPI_Migrate((MPI_Info)12345), MPI_ERR_INFO);
    char value[MPI_MAX_INFO_VAL];
    int flag = 0;
    MT_CHECK_MPI(MPI_Info_get(AMPI_INFO_LB_SYNC, "ampi_load_balance",
                              MPI_MAX_INFO_VAL - 1, value, &flag));
    MT_CHECK(flag && strcmp(value, "sync") == 0);
    MT_CHECK_MPI(MPI_Info_get(AMPI_INFO_LB_ASYNC, "ampi_load_balance",
                              MPI_MAX_INFO_VAL - 1, value, &flag));
    MT_CHECK(flag && strcmp(value, "async") == 0);
    MT_CHECK_ERR_CLASS(MPI_Info_set(AMPI_INFO_LB_SYNC, "k", "v"), MPI_ERR_INFO);
    MPI_Info bad;
    MT_CHECK_MPI(MPI_Info_create(&bad));
    MT_CHECK_MPI(MPI_Info_set(bad, "ampi_load_balance", "sometimes"));
    MT_CHECK_ERR_CLASS(AMPI_Migrate(bad), MPI_ERR_INFO_VALUE);
    MPI_Info_free(&bad);
    (void)rank;
}

/* A nonblocking collective still running is refused: every rank but the
 * root of an MPI_Ibcast the root starts only once the others have tried
 * (they tell it so). */
static void check_pending_coll(int rank, int size)
{
    if (size < 2)
        return;
    int v = rank == 0 ? 42 : 0, token = 0;
    MPI_Request req;
    if (rank != 0) {
        MT_CHECK_MPI(MPI_Ibcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD, &req));
        MT_CHECK_ERR_CLASS(AMPI_Migrate(AMPI_INFO_LB_SYNC), MPI_ERR_REQUEST);
        MT_CHECK_MPI(MPI_Send(&token, 1, MPI_INT, 0, 9, MPI_COMM_WORLD));
    } else {
        for (int i = 1; i < size; i++)
            MT_CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, MPI_ANY_SOURCE, 9,
                                  MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MT_CHECK_MPI(MPI_Ibcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD, &req));
    }
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(v, 42);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check_errors(rank);
    check_pending_coll(rank, size);

    my_global = 1000 + rank;
    enum { HEAP = 1 << 16, STACK = 256 };
    unsigned char *heap = malloc(HEAP);
    unsigned char stack[STACK];
    mt_fill(heap, HEAP, (unsigned)rank);
    mt_fill(stack, STACK, (unsigned)rank + 77);
    MPI_Comm dup;
    MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_Datatype vec;
    MT_CHECK_MPI(MPI_Type_vector(4, 1, 2, MPI_INT, &vec));
    MT_CHECK_MPI(MPI_Type_commit(&vec));
    /* A receive posted before the move, matched after it. */
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int got[8] = {0};
    MPI_Request req;
    MT_CHECK_MPI(MPI_Irecv(got, 1, vec, left, 5, dup, &req));
    MT_CHECK_MPI(AMPI_Register_about_to_migrate(about_to_migrate));
    MT_CHECK_MPI(AMPI_Register_just_migrated(just_migrated));

    int npes = num_pes(), before = my_pe();
    /* PEs of this process: the test's shapes give each process +p PEs. */
    int target = (before + 1) % npes;
    MT_CHECK_MPI(AMPI_Migrate_to_pe(target));
    MT_CHECK_INT_EQ(my_pe(), target);
    int moved = target != before;
    MT_CHECK_INT_EQ(about_calls, moved);
    MT_CHECK_INT_EQ(just_calls, moved);
    /* A balancing step with no balancer chosen moves nothing. */
    int here = my_pe();
    MT_CHECK_MPI(AMPI_Migrate(AMPI_INFO_LB_SYNC));
    MT_CHECK_MPI(AMPI_Migrate(MPI_INFO_NULL));
    MT_CHECK_INT_EQ(my_pe(), here);

    MT_CHECK_INT_EQ(my_global, 1000 + rank);
    MT_CHECK_PATTERN(heap, HEAP, (unsigned)rank);
    MT_CHECK_PATTERN(stack, STACK, (unsigned)rank + 77);
    int out[8];
    for (int i = 0; i < 8; i++)
        out[i] = rank * 100 + i;
    MT_CHECK_MPI(MPI_Send(out, 1, vec, right, 5, dup));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < 8; i++)
        MT_CHECK_INT_EQ(got[i], i % 2 == 0 ? left * 100 + i : 0);
    /* Collectives on both communicators after the move. */
    int sum = 0;
    MT_CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup));
    MT_CHECK_INT_EQ(sum, size * (size - 1) / 2);
    MT_CHECK_MPI(
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(sum, size - 1);
    /* Twice more, back and forth, with a barrier and a bcast between. */
    for (int round = 0; round < 2; round++) {
        MT_CHECK_MPI(AMPI_Migrate_to_pe((my_pe() + 1) % npes));
        int v = rank == size - 1 ? 7 + round : 0;
        MT_CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, size - 1, dup));
        MT_CHECK_INT_EQ(v, 7 + round);
        MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    MT_CHECK_INT_EQ(my_global, 1000 + rank);
    MPI_Type_free(&vec);
    MPI_Comm_free(&dup);
    free(heap);
    return mt_finish_and_finalize();
}
