/*
 * The Fortran binding (mpif.h and `use mpi`): mpi_xxx_ entry points, as
 * flang and gfortran name external procedures, each a weak alias of
 * pmpi_xxx_ for profiling tools.  Every argument comes by reference and
 * ierror is last; a CHARACTER argument adds its length as a hidden size_t
 * after all of them.  Fortran INTEGER handles are the C handles unchanged.
 *
 * Most wrappers are generated from the C prototypes (scripts/gen_fortran.py
 * writes fortran_gen.c in the build tree) using the conversions defined
 * here; this file writes by hand the ones a prototype does not describe
 * (it skips every pmpi_xxx_ defined here), and the predefined attribute
 * callbacks Fortran programs name (MPI_COMM_DUP_FN ...).
 *
 * MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE,
 * MPI_ERRCODES_IGNORE, MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY, MPI_ARGV_NULL and
 * MPI_ARGVS_NULL are Fortran variables (mpif.h puts each in a COMMON block
 * named after the objects below), recognized here by their address.  The
 * privatization pass leaves names starting with mpi_fortran_ shared, so the
 * program's references and these definitions are the same object.  Under
 * pie privatization each rank's copy of the program has its own COMMON
 * blocks (gfortran defines them in the program, and these definitions bind
 * to the original's), so an address is first moved back to the original.
 */
#include "mpi/fortran/fortran.h"
#include "mpi/file/fileio.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(MPI_Status) == AMP_F_STATUS_SIZE * sizeof(MPI_Fint),
               "mpif.h's MPI_STATUS_SIZE is the size of MPI_Status in ints");

/* The special addresses.  Nothing reads or writes them: only their
 * addresses mean something, so they are not per-rank state.  Aligned as
 * gfortran aligns the COMMON blocks it makes of them (use mpi_f08). */
#define F_COMMON _Alignas(16) AMPI_API
F_COMMON MPI_Fint mpi_fortran_bottom_;
F_COMMON MPI_Fint mpi_fortran_in_place_;
/* gfortran aligns a COMMON block of 32 bytes or more (a status) to 32. */
_Alignas(32) AMPI_API MPI_Fint mpi_fortran_status_ignore_[AMP_F_STATUS_SIZE];
_Alignas(32) AMPI_API MPI_Fint mpi_fortran_statuses_ignore_[AMP_F_STATUS_SIZE];
F_COMMON MPI_Fint mpi_fortran_errcodes_ignore_;
F_COMMON MPI_Fint mpi_fortran_unweighted_;
F_COMMON MPI_Fint mpi_fortran_weights_empty_;
F_COMMON char mpi_fortran_argv_null_;
F_COMMON char mpi_fortran_argvs_null_;
F_COMMON MPI_Fint mpi_fortran_buffer_automatic_;

static bool is_special(const void *f, const void *special)
{
    return amp_pie_to_original(f) == special;
}

/* ---- conversions (fortran.h) ---- */

void *amp_f_buf(const void *buf)
{
    if (is_special(buf, &mpi_fortran_bottom_))
        return MPI_BOTTOM;
    if (is_special(buf, &mpi_fortran_in_place_))
        return MPI_IN_PLACE;
    if (is_special(buf, &mpi_fortran_buffer_automatic_))
        return MPI_BUFFER_AUTOMATIC;
    return (void *)buf;
}

static bool ignores_status(const MPI_Fint *f)
{
    return is_special(f, mpi_fortran_status_ignore_) ||
           is_special(f, mpi_fortran_statuses_ignore_);
}

/* The Fortran array may be less aligned than MPI_Status, so statuses are
 * copied rather than cast. */
MPI_Status *amp_f_status_in(const MPI_Fint *f, MPI_Status *local, int copy_in)
{
    if (ignores_status(f))
        return MPI_STATUS_IGNORE;
    /* An output status starts as the program's too: what the call does
     * not set (MPI_ERROR in single-completion calls) stays as it was. */
    (void)copy_in;
    memcpy(local, f, sizeof(*local));
    return local;
}

void amp_f_status_out(const MPI_Status *c, MPI_Fint *f)
{
    if (!ignores_status(f))
        memcpy(f, c, sizeof(*c));
}

