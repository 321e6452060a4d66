/*
 * Error handlers: MPI_Comm_create_errhandler, Comm_set_errhandler,
 * Comm_get_errhandler, Comm_call_errhandler, the same for windows, and
 * the MPI-1 Errhandler_ calls.  A handler is an object of the rank's
 * table, its kind telling whose it is (communicator, window, file,
 * session); sessions' and files' calls are in init/session.c and
 * file/file_errhandler.c.  Applying a handler to an error is ../errors.c's.
 */
#include "mpi/attr/attr.h"

#include <stdio.h>

/* Enters call, one allowed at any time (MPI_Errhandler_free, MPI-4.0
 * Table 11.1), and checks that the pointer argument ptr (named arg) is not
 * NULL. */
static int enter_ptr(const void *ptr, const char *arg, const char *call,
                     amp_rank_t **rank)
{
    int rc = amp_mpi_enter_any(rank, call);
    if (rc == MPI_SUCCESS && !ptr)
        rc = amp_mpi_error(*rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument %s)", arg);
    return rc;
}

static const char *const errh_kind_name[] = {
    [AMP_ERRH_COMM] = "communicator",
    [AMP_ERRH_WIN] = "window",
    [AMP_ERRH_FILE] = "file",
    [AMP_ERRH_SESSION] = "session",
};

static int is_predefined_errh(MPI_Errhandler eh)
{
    return eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN ||
           eh == MPI_ERRORS_ABORT;
}

/* The user handler behind eh, or NULL. */
static amp_errh_t *errh_lookup(amp_rank_t *rank, MPI_Errhandler eh)
{
    if (AMP_HANDLE_KIND(eh) != AMPI_HANDLE_ERRHANDLER)
        return NULL;
    return amp_table_lookup(&rank->errhs, AMP_HANDLE_INDEX(eh));
}

int amp_errh_problem(amp_rank_t *rank, MPI_Errhandler eh, int kind, char *buf,
                     size_t len)
{
    amp_errh_t *user = errh_lookup(rank, eh);
    if (is_predefined_errh(eh) || (user && (kind < 0 || user->kind == kind)))
        return 0;
    if (!user) {
        snprintf(buf, len, "invalid error handler %#x (argument errhandler)",
                 (unsigned)eh);
        return MPI_ERR_ERRHANDLER;
    }
    snprintf(buf, len,
             "error handler %#x was created for a %s, not a %s "
             "(argument errhandler)",
             (unsigned)eh, errh_kind_name[user->kind], errh_kind_name[kind]);
    return MPI_ERR_ARG;
}

static int check_errh(amp_rank_t *rank, amp_comm_t *comm, MPI_Errhandler eh,
                      int kind, const char *call)
{
    char why[128];
    int errclass = amp_errh_problem(rank, eh, kind, why, sizeof(why));
    if (!errclass)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, comm, errclass, call, "%s", why);
}

/* A session's handler may be made at any time (MPI-4.0 Table 11.1), the
 * others between MPI_Init and MPI_Finalize or while a session is open. */
static int create_errhandler(int kind, MPI_Comm_errhandler_function *fn,
                             MPI_Errhandler *errhandler, const char *call)
{
    amp_rank_t *rank;
    int rc = kind == AMP_ERRH_SESSION ? amp_mpi_enter_any(&rank, call)
                                      : amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!fn || !errhandler)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument %s)",
                             fn ? "errhandler" : "function");
    amp_errh_t *e = amp_table_alloc(&rank->errhs);
    if (!e)
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call, "out of memory");
    e->fn = fn;
    e->kind = kind;
    *errhandler = AMPI_HANDLE(AMPI_HANDLE_ERRHANDLER, e->obj.idx);
    return MPI_SUCCESS;
}

/* For the objects whose calls live elsewhere (sessions: session.c,
 * files: file_errhandler.c). */
int amp_errh_create(int kind, void *fn, MPI_Errhandler *errhandler,
                    const char *call)
{
    return create_errhandler(kind, (MPI_Comm_errhandler_function *)fn,
                             errhandler, call);
}

int amp_errh_check(amp_rank_t *rank, MPI_Errhandler eh, int kind,
                   const char *call)
{
    return check_errh(rank, NULL, eh, kind, call);
}

/* Enters call and finds the communicator that holds the handler of obj:
 * a communicator (kind AMP_ERRH_COMM) or a window, whose handler lives in
 * its private communicator (AMP_ERRH_WIN). */
