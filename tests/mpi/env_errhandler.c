/*
 * env_errhandler: MPI_COMM_WORLD and MPI_COMM_SELF start with
 * MPI_ERRORS_ARE_FATAL; MPI_Comm_set_errhandler / MPI_Comm_get_errhandler
 * round-trip MPI_ERRORS_RETURN and MPI_ERRORS_ARE_FATAL; MPI_Comm_dup
 * inherits the handler; MPI_Errhandler_free of a handle returned by get
 * sets it to MPI_ERRHANDLER_NULL; with MPI_ERRORS_RETURN an erroneous call
 * returns an error instead of aborting.  An error of no object (a
 * datatype constructor's) goes to MPI_COMM_WORLD's handler until the
 * program sets one on MPI_COMM_SELF, then to MPI_COMM_SELF's (MPI-4.0).
 */
#include "mpitest.h"

/* The handler on comm is expected; frees the handle get returned. */
static void check_handler(MPI_Comm comm, MPI_Errhandler expected,
                          const char *what)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    if (!MT_CHECK_MPI(MPI_Comm_get_errhandler(comm, &eh)))
        return;
    if (!MT_CHECK(eh == expected))
        MT_FAIL("unexpected error handler on %s", what);
    MT_CHECK_MPI(MPI_Errhandler_free(&eh));
    MT_CHECK(eh == MPI_ERRHANDLER_NULL);
}

static int world_calls, self_calls;

static void on_world(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    world_calls++;
}

static void on_self(MPI_Comm *comm, int *code, ...)
{
    MT_CHECK(*comm == MPI_COMM_SELF);
    (void)code;
    self_calls++;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);

    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    check_handler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, "MPI_COMM_WORLD");
    check_handler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL, "MPI_COMM_SELF");

    MT_CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    check_handler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, "MPI_COMM_WORLD");
    /* Setting it on one communicator leaves the others alone. */
    check_handler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL, "MPI_COMM_SELF");

    /* An erroneous call returns instead of aborting. */
    int value = 0;
    MT_CHECK(MPI_Send(&value, 1, MPI_INT, size, 0, MPI_COMM_WORLD) !=
             MPI_SUCCESS);
    /* No object: MPI_COMM_WORLD's, MPI_COMM_SELF's being the default. */
    MPI_Datatype t;
    MT_CHECK(MPI_Type_contiguous(-1, MPI_INT, &t) != MPI_SUCCESS);

    MPI_Comm dup;
    MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    check_handler(dup, MPI_ERRORS_RETURN, "a dup of MPI_COMM_WORLD");
    MT_CHECK(MPI_Send(&value, 1, MPI_INT, size, 0, dup) != MPI_SUCCESS);
    MT_CHECK_MPI(MPI_Comm_set_errhandler(dup, MPI_ERRORS_ARE_FATAL));
    check_handler(dup, MPI_ERRORS_ARE_FATAL, "the dup after set");
    check_handler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, "MPI_COMM_WORLD");
    MT_CHECK_MPI(MPI_Comm_free(&dup));

    MT_CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    check_handler(MPI_COMM_SELF, MPI_ERRORS_RETURN, "MPI_COMM_SELF");
    MT_CHECK(MPI_Send(&value, 1, MPI_INT, 1, 0, MPI_COMM_SELF) != MPI_SUCCESS);

    /* No object, once MPI_COMM_SELF has a handler the program set. */
    MPI_Errhandler ew, es;
    MT_CHECK_MPI(MPI_Comm_create_errhandler(on_world, &ew));
    MT_CHECK_MPI(MPI_Comm_create_errhandler(on_self, &es));
    MT_CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, ew));
    MT_CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, es));
    MT_CHECK(MPI_Type_contiguous(-1, MPI_INT, &t) != MPI_SUCCESS);
    MT_CHECK_INT_EQ(self_calls, 1);
    MT_CHECK_INT_EQ(world_calls, 0);
    MT_CHECK(MPI_Send(&value, 1, MPI_INT, size, 0, MPI_COMM_WORLD) !=
             MPI_SUCCESS);
    MT_CHECK_INT_EQ(world_calls, 1);
    MT_CHECK_MPI(MPI_Errhandler_free(&ew));
    MT_CHECK_MPI(MPI_Errhandler_free(&es));

    MT_CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    check_handler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, "MPI_COMM_WORLD");
    MT_CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    check_handler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL, "MPI_COMM_SELF");

    return mt_finish_and_finalize();
}