int amp_f_statuses_in(amp_f_statuses_t *s, const MPI_Fint *f, int n,
                      const char *call, MPI_Fint *ierror)
{
    s->n = n;
    s->c = s->stack;
    if (ignores_status(f) || n <= 0) {
        s->c = MPI_STATUSES_IGNORE;
        return 1;
    }
    if (n > AMP_F_STACK_STATUSES) {
        s->c = calloc((size_t)n, sizeof(*s->c));
        if (!s->c) {
            *ierror = amp_mpi_error(amp_rank_self(), NULL, MPI_ERR_NO_MEM, call,
                                    "no memory for %d statuses", n);
            return 0;
        }
        return 1;
    }
    memset(s->stack, 0, sizeof(s->stack));
    return 1;
}

void amp_f_statuses_out(amp_f_statuses_t *s, MPI_Fint *f)
{
    if (s->c == MPI_STATUSES_IGNORE)
        return;
    memcpy(f, s->c, (size_t)s->n * sizeof(*s->c));
    if (s->c != s->stack)
        free(s->c);
}

void amp_f_logical_out(MPI_Fint *flag)
{
    *flag = *flag != 0;
}

void amp_f_index_out(MPI_Fint *index, int n)
{
    for (int i = 0; i < n; i++)
        if (index[i] >= 0)
            index[i]++;
}

int *amp_f_errcodes(MPI_Fint *codes)
{
    return is_special(codes, &mpi_fortran_errcodes_ignore_)
               ? MPI_ERRCODES_IGNORE
               : codes;
}

const int *amp_f_weights(const MPI_Fint *weights)
{
    if (is_special(weights, &mpi_fortran_unweighted_))
        return MPI_UNWEIGHTED;
    if (is_special(weights, &mpi_fortran_weights_empty_))
        return MPI_WEIGHTS_EMPTY;
    return weights;
}

char *amp_f_cstring(const char *f, size_t len)
{
    while (len > 0 && f[len - 1] == ' ')
        len--;
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, f, len);
        c[len] = 0;
    }
    return c;
}

char *amp_f_cstring_trim(const char *f, size_t len)
{
    while (len > 0 && *f == ' ') {
        f++;
        len--;
    }
    return amp_f_cstring(f, len);
}

int amp_f_no_mem(const char *call)
{
    return amp_mpi_error(amp_rank_self(), NULL, MPI_ERR_NO_MEM, call,
                         "no memory for a copy of a CHARACTER argument");
}

MPI_Fint amp_f_string_out(char *f, size_t flen, const char *c)
{
    size_t n = strlen(c);
    if (n > flen)
        n = flen;
    memcpy(f, c, n);
    memset(f + n, ' ', flen - n);
    return (MPI_Fint)n;
}

/* ---- environment ---- */

AMPI_API void pmpi_init_(MPI_Fint *ierror)
{
    *ierror = PMPI_Init(NULL, NULL);
}
AMP_FORTRAN_ALIAS(init)

AMPI_API void pmpi_init_thread_(const MPI_Fint *required, MPI_Fint *provided,
                                MPI_Fint *ierror)
{
    int c_provided = MPI_THREAD_SINGLE;
    *ierror = PMPI_Init_thread(NULL, NULL, *required, &c_provided);
    *provided = c_provided;
}
AMP_FORTRAN_ALIAS(init_thread)

/* MPI_PCONTROL(LEVEL) has no IERROR. */
AMPI_API void pmpi_pcontrol_(const MPI_Fint *level)
{
    PMPI_Pcontrol(*level);
}
AMP_FORTRAN_ALIAS(pcontrol)

/* Fortran cannot use the address; the buffer argument only names the
 * buffer, as in the standard's Fortran binding. */
AMPI_API void pmpi_buffer_detach_(void *buffer_addr, MPI_Fint *size,
                                  MPI_Fint *ierror)
{
    void *c_addr = NULL;
    int c_size = 0;
    (void)buffer_addr;
    *ierror = PMPI_Buffer_detach(&c_addr, &c_size);
    *size = c_size;
}
AMP_FORTRAN_ALIAS(buffer_detach)

/* The same of a communicator's and a session's buffer (MPI-4.1). */
AMPI_API void pmpi_comm_detach_buffer_(const MPI_Fint *comm, void *buffer_addr,
                                       MPI_Fint *size, MPI_Fint *ierror)
{
    void *c_addr = NULL;
    int c_size = 0;
    (void)buffer_addr;
    *ierror = PMPI_Comm_detach_buffer(*comm, &c_addr, &c_size);
    *size = c_size;
}
AMP_FORTRAN_ALIAS(comm_detach_buffer)

