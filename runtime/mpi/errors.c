/*
 * Error classes, error codes and error handlers.
 *
 * An error code is its class in the low 8 bits plus, above them, a serial
 * number that finds the detailed message ("MPI_Send: invalid rank 7 ...")
 * in the rank's ring of recent errors, so MPI_Error_string can give the
 * full story for a code an MPI_ERRORS_RETURN caller got back.
 */
#include "mpi/impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const class_text[] = {
    [MPI_SUCCESS] = "no error",
    [MPI_ERR_BUFFER] = "invalid buffer pointer",
    [MPI_ERR_COUNT] = "invalid count argument",
    [MPI_ERR_TYPE] = "invalid datatype",
    [MPI_ERR_TAG] = "invalid tag",
    [MPI_ERR_COMM] = "invalid communicator",
    [MPI_ERR_RANK] = "invalid rank",
    [MPI_ERR_REQUEST] = "invalid request",
    [MPI_ERR_ROOT] = "invalid root",
    [MPI_ERR_GROUP] = "invalid group",
    [MPI_ERR_OP] = "invalid reduction operation",
    [MPI_ERR_TOPOLOGY] = "invalid topology",
    [MPI_ERR_DIMS] = "invalid dimension argument",
    [MPI_ERR_ARG] = "invalid argument",
    [MPI_ERR_UNKNOWN] = "unknown error",
    [MPI_ERR_TRUNCATE] = "message truncated",
    [MPI_ERR_OTHER] = "other error",
    [MPI_ERR_INTERN] = "internal error",
    [MPI_ERR_IN_STATUS] = "error code is in status",
    [MPI_ERR_PENDING] = "pending request",
    [MPI_ERR_KEYVAL] = "invalid attribute key",
    [MPI_ERR_NO_MEM] = "out of memory",
    [MPI_ERR_BASE] = "invalid base address",
    [MPI_ERR_INFO_KEY] = "info key too long",
    [MPI_ERR_INFO_VALUE] = "info value too long",
    [MPI_ERR_INFO_NOKEY] = "no such info key",
    [MPI_ERR_SPAWN] = "error spawning processes",
    [MPI_ERR_PORT] = "invalid port name",
    [MPI_ERR_SERVICE] = "invalid service name",
    [MPI_ERR_NAME] = "invalid name",
    [MPI_ERR_WIN] = "invalid window",
    [MPI_ERR_SIZE] = "invalid size",
    [MPI_ERR_DISP] = "invalid displacement",
    [MPI_ERR_INFO] = "invalid info object",
    [MPI_ERR_LOCKTYPE] = "invalid lock type",
    [MPI_ERR_ASSERT] = "invalid assertion",
    [MPI_ERR_RMA_CONFLICT] = "conflicting accesses to a window",
    [MPI_ERR_RMA_SYNC] = "wrong synchronization of RMA calls",
    [MPI_ERR_FILE] = "invalid file handle",
    [MPI_ERR_NOT_SAME] = "collective arguments not the same on all ranks",
    [MPI_ERR_AMODE] = "invalid file access mode",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "operation not supported",
    [MPI_ERR_NO_SUCH_FILE] = "no such file",
    [MPI_ERR_FILE_EXISTS] = "file exists",
    [MPI_ERR_BAD_FILE] = "invalid file name",
    [MPI_ERR_ACCESS] = "permission denied",
    [MPI_ERR_NO_SPACE] = "no space left",
    [MPI_ERR_QUOTA] = "quota exceeded",
    [MPI_ERR_READ_ONLY] = "read-only file or file system",
    [MPI_ERR_FILE_IN_USE] = "file in use",
    [MPI_ERR_DUP_DATAREP] = "data representation already defined",
    [MPI_ERR_CONVERSION] = "data conversion failed",
    [MPI_ERR_IO] = "I/O error",
    [MPI_ERR_RMA_RANGE] = "address outside the window",
    [MPI_ERR_RMA_ATTACH] = "memory cannot be attached",
    [MPI_ERR_RMA_SHARED] = "memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "wrong window flavor",
};

