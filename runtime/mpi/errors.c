/*
 * Errors: classes and codes, the message recorded under each code, and the
 * error handler of the object a call failed on applied to it
 * (amp_mpi_error; the handlers' own calls are in attr/errhandler.c).
 *
 * An error code is its class in the low 8 bits plus, above them, a serial
 * number that finds the detailed message ("MPI_Send: invalid rank 7 ...")
 * in the rank's ring of recent errors, so MPI_Error_string can give the
 * full story for a code an MPI_ERRORS_RETURN caller got back.
 *
 * Classes and codes the program adds (MPI_Add_error_class/code) lie above
 * MPI_ERR_LASTCODE: bit 30 (DYN) set, then either a class number k in the
 * low 12 bits, or a code number j above them (its class kept in the
 * rank's table).
 */
#include "mpi/handles.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DYN 0x40000000
#define DYN_CLASS_MASK 0xfff
#define DYN_CODE_SHIFT 12
#define DYN_MAX_CODES ((DYN - 1) >> DYN_CODE_SHIFT)

/* The error classes and codes the program added, per rank. */
typedef struct amp_user_errs {
    int nclasses, ncodes;
    int lastused;              /* MPI_LASTUSEDCODE's value */
    int *code_class;           /* class of code j at [j - 1]; 0: removed */
    char **class_text;         /* MPI_Add_error_string's, at [k - 1] or NULL */
    char **code_text;          /* at [j - 1] */
    unsigned char *class_gone; /* [k - 1]: MPI_Remove_error_class'ed */
} amp_user_errs_t;

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
    [MPI_ERR_PROC_ABORTED] = "a process aborted",
    [MPI_ERR_SESSION] = "invalid session",
    [MPI_ERR_VALUE_TOO_LARGE] = "value too large to store",
    [MPI_ERR_ERRHANDLER] = "invalid error handler",
    [MPI_T_ERR_MEMORY] = "out of memory (tool interface)",
    [MPI_T_ERR_NOT_INITIALIZED] = "the tool interface is not initialized",
    [MPI_T_ERR_CANNOT_INIT] = "the tool interface cannot be initialized",
    [MPI_T_ERR_INVALID_INDEX] = "invalid index (tool interface)",
    [MPI_T_ERR_INVALID_ITEM] = "invalid enumeration item",
    [MPI_T_ERR_INVALID_HANDLE] = "invalid handle (tool interface)",
    [MPI_T_ERR_OUT_OF_HANDLES] = "no more handles (tool interface)",
    [MPI_T_ERR_OUT_OF_SESSIONS] = "no more performance variable sessions",
    [MPI_T_ERR_INVALID_SESSION] = "invalid performance variable session",
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = "control variable cannot be set now",
    [MPI_T_ERR_CVAR_SET_NEVER] = "control variable can never be set",
    [MPI_T_ERR_PVAR_NO_STARTSTOP] =
        "performance variable cannot be started or stopped",
    [MPI_T_ERR_PVAR_NO_WRITE] =
        "performance variable cannot be written or reset",
    [MPI_T_ERR_PVAR_NO_ATOMIC] =
        "performance variable cannot be read and reset atomically",
    [MPI_T_ERR_INVALID_NAME] = "no variable or category of that name",
    [MPI_T_ERR_INVALID] = "invalid use of the tool interface",
    [MPI_T_ERR_NOT_ACCESSIBLE] = "not accessible (tool interface)",
    [MPI_T_ERR_NOT_SUPPORTED] = "not supported (tool interface)",
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
    case AMP_ERR_NOENT: return MPI_ERR_NO_SUCH_FILE;
    case AMP_ERR_ACCESS: return MPI_ERR_ACCESS;
    case AMP_ERR_EXIST: return MPI_ERR_FILE_EXISTS;
    case AMP_ERR_READ_ONLY: return MPI_ERR_READ_ONLY;
    case AMP_ERR_NOSPACE: return MPI_ERR_NO_SPACE;
    case AMP_ERR_QUOTA: return MPI_ERR_QUOTA;
    case AMP_ERR_BADNAME: return MPI_ERR_BAD_FILE;
    case AMP_ERR_INUSE: return MPI_ERR_FILE_IN_USE;
    case AMP_ERR_IO: return MPI_ERR_IO;
    case AMP_ERR_CONVERSION: return MPI_ERR_CONVERSION;
    }
    return MPI_ERR_UNKNOWN;
}