AMPI_API void pmpi_comm_detach_buffer_c_(const MPI_Fint *comm,
                                         void *buffer_addr, MPI_Count *size,
                                         MPI_Fint *ierror)
{
    void *c_addr = NULL;
    (void)buffer_addr;
    *ierror = PMPI_Comm_detach_buffer_c(*comm, &c_addr, size);
}
AMP_FORTRAN_ALIAS(comm_detach_buffer_c)

AMPI_API void pmpi_session_detach_buffer_(const MPI_Fint *session,
                                          void *buffer_addr, MPI_Fint *size,
                                          MPI_Fint *ierror)
{
    void *c_addr = NULL;
    int c_size = 0;
    (void)buffer_addr;
    *ierror = PMPI_Session_detach_buffer(*session, &c_addr, &c_size);
    *size = c_size;
}
AMP_FORTRAN_ALIAS(session_detach_buffer)

AMPI_API void pmpi_session_detach_buffer_c_(const MPI_Fint *session,
                                            void *buffer_addr, MPI_Count *size,
                                            MPI_Fint *ierror)
{
    void *c_addr = NULL;
    (void)buffer_addr;
    *ierror = PMPI_Session_detach_buffer_c(*session, &c_addr, size);
}
AMP_FORTRAN_ALIAS(session_detach_buffer_c)

/* ---- info ---- */

AMPI_API void pmpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierror)
{
    *ierror = PMPI_Info_create_env(0, NULL, info);
}
AMP_FORTRAN_ALIAS(info_create_env)

/* The C value needs valuelen + 1 characters; VALUE gets at most its own
 * length of them. */
AMPI_API void pmpi_info_get_(const MPI_Fint *info, const char *key,
                             const MPI_Fint *valuelen, char *value,
                             MPI_Fint *flag, MPI_Fint *ierror, size_t key_len,
                             size_t value_len)
{
    size_t n = *valuelen > 0 ? (size_t)*valuelen : 0;
    char *c_key = amp_f_cstring_trim(key, key_len);
    char *c_value = malloc(n + 1);
    if (!c_key || !c_value) {
        free(c_key);
        free(c_value);
        *ierror = amp_f_no_mem("MPI_Info_get");
        return;
    }
    c_value[0] = 0;
    *ierror = PMPI_Info_get(*info, c_key, *valuelen, c_value, flag);
    if (*ierror == MPI_SUCCESS) {
        amp_f_logical_out(flag);
        if (*flag)
            amp_f_string_out(value, value_len, c_value);
    }
    free(c_key);
    free(c_value);
}
AMP_FORTRAN_ALIAS(info_get)

/* MPI-4.0: VALUE gets at most BUFLEN characters of the value (none when
 * BUFLEN is 0: VALUE is left as it was), blank-padded to its length; on
 * return BUFLEN is the length of the whole value. */
AMPI_API void pmpi_info_get_string_(const MPI_Fint *info, const char *key,
                                    MPI_Fint *buflen, char *value,
                                    MPI_Fint *flag, MPI_Fint *ierror,
                                    size_t key_len, size_t value_len)
{
    int c_buflen = MPI_MAX_INFO_VAL + 1;
    char *c_key = amp_f_cstring_trim(key, key_len);
    char *c_value = malloc((size_t)c_buflen);
    if (!c_key || !c_value) {
        free(c_key);
        free(c_value);
        *ierror = amp_f_no_mem("MPI_Info_get_string");
        return;
    }
    c_value[0] = 0;
    *ierror = PMPI_Info_get_string(*info, c_key, &c_buflen, c_value, flag);
    if (*ierror == MPI_SUCCESS) {
        amp_f_logical_out(flag);
        if (*flag && *buflen > 0) {
            size_t room =
                (size_t)*buflen < value_len ? (size_t)*buflen : value_len;
            c_value[room < strlen(c_value) ? room : strlen(c_value)] = 0;
            amp_f_string_out(value, value_len, c_value);
        }
        if (*flag)
            *buflen = c_buflen - 1;
    }
    free(c_key);
    free(c_value);
}
AMP_FORTRAN_ALIAS(info_get_string)

