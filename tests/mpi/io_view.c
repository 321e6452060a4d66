/*
 * io_view: file views and positions.  Every rank writes through its own
 * view of one shared file (blocks of B ints, the ranks' blocks
 * interleaved), with the individual file pointer, then the file is read
 * whole through the default view and checked; MPI_File_get_view,
 * get_position, seek, get_byte_offset and get_type_extent; noncontiguous
 * memory types; the external32 representation (big-endian in the file) and
 * one the program registers (MPI_Register_datarep); and the errors of
 * MPI_File_set_view.
 */
#include "iotest.h"

#include <stdint.h>
#include <stdlib.h>

enum { B = 3, TILES = 5 };

/* The int the interleaved layout puts at file position k (in ints). */
static int interleaved_value(long long k, int size)
{
    long long tile = k / ((long long)size * B), in = k % ((long long)size * B);
    int owner = (int)(in / B);
    return io_value((long long)owner * 100000 + tile * B + in % B, 2);
}

static MPI_Datatype interleaved_type(int rank, int size)
{
    MPI_Datatype block, ft;
    int len = B, disp = rank * B;
    MPI_Type_indexed(1, &len, &disp, MPI_INT, &block);
    MPI_Type_create_resized(block, 0, (MPI_Aint)size * B * sizeof(int), &ft);
    MPI_Type_free(&block);
    MPI_Type_commit(&ft);
    return ft;
}

static void check_positions(MPI_File fh, int rank, int size)
{
    MPI_Offset pos = -1, byte = -1;
    MT_CHECK_MPI(MPI_File_get_position(fh, &pos));
    MT_CHECK_INT_EQ(pos, TILES * B);
    /* etype 4 of the view: tile 1, second int of this rank's block. */
    MT_CHECK_MPI(MPI_File_get_byte_offset(fh, B + 1, &byte));
    MT_CHECK_INT_EQ(byte, ((long long)size * B + rank * B + 1) * 4);
    MT_CHECK_MPI(MPI_File_seek(fh, 2, MPI_SEEK_SET));
    MT_CHECK_MPI(MPI_File_seek(fh, 3, MPI_SEEK_CUR));
    MT_CHECK_MPI(MPI_File_get_position(fh, &pos));
    MT_CHECK_INT_EQ(pos, 5);
    /* The view's end of the file: the ints of this rank's blocks. */
    MT_CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_END));
    MT_CHECK_MPI(MPI_File_get_position(fh, &pos));
    MT_CHECK_INT_EQ(pos, TILES * B);
    MT_CHECK_ERR_CLASS(MPI_File_seek(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_File_seek(fh, 0, 17), MPI_ERR_ARG);
    MPI_Aint ext = 0;
    MT_CHECK_MPI(MPI_File_get_type_extent(fh, MPI_DOUBLE, &ext));
    MT_CHECK_INT_EQ(ext, sizeof(double));
}

static void check_get_view(MPI_File fh, MPI_Datatype ft)
{
    MPI_Offset disp = -1;
    MPI_Datatype e, f;
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_Aint lb, ext, lb2, ext2;
    int s1, s2;
    MT_CHECK_MPI(MPI_File_get_view(fh, &disp, &e, &f, rep));
    MT_CHECK_INT_EQ(disp, 0);
    MT_CHECK(e == MPI_INT);
    MT_CHECK(strcmp(rep, "native") == 0);
    MPI_Type_get_extent(f, &lb, &ext);
    MPI_Type_get_extent(ft, &lb2, &ext2);
    MPI_Type_size(f, &s1);
    MPI_Type_size(ft, &s2);
    MT_CHECK_INT_EQ(ext, ext2);
    MT_CHECK_INT_EQ(s1, s2);
    MPI_Type_free(&f);
}

/* Every rank writes TILES blocks through its view; rank 0 checks the file
 * through the default view. */
