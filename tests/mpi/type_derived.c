/*
 * type_derived: vector, indexed, struct, subarray and resized types on the
 * wire.  A column of a 2-D array travels as a vector and lands as
 * contiguous ints; a struct with padding round-trips between partners;
 * data sent with one type is received with another of the same signature
 * (indexed -> subarray); a resized vector of columns moves several columns
 * with count > 1; gaps in receive buffers are left alone.
 */
#include "mpitest.h"

#include <stddef.h>
#include <stdlib.h>

#define ROWS 6
#define COLS 5

struct rec {
    int a;
    double b;
    char c;
};

static void xchg(const void *out, int scount, MPI_Datatype stype, void *in,
                 int rcount, MPI_Datatype rtype, int partner)
{
    MT_CHECK_MPI(MPI_Sendrecv(out, scount, stype, partner, 7, in, rcount, rtype,
                              partner, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

static void column(int rank, int partner)
{
    int *a = malloc(ROWS * COLS * sizeof(int)), col[ROWS];
    for (int i = 0; i < ROWS * COLS; i++)
        a[i] = rank * 1000 + i;
    MPI_Datatype vcol, cols;
    MT_CHECK_MPI(MPI_Type_vector(ROWS, 1, COLS, MPI_INT, &vcol));
    MT_CHECK_MPI(MPI_Type_commit(&vcol));
    xchg(&a[2], 1, vcol, col, ROWS, MPI_INT, partner);
    for (int r = 0; r < ROWS; r++)
        MT_CHECK_INT_EQ(col[r], partner * 1000 + r * COLS + 2);

    /* two columns at once: resize the column type to one int */
    MT_CHECK_MPI(MPI_Type_create_resized(vcol, 0, sizeof(int), &cols));
    MT_CHECK_MPI(MPI_Type_commit(&cols));
    int *b = malloc(ROWS * COLS * sizeof(int));
    for (int i = 0; i < ROWS * COLS; i++)
        b[i] = -1;
    xchg(&a[1], 2, cols, &b[3], 2, cols, partner);
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) {
            int want =
                c == 3 || c == 4 ? partner * 1000 + r * COLS + c - 2 : -1;
            MT_CHECK_INT_EQ(b[r * COLS + c], want);
        }
    MPI_Type_free(&cols);
    MPI_Type_free(&vcol);
    free(a);
    free(b);
}

static void padded_struct(int rank, int partner)
{
    struct rec out[3], in[3];
    int bl[3] = {1, 1, 1};
    MPI_Aint disp[3] = {offsetof(struct rec, a), offsetof(struct rec, b),
                        offsetof(struct rec, c)};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, t;
    MT_CHECK_MPI(MPI_Type_create_struct(3, bl, disp, types, &t));
    MT_CHECK_MPI(MPI_Type_commit(&t));
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    MT_CHECK_INT_EQ(lb, 0);
    MT_CHECK_INT_EQ(ext, sizeof(struct rec));
    for (int i = 0; i < 3; i++)
        out[i] = (struct rec){rank + i, rank * 0.5 + i, (char)('a' + i)};
    memset(in, 0x5a, sizeof(in));
    xchg(out, 3, t, in, 3, t, partner);
    for (int i = 0; i < 3; i++) {
        MT_CHECK_INT_EQ(in[i].a, partner + i);
        MT_CHECK_DBL_EQ(in[i].b, partner * 0.5 + i);
        MT_CHECK_INT_EQ(in[i].c, 'a' + i);
    }
    MPI_Type_free(&t);
}

/* rows 1..2, columns 1..3 of a 4 x 5 array: sent as an indexed type,
 * received as a subarray. */
static void indexed_to_subarray(int rank, int partner)
{
    int a[20], b[20];
    for (int i = 0; i < 20; i++) {
        a[i] = rank * 100 + i;
        b[i] = -1;
    }
    int bl[2] = {3, 3}, dsp[2] = {6, 11};
    int sizes[2] = {4, 5}, sub[2] = {2, 3}, starts[2] = {1, 1};
    MPI_Datatype ind, sa, saf;
    MT_CHECK_MPI(MPI_Type_indexed(2, bl, dsp, MPI_INT, &ind));
    MT_CHECK_MPI(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C,
                                          MPI_INT, &sa));
    MPI_Type_commit(&ind);
    MPI_Type_commit(&sa);
    xchg(a, 1, ind, b, 1, sa, partner);
    for (int i = 0; i < 20; i++) {
        int r = i / 5, c = i % 5;
        int in = r >= 1 && r <= 2 && c >= 1 && c <= 3;
        MT_CHECK_INT_EQ(b[i], in ? partner * 100 + i : -1);
    }
    /* the same block in Fortran order: sizes and starts reversed */
    int fsizes[2] = {5, 4}, fsub[2] = {3, 2};
    MT_CHECK_MPI(MPI_Type_create_subarray(2, fsizes, fsub, starts,
                                          MPI_ORDER_FORTRAN, MPI_INT, &saf));
    MPI_Type_commit(&saf);
    for (int i = 0; i < 20; i++)
        b[i] = -1;
    xchg(a, 1, saf, b, 1, ind, partner);
    for (int i = 0; i < 20; i++) {
        int r = i / 5, c = i % 5;
        int in = r >= 1 && r <= 2 && c >= 1 && c <= 3;
        MT_CHECK_INT_EQ(b[i], in ? partner * 100 + i : -1);
    }
    MPI_Type_free(&saf);
    MPI_Type_free(&sa);
    MPI_Type_free(&ind);
}

static void hindexed_block_negative(int rank, int partner)
{
    double buf[8], got[2];
    for (int i = 0; i < 8; i++)
        buf[i] = rank + i * 0.25;
    /* displacements relative to &buf[4], one of them negative */
    MPI_Aint d[2] = {-3 * (MPI_Aint)sizeof(double), 2 * sizeof(double)};
    MPI_Datatype t;
    MT_CHECK_MPI(MPI_Type_create_hindexed_block(2, 1, d, MPI_DOUBLE, &t));
    MPI_Type_commit(&t);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    MT_CHECK_INT_EQ(lb, -3 * (MPI_Aint)sizeof(double));
    MT_CHECK_INT_EQ(ext, 6 * sizeof(double));
    xchg(&buf[4], 1, t, got, 2, MPI_DOUBLE, partner);
    MT_CHECK_DBL_EQ(got[0], partner + 1 * 0.25);
    MT_CHECK_DBL_EQ(got[1], partner + 6 * 0.25);
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int partner = mt_partner(MPI_COMM_WORLD);
    column(rank, partner);
    padded_struct(rank, partner);
    indexed_to_subarray(rank, partner);
    hindexed_block_negative(rank, partner);
    return mt_finish_and_finalize();
}