/* ---- MPI-1 calls with addresses in default INTEGERs ----
 *
 * MPI_ADDRESS, MPI_TYPE_EXTENT, MPI_TYPE_LB, MPI_TYPE_UB,
 * MPI_TYPE_HVECTOR, MPI_TYPE_HINDEXED and MPI_TYPE_STRUCT (removed from
 * the standard in MPI 3.0) take INTEGER addresses, not
 * INTEGER(KIND=MPI_ADDRESS_KIND).  A result that does not fit is cut to its
 * low 32 bits, and IERROR is MPI_ERR_OTHER without the error handler, as
 * MPICH does: the addresses of a rank's data (in its isomalloc slot) never
 * fit, but differences of two of them do (docs/fortran.md). */

static void aint_out(MPI_Aint a, MPI_Fint *f, MPI_Fint *ierror)
{
    *f = (MPI_Fint)a;
    if (*ierror == MPI_SUCCESS && (MPI_Aint)*f != a)
        *ierror = MPI_ERR_OTHER;
}

AMPI_API void pmpi_address_(void *location, MPI_Fint *address, MPI_Fint *ierror)
{
    MPI_Aint a = 0;
    *ierror = PMPI_Address(amp_f_buf(location), &a);
    aint_out(a, address, ierror);
}
AMP_FORTRAN_ALIAS(address)

#define F_TYPE_BOUND(lower, Name)                                              \
    AMPI_API void pmpi_##lower##_(const MPI_Fint *datatype, MPI_Fint *value,   \
                                  MPI_Fint *ierror)                            \
    {                                                                          \
        MPI_Aint a = 0;                                                        \
        *ierror = PMPI_##Name(*datatype, &a);                                  \
        aint_out(a, value, ierror);                                            \
    }                                                                          \
    AMP_FORTRAN_ALIAS(lower)

F_TYPE_BOUND(type_extent, Type_extent)
F_TYPE_BOUND(type_lb, Type_lb)
F_TYPE_BOUND(type_ub, Type_ub)

AMPI_API void pmpi_type_hvector_(const MPI_Fint *count,
                                 const MPI_Fint *blocklength,
                                 const MPI_Fint *stride,
                                 const MPI_Fint *oldtype, MPI_Fint *newtype,
                                 MPI_Fint *ierror)
{
    *ierror =
        PMPI_Type_hvector(*count, *blocklength, *stride, *oldtype, newtype);
}
AMP_FORTRAN_ALIAS(type_hvector)

/* n INTEGER displacements as MPI_Aint (NULL after reporting no memory). */
static MPI_Aint *aints_in(const MPI_Fint *f, MPI_Fint n, const char *call,
                          MPI_Fint *ierror)
{
    MPI_Aint *a = malloc((n > 0 ? (size_t)n : 1) * sizeof(*a));
    if (!a) {
        *ierror = amp_mpi_error(amp_rank_self(), NULL, MPI_ERR_NO_MEM, call,
                                "out of memory for the displacements");
        return NULL;
    }
    for (MPI_Fint i = 0; i < n; i++)
        a[i] = f[i];
    return a;
}

AMPI_API void pmpi_type_hindexed_(const MPI_Fint *count, MPI_Fint *blocklens,
                                  const MPI_Fint *displs,
                                  const MPI_Fint *oldtype, MPI_Fint *newtype,
                                  MPI_Fint *ierror)
{
    MPI_Aint *d = aints_in(displs, *count, "MPI_Type_hindexed", ierror);
    if (!d)
        return;
    *ierror = PMPI_Type_hindexed(*count, blocklens, d, *oldtype, newtype);
    free(d);
}
AMP_FORTRAN_ALIAS(type_hindexed)

AMPI_API void pmpi_type_struct_(const MPI_Fint *count, MPI_Fint *blocklens,
                                const MPI_Fint *displs, MPI_Fint *types,
                                MPI_Fint *newtype, MPI_Fint *ierror)
{
    MPI_Aint *d = aints_in(displs, *count, "MPI_Type_struct", ierror);
    if (!d)
        return;
    *ierror = PMPI_Type_struct(*count, blocklens, d, types, newtype);
    free(d);
}
AMP_FORTRAN_ALIAS(type_struct)

/* ---- MPI_SIZEOF ----
 *
 * The specifics of the generic MPI_SIZEOF in the mpi module
 * (scripts/gen_fortran.py, SIZEOF_KINDS): ampi_sizeof_<t><kind><s|a> for
 * a scalar or an array of type t (integer, real, complex, logical, h:
 * character) of that kind; SIZE is the bytes of one value. */
