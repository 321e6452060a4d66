/*
 * The calls of the MPI-3.1 C binding that this version of the runtime does
 * not implement yet.  Each fails with MPI_ERR_UNSUPPORTED_OPERATION through
 * MPI_COMM_WORLD's error handler, with a message that names the call, so a
 * program finds out at the first such call instead of from a missing symbol
 * at link time or a wrong answer later.  docs/mpi-support.md lists them;
 * implementing one means deleting its line here.
 *
 * At the end are the few calls from mpi_more.h that return no error code
 * (an address or a handle instead) or have nothing to do; those do their
 * whole job here.
 */
#include "mpi/call.h"

#include <stdint.h>

int amp_mpi_unsupported(const char *call)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    return amp_mpi_error(rank, NULL, MPI_ERR_UNSUPPORTED_OPERATION, call,
                         "not implemented in this version of the runtime; "
                         "see docs/mpi-support.md");
}

/* Defines PMPI_name, failing as above, and its weak alias MPI_name.  The
 * parameter list repeats the prototype in mpi_more.h, so the compiler checks
 * that the two agree. */
#define UNSUPPORTED(name, params)                                              \
    int PMPI_##name params                                                     \
    {                                                                          \
        return amp_mpi_unsupported("MPI_" #name);                              \
    }                                                                          \
    AMP_WEAK_ALIAS(name)

/* Process creation and management (chapter 10). */

UNSUPPORTED(Comm_spawn, (const char *command, char *argv[], int maxprocs,
                         MPI_Info info, int root, MPI_Comm comm,
                         MPI_Comm *intercomm, int array_of_errcodes[]))
UNSUPPORTED(Comm_get_parent, (MPI_Comm * parent))
UNSUPPORTED(Comm_spawn_multiple,
            (int count, char *array_of_commands[], char **array_of_argv[],
             const int array_of_maxprocs[], const MPI_Info array_of_info[],
             int root, MPI_Comm comm, MPI_Comm *intercomm,
             int array_of_errcodes[]))
UNSUPPORTED(Open_port, (MPI_Info info, char *port_name))
UNSUPPORTED(Close_port, (const char *port_name))
UNSUPPORTED(Comm_accept, (const char *port_name, MPI_Info info, int root,
                          MPI_Comm comm, MPI_Comm *newcomm))
UNSUPPORTED(Comm_connect, (const char *port_name, MPI_Info info, int root,
                           MPI_Comm comm, MPI_Comm *newcomm))
UNSUPPORTED(Publish_name,
            (const char *service_name, MPI_Info info, const char *port_name))
UNSUPPORTED(Unpublish_name,
            (const char *service_name, MPI_Info info, const char *port_name))
UNSUPPORTED(Lookup_name,
            (const char *service_name, MPI_Info info, char *port_name))
UNSUPPORTED(Comm_join, (int fd, MPI_Comm *intercomm))


/* ---- Calls with no error code to return ---- */

/* Address arithmetic in a flat address space.  Unsigned, so that no sum
 * overflows. */
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
AMP_WEAK_ALIAS(Aint_add)

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
AMP_WEAK_ALIAS(Aint_diff)

/* The runtime has no profiling levels of its own; MPI_Pcontrol is there for
 * a profiling library that intercepts it, and otherwise has no effect. */
int PMPI_Pcontrol(const int level, ...)
{
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Pcontrol)

/* What MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY point to (see mpi_more.h). */
const int AMPI_Weight_marks[2] = {0, 0};

/* Handles are ints in C and Fortran alike, so each converts to itself. */
#define SAME_HANDLE(name, type)                                                \
    MPI_Fint PMPI_##name##_c2f(type handle)                                    \
    {                                                                          \
        return (MPI_Fint)handle;                                               \
    }                                                                          \
    AMP_WEAK_ALIAS(name##_c2f)                                                 \
    type PMPI_##name##_f2c(MPI_Fint handle)                                    \
    {                                                                          \
        return (type)handle;                                                   \
    }                                                                          \
    AMP_WEAK_ALIAS(name##_f2c)

SAME_HANDLE(Comm, MPI_Comm)
SAME_HANDLE(Errhandler, MPI_Errhandler)
SAME_HANDLE(File, MPI_File)
SAME_HANDLE(Group, MPI_Group)
SAME_HANDLE(Info, MPI_Info)
SAME_HANDLE(Message, MPI_Message)
SAME_HANDLE(Op, MPI_Op)
SAME_HANDLE(Request, MPI_Request)
SAME_HANDLE(Type, MPI_Datatype)
SAME_HANDLE(Win, MPI_Win)
SAME_HANDLE(Session, MPI_Session)
