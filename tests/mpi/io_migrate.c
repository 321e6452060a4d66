/*
 * io_migrate: open files and moving ranks (docs/mpi-io.md).  A rank moves
 * to another PE of its process with its files open and goes on using
 * them; with a file operation still pending it may run on another PE
 * (AMPI_Migrate_to_pe: its home PE completes the operation); load balancing
 * across processes keeps a rank with open files in its process, and its files
 * work after; a checkpoint refuses open files (MPI_ERR_UNSUPPORTED_OPERATION,
 * naming the file).
 */
#include "iotest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { N = 64 };

static int my_pe(void)
{
    int *v, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_MY_WTH, &v, &flag);
    return flag ? *v : 0;
}

static int num_pes(void)
{
    int *v, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_NUM_WTHS, &v, &flag);
    return flag ? *v : 1;
}

static void write_block(MPI_File fh, int rank, int round)
{
    int v[N];
    for (int i = 0; i < N; i++)
        v[i] = io_value((long long)rank * N + i, round);
    MT_CHECK_MPI(MPI_File_write_at_all(fh, (MPI_Offset)rank * N * 4, v, N,
                                       MPI_INT, MPI_STATUS_IGNORE));
}

static void check_block(MPI_File fh, int rank, int round)
{
    int v[N];
    MT_CHECK_MPI(MPI_File_read_at_all(fh, (MPI_Offset)rank * N * 4, v, N,
                                      MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++)
        if (!MT_CHECK_INT_EQ(v[i], io_value((long long)rank * N + i, round)))
            break;
}

static void check_checkpoint_refused(void)
{
    MPI_Info info;
    char value[300], msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    snprintf(value, sizeof(value), "to_file=%s/ampi-io-ckpt-%d",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    MPI_Info_create(&info);
    MPI_Info_set(info, "ampi_checkpoint", value);
    int rc = AMPI_Migrate(info);
    MT_CHECK_ERR_CLASS(rc, MPI_ERR_UNSUPPORTED_OPERATION);
    MPI_Error_string(rc, msg, &len);
    MT_CHECK(strstr(msg, "file") != NULL);
    /* The refused checkpoint leaves nothing behind: not even the
     * directory it was to be written to, which it made. */
    MT_CHECK(access(value + strlen("to_file="), F_OK) != 0);
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    char name[256];
    int rank, size;
    MPI_File fh;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    io_name(MPI_COMM_WORLD, "io_migrate", name, sizeof(name));
    MT_CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name,
                               MPI_MODE_RDWR | MPI_MODE_CREATE |
                                   MPI_MODE_DELETE_ON_CLOSE,
                               MPI_INFO_NULL, &fh));
    write_block(fh, rank, 1);
    /* Every rank has a write under way: AMPI_Migrate_to_pe takes it to
     * another PE all the same, since its home PE, which completes the
     * write, stays its home until the next balancing step. */
    int v = rank;
    MT_CHECK_MPI(MPI_File_iwrite_at(fh, (MPI_Offset)(size + rank) * N * 4, &v,
                                    1, MPI_INT, &req));
    int to = (my_pe() + 1) % num_pes();
    if (mt_nprocs() > 1)
        to = -1; /* the PE numbers are each process's own */
    MT_CHECK_MPI(AMPI_Migrate_to_pe(to));
    if (to >= 0)
        MT_CHECK_INT_EQ(my_pe(), to);
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    /* To the next PE of the process, file open. */
    to = (my_pe() + 1) % num_pes();
    if (mt_nprocs() > 1)
        to = -1;
    MT_CHECK_MPI(AMPI_Migrate_to_pe(to));
    if (to >= 0)
        MT_CHECK_INT_EQ(my_pe(), to);
    check_block(fh, rank, 1);
    write_block(fh, rank, 2);
    /* With process 0 four times as loaded, the balancer would move some of
     * its ranks to another process, but not ranks with open files. */
    MT_CHECK_MPI(AMPI_Load_set_value(mt_process_of(rank) == 0 ? 4.0 : 1.0));
    MT_CHECK_MPI(AMPI_Migrate(AMPI_INFO_LB_SYNC));
    int *proc, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_MY_PROCESS, &proc, &flag);
    MT_CHECK(flag && *proc == mt_process_of(rank));
    check_block(fh, rank, 2);
    check_checkpoint_refused();
    MT_CHECK_MPI(MPI_File_close(&fh));
    return mt_finish_and_finalize();
}
