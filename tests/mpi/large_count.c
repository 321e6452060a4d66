/*
 * large_count: the large-count "_c" calls of MPI-4.0 with ordinary counts
 * (point-to-point, collectives with their v forms, datatypes, packing),
 * their errors (named for the _c call), a value beyond an int where the
 * runtime takes none (MPI_ERR_UNSUPPORTED_OPERATION), and user reductions
 * made with MPI_Op_create_c.  With the argument "big", also a message, a
 * broadcast and local reductions of more than INT_MAX bytes (2 GiB each
 * buffer; run with 2 ranks).
 */
#include "mpitest.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { N = 1000 };

static void point_to_point(int rank, int size)
{
    int *buf = malloc(N * sizeof(int));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Status st;
    MPI_Count count = -1;
    MPI_Request req;
    for (int i = 0; i < N; i++)
        buf[i] = rank * N + i;
    MT_CHECK_MPI(MPI_Isend_c(buf, N, MPI_INT, right, 7, MPI_COMM_WORLD, &req));
    int *in = malloc(N * sizeof(int));
    MT_CHECK_MPI(MPI_Recv_c(in, N, MPI_INT, left, 7, MPI_COMM_WORLD, &st));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &count));
    MT_CHECK_INT_EQ(count, N);
    MT_CHECK_MPI(MPI_Get_elements_c(&st, MPI_SHORT, &count));
    MT_CHECK_INT_EQ(count, 2 * N);
    for (int i = 0; i < N && MT_CHECK_INT_EQ(in[i], left * N + i); i++)
        ;
    MT_CHECK_MPI(MPI_Sendrecv_replace_c(buf, N, MPI_INT, right, 8, left, 8,
                                        MPI_COMM_WORLD, &st));
    MT_CHECK_INT_EQ(buf[N - 1], left * N + N - 1);
    free(in);
    free(buf);
}