void amp_mpi_abort_job(int code)
{
    amp_proc_abandon();
    fflush(NULL);
    _exit(code);
}

static int class_of_code(int code)
{
    return code & 0xff;
}

static const int lastcode = MPI_ERR_LASTCODE;

const int *amp_mpi_lastusedcode(amp_rank_t *rank)
{
    return rank->user_errs ? &rank->user_errs->lastused : &lastcode;
}

/* Where the string of an added class or code lives, or NULL when code is
 * none of those. */
static char **added_text(amp_rank_t *rank, int code)
{
    amp_user_errs_t *u = rank ? rank->user_errs : NULL;
    if (!u || code <= 0 || !(code & DYN))
        return NULL;
    int k = code & DYN_CLASS_MASK, j = (code & ~DYN) >> DYN_CODE_SHIFT;
    if (j == 0 && k >= 1 && k <= u->nclasses && !u->class_gone[k - 1])
        return &u->class_text[k - 1];
    if (k == 0 && j >= 1 && j <= u->ncodes && u->code_class[j - 1])
        return &u->code_text[j - 1];
    return NULL;
}

int amp_mpi_class_of_code(amp_rank_t *rank, int code)
{
    if (code < 0)
        return -1;
    if (code & DYN) {
        if (!added_text(rank, code))
            return -1;
        if (code & DYN_CLASS_MASK)
            return code;
        return rank->user_errs
            ->code_class[((code & ~DYN) >> DYN_CODE_SHIFT) - 1];
    }
    return class_of_code(code) < NCLASSES ? class_of_code(code) : -1;
}

static const char *class_name(amp_rank_t *rank, int errclass)
{
    if (!(errclass & DYN))
        return class_text[errclass];
    char **text = added_text(rank, errclass);
    return text && *text ? *text : "error class added by the program";
}

typedef struct amp_errs_seen amp_errs_seen_t;
struct amp_errs_seen {
    int codes[AMP_ERRMSG_RING];
    char msgs[AMP_ERRMSG_RING][AMP_ERRMSG_LEN];
};

/* The rank's stored message for code, or NULL. */
static const char *message_of(amp_rank_t *rank, int code)
{
    if (!rank || code <= 0xff || !rank->errs_seen)
        return NULL;
    for (int i = 0; i < AMP_ERRMSG_RING; i++)
        if (rank->errs_seen->codes[i] == code)
            return rank->errs_seen->msgs[i];
    return NULL;
}

static int record(amp_rank_t *rank, int errclass, const char *msg)
{
    unsigned seq = ++rank->errseq;
    int code = errclass | (int)(((seq % 0xfffffu) + 1u) << 8);
    int slot = (int)(seq % AMP_ERRMSG_RING);
    amp_errs_seen_t *seen = rank->errs_seen;
    if (!seen) { /* without room, the code keeps its class's text */
        seen = rank->errs_seen = amp_rank_alloc(rank, sizeof(*seen));
        if (seen)
            memset(seen->codes, 0, sizeof(seen->codes));
    }
    if (seen) {
        seen->codes[slot] = code;
        snprintf(seen->msgs[slot], AMP_ERRMSG_LEN, "%s", msg);
    }
    return code;
}

/* Applies handler eh of the object handle (a communicator, window or
 * file) to code; msg describes the error for a fatal handler's report.
 * Returns code, for the caller to return. */
static int apply_handler(amp_rank_t *rank, MPI_Errhandler eh, int handle,
                         int code, const char *msg)
{
    if (eh == MPI_ERRORS_RETURN)
        return code;
    int cls = amp_mpi_class_of_code(rank, code);
    if (eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_ABORT) {
        amp_log_error("rank %d: %s (%s); the job ends here because the "
                      "error handler is MPI_ERRORS_ARE_FATAL",
                      rank->world_rank, msg,
                      cls < 0 ? "unknown error" : class_name(rank, cls));
        amp_mpi_abort_job(cls > 0 && cls < NCLASSES ? cls : MPI_ERR_OTHER);
    }
    amp_errh_t *user = amp_table_lookup(&rank->errhs, AMP_HANDLE_INDEX(eh));
    if (user && user->fn) {
        MPI_Comm_errhandler_function *fn = amp_pie_to_rank(rank, user->fn);
        fn(&handle, &code);
    }
    return code;
}