#define F_SIZEOF(t, kind, bytes)                                               \
    AMPI_API void ampi_sizeof_##t##kind##s_(const void *x, MPI_Fint *size,     \
                                            MPI_Fint *ierror)                  \
    {                                                                          \
        (void)x;                                                               \
        *size = (bytes);                                                       \
        *ierror = MPI_SUCCESS;                                                 \
    }                                                                          \
    AMPI_API __typeof__(ampi_sizeof_##t##kind##s_) ampi_sizeof_##t##kind##a_   \
        __attribute__((alias("ampi_sizeof_" #t #kind "s_")));

F_SIZEOF(i, 1, 1)
F_SIZEOF(i, 2, 2)
F_SIZEOF(i, 4, 4)
F_SIZEOF(i, 8, 8)
F_SIZEOF(i, 16, 16)
F_SIZEOF(r, 4, 4)
F_SIZEOF(r, 8, 8)
F_SIZEOF(r, 16, 16)
F_SIZEOF(c, 4, 8)
F_SIZEOF(c, 8, 16)
F_SIZEOF(c, 16, 32)
F_SIZEOF(l, 1, 1)
F_SIZEOF(l, 2, 2)
F_SIZEOF(l, 4, 4)
F_SIZEOF(l, 8, 8)
F_SIZEOF(h, 1, 1) /* CHARACTER: one character (its length argument unused) */

/* ---- sessions ---- */

/* PSET_LEN 0 asks for the length of the name only; otherwise PSET_NAME
 * gets at most its own length of it, blank-padded. */
AMPI_API void pmpi_session_get_nth_pset_(const MPI_Fint *session,
                                         const MPI_Fint *info,
                                         const MPI_Fint *n, MPI_Fint *pset_len,
                                         char *pset_name, MPI_Fint *ierror,
                                         size_t pset_name_len)
{
    char c_name[MPI_MAX_PSET_NAME_LEN];
    int c_len = *pset_len == 0 ? 0 : (int)sizeof(c_name);
    c_name[0] = 0;
    *ierror = PMPI_Session_get_nth_pset(*session, *info, *n, &c_len, c_name);
    if (*ierror != MPI_SUCCESS)
        return;
    if (*pset_len != 0)
        amp_f_string_out(pset_name, pset_name_len, c_name);
    *pset_len = c_len - 1; /* C counts the NUL */
}
AMP_FORTRAN_ALIAS(session_get_nth_pset)

/* ---- process creation ---- */

static void free_argv(char **argv)
{
    if (!argv)
        return;
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);
}

/* The C argv for a Fortran CHARACTER*(len) array whose elements lie stride
 * elements apart and end with an all-blank one; NULL without memory. */
static char **c_argv(const char *f, size_t len, size_t stride)
{
    size_t n = 0;
    while (len > 0 && strspn(f + n * stride * len, " ") < len)
        n++;
    char **argv = calloc(n + 1, sizeof(*argv));
    for (size_t i = 0; argv && i < n; i++) {
        argv[i] = amp_f_cstring(f + i * stride * len, len);
        if (!argv[i]) {
            free_argv(argv);
            return NULL;
        }
    }
    return argv;
}

AMPI_API void pmpi_comm_spawn_(const char *command, const char *argv,
                               const MPI_Fint *maxprocs, const MPI_Fint *info,
                               const MPI_Fint *root, const MPI_Fint *comm,
                               MPI_Fint *intercomm, MPI_Fint *array_of_errcodes,
                               MPI_Fint *ierror, size_t command_len,
                               size_t argv_len)
{
    bool no_argv = amp_pie_to_original(argv) == &mpi_fortran_argv_null_;
    char *c_command = amp_f_cstring(command, command_len);
    char **c_args = no_argv ? NULL : c_argv(argv, argv_len, 1);
    if (!c_command || (!no_argv && !c_args)) {
        free(c_command);
        free_argv(c_args);
        *ierror = amp_f_no_mem("MPI_Comm_spawn");
        return;
    }
    *ierror = PMPI_Comm_spawn(c_command, no_argv ? MPI_ARGV_NULL : c_args,
                              *maxprocs, *info, *root, *comm, intercomm,
                              amp_f_errcodes(array_of_errcodes));
    free(c_command);
    free_argv(c_args);
}
AMP_FORTRAN_ALIAS(comm_spawn)

/* ARRAY_OF_ARGV(COUNT, *): argument j of command i is element (i, j). */
AMPI_API void pmpi_comm_spawn_multiple_(
    const MPI_Fint *count, const char *array_of_commands,
    const char *array_of_argv, const MPI_Fint *array_of_maxprocs,
    const MPI_Fint *array_of_info, const MPI_Fint *root, const MPI_Fint *comm,
    MPI_Fint *intercomm, MPI_Fint *array_of_errcodes, MPI_Fint *ierror,
    size_t commands_len, size_t argv_len)
{
    int n = *count > 0 ? *count : 0;
    bool no_argv =
        amp_pie_to_original(array_of_argv) == &mpi_fortran_argvs_null_;
    char **commands = calloc((size_t)n + 1, sizeof(*commands));
    char ***argvs = no_argv ? NULL : calloc((size_t)n + 1, sizeof(*argvs));
    bool ok = commands && (no_argv || argvs);
    for (int i = 0; ok && i < n; i++) {
        commands[i] =
            amp_f_cstring(array_of_commands + i * commands_len, commands_len);
        if (!no_argv)
            argvs[i] =
                c_argv(array_of_argv + i * argv_len, argv_len, (size_t)n);
        ok = commands[i] && (no_argv || argvs[i]);
    }
    if (ok)
        *ierror = PMPI_Comm_spawn_multiple(
            *count, commands, no_argv ? MPI_ARGVS_NULL : argvs,
            array_of_maxprocs, array_of_info, *root, *comm, intercomm,
            amp_f_errcodes(array_of_errcodes));
    else
        *ierror = amp_f_no_mem("MPI_Comm_spawn_multiple");
    for (int i = 0; i < n && argvs; i++)
        free_argv(argvs[i]);
    free(argvs);
    free_argv(commands);
}
AMP_FORTRAN_ALIAS(comm_spawn_multiple)

/* ---- AMPI's extensions (ampi.h) ---- */

/* ampi_yield_: how flang and gfortran name AMPI_YIELD; the migration and
 * load-balancing calls' are with them (rank/migrate.c). */
AMPI_API void ampi_yield_(MPI_Fint *ierror)
{
    *ierror = AMPI_Yield();
}

/* ---- generalized requests ---- */

/* The Fortran callbacks of MPI_GREQUEST_START: QUERY_FN(EXTRA_STATE,
 * STATUS, IERROR), FREE_FN(EXTRA_STATE, IERROR), CANCEL_FN(EXTRA_STATE,
 * COMPLETE, IERROR), EXTRA_STATE INTEGER(KIND=MPI_ADDRESS_KIND), COMPLETE
 * LOGICAL; the C runtime calls them through the trampolines below, with
 * this as extra_state.  A Fortran status is the C status.  The callbacks
 * get the program's own EXTRA_STATE variable, as under MPICH and Open MPI:
 * what they write into it, the program sees. */
typedef void f_greq_query_fn(const MPI_Aint *, MPI_Fint *, MPI_Fint *);
typedef void f_greq_free_fn(const MPI_Aint *, MPI_Fint *);
typedef void f_greq_cancel_fn(const MPI_Aint *, const MPI_Fint *, MPI_Fint *);

typedef struct {
    f_greq_query_fn *query;
    f_greq_free_fn *free;
    f_greq_cancel_fn *cancel;
    MPI_Aint *extra_state;
} f_greq_t;

static int greq_query(void *extra_state, MPI_Status *status)
{
    const f_greq_t *g = extra_state;
    f_greq_query_fn *fn = amp_pie_to_rank(amp_rank_self(), (void *)g->query);
    MPI_Fint ierror = MPI_SUCCESS;
    fn(g->extra_state, (MPI_Fint *)status, &ierror);
    return ierror;
}

/* The last callback of a request: the state goes with it. */
static int greq_free(void *extra_state)
{
    f_greq_t *g = extra_state;
    f_greq_free_fn *fn = amp_pie_to_rank(amp_rank_self(), (void *)g->free);
    MPI_Fint ierror = MPI_SUCCESS;
    fn(g->extra_state, &ierror);
    free(g);
    return ierror;
}

static int greq_cancel(void *extra_state, int complete)
{
    const f_greq_t *g = extra_state;
    f_greq_cancel_fn *fn = amp_pie_to_rank(amp_rank_self(), (void *)g->cancel);
    MPI_Fint ierror = MPI_SUCCESS, f_complete = complete != 0;
    fn(g->extra_state, &f_complete, &ierror);
    return ierror;
}

AMPI_API void pmpi_grequest_start_(void *query_fn, void *free_fn,
                                   void *cancel_fn, MPI_Aint *extra_state,
                                   MPI_Fint *request, MPI_Fint *ierror)
{
    f_greq_t *g = malloc(sizeof(*g));
    if (!g) {
        *ierror = amp_f_no_mem("MPI_Grequest_start");
        return;
    }
    *g = (f_greq_t){(f_greq_query_fn *)query_fn, (f_greq_free_fn *)free_fn,
                    (f_greq_cancel_fn *)cancel_fn, extra_state};
    *ierror =
        PMPI_Grequest_start(greq_query, greq_free, greq_cancel, g, request);
    if (*ierror != MPI_SUCCESS)
        free(g);
}
AMP_FORTRAN_ALIAS(grequest_start)

/* ---- MPI_REGISTER_DATAREP: the registry calls the Fortran functions by
 * reference (datatype/datarep.c); MPI_CONVERSION_FN_NULL is this
 * procedure ---- */

AMPI_API void mpi_conversion_fn_null_(void *userbuf, MPI_Fint *datatype,
                                      MPI_Fint *count, void *filebuf,
                                      MPI_Offset *position,
                                      MPI_Aint *extra_state, MPI_Fint *ierror)
{
    (void)userbuf, (void)datatype, (void)count, (void)filebuf;
    (void)position, (void)extra_state;
    *ierror = MPI_SUCCESS;
}

static MPI_Datarep_conversion_function *f_conversion(void *fn)
{
    if (fn == (void *)mpi_conversion_fn_null_)
        return NULL;
    return (MPI_Datarep_conversion_function *)fn;
}

AMPI_API void pmpi_register_datarep_(const char *datarep, void *read_fn,
                                     void *write_fn, void *extent_fn,
                                     const MPI_Aint *extra_state,
                                     MPI_Fint *ierror, size_t datarep_len)
{
    const char *call = "MPI_Register_datarep";
    amp_datarep_t r = {.read_fn = f_conversion(read_fn),
                       .write_fn = f_conversion(write_fn),
                       .extent_fn = (MPI_Datarep_extent_function *)extent_fn,
                       .extra_state = (void *)(intptr_t)*extra_state,
                       .fortran = 1};
    char *name = amp_f_cstring(datarep, datarep_len);
    if (!name) {
        *ierror = amp_f_no_mem(call);
        return;
    }
    *ierror = amp_datarep_register(name, &r, call);
    free(name);
}
AMP_FORTRAN_ALIAS(register_datarep)

/* ---- status conversions (C calls) ---- */

/* A Fortran status is the C status as MPI_STATUS_SIZE integers. */
static int status_convert(const void *from, void *to, const char *call)
{
    if (!from || !to)
        return amp_mpi_error(amp_rank_self(), NULL, MPI_ERR_ARG, call,
                             "the %s status is NULL (MPI_STATUS_IGNORE "
                             "cannot be converted)",
                             from ? "output" : "input");
    memcpy(to, from, sizeof(MPI_Status));
    return MPI_SUCCESS;
}

int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    return status_convert(c_status, f_status, "MPI_Status_c2f");
}
AMP_WEAK_ALIAS(Status_c2f)

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    return status_convert(f_status, c_status, "MPI_Status_f2c");
}
AMP_WEAK_ALIAS(Status_f2c)

/* TYPE(MPI_Status) of use mpi_f08 holds the same bits too. */
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status),
               "MPI_F08_status is an MPI_Status");

int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)
{
    return status_convert(c_status, f08_status, "MPI_Status_c2f08");
}
AMP_WEAK_ALIAS(Status_c2f08)

int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)
{
    return status_convert(f08_status, c_status, "MPI_Status_f082c");
}
AMP_WEAK_ALIAS(Status_f082c)

int PMPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status)
{
    return status_convert(f08_status, f_status, "MPI_Status_f082f");
}
AMP_WEAK_ALIAS(Status_f082f)

int PMPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status)
{
    return status_convert(f_status, f08_status, "MPI_Status_f2f08");
}
AMP_WEAK_ALIAS(Status_f2f08)
