/*
 * type_reduce: MPI_Reduce and MPI_Allreduce on derived types with holes
 * whose basic values are all of one predefined type: a strided vector
 * (count > 1, in place too), an indexed type, a struct of one type,
 * MAXLOC/MINLOC over strided MPI_DOUBLE_INT and MPI_2INT, and a user
 * operation, which must be handed the user's datatype.  The gaps of the
 * receive buffer keep their contents; a type mixing basic types answers
 * MPI_ERR_OP.
 */
#include "mpitest.h"

#include <stdlib.h>

#define HOLE (-7777)

/* Sum over ranks 0..n-1 of (r + k). */
static int sum_of(int n, int k)
{
    return n * (n - 1) / 2 + n * k;
}

static void vector_sum(int rank, int size)
{
    /* 2 elements of: 4 ints, stride 3 */
    MPI_Datatype v;
    MT_CHECK_MPI(MPI_Type_vector(4, 1, 3, MPI_INT, &v));
    MT_CHECK_MPI(MPI_Type_commit(&v));
    MPI_Aint lb, ext;
    MPI_Type_get_extent(v, &lb, &ext);
    int n = (int)(2 * ext / sizeof(int));
    int *in = malloc((size_t)n * sizeof(int)), *out = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) {
        in[i] = rank + i;
        out[i] = HOLE;
    }
    MT_CHECK_MPI(MPI_Allreduce(in, out, 2, v, MPI_SUM, MPI_COMM_WORLD));
    for (int e = 0; e < 2; e++)
        for (int i = 0; i < 10; i++) {
            int at = e * (int)(ext / sizeof(int)) + i;
            MT_CHECK_INT_EQ(out[at], i % 3 ? HOLE : sum_of(size, at));
        }
    /* in place: the gaps of the buffer keep this rank's values */
    MT_CHECK_MPI(
        MPI_Allreduce(MPI_IN_PLACE, in, 2, v, MPI_SUM, MPI_COMM_WORLD));
    for (int e = 0; e < 2; e++)
        for (int i = 0; i < 10; i++) {
            int at = e * (int)(ext / sizeof(int)) + i;
            MT_CHECK_INT_EQ(in[at], i % 3 ? rank + at : sum_of(size, at));
        }
    MT_CHECK_MPI(MPI_Type_free(&v));
    free(in);
    free(out);
}

static void indexed_max(int rank, int size)
{
    int blens[3] = {2, 1, 3}, disps[3] = {0, 4, 7};
    MPI_Datatype t;
    MT_CHECK_MPI(MPI_Type_indexed(3, blens, disps, MPI_DOUBLE, &t));
    MT_CHECK_MPI(MPI_Type_commit(&t));
    double in[10], out[10];
    for (int i = 0; i < 10; i++) {
        in[i] = (i % 2 ? -1.0 : 1.0) * (rank + 1) * (i + 1);
        out[i] = HOLE;
    }
    int root = size - 1;
    MT_CHECK_MPI(MPI_Reduce(in, out, 1, t, MPI_MAX, root, MPI_COMM_WORLD));
    if (rank == root) {
        const int data[10] = {1, 1, 0, 0, 1, 0, 0, 1, 1, 1};
        for (int i = 0; i < 10; i++) {
            double want = i % 2 ? -1.0 * (i + 1) : 1.0 * size * (i + 1);
            MT_CHECK_DBL_EQ(out[i], data[i] ? want : HOLE);
        }
    }
    MT_CHECK_MPI(MPI_Type_free(&t));
}

