/*
 * io_nonblocking: nonblocking file accesses are requests like any other
 * (Wait/Test families, MPI_Request_get_status, MPI_Request_free), many at
 * once, the individual file pointer moving when each starts; and a rank
 * that waits for the file system lets the other ranks of its PE run: rank
 * 0 opens and reads a named pipe that rank 1 (on the same PE in every
 * shape of one process) opens and writes only afterwards, which could
 * never happen if rank 0 held its PE while it waited.  Writes whose
 * requests were freed while under way are in the file once
 * MPI_File_close returns (close waits for them).
 */
#include "iotest.h"

#include <stdlib.h>
#include <sys/stat.h>

enum { NREQ = 16, N = 256 };

static void check_many(const char *name, int rank)
{
    MPI_File fh;
    MPI_Request req[NREQ];
    MPI_Status st[NREQ];
    int *out = malloc(NREQ * N * sizeof(int)),
        *in = malloc(NREQ * N * sizeof(int));
    for (int i = 0; i < NREQ * N; i++)
        out[i] = io_value((long long)rank * NREQ * N + i, 6);
    MT_CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name,
                               MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                               &fh));
    MPI_Offset base = (MPI_Offset)rank * NREQ * N * 4;
    for (int k = 0; k < NREQ; k++)
        MT_CHECK_MPI(MPI_File_iwrite_at(fh, base + (MPI_Offset)k * N * 4,
                                        out + k * N, N, MPI_INT, &req[k]));
    MT_CHECK_MPI(MPI_Waitall(NREQ, req, st));
    for (int k = 0; k < NREQ; k++) {
        int count = -1;
        MPI_Get_count(&st[k], MPI_INT, &count);
        MT_CHECK_INT_EQ(count, N);
        MT_CHECK(req[k] == MPI_REQUEST_NULL);
    }
    /* Read back in reverse order, collected with Testany. */
    for (int k = 0; k < NREQ; k++)
        MT_CHECK_MPI(MPI_File_iread_at(fh, base + (MPI_Offset)k * N * 4,
                                       in + (NREQ - 1 - k) * N, N, MPI_INT,
                                       &req[k]));
    int left = NREQ, idx, flag;
    while (left > 0) {
        MT_CHECK_MPI(MPI_Testany(NREQ, req, &idx, &flag, MPI_STATUS_IGNORE));
        if (flag && idx != MPI_UNDEFINED)
            left--;
    }
    for (int k = 0; k < NREQ; k++)
        for (int i = 0; i < N; i++)
            if (!MT_CHECK_INT_EQ(in[(NREQ - 1 - k) * N + i], out[k * N + i]))
                goto next;
next:
    /* The individual pointer moves at the start of each access. */
    MT_CHECK_MPI(MPI_File_seek(fh, base, MPI_SEEK_SET));
    MT_CHECK_MPI(MPI_File_iread(fh, in, N, MPI_INT, &req[0]));
    MT_CHECK_MPI(MPI_File_iread(fh, in + N, N, MPI_INT, &req[1]));
    MPI_Offset pos;
    MT_CHECK_MPI(MPI_File_get_position(fh, &pos));
    MT_CHECK_INT_EQ(pos, base + 2 * N * 4);
    int outcount = 0, indices[2];
    while (outcount < 2) {
        int got = 0;
        MT_CHECK_MPI(MPI_Waitsome(2, req, &got, indices, MPI_STATUSES_IGNORE));
        if (got == MPI_UNDEFINED)
            break;
        outcount += got;
    }
    for (int i = 0; i < 2 * N; i++)
        if (!MT_CHECK_INT_EQ(in[i], out[i]))
            break;
    /* get_status does not free; Request_free lets it finish alone. */
    MT_CHECK_MPI(MPI_File_iwrite(fh, out, N, MPI_INT, &req[0]));
    flag = 0;
    while (!flag)
        MT_CHECK_MPI(MPI_Request_get_status(req[0], &flag, MPI_STATUS_IGNORE));
    MT_CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    MT_CHECK_MPI(MPI_File_iwrite(fh, out, N, MPI_INT, &req[0]));
    MT_CHECK_MPI(MPI_Request_free(&req[0]));
    MT_CHECK_MPI(MPI_File_close(&fh));
    free(out);
    free(in);
}

/* A nonblocking write keeps the view it started with, even when the
 * program changes the view before it completes (which the standard
 * forbids, but programs do; MPICH's i_hindexed test for one).  A backlog
 * of writes in front of it keeps the helper threads busy meanwhile. */
