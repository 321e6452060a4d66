/*
 * io_coll: collective reads and writes.  A 3-D array distributed in
 * blocks (MPI_Dims_create, uneven at the edges), each rank's block with a
 * halo in memory, is written with MPI_File_write_all through a subarray
 * view, then read back with MPI_File_read_all in another distribution (a
 * cyclic darray) and checked, under several hint sets: the defaults,
 * collective buffering forced on with a small cb_buffer_size (many rounds
 * of two-phase I/O across processes), and forced off.  Also explicit
 * offsets (write_at_all, read_at_all), ranks with nothing to do, split
 * collectives, the nonblocking collectives and reads past the end of the
 * file.
 */
#include "iotest.h"

#include <stdlib.h>

enum { NX = 23, NY = 19, NZ = 17 };

static int cell(int x, int y, int z, int seed)
{
    return io_value(((long long)x * NY + y) * NZ + z, seed);
}

/* The block of n cells of dimension d for coordinate c of p. */
static void block_of(int n, int p, int c, int *start, int *len)
{
    int base = n / p, extra = n % p;
    *len = base + (c < extra);
    *start = c * base + (c < extra ? c : extra);
}

typedef struct block {
    int starts[3], sizes[3];
    MPI_Datatype filetype, memtype;
    int *mem; /* with a halo of one cell */
} block_t;

static void block_make(block_t *b, int rank, int size)
{
    int dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0}, coords[3];
    int gsizes[3] = {NX, NY, NZ}, msizes[3], mstarts[3] = {1, 1, 1};
    MPI_Comm cart;
    MPI_Dims_create(size, 3, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    MPI_Cart_coords(cart, rank, 3, coords);
    MPI_Comm_free(&cart);
    for (int d = 0; d < 3; d++) {
        block_of(gsizes[d], dims[d], coords[d], &b->starts[d], &b->sizes[d]);
        msizes[d] = b->sizes[d] + 2;
    }
    MPI_Type_create_subarray(3, gsizes, b->sizes, b->starts, MPI_ORDER_C,
                             MPI_INT, &b->filetype);
    MPI_Type_create_subarray(3, msizes, b->sizes, mstarts, MPI_ORDER_C, MPI_INT,
                             &b->memtype);
    MPI_Type_commit(&b->filetype);
    MPI_Type_commit(&b->memtype);
    b->mem = malloc((size_t)msizes[0] * msizes[1] * msizes[2] * sizeof(int));
}

static void block_fill(block_t *b, int seed)
{
    int my = b->sizes[1] + 2, mz = b->sizes[2] + 2;
    for (int x = 0; x < b->sizes[0] + 2; x++)
        for (int y = 0; y < my; y++)
            for (int z = 0; z < mz; z++)
                b->mem[(x * my + y) * mz + z] =
                    x && y && z && x <= b->sizes[0] && y <= b->sizes[1] &&
                            z <= b->sizes[2]
                        ? cell(b->starts[0] + x - 1, b->starts[1] + y - 1,
                               b->starts[2] + z - 1, seed)
                        : -1;
}

static void block_free(block_t *b)
{
    MPI_Type_free(&b->filetype);
    MPI_Type_free(&b->memtype);
    free(b->mem);
}

/* Reads the whole array back as a cyclic darray (cycles of 2 planes in x)
 * and checks it. */
