/*
 * Checkpoint/restart of a legacy-style program (docs/checkpoint.md): its
 * state is in (privatized) globals, in its heap, on its stack, in a
 * duplicated (named, with a user error handler) and a split communicator,
 * a group, a user operation and a derived datatype.  It runs
 * ITERS steps and checkpoints after step CKPT_AT with AMPI_Migrate; the
 * checksum it prints at the end is the same whether it ran straight
 * through, checkpointed on the way, or was restarted from the checkpoint
 * (+restart DIR, with any +p), in one process or several (mpirun -np N,
 * when writing and when restarting, N free each time):
 * lit/runtime/checkpoint-restart.test and checkpoint-restart-np.test
 * compare them.
 *
 *   ckpt_legacy            checkpoint into a directory of its own (named
 *                          for rank 0's process), removed at the end (the
 *                          ctest run)
 *   ckpt_legacy DIR        checkpoint into DIR, kept
 *   ckpt_legacy DIR DIR2   and again after step CKPT_AGAIN, into DIR2
 *   ckpt_legacy none       no checkpoint
 */
#include "ckpt_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N 64
#define ITERS 10
#define CKPT_AT 4
#define CKPT_AGAIN 7
#define FILE_MAX (128 << 10)

/* The legacy part: mutable globals, privatized per rank by ampicc. */
static int my_rank, nranks;
static unsigned long long acc;
static MPI_Comm dup_comm, half_comm;
static MPI_Datatype stride_type;
static unsigned long long *field;
static MPI_Group half_group;
static MPI_Op max_op;
static MPI_Errhandler errh;
static int errh_calls;

static void my_max(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        if (((int *)in)[i] > ((int *)inout)[i])
            ((int *)inout)[i] = ((int *)in)[i];
}

static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    errh_calls++;
}

/* One step: every other value goes to the right neighbour (through the
 * vector type, on the duplicate), the sums meet in each half. */
static void step(int it, unsigned long long *stack_vals)
{
    unsigned long long recv[N / 2], local = 0, half = 0;
    int right = (my_rank + 1) % nranks, left = (my_rank + nranks - 1) % nranks;
    MT_CHECK_MPI(MPI_Sendrecv(field, 1, stride_type, right, it, recv, N / 2,
                              MPI_UNSIGNED_LONG_LONG, left, it, dup_comm,
                              MPI_STATUS_IGNORE));
    for (int i = 0; i < N / 2; i++)
        field[2 * i + 1] = field[2 * i + 1] * 3 + recv[i] + (unsigned)it;
    for (int i = 0; i < N; i++)
        local += field[i] * (unsigned)(i + 1);
    MT_CHECK_MPI(MPI_Allreduce(&local, &half, 1, MPI_UNSIGNED_LONG_LONG,
                               MPI_SUM, half_comm));
    stack_vals[it % 8] += half ^ (unsigned)it;
    acc = acc * 31 + half;
}

static void checkpoint(const char *dir)
{
    char value[MPI_MAX_INFO_VAL];
    MPI_Info info;
    snprintf(value, sizeof(value), "to_file=%s", dir);
    MT_CHECK_MPI(MPI_Info_create(&info));
    MT_CHECK_MPI(MPI_Info_set(info, "ampi_checkpoint", value));
    MT_CHECK_MPI(AMPI_Migrate(info));
    MT_CHECK_MPI(MPI_Info_free(&info));
    /* A rank that allocated a few KB writes a few pages of its heap, not
     * the span its small blocks come from (256 KiB; mem/heap.c). */
    char path[600];
    struct stat st;
    snprintf(path, sizeof(path), "%s/rank-%d.ckpt", dir, my_rank);
    MT_CHECK(stat(path, &st) == 0);
    if (st.st_size >= FILE_MAX)
        MT_FAIL("%s has %lld bytes (at most %d)", path, (long long)st.st_size,
                FILE_MAX);
}

/* After the checkpoint (and after a restart): the objects still work and
 * the globals are this rank's. */