static int comm_handle(const amp_comm_t *comm)
{
    return AMPI_HANDLE(AMPI_HANDLE_COMM, comm->obj.idx);
}

/* The call an error is reported for: a "_c" call's int form is reported
 * as the _c call it runs for (large/large.h). */
static const char *reported_call(const char *call)
{
    amp_pe_t *pe = amp_pe_self();
    const amp_call_ctx_t *ctx =
        pe && pe->current ? (const amp_call_ctx_t *)pe->current->upper : NULL;
    if (ctx && ctx->alias_of && strcmp(call, ctx->alias_of) == 0)
        return ctx->alias;
    return call;
}

int amp_mpi_error(amp_rank_t *rank, amp_comm_t *comm, int errclass,
                  const char *call, const char *fmt, ...)
{
    char detail[AMP_ERRMSG_LEN - 64], msg[AMP_ERRMSG_LEN];
    call = reported_call(call);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    snprintf(msg, sizeof(msg), "%s: %s", call, detail);
    if (!rank) {
        amp_log_error("%s", msg);
        amp_mpi_abort_job(errclass & DYN ? MPI_ERR_OTHER : errclass);
    }
    /* An added class has no room for a serial number: it is the code. */
    int code = errclass & DYN ? errclass : record(rank, errclass, msg);
    /* MPI-4.0: an error of no object goes to MPI_COMM_SELF's handler; to
     * MPI_COMM_WORLD's, as in MPI-3.1 (and MPICH 4.0), until the program
     * sets one on MPI_COMM_SELF. */
    if (!comm)
        comm = amp_comm_lookup(rank, rank->self_errh_set ? MPI_COMM_SELF
                                                         : MPI_COMM_WORLD);
    return apply_handler(rank, comm->errh, comm_handle(comm), code, msg);
}

int amp_mpi_enter_any(amp_rank_t **out, const char *call)
{
    amp_pe_t *pe = amp_pe_self();
    amp_rank_t *rank = pe && pe->current ? pe->current->owner : NULL;
    if (!rank)
        amp_fatal("%s was called from a thread that is not an MPI rank; "
                  "only a rank's thread and the threads it creates (and "
                  "their OpenMP teams) may call MPI",
                  call);
    *out = rank;
    /* For the reports (start/report.c); not the calls of a user function
     * run for the rank while it waits in its own (amp_sched_act_begin). */
    if (!pe->acting)
        rank->call = call;
    return MPI_SUCCESS;
}

int amp_mpi_enter(amp_rank_t **out, const char *call)
{
    amp_rank_t *rank;
    amp_mpi_enter_any(&rank, call);
    *out = rank;
    /* Between MPI_Init and MPI_Finalize, or while a session is open. */
    if (rank->state == AMP_MPI_ACTIVE || rank->nsessions > 0)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, NULL, MPI_ERR_OTHER, call, "called %s",
                         rank->state == AMP_MPI_NOT_INIT
                             ? "before MPI_Init"
                             : "after MPI_Finalize");
}

int PMPI_Error_class(int errorcode, int *errorclass)
{
    amp_rank_t *rank = amp_rank_self();
    int cls = amp_mpi_class_of_code(rank, errorcode);
    if (cls < 0 || !errorclass)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Error_class",
                             cls < 0 ? "invalid error code %d (argument "
                                       "errorcode)"
                                     : "NULL pointer (argument errorclass; "
                                       "error code %d)",
                             errorcode);
    *errorclass = cls;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Error_class)

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    amp_rank_t *rank = amp_rank_self();
    int cls = amp_mpi_class_of_code(rank, errorcode);
    if (cls < 0 || !string || !resultlen)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Error_string",
                             cls < 0 ? "invalid error code %d (argument "
                                       "errorcode)"
                                     : "NULL pointer (argument string or "
                                       "resultlen; error code %d)",
                             errorcode);
    int n;
    if (errorcode & DYN) {
        /* The program's own string, or "" when it set none. */
        const char *text = *added_text(rank, errorcode);
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", text ? text : "");
    } else {
        const char *detail = message_of(rank, errorcode);
        const char *cls_text = class_text[cls];
        if (detail)
            n = snprintf(string, MPI_MAX_ERROR_STRING, "%s (%s)", detail,
                         cls_text);
        else
            n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", cls_text);
    }
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Error_string)