static int obj_enter(int kind, int obj, const char *call, amp_rank_t **rank,
                     amp_comm_t **c)
{
    amp_win_t *w;
    int rc = amp_mpi_enter(rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (kind == AMP_ERRH_COMM)
        return amp_check_comm(*rank, obj, call, c);
    rc = amp_check_win(*rank, obj, call, &w);
    if (rc == MPI_SUCCESS)
        *c = amp_comm_lookup(*rank, w->comm);
    return rc;
}

static int set_errhandler(int kind, int obj, MPI_Errhandler errhandler,
                          const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *c;
    int rc = obj_enter(kind, obj, call, &rank, &c);
    if (rc == MPI_SUCCESS)
        rc = check_errh(rank, c, errhandler, kind, call);
    if (rc == MPI_SUCCESS)
        c->errh = errhandler;
    if (rc == MPI_SUCCESS && kind == AMP_ERRH_COMM && obj == MPI_COMM_SELF)
        rank->self_errh_set = 1;
    return rc;
}

static int get_errhandler(int kind, int obj, MPI_Errhandler *errhandler,
                          const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *c;
    int rc = obj_enter(kind, obj, call, &rank, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!errhandler)
        return amp_mpi_error(rank, c, MPI_ERR_ARG, call,
                             "NULL pointer (argument errhandler)");
    *errhandler = c->errh;
    return MPI_SUCCESS;
}

/* The handler of obj gets the program's code as it is. */
static int call_errhandler(int kind, int obj, int errorcode, const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *c;
    char detail[64];
    int rc = obj_enter(kind, obj, call, &rank, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    snprintf(detail, sizeof(detail), "error code %d raised by the program",
             errorcode);
    amp_errh_apply(rank, c->errh, obj, errorcode, 1, call, detail);
    return MPI_SUCCESS;
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return set_errhandler(AMP_ERRH_COMM, comm, errhandler,
                          "MPI_Comm_set_errhandler");
}
AMP_WEAK_ALIAS(Comm_set_errhandler)

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return get_errhandler(AMP_ERRH_COMM, comm, errhandler,
                          "MPI_Comm_get_errhandler");
}
AMP_WEAK_ALIAS(Comm_get_errhandler)

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn,
                                MPI_Errhandler *errhandler)
{
    return create_errhandler(AMP_ERRH_COMM, fn, errhandler,
                             "MPI_Comm_create_errhandler");
}
AMP_WEAK_ALIAS(Comm_create_errhandler)

int PMPI_Errhandler_create(MPI_Handler_function *function,
                           MPI_Errhandler *errhandler)
{
    return create_errhandler(AMP_ERRH_COMM, function, errhandler,
                             "MPI_Errhandler_create");
}
AMP_WEAK_ALIAS(Errhandler_create)

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return set_errhandler(AMP_ERRH_COMM, comm, errhandler,
                          "MPI_Errhandler_set");
}
AMP_WEAK_ALIAS(Errhandler_set)

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return get_errhandler(AMP_ERRH_COMM, comm, errhandler,
                          "MPI_Errhandler_get");
}
AMP_WEAK_ALIAS(Errhandler_get)

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    amp_rank_t *rank;
    int rc = enter_ptr(errhandler, "errhandler", "MPI_Errhandler_free", &rank);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = check_errh(rank, NULL, *errhandler, -1, "MPI_Errhandler_free");
    if (rc != MPI_SUCCESS)
        return rc;
    /* Predefined handlers are never freed; a user handler may still be set
     * on a communicator, which keeps calling the function it names, so the
     * object is only dropped from the handle's point of view. */
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Errhandler_free)

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    return call_errhandler(AMP_ERRH_COMM, comm, errorcode,
                           "MPI_Comm_call_errhandler");
}
AMP_WEAK_ALIAS(Comm_call_errhandler)

/* ---- windows (win/win.c); a window's handler lives in its private
 * communicator's errh ---- */

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                               MPI_Errhandler *errhandler)
{
    return create_errhandler(AMP_ERRH_WIN, win_errhandler_fn, errhandler,
                             "MPI_Win_create_errhandler");
}
AMP_WEAK_ALIAS(Win_create_errhandler)

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    return set_errhandler(AMP_ERRH_WIN, win, errhandler,
                          "MPI_Win_set_errhandler");
}
AMP_WEAK_ALIAS(Win_set_errhandler)

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    return get_errhandler(AMP_ERRH_WIN, win, errhandler,
                          "MPI_Win_get_errhandler");
}
AMP_WEAK_ALIAS(Win_get_errhandler)

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    return call_errhandler(AMP_ERRH_WIN, win, errorcode,
                           "MPI_Win_call_errhandler");
}
AMP_WEAK_ALIAS(Win_call_errhandler)