static void check_state(void)
{
    int r, size, owner;
    MT_CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    MT_CHECK_INT_EQ(r, my_rank);
    MT_CHECK_MPI(MPI_Comm_size(dup_comm, &size));
    MT_CHECK_INT_EQ(size, nranks);
    MT_CHECK_MPI(MPI_Comm_rank(half_comm, &r));
    MT_CHECK_MPI(MPI_Comm_size(half_comm, &size));
    MT_CHECK_INT_EQ(size, (nranks - my_rank % 2 + 1) / 2);
    MT_CHECK_INT_EQ(r, size - 1 - my_rank / 2); /* split by -my_rank */
    MPI_Aint lb, extent;
    MT_CHECK_MPI(MPI_Type_get_extent(stride_type, &lb, &extent));
    MT_CHECK_INT_EQ(extent, (N - 1) * (MPI_Aint)sizeof(*field));
    MT_CHECK_MPI(AMPI_Isomalloc_rank(field, &owner));
    MT_CHECK_INT_EQ(owner, my_rank);
    /* A group, a user operation, a name and a user error handler. */
    MT_CHECK_MPI(MPI_Group_size(half_group, &size));
    MT_CHECK_INT_EQ(size, (nranks - my_rank % 2 + 1) / 2);
    int max = 0;
    MT_CHECK_MPI(MPI_Allreduce(&my_rank, &max, 1, MPI_INT, max_op, dup_comm));
    MT_CHECK_INT_EQ(max, nranks - 1);
    char name[MPI_MAX_OBJECT_NAME];
    MT_CHECK_MPI(MPI_Comm_get_name(dup_comm, name, &r));
    MT_CHECK(strcmp(name, "dup of world") == 0);
    int calls = errh_calls;
    MT_CHECK(MPI_Send(&r, 1, MPI_INT, nranks, 0, dup_comm) != MPI_SUCCESS);
    MT_CHECK_INT_EQ(errh_calls, calls + 1);
}

int main(int argc, char **argv)
{
    unsigned long long stack_vals[8] = {0};
    char own[256];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const char *dir = argc > 1 ? argv[1] : NULL;
    const char *again = argc > 2 ? argv[2] : NULL;
    if (!dir) {
        const char *tmp = getenv("TMPDIR");
        int pid = (int)getpid(); /* rank 0's: the same in every process */
        MT_CHECK_MPI(MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD));
        snprintf(own, sizeof(own), "%s/ampi-ckpt-legacy-%d", tmp ? tmp : "/tmp",
                 pid);
        dir = own;
    } else if (strcmp(dir, "none") == 0) {
        dir = NULL;
    }
    MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup_comm));
    MT_CHECK_MPI(
        MPI_Comm_split(MPI_COMM_WORLD, my_rank % 2, -my_rank, &half_comm));
    MT_CHECK_MPI(
        MPI_Type_vector(N / 2, 1, 2, MPI_UNSIGNED_LONG_LONG, &stride_type));
    MT_CHECK_MPI(MPI_Type_commit(&stride_type));
    MT_CHECK_MPI(MPI_Comm_group(half_comm, &half_group));
    MT_CHECK_MPI(MPI_Op_create(my_max, 1, &max_op));
    MT_CHECK_MPI(MPI_Comm_set_name(dup_comm, "dup of world"));
    MT_CHECK_MPI(MPI_Comm_create_errhandler(count_errors, &errh));
    MT_CHECK_MPI(MPI_Comm_set_errhandler(dup_comm, errh));
    field = malloc(N * sizeof(*field));
    for (int i = 0; i < N; i++)
        field[i] = (unsigned long long)my_rank * 1000 + (unsigned)i;
    for (int it = 0; it < ITERS; it++) {
        step(it, stack_vals);
        if (it == CKPT_AT && dir) {
            checkpoint(dir);
            check_state();
        }
        if (it == CKPT_AGAIN && again) {
            checkpoint(again);
            check_state();
        }
    }
    unsigned long long h = acc, all = 0;
    for (int i = 0; i < N; i++)
        h = h * 1099511628211ull + field[i];
    for (int i = 0; i < 8; i++)
        h = h * 1099511628211ull + stack_vals[i];
    h ^= (unsigned long long)my_rank << 32;
    MT_CHECK_MPI(MPI_Allreduce(&h, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM,
                               MPI_COMM_WORLD));
    if (my_rank == 0)
        printf("checksum %llx\n", all);
    MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (my_rank == 0 && dir == own)
        ckpt_remove_dir(dir, nranks);
    free(field);
    MT_CHECK_MPI(MPI_Type_free(&stride_type));
    MT_CHECK_MPI(MPI_Group_free(&half_group));
    MT_CHECK_MPI(MPI_Op_free(&max_op));
    MT_CHECK_MPI(MPI_Errhandler_free(&errh));
    MT_CHECK_MPI(MPI_Comm_free(&half_comm));
    MT_CHECK_MPI(MPI_Comm_free(&dup_comm));
    return mt_finish_and_finalize();
}