/* ---- classes, codes and strings the program adds ---- */

/* Enters call, one of those allowed at any time (MPI-4.1 section 12.4.1,
 * Table 9: the added error classes, codes and strings), and checks that
 * the pointer argument ptr (named arg) is not NULL. */
static int enter_ptr(const void *ptr, const char *arg, const char *call,
                     amp_rank_t **rank)
{
    int rc = amp_mpi_enter_any(rank, call);
    if (rc == MPI_SUCCESS && !ptr)
        rc = amp_mpi_error(*rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument %s)", arg);
    return rc;
}

static amp_user_errs_t *user_errs(amp_rank_t *rank)
{
    if (!rank->user_errs) {
        rank->user_errs = calloc(1, sizeof(*rank->user_errs));
        if (rank->user_errs)
            rank->user_errs->lastused = MPI_ERR_LASTCODE;
    }
    return rank->user_errs;
}

/* Makes room for one more entry in each of the n-entry arrays. */
static int grow(int n, char ***text, int **classes)
{
    char **t = realloc(*text, (size_t)(n + 1) * sizeof(**text));
    if (!t)
        return 0;
    *text = t;
    t[n] = NULL;
    if (!classes)
        return 1;
    int *c = realloc(*classes, (size_t)(n + 1) * sizeof(**classes));
    if (!c)
        return 0;
    *classes = c;
    return 1;
}

int PMPI_Add_error_class(int *errorclass)
{
    const char *call = "MPI_Add_error_class";
    amp_rank_t *rank;
    int rc = enter_ptr(errorclass, "errorclass", call, &rank);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_user_errs_t *u = user_errs(rank);
    if (u && u->nclasses == DYN_CLASS_MASK)
        return amp_mpi_error(rank, NULL, MPI_ERR_OTHER, call,
                             "all %d error classes a program may add are "
                             "taken",
                             DYN_CLASS_MASK);
    unsigned char *gone =
        u ? realloc(u->class_gone, (size_t)u->nclasses + 1) : NULL;
    if (gone)
        u->class_gone = gone;
    if (!gone || !grow(u->nclasses, &u->class_text, NULL))
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call, "out of memory");
    gone[u->nclasses] = 0;
    int cls = DYN | ++u->nclasses;
    if (cls > u->lastused)
        u->lastused = cls;
    *errorclass = cls;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Add_error_class)

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    const char *call = "MPI_Add_error_code";
    amp_rank_t *rank;
    int rc = enter_ptr(errorcode, "errorcode", call, &rank);
    if (rc != MPI_SUCCESS)
        return rc;
    if (errorclass <= MPI_SUCCESS ||
        amp_mpi_class_of_code(rank, errorclass) != errorclass)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "%d is not an error class (argument errorclass)",
                             errorclass);
    amp_user_errs_t *u = user_errs(rank);
    if (u && u->ncodes == DYN_MAX_CODES)
        return amp_mpi_error(rank, NULL, MPI_ERR_OTHER, call,
                             "all %d error codes a program may add are taken",
                             DYN_MAX_CODES);
    if (!u || !grow(u->ncodes, &u->code_text, &u->code_class))
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call, "out of memory");
    u->code_class[u->ncodes] = errorclass;
    int code = DYN | (++u->ncodes << DYN_CODE_SHIFT);
    if (code > u->lastused)
        u->lastused = code;
    *errorcode = code;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Add_error_code)

int PMPI_Add_error_string(int errorcode, const char *string)
{
    const char *call = "MPI_Add_error_string";
    amp_rank_t *rank;
    int rc = enter_ptr(string, "string", call, &rank);
    if (rc != MPI_SUCCESS)
        return rc;
    char **text = added_text(rank, errorcode);
    if (!text)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "%d is no error class or code added with "
                             "MPI_Add_error_class/code (argument errorcode)",
                             errorcode);
    if (strlen(string) >= MPI_MAX_ERROR_STRING)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "string of %zu characters; at most %d "
                             "(MPI_MAX_ERROR_STRING - 1) (argument string)",
                             strlen(string), MPI_MAX_ERROR_STRING - 1);
    char *copy = strdup(string);
    if (!copy)
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call, "out of memory");
    free(*text);
    *text = copy;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Add_error_string)

