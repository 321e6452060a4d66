/*
 * The Fortran binding's calls that take or return procedures and attribute
 * values: keyval creation (the Fortran callbacks take every argument by
 * reference, INTEGER(KIND=MPI_ADDRESS_KIND) values and an IERROR instead
 * of a result, so the C runtime calls them through the trampolines here),
 * the predefined callbacks Fortran names (MPI_COMM_NULL_COPY_FN ...),
 * attribute set/get (a value set from Fortran stays in the attribute and
 * C reads a pointer to it, attr.c; predefined attributes are pointers to
 * ints in C but values in Fortran).
 *
 * The error handler functions (MPI_Comm_create_errhandler ...) and
 * MPI_Op_create need nothing of this: a Fortran SUBROUTINE F(COMM, CODE) or
 * F(INVEC, INOUTVEC, LEN, TYPE) is called exactly like the C function
 * pointer, so the generated wrappers pass it on.
 */
#include "mpi/fortran/fortran.h"
#include "mpi/attr/attr.h"

#include <stdlib.h>
#include <string.h>

/* ---- keyvals ---- */

/* The Fortran callbacks of a keyval: COPY(OLD, KEYVAL, EXTRA_STATE,
 * ATTRIBUTE_VAL_IN, ATTRIBUTE_VAL_OUT, FLAG, IERROR) and DELETE(OBJ,
 * KEYVAL, ATTRIBUTE_VAL, EXTRA_STATE, IERROR), with the values
 * INTEGER(KIND=MPI_ADDRESS_KIND), or INTEGER for MPI_KEYVAL_CREATE. */
typedef void f_copy_fn(const MPI_Fint *, const MPI_Fint *, const void *,
                       const void *, void *, MPI_Fint *, MPI_Fint *);
typedef void f_delete_fn(const MPI_Fint *, const MPI_Fint *, const void *,
                         const void *, MPI_Fint *);

/* What the C runtime holds as the keyval's extra_state.  It lives as long
 * as the program (the runtime may call a callback after the keyval is
 * freed, while objects still carry the attribute). */
typedef struct {
    f_copy_fn *copy;
    f_delete_fn *del;
    MPI_Aint extra_state;
    int legacy; /* MPI_KEYVAL_CREATE: INTEGER values */
} f_keyval_t;

static int copy_trampoline(int oldobj, int keyval, void *extra_state,
                           void *attribute_val_in, void *attribute_val_out,
                           int *flag)
{
    const f_keyval_t *k = extra_state;
    f_copy_fn *fn = amp_pie_to_rank(amp_rank_self(), (void *)k->copy);
    MPI_Fint f_flag = 0, ierror = MPI_SUCCESS;
    MPI_Aint in = (MPI_Aint)attribute_val_in, out = 0;
    if (k->legacy) {
        MPI_Fint extra = (MPI_Fint)k->extra_state, in4 = (MPI_Fint)in;
        MPI_Fint out4 = 0;
        fn(&oldobj, &keyval, &extra, &in4, &out4, &f_flag, &ierror);
        out = out4;
    } else {
        fn(&oldobj, &keyval, &k->extra_state, &in, &out, &f_flag, &ierror);
    }
    *flag = f_flag != 0;
    if (*flag)
        *(void **)attribute_val_out = (void *)out;
    return ierror;
}

static int delete_trampoline(int obj, int keyval, void *attribute_val,
                             void *extra_state)
{
    const f_keyval_t *k = extra_state;
    f_delete_fn *fn = amp_pie_to_rank(amp_rank_self(), (void *)k->del);
    MPI_Fint ierror = MPI_SUCCESS;
    MPI_Aint val = (MPI_Aint)attribute_val;
    if (k->legacy) {
        MPI_Fint extra = (MPI_Fint)k->extra_state, val4 = (MPI_Fint)val;
        fn(&obj, &keyval, &val4, &extra, &ierror);
    } else {
        fn(&obj, &keyval, &val, &k->extra_state, &ierror);
    }
    return ierror;
}

/* The callbacks' C state, or NULL (after reporting MPI_ERR_NO_MEM). */
static f_keyval_t *keyval_new(void *copy, void *del, MPI_Aint extra_state,
                              int legacy, const char *call, MPI_Fint *ierror)
{
    f_keyval_t *k = malloc(sizeof(*k));
    if (!k) {
        *ierror = amp_mpi_error(amp_rank_self(), NULL, MPI_ERR_NO_MEM, call,
                                "no memory for the keyval's callbacks");
        return NULL;
    }
    k->copy = (f_copy_fn *)copy;
    k->del = (f_delete_fn *)del;
    k->extra_state = extra_state;
    k->legacy = legacy;
    return k;
}