static void struct_sum(int rank, int size)
{
    int blens[2] = {1, 2};
    MPI_Aint disps[2] = {0, 3 * sizeof(long)};
    MPI_Datatype types[2] = {MPI_LONG, MPI_LONG}, t;
    MT_CHECK_MPI(MPI_Type_create_struct(2, blens, disps, types, &t));
    MT_CHECK_MPI(MPI_Type_commit(&t));
    long in[5], out[5];
    for (int i = 0; i < 5; i++) {
        in[i] = rank + i;
        out[i] = HOLE;
    }
    MT_CHECK_MPI(MPI_Reduce(in, out, 1, t, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0)
        for (int i = 0; i < 5; i++)
            MT_CHECK_INT_EQ(out[i], i == 1 || i == 2 ? HOLE : sum_of(size, i));
    MT_CHECK_MPI(MPI_Type_free(&t));
}

typedef struct {
    double v;
    int i;
} dint_t;

static void loc_pairs(int rank, int size)
{
    /* every other MPI_DOUBLE_INT of 6 */
    MPI_Datatype v, v2;
    MT_CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_DOUBLE_INT, &v));
    MT_CHECK_MPI(MPI_Type_commit(&v));
    dint_t in[6], out[6];
    for (int k = 0; k < 6; k++) {
        in[k].v = (k % 2 ? 1.0 : -1.0) * ((rank + k) % size);
        in[k].i = rank;
        out[k].v = HOLE;
        out[k].i = HOLE;
    }
    MT_CHECK_MPI(MPI_Allreduce(in, out, 1, v, MPI_MAXLOC, MPI_COMM_WORLD));
    for (int k = 0; k < 6; k++) {
        if (k % 2) {
            MT_CHECK_DBL_EQ(out[k].v, HOLE);
            MT_CHECK_INT_EQ(out[k].i, HOLE);
            continue;
        }
        /* -((r + k) % size) is largest (0) at r = (size - k % size) % size */
        MT_CHECK_DBL_EQ(out[k].v, 0.0);
        MT_CHECK_INT_EQ(out[k].i, (size - k % size) % size);
    }
    /* MPI_2INT, every third */
    MT_CHECK_MPI(MPI_Type_vector(2, 1, 3, MPI_2INT, &v2));
    MT_CHECK_MPI(MPI_Type_commit(&v2));
    int a[12], b[12];
    for (int k = 0; k < 12; k++) {
        a[k] = k % 2 ? rank : 100 - rank % 3;
        b[k] = HOLE;
    }
    MT_CHECK_MPI(MPI_Allreduce(a, b, 1, v2, MPI_MINLOC, MPI_COMM_WORLD));
    int minv = size >= 3 ? 98 : 100 - (size - 1);
    for (int k = 0; k < 12; k++) {
        int pair = k / 2;
        if (pair != 0 && pair != 3)
            MT_CHECK_INT_EQ(b[k], HOLE);
        else
            MT_CHECK_INT_EQ(b[k], k % 2 ? 100 - minv : minv);
    }
    MT_CHECK_MPI(MPI_Type_free(&v));
    MT_CHECK_MPI(MPI_Type_free(&v2));
}

/* A user sum over elements of "4 ints, stride 3": checks it gets that
 * type (a vector), not MPI_INT. */
static void user_vec_sum(void *in, void *io, int *len, MPI_Datatype *dt)
{
    int ni, na, nt, comb;
    MPI_Type_get_envelope(*dt, &ni, &na, &nt, &comb);
    MT_CHECK_INT_EQ(comb, MPI_COMBINER_VECTOR);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(*dt, &lb, &ext);
    for (int e = 0; e < *len; e++)
        for (int k = 0; k < 4; k++) {
            size_t at = (size_t)e * (size_t)ext / sizeof(int) + 3 * k;
            ((int *)io)[at] += ((const int *)in)[at];
        }
}

static void user_op(int rank, int size)
{
    MPI_Datatype v;
    MPI_Op op;
    MT_CHECK_MPI(MPI_Type_vector(4, 1, 3, MPI_INT, &v));
    MT_CHECK_MPI(MPI_Type_commit(&v));
    MT_CHECK_MPI(MPI_Op_create(user_vec_sum, 1, &op));
    int in[10], out[10];
    for (int i = 0; i < 10; i++) {
        in[i] = rank + i;
        out[i] = HOLE;
    }
    MT_CHECK_MPI(MPI_Allreduce(in, out, 1, v, op, MPI_COMM_WORLD));
    for (int i = 0; i < 10; i++)
        MT_CHECK_INT_EQ(out[i], i % 3 ? HOLE : sum_of(size, i));
    MT_CHECK_MPI(MPI_Op_free(&op));
    MT_CHECK_MPI(MPI_Type_free(&v));
}

static void mixed_refused(void)
{
    int blens[2] = {1, 1};
    MPI_Aint disps[2] = {0, 8};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, t;
    MT_CHECK_MPI(MPI_Type_create_struct(2, blens, disps, types, &t));
    MT_CHECK_MPI(MPI_Type_commit(&t));
    double in[2] = {0}, out[2];
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(MPI_Allreduce(in, out, 1, t, MPI_SUM, MPI_COMM_WORLD),
                       MPI_ERR_OP);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MT_CHECK_MPI(MPI_Type_free(&t));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    vector_sum(rank, size);
    indexed_max(rank, size);
    struct_sum(rank, size);
    loc_pairs(rank, size);
    user_op(rank, size);
    mixed_refused();
    return mt_finish_and_finalize();
}