static void check_interleaved(const char *name, int rank, int size)
{
    MPI_File fh;
    MPI_Datatype ft = interleaved_type(rank, size);
    int *buf = malloc(TILES * B * sizeof(int));
    long long total = (long long)size * B * TILES;
    int *all = malloc((size_t)total * sizeof(int));
    MPI_Status st;
    int count;
    for (int i = 0; i < TILES * B; i++)
        buf[i] = io_value((long long)rank * 100000 + i, 2);
    MT_CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name,
                               MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                               &fh));
    MT_CHECK_MPI(
        MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
    /* Two writes through the individual pointer make one stream. */
    MT_CHECK_MPI(MPI_File_write(fh, buf, 4, MPI_INT, &st));
    MT_CHECK_MPI(MPI_File_write(fh, buf + 4, TILES * B - 4, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    MT_CHECK_INT_EQ(count, TILES * B - 4);
    check_get_view(fh, ft);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    check_positions(fh, rank, size);
    MT_CHECK_MPI(
        MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    MT_CHECK_MPI(MPI_File_read_at(fh, 0, all, (int)total, MPI_INT, &st));
    for (long long k = 0; k < total; k++)
        if (!MT_CHECK_INT_EQ(all[k], interleaved_value(k, size)))
            break;
    /* Read back through the view, into every second int of memory. */
    MPI_Datatype every2;
    MPI_Type_vector(TILES * B, 1, 2, MPI_INT, &every2);
    MPI_Type_commit(&every2);
    int *sparse = calloc(2 * TILES * B, sizeof(int));
    MT_CHECK_MPI(
        MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
    MT_CHECK_MPI(MPI_File_read_at(fh, 0, sparse, 1, every2, &st));
    for (int i = 0; i < TILES * B; i++)
        if (!MT_CHECK_INT_EQ(sparse[2 * i], buf[i]) ||
            !MT_CHECK_INT_EQ(sparse[2 * i + 1], 0))
            break;
    /* Past the end: only what is there. */
    MT_CHECK_MPI(MPI_File_read_at(fh, TILES * B - 2, sparse, 5, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    MT_CHECK_INT_EQ(count, 2);
    MT_CHECK_MPI(MPI_File_close(&fh));
    MPI_Type_free(&every2);
    MPI_Type_free(&ft);
    free(sparse);
    free(all);
    free(buf);
}

static void check_view_errors(const char *name)
{
    MPI_File fh;
    MPI_Datatype back, odd;
    int lens[2] = {1, 1}, disps[2] = {3, 0};
    MPI_Type_indexed(2, lens, disps, MPI_INT, &back);
    MPI_Type_commit(&back);
    MPI_Type_contiguous(3, MPI_BYTE, &odd);
    MPI_Type_commit(&odd);
    MT_CHECK_MPI(
        MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MT_CHECK_ERR_CLASS(
        MPI_File_set_view(fh, -5, MPI_INT, MPI_INT, "native", MPI_INFO_NULL),
        MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(
        MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "nonesuch", MPI_INFO_NULL),
        MPI_ERR_UNSUPPORTED_DATAREP);
    MT_CHECK_ERR_CLASS(
        MPI_File_set_view(fh, 0, MPI_INT, back, "native", MPI_INFO_NULL),
        MPI_ERR_IO);
    MT_CHECK_ERR_CLASS(
        MPI_File_set_view(fh, 0, MPI_INT, odd, "native", MPI_INFO_NULL),
        MPI_ERR_TYPE);
    MT_CHECK_ERR_CLASS(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT,
                                         MPI_INT, "native", MPI_INFO_NULL),
                       MPI_ERR_ARG);
    /* Data that is not whole etypes. */
    char c[3];
    MT_CHECK_MPI(
        MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    MT_CHECK_ERR_CLASS(
        MPI_File_write_at(fh, 0, c, 3, MPI_CHAR, MPI_STATUS_IGNORE),
        MPI_ERR_IO);
    MT_CHECK_MPI(MPI_File_close(&fh));
    MPI_Type_free(&back);
    MPI_Type_free(&odd);
}

/* external32: the ints big-endian in the file. */
static void check_external32(const char *name, int rank)
{
    MPI_File fh;
    int v[2] = {0x01020304, -2}, back[2] = {0, 0};
    unsigned char raw[8];
    MT_CHECK_MPI(
        MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MT_CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32",
                                   MPI_INFO_NULL));
    MT_CHECK_MPI(
        MPI_File_write_at(fh, 2 * rank, v, 2, MPI_INT, MPI_STATUS_IGNORE));
    MT_CHECK_MPI(
        MPI_File_read_at(fh, 2 * rank, back, 2, MPI_INT, MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(back[0], v[0]);
    MT_CHECK_INT_EQ(back[1], v[1]);
    back[0] = back[1] = 0;
    MT_CHECK_MPI(MPI_File_read_at_all(fh, 2 * rank, back, 2, MPI_INT,
                                      MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(back[0], v[0]);
    MT_CHECK_INT_EQ(back[1], v[1]);
    MT_CHECK_MPI(
        MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    MT_CHECK_MPI(
        MPI_File_read_at(fh, 8 * rank, raw, 8, MPI_BYTE, MPI_STATUS_IGNORE));
    static const unsigned char want[8] = {1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe};
    MT_CHECK(memcmp(raw, want, 8) == 0);
    MT_CHECK_MPI(MPI_File_close(&fh));
}

/* A representation of the program's: each int xor 0x5a5a5a5a in the
 * file, 4 bytes. */
static int xor_convert(void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                       MPI_Offset position, void *extra)
{
    int *u = (int *)userbuf + position, *f = filebuf;
    (void)extra;
    if (dt != MPI_INT)
        return MPI_ERR_TYPE;
    for (int i = 0; i < count; i++)
        f[i] = u[i] ^ 0x5a5a5a5a;
    return MPI_SUCCESS;
}

static int xor_read(void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                    MPI_Offset position, void *extra)
{
    int *u = (int *)userbuf + position, *f = filebuf;
    (void)extra;
    if (dt != MPI_INT)
        return MPI_ERR_TYPE;
    for (int i = 0; i < count; i++)
        u[i] = f[i] ^ 0x5a5a5a5a;
    return MPI_SUCCESS;
}

static int xor_extent(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    int size = 0;
    (void)extra;
    MPI_Type_size(dt, &size);
    *extent = size;
    return MPI_SUCCESS;
}

static void check_user_rep(const char *name, int rank)
{
    MPI_File fh;
    int v[3] = {7, -9, 1 << 20}, back[3] = {0, 0, 0}, raw[3];
    MT_CHECK_MPI(
        MPI_Register_datarep("xor", xor_read, xor_convert, xor_extent, NULL));
    MT_CHECK_ERR_CLASS(
        MPI_Register_datarep("xor", xor_read, xor_convert, xor_extent, NULL),
        MPI_ERR_DUP_DATAREP);
    MT_CHECK_ERR_CLASS(MPI_Register_datarep("external32", xor_read, xor_convert,
                                            xor_extent, NULL),
                       MPI_ERR_DUP_DATAREP);
    MT_CHECK_MPI(
        MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MT_CHECK_MPI(
        MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "xor", MPI_INFO_NULL));
    MPI_Aint ext = 0;
    MT_CHECK_MPI(MPI_File_get_type_extent(fh, MPI_INT, &ext));
    MT_CHECK_INT_EQ(ext, 4);
    MT_CHECK_MPI(
        MPI_File_write_at(fh, 3 * rank, v, 3, MPI_INT, MPI_STATUS_IGNORE));
    MT_CHECK_MPI(
        MPI_File_read_at(fh, 3 * rank, back, 3, MPI_INT, MPI_STATUS_IGNORE));
    MPI_Request req;
    int back2[3] = {0, 0, 0};
    MT_CHECK_MPI(MPI_File_iread_at(fh, 3 * rank, back2, 3, MPI_INT, &req));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_CHECK_MPI(
        MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    MT_CHECK_MPI(
        MPI_File_read_at(fh, 3 * rank, raw, 3, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < 3; i++) {
        MT_CHECK_INT_EQ(back[i], v[i]);
        MT_CHECK_INT_EQ(back2[i], v[i]);
        MT_CHECK_INT_EQ(raw[i], v[i] ^ 0x5a5a5a5a);
    }
    MT_CHECK_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    char name[256];
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_name(MPI_COMM_WORLD, "io_view", name, sizeof(name));
    check_interleaved(name, rank, size);
    check_view_errors(name);
    check_external32(name, rank);
    check_user_rep(name, rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MT_CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
    return mt_finish_and_finalize();
}