#define NCLASSES ((int)(sizeof(class_text) / sizeof(class_text[0])))

int amp_mpi_class_of(amp_status_t st)
{
    switch (st) {
    case AMP_OK: return MPI_SUCCESS;
    case AMP_ERR_NOMEM: return MPI_ERR_NO_MEM;
    case AMP_ERR_ARG: return MPI_ERR_ARG;
    case AMP_ERR_RANK: return MPI_ERR_RANK;
    case AMP_ERR_TAG: return MPI_ERR_TAG;
    case AMP_ERR_COUNT: return MPI_ERR_COUNT;
    case AMP_ERR_TYPE: return MPI_ERR_TYPE;
    case AMP_ERR_COMM: return MPI_ERR_COMM;
    case AMP_ERR_REQUEST: return MPI_ERR_REQUEST;
    case AMP_ERR_BUFFER: return MPI_ERR_BUFFER;
    case AMP_ERR_TRUNCATE: return MPI_ERR_TRUNCATE;
    case AMP_ERR_OP: return MPI_ERR_OP;
    case AMP_ERR_ROOT: return MPI_ERR_ROOT;
    case AMP_ERR_UNSUPPORTED: return MPI_ERR_UNSUPPORTED_OPERATION;
    case AMP_ERR_INTERN: return MPI_ERR_INTERN;
    case AMP_ERR_SYS:
    case AMP_ERR_OTHER: return MPI_ERR_OTHER;
    }
    return MPI_ERR_UNKNOWN;
}

void amp_mpi_abort_job(int code)
{
    fflush(NULL);
    _exit(code);
}

static int class_of_code(int code)
{
    return code & 0xff;
}

/* The rank's stored message for code, or NULL. */
static const char *message_of(amp_rank_t *rank, int code)
{
    if (!rank || code <= 0xff)
        return NULL;
    for (int i = 0; i < AMP_ERRMSG_RING; i++)
        if (rank->errcodes[i] == code)
            return rank->errmsgs[i];
    return NULL;
}

static int record(amp_rank_t *rank, int errclass, const char *msg)
{
    unsigned seq = ++rank->errseq;
    int code = errclass | (int)(((seq % 0xfffffu) + 1u) << 8);
    int slot = (int)(seq % AMP_ERRMSG_RING);
    rank->errcodes[slot] = code;
    snprintf(rank->errmsgs[slot], AMP_ERRMSG_LEN, "%s", msg);
    return code;
}

int amp_mpi_error(amp_rank_t *rank, amp_comm_t *comm, int errclass,
                  const char *call, const char *fmt, ...)
{
    char detail[AMP_ERRMSG_LEN - 64], msg[AMP_ERRMSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    snprintf(msg, sizeof(msg), "%s: %s", call, detail);
    if (!rank) {
        amp_log_error("%s", msg);
        amp_mpi_abort_job(errclass);
    }
    int code = record(rank, errclass, msg);
    if (!comm)
        comm = amp_comm_lookup(rank, MPI_COMM_WORLD);
    MPI_Errhandler eh = comm->errh;
    if (eh == MPI_ERRORS_RETURN)
        return code;
    if (eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_ABORT) {
        amp_log_error("rank %d: %s (%s); the job ends here because the "
                      "error handler is MPI_ERRORS_ARE_FATAL",
                      rank->world_rank, msg, class_text[errclass]);
        amp_mpi_abort_job(errclass);
    }
    amp_errh_t *user = amp_table_lookup(&rank->errhs, AMP_HANDLE_INDEX(eh));
    if (user && user->fn) {
        MPI_Comm h = AMPI_HANDLE(AMPI_HANDLE_COMM, comm->obj.idx);
        MPI_Comm_errhandler_function *fn = amp_pie_to_rank(rank, user->fn);
        fn(&h, &code);
    }
    return code;
}

int amp_mpi_enter(amp_rank_t **out, const char *call)
{
    amp_rank_t *rank = amp_rank_self();
    if (!rank)
        amp_fatal("%s was called from a thread that is not an MPI rank; "
                  "only the rank's own thread may call MPI",
                  call);
    *out = rank;
    if (rank->state == AMP_MPI_ACTIVE)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, NULL, MPI_ERR_OTHER, call, "called %s",
                         rank->state == AMP_MPI_NOT_INIT
                             ? "before MPI_Init"
                             : "after MPI_Finalize");
}

