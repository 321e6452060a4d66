/*
 * io_basic: opening, closing and deleting files, sizes, access modes,
 * info and atomicity, and explicit-offset reads and writes with the
 * default view, by every rank of MPI_COMM_WORLD on one shared file; the
 * errors of each (class and the file's error handler).
 */
#include "iotest.h"

#include <stdlib.h>

static void check_write_read(MPI_File fh, int rank, int size)
{
    enum { N = 1000 };
    int *out = malloc(N * sizeof(int)), *in = malloc(N * sizeof(int));
    MPI_Status st;
    int count = -1;
    for (int i = 0; i < N; i++)
        out[i] = io_value((long long)rank * N + i, 1);
    MPI_Offset at = (MPI_Offset)rank * N * (MPI_Offset)sizeof(int);
    MT_CHECK_MPI(MPI_File_write_at(fh, at, out, N, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    MT_CHECK_INT_EQ(count, N);
    MT_CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MT_CHECK_MPI(MPI_File_sync(fh));
    /* Read the next rank's block. */
    int next = (rank + 1) % size;
    at = (MPI_Offset)next * N * (MPI_Offset)sizeof(int);
    MT_CHECK_MPI(MPI_File_read_at(fh, at, in, N, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    MT_CHECK_INT_EQ(count, N);
    for (int i = 0; i < N; i++)
        if (!MT_CHECK_INT_EQ(in[i], io_value((long long)next * N + i, 1)))
            break;
    /* Past the end of the file: nothing, count 0. */
    MPI_Offset end = (MPI_Offset)size * N * (MPI_Offset)sizeof(int);
    MT_CHECK_MPI(MPI_File_read_at(fh, end, in, N, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    MT_CHECK_INT_EQ(count, 0);
    /* Half in, half out. */
    MT_CHECK_MPI(MPI_File_read_at(fh, end - 8, in, 4, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    MT_CHECK_INT_EQ(count, 2);
    MPI_Offset fsize = -1;
    MT_CHECK_MPI(MPI_File_get_size(fh, &fsize));
    MT_CHECK_INT_EQ(fsize, end);
    free(out);
    free(in);
}

static void check_properties(MPI_File fh, int amode)
{
    int got = -1, flag = -1, result = -1;
    MPI_Group g, world;
    MPI_Info info;
    char value[MPI_MAX_INFO_VAL];
    MT_CHECK_MPI(MPI_File_get_amode(fh, &got));
    MT_CHECK_INT_EQ(got, amode);
    MT_CHECK_MPI(MPI_File_get_group(fh, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_compare(g, world, &result);
    MT_CHECK_INT_EQ(result, MPI_IDENT);
    MPI_Group_free(&g);
    MPI_Group_free(&world);
    MT_CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    MT_CHECK_INT_EQ(flag, 0);
    MT_CHECK_MPI(MPI_File_set_atomicity(fh, 1));
    MT_CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK_MPI(MPI_File_set_atomicity(fh, 0));
    MT_CHECK_MPI(MPI_File_get_info(fh, &info));
    flag = 0;
    MPI_Info_get(info, "cb_buffer_size", MPI_MAX_INFO_VAL - 1, value, &flag);
    MT_CHECK(flag && atol(value) == 1 << 20);
    MPI_Info_free(&info);
}

static void check_sizes(MPI_File fh)
{
    MPI_Offset size = -1;
    MT_CHECK_MPI(MPI_File_set_size(fh, 100));
    MT_CHECK_MPI(MPI_File_get_size(fh, &size));
    MT_CHECK_INT_EQ(size, 100);
    MT_CHECK_MPI(MPI_File_preallocate(fh, 50)); /* never shrinks */
    MT_CHECK_MPI(MPI_File_get_size(fh, &size));
    MT_CHECK_INT_EQ(size, 100);
    MT_CHECK_MPI(MPI_File_preallocate(fh, 4096));
    MT_CHECK_MPI(MPI_File_get_size(fh, &size));
    MT_CHECK_INT_EQ(size, 4096);
    MT_CHECK_MPI(MPI_File_set_size(fh, 0));
    MT_CHECK_MPI(MPI_File_get_size(fh, &size));
    MT_CHECK_INT_EQ(size, 0);
    MT_CHECK_ERR_CLASS(MPI_File_set_size(fh, -1), MPI_ERR_ARG);
}

/* Opening errors, through MPI_FILE_NULL's handler (MPI_ERRORS_RETURN). */
static void check_open_errors(const char *name)
{
    MPI_File fh = MPI_FILE_NULL;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    int rc = MPI_File_open(MPI_COMM_WORLD, "no/such/dir/file", MPI_MODE_RDONLY,
                           MPI_INFO_NULL, &fh);
    MT_CHECK_ERR_CLASS(rc, MPI_ERR_NO_SUCH_FILE);
    MPI_Error_string(rc, msg, &len);
    MT_CHECK(strstr(msg, "MPI_File_open") && strstr(msg, "no/such/dir/file"));
    MT_CHECK_ERR_CLASS(MPI_File_open(MPI_COMM_WORLD, name,
                                     MPI_MODE_RDONLY | MPI_MODE_CREATE,
                                     MPI_INFO_NULL, &fh),
                       MPI_ERR_AMODE);
    MT_CHECK_ERR_CLASS(MPI_File_open(MPI_COMM_WORLD, name,
                                     MPI_MODE_RDWR | MPI_MODE_WRONLY,
                                     MPI_INFO_NULL, &fh),
                       MPI_ERR_AMODE);
    MT_CHECK_ERR_CLASS(MPI_File_open(MPI_COMM_WORLD, name,
                                     MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL,
                                     MPI_INFO_NULL, &fh),
                       MPI_ERR_AMODE);
    MT_CHECK_ERR_CLASS(
        MPI_File_open(MPI_COMM_WORLD, name,
                      MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_EXCL,
                      MPI_INFO_NULL, &fh),
        MPI_ERR_FILE_EXISTS);
    MT_CHECK_ERR_CLASS(
        MPI_File_open(MPI_COMM_WORLD, ".", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
        MPI_ERR_BAD_FILE);
    MT_CHECK_INT_EQ(fh, MPI_FILE_NULL);
    MT_CHECK_ERR_CLASS(MPI_File_delete("no/such/dir/file", MPI_INFO_NULL),
                       MPI_ERR_NO_SUCH_FILE);
}

/* Errors of calls on an open file go to its handler. */
static int handler_calls;

static void count_errors(MPI_File *fh, int *code, ...)
{
    (void)fh;
    (void)code;
    handler_calls++;
}

static void check_mode_errors(const char *name)
{
    MPI_File fh;
    MPI_Errhandler eh;
    int buf[4] = {0};
    MT_CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY,
                               MPI_INFO_NULL, &fh));
    MT_CHECK_ERR_CLASS(
        MPI_File_write_at(fh, 0, buf, 4, MPI_INT, MPI_STATUS_IGNORE),
        MPI_ERR_READ_ONLY);
    MT_CHECK_ERR_CLASS(
        MPI_File_read_at(fh, -1, buf, 4, MPI_INT, MPI_STATUS_IGNORE),
        MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(
        MPI_File_read_at(fh, 0, buf, -1, MPI_INT, MPI_STATUS_IGNORE),
        MPI_ERR_COUNT);
    MT_CHECK_ERR_CLASS(
        MPI_File_read_at(fh, 0, buf, 1, MPI_DATATYPE_NULL, MPI_STATUS_IGNORE),
        MPI_ERR_TYPE);
    MT_CHECK_MPI(MPI_File_create_errhandler(count_errors, &eh));
    MT_CHECK_MPI(MPI_File_set_errhandler(fh, eh));
    handler_calls = 0;
    MPI_File_write_at(fh, 0, buf, 4, MPI_INT, MPI_STATUS_IGNORE);
    MT_CHECK_INT_EQ(handler_calls, 1);
    MPI_Errhandler_free(&eh);
    MT_CHECK_MPI(MPI_File_close(&fh));
    MT_CHECK_INT_EQ(fh, MPI_FILE_NULL);
    MT_CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_WRONLY,
                               MPI_INFO_NULL, &fh));
    MT_CHECK_ERR_CLASS(
        MPI_File_read_at(fh, 0, buf, 4, MPI_INT, MPI_STATUS_IGNORE),
        MPI_ERR_ACCESS);
    MT_CHECK_MPI(MPI_File_close(&fh));
    MT_CHECK_ERR_CLASS(MPI_File_close(&fh), MPI_ERR_FILE);
}

int main(int argc, char **argv)
{
    char name[256];
    int rank, size;
    MPI_File fh;
    MPI_Info info;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_name(MPI_COMM_WORLD, "io_basic", name, sizeof(name));
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "1048576");
    int amode = MPI_MODE_RDWR | MPI_MODE_CREATE;
    if (MT_CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name, amode, info, &fh))) {
        check_properties(fh, amode);
        check_write_read(fh, rank, size);
        MPI_Barrier(MPI_COMM_WORLD);
        check_sizes(fh);
        MT_CHECK_MPI(MPI_File_close(&fh));
    }
    MPI_Info_free(&info);
    check_open_errors(name);
    check_mode_errors(name);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MT_CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
    /* DELETE_ON_CLOSE removes the file. */
    MT_CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name,
                               MPI_MODE_WRONLY | MPI_MODE_CREATE |
                                   MPI_MODE_DELETE_ON_CLOSE,
                               MPI_INFO_NULL, &fh));
    MT_CHECK_MPI(MPI_File_close(&fh));
    MT_CHECK(access(name, F_OK) != 0);
    return mt_finish_and_finalize();
}