/* ---- MPI-4.1: removing them ---- */

/* Enters call on errorcode, a class (want 1), code (want 0) or either
 * (want -1) the program added and has not removed: its text slot in
 * *text. */
static int removable(int errorcode, int want, const char *call,
                     amp_rank_t **rank, char ***text)
{
    int rc = amp_mpi_enter(rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    *text = added_text(*rank, errorcode);
    int is_class = *text && (errorcode & DYN_CLASS_MASK);
    if (*text && (want < 0 || is_class == want))
        return MPI_SUCCESS;
    const char *what = want < 0 ? "class or code" : want ? "class" : "code";
    return amp_mpi_error(*rank, NULL, MPI_ERR_ARG, call,
                         "%d is no error %s the program added and has not "
                         "removed (argument %s)",
                         errorcode, what,
                         want == 1 ? "errorclass" : "errorcode");
}

int PMPI_Remove_error_class(int errorclass)
{
    const char *call = "MPI_Remove_error_class";
    amp_rank_t *rank;
    char **text;
    int rc = removable(errorclass, 1, call, &rank, &text);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_user_errs_t *u = rank->user_errs;
    for (int j = 0; j < u->ncodes; j++)
        if (u->code_class[j] == errorclass)
            return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                                 "error code %d of class %d is still there; "
                                 "remove it first (MPI_Remove_error_code)",
                                 DYN | ((j + 1) << DYN_CODE_SHIFT), errorclass);
    free(*text);
    *text = NULL;
    u->class_gone[(errorclass & DYN_CLASS_MASK) - 1] = 1;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Remove_error_class)

int PMPI_Remove_error_code(int errorcode)
{
    amp_rank_t *rank;
    char **text;
    int rc = removable(errorcode, 0, "MPI_Remove_error_code", &rank, &text);
    if (rc != MPI_SUCCESS)
        return rc;
    free(*text);
    *text = NULL;
    rank->user_errs->code_class[((errorcode & ~DYN) >> DYN_CODE_SHIFT) - 1] = 0;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Remove_error_code)

int PMPI_Remove_error_string(int errorcode)
{
    const char *call = "MPI_Remove_error_string";
    amp_rank_t *rank;
    char **text;
    int rc = removable(errorcode, -1, call, &rank, &text);
    if (rc == MPI_SUCCESS && !*text)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                           "error %d has no string (argument errorcode)",
                           errorcode);
    if (rc != MPI_SUCCESS)
        return rc;
    free(*text);
    *text = NULL;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Remove_error_string)

/* ---- applying the handler of an object that is not a communicator ---- */

int amp_errh_apply(amp_rank_t *rank, MPI_Errhandler eh, int handle,
                   int errclass, int raw, const char *call, const char *detail)
{
    char msg[AMP_ERRMSG_LEN];
    snprintf(msg, sizeof(msg), "%s: %s", reported_call(call), detail);
    int code = raw || errclass & DYN ? errclass : record(rank, errclass, msg);
    return apply_handler(rank, eh, handle, code, msg);
}

/* Windows: a window's handler lives in its private communicator's errh
 * (win/win.c passes it). */
int amp_mpi_error_win(amp_rank_t *rank, MPI_Errhandler eh, MPI_Win win,
                      int errclass, const char *call, const char *detail)
{
    char msg[AMP_ERRMSG_LEN];
    snprintf(msg, sizeof(msg), "%s: %s", reported_call(call), detail);
    int code = errclass & DYN ? errclass : record(rank, errclass, msg);
    return apply_handler(rank, eh, win, code, msg);
}

/* Files: each file keeps its handler, and MPI_FILE_NULL's (the rank's
 * file_errh) takes the errors of calls without a file (file/). */
int amp_mpi_error_file(amp_rank_t *rank, MPI_Errhandler eh, MPI_File fh,
                       int errclass, const char *msg)
{
    int code = errclass & DYN ? errclass : record(rank, errclass, msg);
    return apply_handler(rank, eh, fh, code, msg);
}