static void collectives(int rank, int size)
{
    long long sum = -1, one = rank + 1;
    MT_CHECK_MPI(
        MPI_Allreduce_c(&one, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(sum, (long long)size * (size + 1) / 2);
    int v = rank == 0 ? 42 : 0;
    MT_CHECK_MPI(MPI_Bcast_c(&v, 1, MPI_INT, 0, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(v, 42);
    /* Gatherv_c: rank i gives i + 1 ints, placed backwards at the root. */
    MPI_Count *counts = malloc(size * sizeof(*counts));
    MPI_Aint *displs = malloc(size * sizeof(*displs));
    MPI_Aint total = 0;
    for (int i = size - 1; i >= 0; i--) {
        counts[i] = i + 1;
        displs[i] = total;
        total += i + 1;
    }
    int *mine = malloc((rank + 1) * sizeof(int));
    int *all = malloc(total * sizeof(int));
    for (int i = 0; i <= rank; i++)
        mine[i] = rank * 100 + i;
    MT_CHECK_MPI(MPI_Gatherv_c(mine, rank + 1, MPI_INT, all, counts, displs,
                               MPI_INT, 0, MPI_COMM_WORLD));
    for (int i = 0; rank == 0 && i < size; i++)
        for (int j = 0; j <= i; j++)
            MT_CHECK_INT_EQ(all[displs[i] + j], i * 100 + j);
    /* Alltoallv_c: one int to and from each rank. */
    MPI_Count *ones = malloc(size * sizeof(*ones));
    MPI_Aint *at = malloc(size * sizeof(*at));
    int *to = malloc(size * sizeof(int)), *from = malloc(size * sizeof(int));
    for (int i = 0; i < size; i++) {
        ones[i] = 1;
        at[i] = i;
        to[i] = rank * size + i;
    }
    MT_CHECK_MPI(MPI_Alltoallv_c(to, ones, at, MPI_INT, from, ones, at, MPI_INT,
                                 MPI_COMM_WORLD));
    for (int i = 0; i < size && MT_CHECK_INT_EQ(from[i], i * size + rank); i++)
        ;
    /* Reduce_scatter_c: rank i gets the sum of element i. */
    int got = -1;
    MT_CHECK_MPI(
        MPI_Reduce_scatter_c(to, &got, ones, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(got, size * (size - 1) / 2 * size + rank * size);
    free(ones);
    free(at);
    free(to);
    free(from);
    free(mine);
    free(all);
    free(counts);
    free(displs);
}

static void datatypes(void)
{
    MPI_Datatype t;
    MPI_Count size = 0, lb = -1, extent = 0, ni, na, nl, nd;
    int combiner = 0;
    MT_CHECK_MPI(MPI_Type_contiguous_c(5, MPI_DOUBLE, &t));
    MT_CHECK_MPI(MPI_Type_commit(&t));
    MT_CHECK_MPI(MPI_Type_size_c(t, &size));
    MT_CHECK_INT_EQ(size, 40);
    MT_CHECK_MPI(MPI_Type_get_extent_c(t, &lb, &extent));
    MT_CHECK_INT_EQ(lb, 0);
    MT_CHECK_INT_EQ(extent, 40);
    MT_CHECK_MPI(MPI_Type_get_envelope_c(t, &ni, &na, &nl, &nd, &combiner));
    MT_CHECK_INT_EQ(combiner, MPI_COMBINER_CONTIGUOUS);
    MT_CHECK_INT_EQ(ni, 1);
    MT_CHECK_INT_EQ(nl, 0);
    MT_CHECK_MPI(MPI_Type_free(&t));
    MPI_Count lens[2] = {1, 2}, disps[2] = {0, 8};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MT_CHECK_MPI(MPI_Type_create_struct_c(2, lens, disps, types, &t));
    MT_CHECK_MPI(MPI_Type_size_c(t, &size));
    MT_CHECK_INT_EQ(size, 20);
    MT_CHECK_MPI(MPI_Type_free(&t));
    /* Pack_c and Unpack_c, positions as MPI_Count. */
    int in[4] = {1, 2, 3, 4}, out[4] = {0};
    char packed[64];
    MPI_Count pos = 0, psize = 0;
    MT_CHECK_MPI(MPI_Pack_size_c(4, MPI_INT, MPI_COMM_WORLD, &psize));
    MT_CHECK_INT_EQ(psize, 16);
    MT_CHECK_MPI(MPI_Pack_c(in, 4, MPI_INT, packed, sizeof(packed), &pos,
                            MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(pos, 16);
    pos = 0;
    MT_CHECK_MPI(
        MPI_Unpack_c(packed, 16, &pos, out, 4, MPI_INT, MPI_COMM_WORLD));
    MT_CHECK(memcmp(in, out, sizeof(in)) == 0);
}

/* A large-count user reduction: inout[i] += in[i] (ints); its len is an
 * MPI_Count and it gets the program's datatype. */
static void sum_ints(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    if (!MT_CHECK(*dt == MPI_INT))
        return;
    for (MPI_Count i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void user_ops(int rank, int size)
{
    MPI_Op op;
    int v[2] = {rank + 1, 1}, r[2] = {0, 0};
    MT_CHECK_MPI(MPI_Op_create_c(sum_ints, 1, &op));
    MT_CHECK_MPI(MPI_Allreduce_c(v, r, 2, MPI_INT, op, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(r[0], size * (size + 1) / 2);
    MT_CHECK_INT_EQ(r[1], size);
    int a[3] = {1, 2, 3}, b[3] = {10, 20, 30};
    MT_CHECK_MPI(MPI_Reduce_local_c(a, b, 3, MPI_INT, op));
    MT_CHECK_INT_EQ(b[0], 11);
    MT_CHECK_INT_EQ(b[2], 33);
    MT_CHECK_MPI(MPI_Op_free(&op));
}

static void errors(void)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len, x = 0;
    MT_CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Send_c(&x, -2, MPI_INT, 0, 0, MPI_COMM_WORLD);
    MT_CHECK_ERR_CLASS(rc, MPI_ERR_COUNT);
    MPI_Error_string(rc, msg, &len);
    MT_CHECK(strstr(msg, "MPI_Send_c") != NULL);
    /* A count of the v forms beyond an int: not taken, and said so. */
    MPI_Count counts[1];
    MPI_Aint displs[1] = {0};
    counts[0] = (MPI_Count)INT_MAX + 1;
    MT_CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    rc = MPI_Gatherv_c(&x, 0, MPI_INT, &x, counts, displs, MPI_INT, 0,
                       MPI_COMM_SELF);
    MT_CHECK_ERR_CLASS(rc, MPI_ERR_UNSUPPORTED_OPERATION);
    MPI_Error_string(rc, msg, &len);
    MT_CHECK(strstr(msg, "recvcounts[0]") != NULL);
    MT_CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MT_CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
}

/* An int-binding user reduction on bytes: inout ^= in. */
static void xor_bytes(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    unsigned char *a = in, *b = inout;
    MT_CHECK(*dt == MPI_BYTE);
    for (int i = 0; i < *len; i++)
        b[i] ^= a[i];
}

/* Big buffers repeat a block of a prime length (so that data landing at
 * a wrong offset shows), filled and compared block by block. */
enum { BLOCK = 4093 };

static void big_fill(unsigned char *buf, size_t n)
{
    mt_fill(buf, n < BLOCK ? n : BLOCK, 3);
    for (size_t at = BLOCK; at < n; at += BLOCK)
        memcpy(buf + at, buf, n - at < BLOCK ? n - at : BLOCK);
}

static int big_check(const unsigned char *buf, size_t n, const char *what)
{
    unsigned char block[BLOCK];
    mt_fill(block, BLOCK, 3);
    for (size_t at = 0; at < n; at += BLOCK)
        if (memcmp(buf + at, block, n - at < BLOCK ? n - at : BLOCK) != 0) {
            MT_FAIL("%s: wrong data in bytes %zu..%zu", what, at, at + BLOCK);
            return 0;
        }
    return 1;
}

static void *big_alloc(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* More than INT_MAX bytes: a message and a broadcast between ranks 0 and
 * 1, then at rank 1 a reduction with a predefined and with a user
 * operation (called in pieces of at most INT_MAX); at most two buffers
 * exist at a time. */
static void big(int rank)
{
    const MPI_Count n = (MPI_Count)INT_MAX + 5;
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, rank < 2, rank, &pair);
    if (rank >= 2) {
        MPI_Comm_free(&pair);
        return;
    }
    unsigned char *buf = big_alloc((size_t)n);
    if (!MT_CHECK(buf != NULL))
        return;
    if (rank == 0)
        big_fill(buf, (size_t)n);
    MPI_Status st;
    MPI_Count got = 0;
    if (rank == 0)
        MT_CHECK_MPI(MPI_Send_c(buf, n, MPI_BYTE, 1, 1, pair));
    else
        MT_CHECK_MPI(MPI_Recv_c(buf, n, MPI_BYTE, 0, 1, pair, &st));
    if (rank == 1) {
        MT_CHECK_MPI(MPI_Get_count_c(&st, MPI_BYTE, &got));
        MT_CHECK_INT_EQ(got, n);
        big_check(buf, (size_t)n, "received");
        memset(buf, 0, (size_t)n);
    }
    MT_CHECK_MPI(MPI_Bcast_c(buf, n, MPI_BYTE, 0, pair));
    MT_CHECK_MPI(MPI_Barrier(pair));
    if (rank == 0)
        munmap(buf, (size_t)n);
    MT_CHECK_MPI(MPI_Barrier(pair));
    if (rank == 1) {
        big_check(buf, (size_t)n, "broadcast");
        unsigned char *other = big_alloc((size_t)n);
        if (MT_CHECK(other != NULL)) {
            MPI_Op op;
            memcpy(other, buf, (size_t)n);
            MT_CHECK_MPI(MPI_Reduce_local_c(buf, other, n, MPI_BYTE, MPI_BXOR));
            MT_CHECK(other[0] == 0 && other[n - 1] == 0 && other[n / 2] == 0);
            MT_CHECK_MPI(MPI_Op_create(xor_bytes, 1, &op));
            MT_CHECK_MPI(MPI_Reduce_local_c(buf, other, n, MPI_BYTE, op));
            big_check(other, (size_t)n, "reduced");
            MT_CHECK_MPI(MPI_Op_free(&op));
            munmap(other, (size_t)n);
        }
        munmap(buf, (size_t)n);
    }
    MPI_Comm_free(&pair);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    point_to_point(rank, size);
    collectives(rank, size);
    datatypes();
    user_ops(rank, size);
    errors();
    if (argc > 1 && strcmp(argv[1], "big") == 0)
        big(rank);
    return mt_finish_and_finalize();
}
