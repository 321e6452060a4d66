/*
 * io_shared: the shared file pointer, in one process and across processes
 * (its owner is member 0's process; the others reach it by messages).
 * MPI_File_write_shared by every rank, several times: every record lands
 * exactly once, nothing overlaps; MPI_File_write_ordered and
 * read_ordered: in rank order; seek_shared and get_position_shared; the
 * nonblocking and split forms; MPI_MODE_APPEND starts every pointer at
 * the end; MPI_MODE_SEQUENTIAL allows only the shared pointer.
 */
#include "iotest.h"

#include <stdlib.h>

enum { REC = 4, ROUNDS = 3 };

/* A record: writer, round, and a check value. */
static void record(int *r, int rank, int round)
{
    r[0] = rank;
    r[1] = round;
    r[2] = io_value(rank * 100 + round, 3);
    r[3] = -r[2];
}

static void check_independent(const char *name, int rank, int size)
{
    MPI_File fh;
    MPI_Request req;
    int r[REC];
    MT_CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name,
                               MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                               &fh));
    MT_CHECK_MPI(MPI_File_set_size(fh, 0));
    MT_CHECK_MPI(
        MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    for (int k = 0; k < ROUNDS; k++) {
        record(r, rank, k);
        if (k == 1) {
            MT_CHECK_MPI(MPI_File_iwrite_shared(fh, r, REC, MPI_INT, &req));
            MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            MT_CHECK_MPI(
                MPI_File_write_shared(fh, r, REC, MPI_INT, MPI_STATUS_IGNORE));
        }
    }
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_Offset pos = -1;
    MT_CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
    MT_CHECK_INT_EQ(pos, (long long)size * ROUNDS * REC);
    /* Everybody reads it all back and checks that each record is there. */
    int n = size * ROUNDS;
    int *all = malloc((size_t)n * REC * sizeof(int));
    char *seen = calloc((size_t)n, 1);
    MT_CHECK_MPI(
        MPI_File_read_at(fh, 0, all, n * REC, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++) {
        int *q = all + i * REC, w = q[0], k = q[1];
        if (!MT_CHECK(w >= 0 && w < size && k >= 0 && k < ROUNDS))
            break;
        record(r, w, k);
        MT_CHECK(memcmp(q, r, sizeof(r)) == 0);
        MT_CHECK(!seen[w * ROUNDS + k]);
        seen[w * ROUNDS + k] = 1;
    }
    free(all);
    free(seen);
    MT_CHECK_MPI(MPI_File_close(&fh));
}

static void check_ordered(const char *name, int rank, int size)
{
    MPI_File fh;
    MPI_Status st;
    int count = -1;
    /* Rank i writes i + 1 ints, twice: once blocking, once split. */
    int n = rank + 1, *v = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
        v[i] = io_value(rank * 1000 + i, 4);
    MT_CHECK_MPI(
        MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MT_CHECK_MPI(MPI_File_set_size(fh, 0));
    MT_CHECK_MPI(
        MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    MT_CHECK_MPI(MPI_File_write_ordered(fh, v, n, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    MT_CHECK_INT_EQ(count, n);
    MT_CHECK_MPI(MPI_File_write_ordered_begin(fh, v, n, MPI_INT));
    MT_CHECK_MPI(MPI_File_write_ordered_end(fh, v, &st));
    long long half = (long long)size * (size + 1) / 2;
    MPI_Offset pos = -1;
    MT_CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
    MT_CHECK_INT_EQ(pos, 2 * half);
    /* Back to the start; each rank reads its own part of both halves. */
    MT_CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    for (int h = 0; h < 2; h++) {
        int *got = calloc((size_t)n, sizeof(int));
        if (h == 0) {
            MT_CHECK_MPI(MPI_File_read_ordered(fh, got, n, MPI_INT, &st));
        } else {
            MT_CHECK_MPI(MPI_File_read_ordered_begin(fh, got, n, MPI_INT));
            MT_CHECK_MPI(MPI_File_read_ordered_end(fh, got, &st));
        }
        MPI_Get_count(&st, MPI_INT, &count);
        MT_CHECK_INT_EQ(count, n);
        for (int i = 0; i < n; i++)
            if (!MT_CHECK_INT_EQ(got[i], v[i]))
                break;
        free(got);
    }
    /* The end: nothing left to read. */
    MT_CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
    MT_CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
    MT_CHECK_INT_EQ(pos, 2 * half);
    MT_CHECK_MPI(MPI_File_seek_shared(fh, -half, MPI_SEEK_CUR));
    MT_CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
    MT_CHECK_INT_EQ(pos, half);
    MT_CHECK_ERR_CLASS(MPI_File_seek_shared(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG);
    MT_CHECK_MPI(MPI_File_close(&fh));
    free(v);
}

/* APPEND: the pointers start at the end; SEQUENTIAL: no individual
 * pointer, no explicit offsets. */
static void check_modes(const char *name, int rank, int size)
{
    MPI_File fh;
    MPI_Offset pos = -1, end = 0;
    int v = rank;
    MT_CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name,
                               MPI_MODE_WRONLY | MPI_MODE_APPEND, MPI_INFO_NULL,
                               &fh));
    MT_CHECK_MPI(MPI_File_get_size(fh, &end));
    MT_CHECK_MPI(MPI_File_get_position(fh, &pos));
    MT_CHECK_INT_EQ(pos, end);
    MT_CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
    MT_CHECK_INT_EQ(pos, end);
    MT_CHECK_MPI(MPI_File_close(&fh));
    MT_CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name,
                               MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL,
                               MPI_INFO_NULL, &fh));
    MT_CHECK_ERR_CLASS(
        MPI_File_write_at(fh, 0, &v, 1, MPI_INT, MPI_STATUS_IGNORE),
        MPI_ERR_UNSUPPORTED_OPERATION);
    MT_CHECK_ERR_CLASS(MPI_File_write(fh, &v, 1, MPI_INT, MPI_STATUS_IGNORE),
                       MPI_ERR_UNSUPPORTED_OPERATION);
    MT_CHECK_ERR_CLASS(MPI_File_seek(fh, 0, MPI_SEEK_SET),
                       MPI_ERR_UNSUPPORTED_OPERATION);
    MT_CHECK_ERR_CLASS(MPI_File_get_position(fh, &pos),
                       MPI_ERR_UNSUPPORTED_OPERATION);
    MT_CHECK_ERR_CLASS(
        MPI_File_write_all(fh, &v, 1, MPI_INT, MPI_STATUS_IGNORE),
        MPI_ERR_UNSUPPORTED_OPERATION);
    MT_CHECK_MPI(MPI_File_write_ordered(fh, &v, 1, MPI_INT, MPI_STATUS_IGNORE));
    MT_CHECK_MPI(MPI_File_close(&fh));
    (void)size;
}

int main(int argc, char **argv)
{
    char name[256];
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_name(MPI_COMM_WORLD, "io_shared", name, sizeof(name));
    check_independent(name, rank, size);
    check_ordered(name, rank, size);
    check_modes(name, rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MT_CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
    return mt_finish_and_finalize();
}
