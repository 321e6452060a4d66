/*
 * MPI_Type_get_value_index (MPI-4.1): the predefined pair type of
 * MPI_MINLOC and MPI_MAXLOC for each value and index type that has one,
 * usable in a reduction; MPI_DATATYPE_NULL for the others; MPI_ERR_TYPE for
 * an invalid handle.
 */
#include "mpitest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const MPI_Datatype value[] = {
        MPI_FLOAT,  MPI_DOUBLE,      MPI_LONG, MPI_INT,
        MPI_SHORT,  MPI_LONG_DOUBLE, MPI_REAL, MPI_DOUBLE_PRECISION,
        MPI_INTEGER};
    const MPI_Datatype index[] = {
        MPI_INT,    MPI_INT, MPI_INT,  MPI_INT,
        MPI_INT,    MPI_INT, MPI_REAL, MPI_DOUBLE_PRECISION,
        MPI_INTEGER};
    const MPI_Datatype pair[] = {
        MPI_FLOAT_INT, MPI_DOUBLE_INT,        MPI_LONG_INT,
        MPI_2INT,      MPI_SHORT_INT,         MPI_LONG_DOUBLE_INT,
        MPI_2REAL,     MPI_2DOUBLE_PRECISION, MPI_2INTEGER};
    MPI_Datatype t = MPI_DATATYPE_NULL;
    for (int i = 0; i < 9; i++) {
        MT_CHECK_MPI(MPI_Type_get_value_index(value[i], index[i], &t));
        MT_CHECK_INT_EQ(t, pair[i]);
    }
    MT_CHECK_MPI(MPI_Type_get_value_index(MPI_CHAR, MPI_INT, &t));
    MT_CHECK(t == MPI_DATATYPE_NULL);
    MT_CHECK_MPI(MPI_Type_get_value_index(MPI_DOUBLE, MPI_LONG, &t));
    MT_CHECK(t == MPI_DATATYPE_NULL);
    MPI_Datatype d;
    MPI_Type_contiguous(1, MPI_DOUBLE, &d);
    MT_CHECK_MPI(MPI_Type_get_value_index(d, MPI_INT, &t));
    MT_CHECK(t == MPI_DATATYPE_NULL);
    MPI_Type_free(&d);
    MT_CHECK_ERR_CLASS(MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &t),
                       MPI_ERR_TYPE);
    MT_CHECK_ERR_CLASS(MPI_Type_get_value_index(MPI_INT, MPI_INT, NULL),
                       MPI_ERR_ARG);

    /* The type it gives works with MPI_MAXLOC. */
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct {
        double v;
        int i;
    } in = {(double)(rank % 3), rank}, out = {-1, -1};
    MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t);
    MT_CHECK_MPI(MPI_Allreduce(&in, &out, 1, t, MPI_MAXLOC, MPI_COMM_WORLD));
    MT_CHECK_DBL_EQ(out.v, size >= 3 ? 2.0 : (double)(size - 1));
    MT_CHECK_INT_EQ(out.i, size >= 3 ? 2 : size - 1);
    return mt_finish_and_finalize();
}
