/*
 * unsupported: a call this version of the runtime does not implement fails
 * with MPI_ERR_UNSUPPORTED_OPERATION, through MPI_COMM_WORLD's error handler
 * (returned under MPI_ERRORS_RETURN, passed to a user handler), and its
 * error string names the call and the document listing what is supported.
 * Also the calls from mpi_more.h that need no runtime support and so are
 * implemented beside the unsupported ones: MPI_Aint_add/diff, the handle
 * conversions and MPI_Pcontrol.
 */
#include "mpitest.h"

#include <stdint.h>

/* rc, from the call name under MPI_ERRORS_RETURN, is an unsupported
 * operation error whose string names the call. */
static void check_unsupported(int rc, const char *name, const char *file,
                              int line)
{
    char msg[MPI_MAX_ERROR_STRING] = "", prefix[64];
    int len = 0;
    if (!mt_check_class(rc, MPI_ERR_UNSUPPORTED_OPERATION, name, file, line))
        return;
    if (!mt_check_class(MPI_Error_string(rc, msg, &len), MPI_SUCCESS,
                        "MPI_Error_string", file, line))
        return;
    snprintf(prefix, sizeof(prefix), "%s:", name);
    if (!strstr(msg, prefix))
        mt_fail(file, line, "error string \"%s\" does not name %s", msg, name);
    if (!strstr(msg, "docs/mpi-support.md"))
        mt_fail(file, line, "error string \"%s\" does not point to the docs",
                msg);
}

#define CHECK_UNSUPPORTED(fn, args)                                            \
    check_unsupported(fn args, #fn, __FILE__, __LINE__)

/* Calls of count_unsupported with an unsupported-operation error, in any
 * rank (ranks may share it; callers look only at its growth). */
static atomic_int *handler_calls(void)
{
    static atomic_int calls;
    return &calls;
}

static void count_unsupported(MPI_Comm *comm, int *code, ...)
{
    int cls = MPI_SUCCESS;
    (void)comm;
    MPI_Error_class(*code, &cls);
    if (cls == MPI_ERR_UNSUPPORTED_OPERATION)
        atomic_fetch_add(handler_calls(), 1);
}

static void check_returned(int rank)
{
    (void)rank;
    MPI_Comm comm = MPI_COMM_NULL;
    char port[MPI_MAX_PORT_NAME];

    CHECK_UNSUPPORTED(MPI_Comm_spawn,
                      ("unsupported", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0,
                       MPI_COMM_WORLD, &comm, MPI_ERRCODES_IGNORE));
    CHECK_UNSUPPORTED(MPI_Comm_join, (0, &comm));
    CHECK_UNSUPPORTED(MPI_Comm_get_parent, (&comm));
    CHECK_UNSUPPORTED(MPI_Open_port, (MPI_INFO_NULL, port));
}

static void check_user_handler(void)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_Comm comm = MPI_COMM_NULL;
    if (!MT_CHECK_MPI(MPI_Comm_create_errhandler(count_unsupported, &eh)))
        return;
    MT_CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    int before = atomic_load(handler_calls());
    CHECK_UNSUPPORTED(MPI_Comm_join, (0, &comm));
    int after = atomic_load(handler_calls());
    if (!MT_CHECK(after > before))
        MT_FAIL("the error handler of MPI_COMM_WORLD was not called");
    MT_CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MT_CHECK_MPI(MPI_Errhandler_free(&eh));
}

static void check_no_error_calls(void)
{
    int buf[4];
    MPI_Aint base = (MPI_Aint)(uintptr_t)&buf[0];
    MPI_Aint third = (MPI_Aint)(uintptr_t)&buf[2];
    MT_CHECK(MPI_Aint_add(base, 2 * (MPI_Aint)sizeof(int)) == third);
    MT_CHECK_INT_EQ(MPI_Aint_diff(third, base), 2 * sizeof(int));

    int size = 0, world_size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    MPI_Comm world = MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD));
    MT_CHECK(world == MPI_COMM_WORLD);
    MT_CHECK_MPI(MPI_Comm_size(world, &size));
    MT_CHECK_INT_EQ(size, world_size);
    MT_CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE);
    MT_CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM);
    MT_CHECK(MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) ==
             MPI_REQUEST_NULL);
    MT_CHECK(MPI_File_f2c(MPI_File_c2f(MPI_FILE_NULL)) == MPI_FILE_NULL);

    MT_CHECK_MPI(MPI_Pcontrol(1));
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MT_CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    check_returned(rank);
    check_user_handler();
    check_no_error_calls();

    MT_CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    return mt_finish_and_finalize();
}
