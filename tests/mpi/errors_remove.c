/*
 * MPI-4.1's MPI_Remove_error_class, MPI_Remove_error_code and
 * MPI_Remove_error_string: what MPI_Add_error_* added goes away (its
 * string first, a class only once its codes are gone), and is then no
 * error class or code to any call; predefined classes, removed ones and
 * values never added are MPI_ERR_ARG; MPI_LASTUSEDCODE stays.
 */
#include "mpitest.h"

static int lastused(void)
{
    int *v, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag);
    return flag ? *v : -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls, code, other, out = -1, len = -1;
    char s[MPI_MAX_ERROR_STRING];
    MT_CHECK_MPI(MPI_Add_error_class(&cls));
    MT_CHECK_MPI(MPI_Add_error_class(&other));
    MT_CHECK_MPI(MPI_Add_error_code(cls, &code));
    MT_CHECK_MPI(MPI_Add_error_string(code, "the code"));
    MT_CHECK_MPI(MPI_Add_error_string(cls, "the class"));
    int last = lastused();

    /* A class with a code cannot go. */
    MT_CHECK_ERR_CLASS(MPI_Remove_error_class(cls), MPI_ERR_ARG);
    /* The string, then the code. */
    MT_CHECK_MPI(MPI_Remove_error_string(code));
    MT_CHECK_MPI(MPI_Error_string(code, s, &len));
    MT_CHECK_INT_EQ(len, 0);
    MT_CHECK_ERR_CLASS(MPI_Remove_error_string(code), MPI_ERR_ARG);
    MT_CHECK_MPI(MPI_Remove_error_code(code));
    MT_CHECK_ERR_CLASS(MPI_Error_class(code, &out), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Remove_error_code(code), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Add_error_string(code, "again"), MPI_ERR_ARG);
    /* Now the class (with its string). */
    MT_CHECK_MPI(MPI_Remove_error_class(cls));
    MT_CHECK_ERR_CLASS(MPI_Error_string(cls, s, &len), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Add_error_code(cls, &code), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Remove_error_class(cls), MPI_ERR_ARG);
    /* The other class is untouched. */
    MT_CHECK_MPI(MPI_Error_class(other, &out));
    MT_CHECK_INT_EQ(out, other);
    MT_CHECK_INT_EQ(lastused(), last);

    MT_CHECK_ERR_CLASS(MPI_Remove_error_class(MPI_ERR_ARG), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Remove_error_code(other), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Remove_error_string(MPI_ERR_TYPE), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Remove_error_string(other), MPI_ERR_ARG);
    MT_CHECK_MPI(MPI_Remove_error_class(other));
    return mt_finish_and_finalize();
}
