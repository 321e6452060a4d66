/*
 * User data representations: MPI_Register_datarep with conversion and
 * extent callbacks, used by MPI_Pack_external, MPI_Unpack_external and
 * MPI_Pack_external_size.  The representation here stores each int as 8
 * bytes, negated, so packing must go through the write callback (called
 * with the user's buffer, type and count) and unpacking through the read
 * one; a representation registered with MPI_CONVERSION_FN_NULL is the
 * native one.  Registering a name twice or a predefined one is
 * MPI_ERR_DUP_DATAREP; a callback's error is MPI_ERR_CONVERSION.
 */
#include "mpitest.h"

#include <stdint.h>

typedef struct counts {
    int reads, writes, extents;
} counts_t;

static int extent8(MPI_Datatype type, MPI_Aint *extent, void *extra)
{
    ((counts_t *)extra)->extents++;
    *extent = type == MPI_INT ? 8 : 0;
    return type == MPI_INT ? MPI_SUCCESS : MPI_ERR_TYPE;
}

/* userbuf holds count elements of type (ints, possibly strided); the
 * packing calls convert everything at once (position 0). */
static int write_neg(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                     MPI_Offset position, void *extra)
{
    ((counts_t *)extra)->writes++;
    int packed[64], pos = 0, size;
    MPI_Pack_size(count, type, MPI_COMM_SELF, &size);
    MPI_Pack(userbuf, count, type, packed, sizeof(packed), &pos, MPI_COMM_SELF);
    int64_t *out = filebuf;
    for (int i = 0; i < size / 4; i++)
        out[i] = -(int64_t)packed[i];
    return position == 0 ? MPI_SUCCESS : MPI_ERR_ARG; /* from the start */
}

static int read_neg(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                    MPI_Offset position, void *extra)
{
    ((counts_t *)extra)->reads++;
    int packed[64], pos = 0, size;
    MPI_Pack_size(count, type, MPI_COMM_SELF, &size);
    const int64_t *in = filebuf;
    for (int i = 0; i < size / 4; i++)
        packed[i] = (int)-in[i];
    MPI_Unpack(packed, size, &pos, userbuf, count, type, MPI_COMM_SELF);
    return position == 0 ? MPI_SUCCESS : MPI_ERR_ARG;
}

static int failing(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                   MPI_Offset position, void *extra)
{
    (void)userbuf, (void)type, (void)count, (void)filebuf, (void)position;
    (void)extra;
    return MPI_ERR_OTHER;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    counts_t c = {0};
    MT_CHECK_MPI(
        MPI_Register_datarep("neg64", read_neg, write_neg, extent8, &c));
    int in[6] = {1, -2, 3, 4, 5, 6}, out[6] = {0};
    MPI_Datatype every_other;
    MPI_Type_vector(3, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Aint size = -1, pos = 0;
    MT_CHECK_MPI(MPI_Pack_external_size("neg64", 1, every_other, &size));
    MT_CHECK_INT_EQ(size, 24);
    int64_t buf[8] = {0};
    MT_CHECK_MPI(
        MPI_Pack_external("neg64", in, 1, every_other, buf, sizeof(buf), &pos));
    MT_CHECK_INT_EQ(pos, 24);
    MT_CHECK(buf[0] == -1 && buf[1] == -3 && buf[2] == -5 && buf[3] == 0);
    pos = 0;
    MT_CHECK_MPI(
        MPI_Unpack_external("neg64", buf, 24, &pos, out, 1, every_other));
    MT_CHECK(out[0] == 1 && out[1] == 0 && out[2] == 3 && out[4] == 5);
    MT_CHECK(c.writes == 1 && c.reads == 1 && c.extents >= 2);

    /* MPI_CONVERSION_FN_NULL: the native bytes. */
    MT_CHECK_MPI(MPI_Register_datarep("plain", MPI_CONVERSION_FN_NULL,
                                      MPI_CONVERSION_FN_NULL, extent8, &c));
    pos = 0;
    int two[2] = {7, 8}, back[2] = {0, 0};
    MT_CHECK_MPI(
        MPI_Pack_external("plain", two, 2, MPI_INT, buf, sizeof(buf), &pos));
    pos = 0;
    MT_CHECK_MPI(MPI_Unpack_external("plain", buf, 16, &pos, back, 2, MPI_INT));
    MT_CHECK(back[0] == 7 && back[1] == 8);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(
        MPI_Register_datarep("neg64", read_neg, write_neg, extent8, &c),
        MPI_ERR_DUP_DATAREP);
    MT_CHECK_ERR_CLASS(
        MPI_Register_datarep("external32", read_neg, write_neg, extent8, &c),
        MPI_ERR_DUP_DATAREP);
    MT_CHECK_MPI(MPI_Register_datarep("broken", failing, failing, extent8, &c));
    pos = 0;
    MT_CHECK_ERR_CLASS(
        MPI_Pack_external("broken", two, 2, MPI_INT, buf, sizeof(buf), &pos),
        MPI_ERR_CONVERSION);
    MT_CHECK_INT_EQ(pos, 0);
    MT_CHECK_ERR_CLASS(MPI_Pack_external_size("neg64", 1, MPI_DOUBLE, &size),
                       MPI_ERR_CONVERSION);
    MT_CHECK_ERR_CLASS(MPI_Pack_external_size("unknown", 1, MPI_INT, &size),
                       MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Type_free(&every_other);
    return mt_finish_and_finalize();
}