int PMPI_Error_class(int errorcode, int *errorclass)
{
    if (errorcode < 0 || class_of_code(errorcode) >= NCLASSES || !errorclass) {
        amp_rank_t *rank = amp_rank_self();
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Error_class",
                             "invalid error code %d (argument errorcode)",
                             errorcode);
    }
    *errorclass = class_of_code(errorcode);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Error_class)

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    amp_rank_t *rank = amp_rank_self();
    if (errorcode < 0 || class_of_code(errorcode) >= NCLASSES || !string ||
        !resultlen)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Error_string",
                             "invalid error code %d (argument errorcode)",
                             errorcode);
    const char *detail = message_of(rank, errorcode);
    const char *cls = class_text[class_of_code(errorcode)];
    int n;
    if (detail)
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s (%s)", detail, cls);
    else
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", cls);
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Error_string)

/* ---- error handlers ---- */

static int check_errh(amp_rank_t *rank, amp_comm_t *comm, MPI_Errhandler eh,
                      const char *call)
{
    if (eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN ||
        eh == MPI_ERRORS_ABORT)
        return MPI_SUCCESS;
    if (AMP_HANDLE_KIND(eh) == AMPI_HANDLE_ERRHANDLER &&
        amp_table_lookup(&rank->errhs, AMP_HANDLE_INDEX(eh)))
        return MPI_SUCCESS;
    return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                         "invalid error handler %#x (argument errhandler)",
                         (unsigned)eh);
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    amp_rank_t *rank;
    amp_comm_t *c;
    int rc = amp_mpi_enter(&rank, "MPI_Comm_set_errhandler");
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm, "MPI_Comm_set_errhandler", &c);
    if (rc == MPI_SUCCESS)
        rc = check_errh(rank, c, errhandler, "MPI_Comm_set_errhandler");
    if (rc == MPI_SUCCESS)
        c->errh = errhandler;
    return rc;
}
AMP_WEAK_ALIAS(Comm_set_errhandler)

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    amp_rank_t *rank;
    amp_comm_t *c;
    int rc = amp_mpi_enter(&rank, "MPI_Comm_get_errhandler");
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm, "MPI_Comm_get_errhandler", &c);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!errhandler)
        return amp_mpi_error(rank, c, MPI_ERR_ARG, "MPI_Comm_get_errhandler",
                             "NULL pointer (argument errhandler)");
    *errhandler = c->errh;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_get_errhandler)

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn,
                                MPI_Errhandler *errhandler)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "MPI_Comm_create_errhandler");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!fn || !errhandler)
        return amp_mpi_error(
            rank, NULL, MPI_ERR_ARG, "MPI_Comm_create_errhandler",
            "NULL pointer (argument %s)", fn ? "errhandler" : "function");
    amp_errh_t *e = amp_table_alloc(&rank->errhs);
    if (!e)
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM,
                             "MPI_Comm_create_errhandler", "out of memory");
    e->fn = fn;
    *errhandler = AMPI_HANDLE(AMPI_HANDLE_ERRHANDLER, e->obj.idx);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_create_errhandler)

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "MPI_Errhandler_free");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!errhandler)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Errhandler_free",
                             "NULL pointer (argument errhandler)");
    rc = check_errh(rank, NULL, *errhandler, "MPI_Errhandler_free");
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
    amp_rank_t *rank;
    amp_comm_t *c;
    int rc = amp_mpi_enter(&rank, "MPI_Comm_call_errhandler");
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm, "MPI_Comm_call_errhandler", &c);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_mpi_error(rank, c,
                  class_of_code(errorcode) < NCLASSES ? class_of_code(errorcode)
                                                      : MPI_ERR_UNKNOWN,
                  "MPI_Comm_call_errhandler",
                  "error code %d raised by the program", errorcode);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_call_errhandler)