static void check_view_change(const char *name, int rank)
{
    enum { BACKLOG = 32, BIG = 1 << 14 };
    MPI_File fh;
    MPI_Request req[BACKLOG + 1];
    char *big = malloc(BIG);
    int v[4] = {1, 2, 3, 4}, back[4] = {0, 0, 0, 0};
    memset(big, 'x', BIG);
    MT_CHECK_MPI(MPI_File_open(MPI_COMM_SELF, name,
                               MPI_MODE_RDWR | MPI_MODE_CREATE |
                                   MPI_MODE_DELETE_ON_CLOSE,
                               MPI_INFO_NULL, &fh));
    for (int k = 0; k < BACKLOG; k++)
        MT_CHECK_MPI(MPI_File_iwrite_at(fh, 4096 + (MPI_Offset)k * BIG, big,
                                        BIG, MPI_CHAR, &req[k]));
    MT_CHECK_MPI(MPI_File_iwrite_at(fh, 0, v, 4, MPI_INT, &req[BACKLOG]));
    MT_CHECK_MPI(
        MPI_File_set_view(fh, 1000, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    MT_CHECK_MPI(MPI_Waitall(BACKLOG + 1, req, MPI_STATUSES_IGNORE));
    MT_CHECK_MPI(
        MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    MT_CHECK_MPI(
        MPI_File_read_at(fh, 0, back, 16, MPI_BYTE, MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; i++)
        MT_CHECK_INT_EQ(back[i], v[i]);
    MT_CHECK_MPI(MPI_File_close(&fh));
    free(big);
    (void)rank;
}

/* Writes freed while under way, in many pieces each (a strided file
 * view), then MPI_File_close at once: the close waits for them, so that
 * the file has all their data afterwards and none of them touches the
 * closed file. */
static void check_free_then_close(const char *name)
{
    enum { NW = 8, BLOCKS = 4096 };
    MPI_File fh;
    MPI_Datatype vec, strided;
    int *out = malloc(NW * BLOCKS * sizeof(int)),
        *in = malloc(2 * NW * BLOCKS * sizeof(int));
    for (int i = 0; i < NW * BLOCKS; i++)
        out[i] = io_value(i, 9);
    MT_CHECK_MPI(MPI_Type_vector(BLOCKS, 1, 2, MPI_INT, &vec));
    MT_CHECK_MPI(
        MPI_Type_create_resized(vec, 0, 2 * BLOCKS * sizeof(int), &strided));
    MT_CHECK_MPI(MPI_Type_free(&vec));
    MT_CHECK_MPI(MPI_Type_commit(&strided));
    MT_CHECK_MPI(MPI_File_open(MPI_COMM_SELF, name,
                               MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                               &fh));
    MT_CHECK_MPI(
        MPI_File_set_view(fh, 0, MPI_INT, strided, "native", MPI_INFO_NULL));
    for (int k = 0; k < NW; k++) {
        MPI_Request req;
        MT_CHECK_MPI(MPI_File_iwrite_at(fh, (MPI_Offset)k * BLOCKS,
                                        out + k * BLOCKS, BLOCKS, MPI_INT,
                                        &req));
        MT_CHECK_MPI(MPI_Request_free(&req));
    }
    MT_CHECK_MPI(MPI_File_close(&fh));
    MT_CHECK_MPI(MPI_File_open(MPI_COMM_SELF, name,
                               MPI_MODE_RDONLY | MPI_MODE_DELETE_ON_CLOSE,
                               MPI_INFO_NULL, &fh));
    MPI_Offset size = -1;
    MT_CHECK_MPI(MPI_File_get_size(fh, &size));
    MT_CHECK_INT_EQ(size, (MPI_Offset)(2 * NW * BLOCKS - 1) * 4);
    MT_CHECK_MPI(MPI_File_read_at(fh, 0, in, 2 * NW * BLOCKS - 1, MPI_INT,
                                  MPI_STATUS_IGNORE));
    for (int i = 0; i < NW * BLOCKS; i++)
        if (!MT_CHECK_INT_EQ(in[2 * i], out[i]))
            break;
    MT_CHECK_MPI(MPI_File_close(&fh));
    MT_CHECK_MPI(MPI_Type_free(&strided));
    free(in);
    free(out);
}

/* Rank 0 reads a pipe that rank 1 writes. */
static void check_pipe(int rank, int size)
{
    char name[256];
    MPI_File fh;
    MPI_Status st;
    int v[N], count = -1;
    if (size < 2)
        return;
    io_name(MPI_COMM_WORLD, "io_pipe", name, sizeof(name));
    if (rank == 0)
        MT_CHECK(mkfifo(name, 0600) == 0);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        /* open(2) of a pipe waits for its writer; so does read(2). */
        MT_CHECK_MPI(MPI_File_open(MPI_COMM_SELF, name,
                                   MPI_MODE_RDONLY | MPI_MODE_SEQUENTIAL,
                                   MPI_INFO_NULL, &fh));
        MT_CHECK_MPI(MPI_File_read_shared(fh, v, N, MPI_INT, &st));
        MPI_Get_count(&st, MPI_INT, &count);
        MT_CHECK_INT_EQ(count, N);
        for (int i = 0; i < N; i++)
            if (!MT_CHECK_INT_EQ(v[i], io_value(i, 8)))
                break;
        MT_CHECK_MPI(MPI_File_close(&fh));
    } else if (rank == 1) {
        for (int i = 0; i < N; i++)
            v[i] = io_value(i, 8);
        MT_CHECK_MPI(MPI_File_open(MPI_COMM_SELF, name,
                                   MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL,
                                   MPI_INFO_NULL, &fh));
        MT_CHECK_MPI(MPI_File_write_shared(fh, v, N / 2, MPI_INT, &st));
        MT_CHECK_MPI(MPI_File_write_shared(fh, v + N / 2, N / 2, MPI_INT, &st));
        MT_CHECK_MPI(MPI_File_close(&fh));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(name);
}

int main(int argc, char **argv)
{
    char name[256];
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_name(MPI_COMM_WORLD, "io_nonblocking", name, sizeof(name));
    check_many(name, rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MT_CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
    check_pipe(rank, size);
    char own[300];
    snprintf(own, sizeof(own), "%s.%d", name, rank);
    check_view_change(own, rank);
    check_free_then_close(own);
    return mt_finish_and_finalize();
}