static void check_darray(MPI_File fh, int rank, int size, int seed)
{
    int gsizes[3] = {NX, NY, NZ};
    int distribs[3] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE,
                       MPI_DISTRIBUTE_NONE};
    int dargs[3] = {2, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    int psizes[3] = {size, 1, 1}, tsize, count = -1;
    MPI_Datatype dt;
    MPI_Status st;
    MPI_Type_create_darray(size, rank, 3, gsizes, distribs, dargs, psizes,
                           MPI_ORDER_C, MPI_INT, &dt);
    MPI_Type_commit(&dt);
    MPI_Type_size(dt, &tsize);
    int n = tsize / (int)sizeof(int);
    int *got = malloc((size_t)(n ? n : 1) * sizeof(int));
    MT_CHECK_MPI(
        MPI_File_set_view(fh, 0, MPI_INT, dt, "native", MPI_INFO_NULL));
    MT_CHECK_MPI(MPI_File_read_all(fh, got, n, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    MT_CHECK_INT_EQ(count, n);
    int i = 0;
    for (int x = 0; x < NX; x++) {
        if ((x / 2) % size != rank)
            continue;
        for (int y = 0; y < NY; y++)
            for (int z = 0; z < NZ; z++, i++)
                if (!MT_CHECK_INT_EQ(got[i], cell(x, y, z, seed)))
                    goto out;
    }
out:
    MPI_Type_free(&dt);
    free(got);
}

static void check_array(const char *name, MPI_Info info, int rank, int size,
                        int seed)
{
    block_t b;
    MPI_File fh;
    MPI_Status st;
    int count = -1;
    block_make(&b, rank, size);
    block_fill(&b, seed);
    MT_CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name,
                               MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
    MT_CHECK_MPI(MPI_File_set_size(fh, 0));
    MT_CHECK_MPI(
        MPI_File_set_view(fh, 0, MPI_INT, b.filetype, "native", MPI_INFO_NULL));
    MT_CHECK_MPI(MPI_File_write_all(fh, b.mem, 1, b.memtype, &st));
    MPI_Get_count(&st, b.memtype, &count);
    MT_CHECK_INT_EQ(count, 1);
    /* What the others wrote is ours to see after sync-barrier-sync. */
    MT_CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MT_CHECK_MPI(MPI_File_sync(fh));
    MPI_Offset pos = -1, fsize = -1;
    MT_CHECK_MPI(MPI_File_get_position(fh, &pos));
    MT_CHECK_INT_EQ(pos, (long long)b.sizes[0] * b.sizes[1] * b.sizes[2]);
    MT_CHECK_MPI(MPI_File_get_size(fh, &fsize));
    MT_CHECK_INT_EQ(fsize, (long long)NX * NY * NZ * sizeof(int));
    check_darray(fh, rank, size, seed);
    /* Back through the blocks, into the halo'd memory. */
    block_fill(&b, seed + 1);
    MT_CHECK_MPI(
        MPI_File_set_view(fh, 0, MPI_INT, b.filetype, "native", MPI_INFO_NULL));
    MT_CHECK_MPI(MPI_File_read_all(fh, b.mem, 1, b.memtype, &st));
    int my = b.sizes[1] + 2, mz = b.sizes[2] + 2;
    for (int x = 1; x <= b.sizes[0]; x++)
        for (int y = 1; y <= b.sizes[1]; y++)
            for (int z = 1; z <= b.sizes[2]; z++)
                if (!MT_CHECK_INT_EQ(b.mem[(x * my + y) * mz + z],
                                     cell(b.starts[0] + x - 1,
                                          b.starts[1] + y - 1,
                                          b.starts[2] + z - 1, seed)))
                    goto done;
    MT_CHECK_INT_EQ(b.mem[0], -1); /* the halo stays as it was */
done:
    MT_CHECK_MPI(MPI_File_close(&fh));
    block_free(&b);
}

/* Each rank its own contiguous block at an explicit offset; odd ranks
 * have nothing to write; read back shifted by one rank. */
static void check_at_all(const char *name, int rank, int size)
{
    enum { N = 777 };
    MPI_File fh;
    MPI_Status st;
    int *buf = malloc(N * sizeof(int)), count = -1;
    int n = rank % 2 ? 0 : N;
    for (int i = 0; i < N; i++)
        buf[i] = io_value((long long)rank * N + i, 5);
    /* Two-phase across processes, in chunks of 1000 bytes. */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "cb_buffer_size", "1000");
    MT_CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name,
                               MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
    MPI_Info_free(&info);
    MT_CHECK_MPI(MPI_File_set_size(fh, 0));
    MT_CHECK_MPI(MPI_File_write_at_all(fh, (MPI_Offset)rank * N * 4, buf, n,
                                       MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    MT_CHECK_INT_EQ(count, n);
    MT_CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MT_CHECK_MPI(MPI_File_sync(fh));
    /* Rank from's block: its data (even ranks), a hole of zeros (odd
     * ranks before the last even one), or past the end of the file. */
    int from = (rank + 2) % size, last_even = (size - 1) / 2 * 2;
    int expect = from > last_even ? 0 : N;
    memset(buf, 0xff, N * sizeof(int));
    MT_CHECK_MPI(MPI_File_read_at_all(fh, (MPI_Offset)from * N * 4, buf, N,
                                      MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    MT_CHECK_INT_EQ(count, expect);
    for (int i = 0; i < expect; i++)
        if (!MT_CHECK_INT_EQ(
                buf[i], from % 2 ? 0 : io_value((long long)from * N + i, 5)))
            break;
    /* Everybody reads the same block (overlapping requests). */
    memset(buf, 0, N * sizeof(int));
    MT_CHECK_MPI(
        MPI_File_read_at_all(fh, 0, buf, N, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++)
        if (!MT_CHECK_INT_EQ(buf[i], io_value(i, 5)))
            break;
    MT_CHECK_MPI(MPI_File_close(&fh));
    free(buf);
}

/* Split collectives and the nonblocking collectives: the same data as the
 * blocking ones. */
static void check_split_and_nonblocking(const char *name, int rank)
{
    enum { N = 100 };
    MPI_File fh;
    MPI_Status st;
    MPI_Request req;
    int out[N], in[N], count = -1;
    for (int i = 0; i < N; i++)
        out[i] = io_value((long long)rank * N + i, 7);
    MT_CHECK_MPI(
        MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MT_CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)rank * N * 4 * 2, MPI_INT,
                                   MPI_INT, "native", MPI_INFO_NULL));
    MT_CHECK_MPI(MPI_File_write_all_begin(fh, out, N, MPI_INT));
    MT_CHECK_ERR_CLASS(MPI_File_write_all_begin(fh, out, N, MPI_INT),
                       MPI_ERR_OTHER);
    MT_CHECK_MPI(MPI_File_write_all_end(fh, out, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    MT_CHECK_INT_EQ(count, N);
    MT_CHECK_ERR_CLASS(MPI_File_write_all_end(fh, out, &st), MPI_ERR_OTHER);
    MT_CHECK_MPI(MPI_File_iwrite_all(fh, out, N, MPI_INT, &req));
    MT_CHECK_MPI(MPI_Wait(&req, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    MT_CHECK_INT_EQ(count, N);
    MT_CHECK_MPI(MPI_File_read_at_all_begin(fh, 0, in, N, MPI_INT));
    MT_CHECK_MPI(MPI_File_read_at_all_end(fh, in, &st));
    for (int i = 0; i < N; i++)
        if (!MT_CHECK_INT_EQ(in[i], out[i]))
            break;
    memset(in, 0, sizeof(in));
    MT_CHECK_MPI(MPI_File_iread_at_all(fh, N, in, N, MPI_INT, &req));
    MT_CHECK_MPI(MPI_Wait(&req, &st));
    for (int i = 0; i < N; i++)
        if (!MT_CHECK_INT_EQ(in[i], out[i]))
            break;
    MT_CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    MT_CHECK_MPI(MPI_File_read_all_begin(fh, in, N, MPI_INT));
    MT_CHECK_MPI(MPI_File_read_all_end(fh, in, MPI_STATUS_IGNORE));
    MT_CHECK_MPI(MPI_File_iread_all(fh, in, N, MPI_INT, &req));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MPI_Offset pos;
    MT_CHECK_MPI(MPI_File_get_position(fh, &pos));
    MT_CHECK_INT_EQ(pos, 2 * N);
    MT_CHECK_MPI(MPI_File_close(&fh));
}

/* 24 MiB, block-cyclic over the ranks in blocks of 3000 doubles: large
 * enough that a process's helper threads share the transfer (slices of
 * the file range, file_coll.c). */
static void check_large(const char *name, int rank, int size)
{
    enum { BLK = 3000 };
    long long total = 24ll << 20 >> 3, nblk = total / BLK;
    int mine = (int)(nblk / size + (rank < nblk % size));
    MPI_Datatype block, ft;
    MPI_Type_contiguous(BLK, MPI_DOUBLE, &block);
    MPI_Type_create_resized(block, 0, (MPI_Aint)size * BLK * 8, &ft);
    MPI_Type_commit(&ft);
    double *v = malloc((size_t)mine * BLK * sizeof(double) + 8);
    for (long long i = 0; i < (long long)mine * BLK; i++)
        v[i] = (double)(((i / BLK) * size + rank) * BLK + i % BLK);
    MPI_File fh;
    MT_CHECK_MPI(
        MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MT_CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)rank * BLK * 8, MPI_DOUBLE,
                                   ft, "native", MPI_INFO_NULL));
    MT_CHECK_MPI(
        MPI_File_write_all(fh, v, mine * BLK, MPI_DOUBLE, MPI_STATUS_IGNORE));
    memset(v, 0, (size_t)mine * BLK * sizeof(double));
    MT_CHECK_MPI(MPI_File_read_at_all(fh, 0, v, mine * BLK, MPI_DOUBLE,
                                      MPI_STATUS_IGNORE));
    for (long long i = 0; i < (long long)mine * BLK; i++)
        if (!MT_CHECK_DBL_EQ(
                v[i], (double)(((i / BLK) * size + rank) * BLK + i % BLK)))
            break;
    MT_CHECK_MPI(MPI_File_close(&fh));
    MPI_Type_free(&block);
    MPI_Type_free(&ft);
    free(v);
}

/* Atomic mode: every rank writes its whole block over the same bytes at
 * once; afterwards the bytes are one writer's block, never a mix.  Then
 * collective accesses in atomic mode. */
static void check_atomic(const char *name, int rank, int size)
{
    enum { N = 20000 };
    MPI_File fh;
    int *v = malloc(N * sizeof(int)), flag = 0;
    for (int i = 0; i < N; i++)
        v[i] = rank;
    MT_CHECK_MPI(
        MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MT_CHECK_MPI(MPI_File_set_atomicity(fh, 1));
    MT_CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK_MPI(MPI_File_write_at(fh, 0, v, N, MPI_INT, MPI_STATUS_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD);
    MT_CHECK_MPI(MPI_File_read_at(fh, 0, v, N, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 1; i < N; i++)
        if (!MT_CHECK_INT_EQ(v[i], v[0]))
            break;
    MT_CHECK(v[0] >= 0 && v[0] < size);
    for (int i = 0; i < N / size; i++)
        v[i] = io_value((long long)rank * N + i, 9);
    MT_CHECK_MPI(MPI_File_write_at_all(fh, (MPI_Offset)rank * (N / size) * 4, v,
                                       N / size, MPI_INT, MPI_STATUS_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD);
    int from = (rank + 1) % size;
    MT_CHECK_MPI(MPI_File_read_at_all(fh, (MPI_Offset)from * (N / size) * 4, v,
                                      N / size, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < N / size; i++)
        if (!MT_CHECK_INT_EQ(v[i], io_value((long long)from * N + i, 9)))
            break;
    MT_CHECK_MPI(MPI_File_set_atomicity(fh, 0));
    MT_CHECK_MPI(MPI_File_close(&fh));
    free(v);
}

int main(int argc, char **argv)
{
    char name[256];
    int rank, size;
    MPI_Info info;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_name(MPI_COMM_WORLD, "io_coll", name, sizeof(name));
    check_array(name, MPI_INFO_NULL, rank, size, 1);
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "4096");
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    check_array(name, info, rank, size, 2);
    MPI_Info_set(info, "cb_nodes", "2");
    check_array(name, info, rank, size, 3);
    MPI_Info_set(info, "romio_cb_write", "disable");
    MPI_Info_set(info, "romio_cb_read", "disable");
    check_array(name, info, rank, size, 4);
    MPI_Info_free(&info);
    check_at_all(name, rank, size);
    check_split_and_nonblocking(name, rank);
    check_large(name, rank, size);
    check_atomic(name, rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MT_CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
    return mt_finish_and_finalize();
}
