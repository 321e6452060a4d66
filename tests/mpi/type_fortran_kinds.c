/*
 * The Fortran types of given size and precision, from C:
 * MPI_Type_match_size (MPI_REAL4/8/16, MPI_INTEGER1..16, MPI_COMPLEX8/16/32
 * by size), MPI_Type_create_f90_real/_complex/_integer (the smallest kind
 * with the precision and range asked, a named type with its own envelope
 * that cannot be freed, the same handle for the same arguments), and the
 * new predefined types themselves: sizes, a sum over MPI_REAL16,
 * MPI_COMPLEX32 and MPI_INTEGER16 across the ranks, and their external32
 * form (IEEE binary128 big-endian).
 */
#include "mpitest.h"

static void match(int typeclass, int size, MPI_Datatype want)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MT_CHECK_MPI(MPI_Type_match_size(typeclass, size, &t));
    if (!MT_CHECK(t == want))
        MT_FAIL("MPI_Type_match_size(%d, %d)", typeclass, size);
}

static void match_sizes(void)
{
    match(MPI_TYPECLASS_REAL, 4, MPI_REAL4);
    match(MPI_TYPECLASS_REAL, 8, MPI_REAL8);
    match(MPI_TYPECLASS_REAL, 16, MPI_REAL16);
    match(MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1);
    match(MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2);
    match(MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4);
    match(MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8);
    match(MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16);
    match(MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8);
    match(MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16);
    match(MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32);
    MPI_Datatype t;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t),
                       MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Type_match_size(99, 4, &t), MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    int sizes[][2] = {{0, 0}};
    (void)sizes;
    MPI_Type_size(MPI_REAL16, &sizes[0][0]);
    MT_CHECK_INT_EQ(sizes[0][0], 16);
    MPI_Type_size(MPI_COMPLEX32, &sizes[0][0]);
    MT_CHECK_INT_EQ(sizes[0][0], 32);
    MPI_Type_size(MPI_INTEGER16, &sizes[0][0]);
    MT_CHECK_INT_EQ(sizes[0][0], 16);
}

/* t is a duplicate of base with combiner and ints envelope. */
static void check_f90(MPI_Datatype t, MPI_Datatype base, int combiner, int n,
                      int i0, int i1)
{
    int ni, na, nd, comb, ints[2] = {-1, -1}, size, bsize;
    MT_CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    MT_CHECK(comb == combiner && ni == n && na == 0 && nd == 0);
    MT_CHECK_MPI(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL));
    MT_CHECK_INT_EQ(ints[0], i0);
    if (n == 2)
        MT_CHECK_INT_EQ(ints[1], i1);
    MPI_Type_size(t, &size);
    MPI_Type_size(base, &bsize);
    MT_CHECK_INT_EQ(size, bsize);
}

static void f90_types(void)
{
    MPI_Datatype a, b, c, d, e;
    MT_CHECK_MPI(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &a));
    check_f90(a, MPI_REAL4, MPI_COMBINER_F90_REAL, 2, 6, MPI_UNDEFINED);
    MT_CHECK_MPI(MPI_Type_create_f90_real(10, 100, &b));
    check_f90(b, MPI_REAL8, MPI_COMBINER_F90_REAL, 2, 10, 100);
    MT_CHECK_MPI(MPI_Type_create_f90_real(20, MPI_UNDEFINED, &c));
    check_f90(c, MPI_REAL16, MPI_COMBINER_F90_REAL, 2, 20, MPI_UNDEFINED);
    MT_CHECK_MPI(MPI_Type_create_f90_complex(MPI_UNDEFINED, 300, &d));
    check_f90(d, MPI_COMPLEX16, MPI_COMBINER_F90_COMPLEX, 2, MPI_UNDEFINED,
              300);
    MT_CHECK_MPI(MPI_Type_create_f90_integer(5, &e));
    check_f90(e, MPI_INTEGER4, MPI_COMBINER_F90_INTEGER, 1, 5, 0);
    MPI_Datatype again;
    MT_CHECK_MPI(MPI_Type_create_f90_real(10, 100, &again));
    MT_CHECK(again == b);
    /* Usable as any type: a message of two MPI_REAL8-sized values. */
    double out[2] = {1.5, -2.5}, in[2] = {0, 0};
    MPI_Sendrecv(out, 2, b, 0, 0, in, 2, MPI_DOUBLE, 0, 0, MPI_COMM_SELF,
                 MPI_STATUS_IGNORE);
    MT_CHECK_DBL_EQ(in[1], -2.5);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(MPI_Type_free(&b), MPI_ERR_TYPE);
    MT_CHECK_ERR_CLASS(MPI_Type_create_f90_real(40, MPI_UNDEFINED, &a),
                       MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Type_create_f90_integer(39, &a), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(
        MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &a),
        MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

#if defined(__SIZEOF_FLOAT128__) && defined(__SIZEOF_INT128__)
/* Sums of the 16-byte Fortran types over the ranks. */
static void sums(int rank, int size)
{
    __float128 q = (__float128)rank + 0.25Q, qs = 0;
    __int128 big = ((__int128)1 << 100) + rank, bs = 0;
    __float128 c[2] = {(__float128)rank, 1.0Q}, cs[2] = {0, 0};
    MPI_Allreduce(&q, &qs, 1, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&big, &bs, 1, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(c, cs, 1, MPI_COMPLEX32, MPI_SUM, MPI_COMM_WORLD);
    long long tri = (long long)size * (size - 1) / 2;
    MT_CHECK(qs == (__float128)tri + 0.25Q * size);
    MT_CHECK(bs == ((__int128)size << 100) + tri);
    MT_CHECK(cs[0] == (__float128)tri && cs[1] == (__float128)size);
}

/* REAL16 in external32: binary128, big-endian (1.0 is 3fff 0...). */
static void external(void)
{
    __float128 one = 1.0Q, back = 0;
    unsigned char buf[16];
    MPI_Aint pos = 0;
    MT_CHECK_MPI(MPI_Pack_external("external32", &one, 1, MPI_REAL16, buf,
                                   sizeof(buf), &pos));
    MT_CHECK(pos == 16 && buf[0] == 0x3f && buf[1] == 0xff && buf[2] == 0 &&
             buf[15] == 0);
    pos = 0;
    MPI_Unpack_external("external32", buf, 16, &pos, &back, 1, MPI_REAL16);
    MT_CHECK(back == one);
}
#else
static void sums(int rank, int size)
{
    (void)rank, (void)size;
}

static void external(void)
{
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    match_sizes();
    f90_types();
    sums(rank, size);
    external();
    return mt_finish_and_finalize();
}