#define F_KEYVAL_CREATE(lower, Name, Obj)                                      \
    AMPI_API void pmpi_##lower##_(                                             \
        void *copy_fn, void *delete_fn, MPI_Fint *keyval,                      \
        const MPI_Aint *extra_state, MPI_Fint *ierror)                         \
    {                                                                          \
        f_keyval_t *k = keyval_new(copy_fn, delete_fn, *extra_state, 0,        \
                                   "MPI_" #Name, ierror);                      \
        if (!k)                                                                \
            return;                                                            \
        *ierror = PMPI_##Name(                                                 \
            (MPI_##Obj##_copy_attr_function *)copy_trampoline,                 \
            (MPI_##Obj##_delete_attr_function *)delete_trampoline, keyval, k); \
        if (*ierror != MPI_SUCCESS)                                            \
            free(k);                                                           \
        else                                                                   \
            amp_attr_keyval_fortran(*keyval, 0);                               \
    }                                                                          \
    AMP_FORTRAN_ALIAS(lower)

F_KEYVAL_CREATE(comm_create_keyval, Comm_create_keyval, Comm)
F_KEYVAL_CREATE(type_create_keyval, Type_create_keyval, Type)
F_KEYVAL_CREATE(win_create_keyval, Win_create_keyval, Win)

AMPI_API void pmpi_keyval_create_(void *copy_fn, void *delete_fn,
                                  MPI_Fint *keyval, const MPI_Fint *extra_state,
                                  MPI_Fint *ierror)
{
    f_keyval_t *k = keyval_new(copy_fn, delete_fn, *extra_state, 1,
                               "MPI_Keyval_create", ierror);
    if (!k)
        return;
    *ierror =
        PMPI_Keyval_create((MPI_Copy_function *)copy_trampoline,
                           (MPI_Delete_function *)delete_trampoline, keyval, k);
    if (*ierror != MPI_SUCCESS)
        free(k);
    else
        amp_attr_keyval_fortran(*keyval, 1);
}
AMP_FORTRAN_ALIAS(keyval_create)

/* The predefined callbacks, as Fortran procedures (mpif.h declares them
 * EXTERNAL). */
AMPI_API void mpi_comm_null_copy_fn_(const MPI_Fint *oldobj,
                                     const MPI_Fint *keyval,
                                     const MPI_Aint *extra_state,
                                     const MPI_Aint *in, MPI_Aint *out,
                                     MPI_Fint *flag, MPI_Fint *ierror)
{
    (void)oldobj, (void)keyval, (void)extra_state, (void)in, (void)out;
    *flag = 0;
    *ierror = MPI_SUCCESS;
}

AMPI_API void mpi_comm_dup_fn_(const MPI_Fint *oldobj, const MPI_Fint *keyval,
                               const MPI_Aint *extra_state, const MPI_Aint *in,
                               MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror)
{
    (void)oldobj, (void)keyval, (void)extra_state;
    *out = *in;
    *flag = 1;
    *ierror = MPI_SUCCESS;
}

AMPI_API void mpi_comm_null_delete_fn_(const MPI_Fint *obj,
                                       const MPI_Fint *keyval,
                                       const MPI_Aint *val,
                                       const MPI_Aint *extra_state,
                                       MPI_Fint *ierror)
{
    (void)obj, (void)keyval, (void)val, (void)extra_state;
    *ierror = MPI_SUCCESS;
}

AMPI_API void mpi_dup_fn_(const MPI_Fint *oldobj, const MPI_Fint *keyval,
                          const MPI_Fint *extra_state, const MPI_Fint *in,
                          MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierror)
{
    (void)oldobj, (void)keyval, (void)extra_state;
    *out = *in;
    *flag = 1;
    *ierror = MPI_SUCCESS;
}

#define F_CALLBACK_ALIAS(name, target)                                         \
    AMPI_API __typeof__(target) name __attribute__((alias(#target)));

F_CALLBACK_ALIAS(mpi_type_null_copy_fn_, mpi_comm_null_copy_fn_)
F_CALLBACK_ALIAS(mpi_win_null_copy_fn_, mpi_comm_null_copy_fn_)
F_CALLBACK_ALIAS(mpi_type_dup_fn_, mpi_comm_dup_fn_)
F_CALLBACK_ALIAS(mpi_win_dup_fn_, mpi_comm_dup_fn_)
F_CALLBACK_ALIAS(mpi_type_null_delete_fn_, mpi_comm_null_delete_fn_)
F_CALLBACK_ALIAS(mpi_win_null_delete_fn_, mpi_comm_null_delete_fn_)
/* INTEGER arguments, but the null ones never read or write the values. */
F_CALLBACK_ALIAS(mpi_null_copy_fn_, mpi_comm_null_copy_fn_)
F_CALLBACK_ALIAS(mpi_null_delete_fn_, mpi_comm_null_delete_fn_)

/* ---- attribute values ---- */

/* A predefined attribute's value, which C gives as a pointer to it; the
 * window's base is the address itself. */
static MPI_Aint predefined_value(int keyval, const void *c)
{
    if (keyval == MPI_WIN_BASE)
        return (MPI_Aint)c;
    if (keyval == MPI_WIN_SIZE)
        return *(const MPI_Aint *)c;
    return *(const int *)c;
}

static int is_predefined_comm_key(int keyval)
{
    return (keyval >= MPI_TAG_UB && keyval <= MPI_LASTUSEDCODE) ||
           (keyval >= AMPI_MY_WTH && keyval <= AMPI_NUM_PROCESSES);
}

static int is_predefined_win_key(int keyval)
{
    return keyval >= MPI_WIN_BASE && keyval <= MPI_WIN_MODEL;
}

/* Reads keyval's attribute of obj (of kind, a communicator, type or
 * window) into *attribute_val: a predefined one's value, or what the
 * Fortran binding gives (amp_attr_fortran_get). */
static void get_attr(int kind, MPI_Fint obj, MPI_Fint keyval,
                     MPI_Aint *attribute_val, MPI_Fint *flag, MPI_Fint *ierror,
                     const char *call)
{
    int predefined =
        (kind == AMP_ATTR_COMM && is_predefined_comm_key(keyval)) ||
        (kind == AMP_ATTR_WIN && is_predefined_win_key(keyval));
    int f = 0;
    if (predefined) {
        void *c = NULL;
        *ierror = kind == AMP_ATTR_COMM
                      ? PMPI_Comm_get_attr(obj, keyval, &c, &f)
                      : PMPI_Win_get_attr(obj, keyval, &c, &f);
        if (*ierror == MPI_SUCCESS && f)
            *attribute_val = predefined_value(keyval, c);
    } else {
        *ierror =
            amp_attr_fortran_get(kind, obj, keyval, attribute_val, &f, call);
    }
    if (*ierror == MPI_SUCCESS)
        *flag = f;
    if (*ierror == MPI_SUCCESS)
        amp_f_logical_out(flag);
}

AMPI_API void pmpi_comm_get_attr_(const MPI_Fint *comm, const MPI_Fint *keyval,
                                  MPI_Aint *attribute_val, MPI_Fint *flag,
                                  MPI_Fint *ierror)
{
    get_attr(AMP_ATTR_COMM, *comm, *keyval, attribute_val, flag, ierror,
             "MPI_Comm_get_attr");
}
AMP_FORTRAN_ALIAS(comm_get_attr)

AMPI_API void pmpi_attr_get_(const MPI_Fint *comm, const MPI_Fint *keyval,
                             MPI_Fint *attribute_val, MPI_Fint *flag,
                             MPI_Fint *ierror)
{
    MPI_Aint v = 0;
    get_attr(AMP_ATTR_COMM, *comm, *keyval, &v, flag, ierror, "MPI_Attr_get");
    if (*ierror == MPI_SUCCESS && *flag)
        *attribute_val = (MPI_Fint)v;
}
AMP_FORTRAN_ALIAS(attr_get)

AMPI_API void pmpi_type_get_attr_(const MPI_Fint *datatype,
                                  const MPI_Fint *keyval,
                                  MPI_Aint *attribute_val, MPI_Fint *flag,
                                  MPI_Fint *ierror)
{
    get_attr(AMP_ATTR_TYPE, *datatype, *keyval, attribute_val, flag, ierror,
             "MPI_Type_get_attr");
}
AMP_FORTRAN_ALIAS(type_get_attr)

AMPI_API void pmpi_win_get_attr_(const MPI_Fint *win, const MPI_Fint *keyval,
                                 MPI_Aint *attribute_val, MPI_Fint *flag,
                                 MPI_Fint *ierror)
{
    get_attr(AMP_ATTR_WIN, *win, *keyval, attribute_val, flag, ierror,
             "MPI_Win_get_attr");
}
AMP_FORTRAN_ALIAS(win_get_attr)

/* Values set from Fortran stay in the attribute; C reads a pointer to
 * them (MPI 3.1 section 17.2.7). */
AMPI_API void pmpi_attr_put_(const MPI_Fint *comm, const MPI_Fint *keyval,
                             const MPI_Fint *attribute_val, MPI_Fint *ierror)
{
    *ierror = amp_attr_fortran_set(AMP_ATTR_COMM, *comm, *keyval,
                                   *attribute_val, 1, "MPI_Attr_put");
}
AMP_FORTRAN_ALIAS(attr_put)

#define F_SET_ATTR(lower, Name, KIND)                                          \
    AMPI_API void pmpi_##lower##_(const MPI_Fint *obj, const MPI_Fint *keyval, \
                                  const MPI_Aint *attribute_val,               \
                                  MPI_Fint *ierror)                            \
    {                                                                          \
        *ierror = amp_attr_fortran_set(KIND, *obj, *keyval, *attribute_val, 0, \
                                       "MPI_" #Name);                          \
    }                                                                          \
    AMP_FORTRAN_ALIAS(lower)

F_SET_ATTR(comm_set_attr, Comm_set_attr, AMP_ATTR_COMM)
F_SET_ATTR(type_set_attr, Type_set_attr, AMP_ATTR_TYPE)
F_SET_ATTR(win_set_attr, Win_set_attr, AMP_ATTR_WIN)
