/*
 * The names of the null handles (MPI-4.1): MPI_Comm_get_name,
 * MPI_Type_get_name and MPI_Win_get_name give "MPI_COMM_NULL",
 * "MPI_DATATYPE_NULL" and "MPI_WIN_NULL"; a NULL output is still
 * MPI_ERR_ARG, and setting a null handle's name still fails.
 */
#include "mpitest.h"

int main(int argc, char **argv)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    MT_CHECK_MPI(MPI_Comm_get_name(MPI_COMM_NULL, name, &len));
    MT_CHECK(strcmp(name, "MPI_COMM_NULL") == 0);
    MT_CHECK_INT_EQ(len, (int)strlen("MPI_COMM_NULL"));
    MT_CHECK_MPI(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len));
    MT_CHECK(strcmp(name, "MPI_DATATYPE_NULL") == 0);
    MT_CHECK_INT_EQ(len, (int)strlen("MPI_DATATYPE_NULL"));
    MT_CHECK_MPI(MPI_Win_get_name(MPI_WIN_NULL, name, &len));
    MT_CHECK(strcmp(name, "MPI_WIN_NULL") == 0);
    MT_CHECK_INT_EQ(len, (int)strlen("MPI_WIN_NULL"));

    MT_CHECK_ERR_CLASS(MPI_Comm_get_name(MPI_COMM_NULL, NULL, &len),
                       MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Type_get_name(MPI_DATATYPE_NULL, name, NULL),
                       MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Win_get_name(MPI_WIN_NULL, NULL, &len), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Comm_set_name(MPI_COMM_NULL, "x"), MPI_ERR_COMM);
    MT_CHECK_ERR_CLASS(MPI_Type_set_name(MPI_DATATYPE_NULL, "x"), MPI_ERR_TYPE);
    /* Other handles keep their names. */
    MT_CHECK_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    MT_CHECK(strcmp(name, "MPI_COMM_WORLD") == 0);
    MT_CHECK_MPI(MPI_Type_get_name(MPI_INT, name, &len));
    MT_CHECK(strcmp(name, "MPI_INT") == 0);
    return mt_finish_and_finalize();
}
