/*
 * AMPI_Migrate's checkpoint errors (docs/checkpoint.md), through
 * MPI_ERRORS_RETURN: a bad "ampi_checkpoint" value, in-memory checkpoints
 * (not supported), a directory that cannot be created, and a request still
 * pending on one rank and a message not yet received by another (that
 * rank: MPI_ERR_REQUEST, the others MPI_ERR_OTHER), and a buffer attached
 * to a communicator (not saved yet: MPI_ERR_UNSUPPORTED_OPERATION).  After them
 * a checkpoint succeeds and the run goes on, in one process or several.
 */
#include "ckpt_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int migrate_with(const char *value)
{
    MPI_Info info;
    MT_CHECK_MPI(MPI_Info_create(&info));
    MT_CHECK_MPI(MPI_Info_set(info, "ampi_checkpoint", value));
    int rc = AMPI_Migrate(info);
    MT_CHECK_MPI(MPI_Info_free(&info));
    return rc;
}

int main(int argc, char **argv)
{
    int rank, size;
    char dir[256], value[300];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *tmp = getenv("TMPDIR");
    int pid = (int)getpid(); /* rank 0's: the same in every process */
    MT_CHECK_MPI(MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD));
    snprintf(dir, sizeof(dir), "%s/ampi-ckpt-errors-%d", tmp ? tmp : "/tmp",
             pid);

    MT_CHECK_ERR_CLASS(migrate_with("bogus"), MPI_ERR_INFO_VALUE);
    MT_CHECK_ERR_CLASS(migrate_with("to_file="), MPI_ERR_INFO_VALUE);
    /* In memory: a checkpoint of the node's memory, removed at the end. */
    MT_CHECK_MPI(AMPI_Migrate(AMPI_INFO_CHKPT_IN_MEMORY));
    MT_CHECK_ERR_CLASS(migrate_with("to_file=/nonexistent-ampi-dir/ckpt"),
                       MPI_ERR_IO);

    /* A receive nobody matches, pending on rank 0 only. */
    int buf = 0;
    MPI_Request req = MPI_REQUEST_NULL;
    if (rank == 0)
        MT_CHECK_MPI(MPI_Irecv(&buf, 1, MPI_INT, 0, 99, MPI_COMM_SELF, &req));
    snprintf(value, sizeof(value), "to_file=%s", dir);
    MT_CHECK_ERR_CLASS(migrate_with(value),
                       rank == 0 ? MPI_ERR_REQUEST : MPI_ERR_OTHER);
    if (rank == 0) {
        MT_CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, 0, 99, MPI_COMM_SELF));
        MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        MT_CHECK_INT_EQ(buf, 0);
    }

    /* A message sent to the last rank (from another process, when there
     * are several) that it has not received yet. */
    int last = size - 1;
    if (rank == 0)
        MT_CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, last, 98, MPI_COMM_WORLD));
    MT_CHECK_ERR_CLASS(migrate_with(value),
                       rank == last ? MPI_ERR_REQUEST : MPI_ERR_OTHER);
    if (rank == last) {
        buf = -1;
        MT_CHECK_MPI(MPI_Recv(&buf, 1, MPI_INT, 0, 98, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
        MT_CHECK_INT_EQ(buf, 0);
    }

    /* A buffer attached to a communicator (MPI-4.1), on rank 0 only. */
    static char bbuf[1024];
    void *back = NULL;
    int bsize = 0;
    if (rank == 0)
        MT_CHECK_MPI(MPI_Comm_attach_buffer(MPI_COMM_SELF, bbuf, 1024));
    MT_CHECK_ERR_CLASS(migrate_with(value), rank == 0
                                                ? MPI_ERR_UNSUPPORTED_OPERATION
                                                : MPI_ERR_OTHER);
    if (rank == 0) {
        MT_CHECK_MPI(MPI_Comm_detach_buffer(MPI_COMM_SELF, &back, &bsize));
        /* A failed attach attaches nothing. */
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        MT_CHECK_ERR_CLASS(MPI_Comm_attach_buffer(MPI_COMM_SELF, bbuf, -1),
                           MPI_ERR_ARG);
    }

    /* Now nothing is pending: it is written, and the run goes on. */
    MT_CHECK_MPI(migrate_with(value));
    int sum = 0;
    MT_CHECK_MPI(
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(sum, size * (size - 1) / 2);
    if (rank == 0) {
        char path[512];
        snprintf(path, sizeof(path), "%s/manifest", dir);
        MT_CHECK(access(path, R_OK) == 0);
        ckpt_remove_dir(dir, size);
    }
    return mt_finish_and_finalize();
}
