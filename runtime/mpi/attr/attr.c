/*
 * Attribute caching: keyvals, the attributes set on communicators and
 * datatypes, their copy and delete callbacks, and the predefined
 * attributes (MPI_TAG_UB ..., AMPI_MY_WTH ...).
 *
 * A keyval is an object in the rank's keyval table; the integer the
 * program sees is its index tagged with KEYVAL_TAG, so no user keyval
 * equals a predefined key or MPI_KEYVAL_INVALID.  A keyval lives as long as
 * the program's handle or any attribute set with it: MPI_Comm_free_keyval
 * only drops the handle, and the last attribute's deletion frees it.  Until
 * then a copy of the handle still gets and deletes those attributes (not
 * sets new ones), and frees it again without effect (a delete callback
 * that frees its keyval does so once per attribute).
 *
 * An object's attributes are a list, newest first: deleting all of them
 * (MPI_Comm_free, MPI_Type_free, MPI_Finalize on MPI_COMM_SELF) calls the
 * delete callbacks in the reverse order of setting, and MPI_Comm_dup /
 * MPI_Type_dup copy them in list order.  Windows keep theirs like
 * communicators; the predefined MPI_WIN_* values are read from the window.
 */
#include "mpi/attr/attr.h"

#include <stdlib.h>
#include <string.h>

#define KEYVAL_TAG 0x4b /* keyval = KEYVAL_TAG << 24 | table index */

enum attr_kind { KIND_COMM = 1, KIND_TYPE, KIND_WIN };

/* Every copy and delete callback has this shape: MPI_Comm, MPI_Datatype
 * and MPI_Win are all ints. */
typedef int attr_copy_fn_t(int oldobj, int keyval, void *extra_state,
                           void *value_in, void *value_out, int *flag);
typedef int attr_delete_fn_t(int obj, int keyval, void *value,
                             void *extra_state);

typedef struct amp_keyval {
    amp_obj_t obj;
    int kind;  /* enum attr_kind */
    int refs;  /* the program's handle (until freed) + one per attribute */
    int freed; /* the program freed its handle */
    int lang;  /* LANG_*: whose callbacks (the Fortran binding's) */
    attr_copy_fn_t *copy;
    attr_delete_fn_t *del;
    void *extra_state;
} amp_keyval_t;

/* Who set an attribute: C (its value is the void *), or Fortran, whose
 * value (INTEGER(KIND=MPI_ADDRESS_KIND), or INTEGER for MPI_ATTR_PUT)
 * the attribute keeps in box, so that C reads a pointer to it (MPI 3.1
 * section 17.2.7) and Fortran reads it back. */
enum { LANG_C = 0, LANG_F = 1, LANG_F_INT = 2 };

typedef struct amp_attr {
    struct amp_attr *next;
    amp_keyval_t *kv;
    void *value; /* what C sees: &box for a value set from Fortran */
    int lang;
    union {
        MPI_Aint aint;
        MPI_Fint fint;
    } box;
} amp_attr_t;

/* The value Fortran sees: its own, or a C pointer as an integer. */
static MPI_Aint fortran_view(const amp_attr_t *a)
{
    if (a->lang == LANG_F)
        return a->box.aint;
    if (a->lang == LANG_F_INT)
        return a->box.fint;
    return (MPI_Aint)a->value;
}

/* The value a callback of kv gets: Fortran's view for the Fortran
 * binding's callbacks. */
static void *callback_view(const amp_attr_t *a, const amp_keyval_t *kv)
{
    return kv->lang == LANG_C ? a->value : (void *)fortran_view(a);
}

/* a holds value, set by lang (from Fortran: an integer in the void *). */
static void attr_store(amp_attr_t *a, void *value, int lang)
{
    a->lang = lang;
    if (lang == LANG_F) {
        a->box.aint = (MPI_Aint)value;
        a->value = &a->box.aint;
    } else if (lang == LANG_F_INT) {
        a->box.fint = (MPI_Fint)(MPI_Aint)value;
        a->value = &a->box.fint;
    } else {
        a->value = value;
    }
}

/* What the predefined attributes point to (constant for the job). */
static const int tag_ub = MPI_TAG_UB_VALUE, host = MPI_PROC_NULL,
                 io = MPI_ANY_SOURCE, appnum = 0;

static const char *const kind_name[] = {
    [KIND_COMM] = "communicator",
    [KIND_TYPE] = "datatype",
    [KIND_WIN] = "window",
};

amp_status_t amp_attr_rank_init(amp_rank_t *rank)
{
    amp_table_init(&rank->keyvals, sizeof(amp_keyval_t), 0);
    return AMP_OK;
}

static int keyval_handle(const amp_keyval_t *kv)
{
    return AMPI_HANDLE(KEYVAL_TAG, kv->obj.idx);
}

static amp_keyval_t *keyval_lookup(amp_rank_t *rank, int keyval)
{
    if (AMP_HANDLE_KIND(keyval) != KEYVAL_TAG)
        return NULL;
    return amp_table_lookup(&rank->keyvals, AMP_HANDLE_INDEX(keyval));
}

static void keyval_release(amp_rank_t *rank, amp_keyval_t *kv)
{
    if (--kv->refs == 0)
        amp_table_free(&rank->keyvals, kv);
}

static int is_predefined_key(int keyval)
{
    return (keyval >= MPI_TAG_UB && keyval <= MPI_LASTUSEDCODE) ||
           (keyval >= MPI_WIN_BASE && keyval <= MPI_WIN_MODEL) ||
           (keyval >= AMPI_MY_WTH && keyval <= AMPI_NUM_PROCESSES);
}

/* Finds the user keyval of kind for the program's handle keyval in *kv;
 * MPI_SUCCESS, or the MPI_ERR_KEYVAL code.  A keyval the program freed
 * while attributes still use it is found when freed_ok. */
static int check_keyval(amp_rank_t *rank, amp_comm_t *comm, int keyval,
                        int kind, int freed_ok, const char *call,
                        amp_keyval_t **kv)
{
    *kv = keyval_lookup(rank, keyval);
    if (*kv && (freed_ok || !(*kv)->freed) && (*kv)->kind == kind)
        return MPI_SUCCESS;
    if (keyval == MPI_KEYVAL_INVALID)
        return amp_mpi_error(rank, comm, MPI_ERR_KEYVAL, call,
                             "MPI_KEYVAL_INVALID is not a keyval (argument "
                             "keyval)");
    if (is_predefined_key(keyval))
        return amp_mpi_error(rank, comm, MPI_ERR_KEYVAL, call,
                             "predefined attribute key %d cannot be set, "
                             "deleted or freed (argument keyval)",
                             keyval);
    if (*kv && !(*kv)->freed)
        return amp_mpi_error(rank, comm, MPI_ERR_KEYVAL, call,
                             "keyval %d was created for a %s, not a %s "
                             "(argument keyval)",
                             keyval, kind_name[(*kv)->kind], kind_name[kind]);
    return amp_mpi_error(rank, comm, MPI_ERR_KEYVAL, call,
                         "invalid or freed keyval %d (argument keyval)",
                         keyval);
}

/* The error for a callback that returned rc: its own class when rc is an
 * error code, else MPI_ERR_OTHER. */
static int callback_error(amp_rank_t *rank, amp_comm_t *comm, int rc,
                          const char *what, const amp_keyval_t *kv,
                          const char *call)
{
    int cls = amp_mpi_class_of_code(rank, rc);
    if (cls <= MPI_SUCCESS)
        cls = MPI_ERR_OTHER;
    return amp_mpi_error(rank, comm, cls, call,
                         "the %s callback of keyval %d returned error %d", what,
                         keyval_handle(kv), rc);
}

/* ---- keyvals ---- */

static int keyval_create(int kind, void *copy, void *del, int *keyval,
                         void *extra_state, const char *call)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!keyval)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument keyval)");
    amp_keyval_t *kv = amp_table_alloc(&rank->keyvals);
    if (!kv)
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call, "out of memory");
    kv->kind = kind;
    kv->refs = 1;
    kv->copy = (attr_copy_fn_t *)copy;
    kv->del = (attr_delete_fn_t *)del;
    kv->extra_state = extra_state;
    *keyval = keyval_handle(kv);
    return MPI_SUCCESS;
}

static int keyval_free(int kind, int *keyval, const char *call)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!keyval)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument keyval)");
    amp_keyval_t *kv;
    rc = check_keyval(rank, NULL, *keyval, kind, 1, call, &kv);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Freed already (through a copy of the handle, or by a delete callback
     * that frees it on each of its attributes): nothing more to drop. */
    if (!kv->freed) {
        kv->freed = 1;
        keyval_release(rank, kv);
    }
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                            int *comm_keyval, void *extra_state)
{
    return keyval_create(KIND_COMM, (void *)comm_copy_attr_fn,
                         (void *)comm_delete_attr_fn, comm_keyval, extra_state,
                         "MPI_Comm_create_keyval");
}
AMP_WEAK_ALIAS(Comm_create_keyval)

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    return keyval_free(KIND_COMM, comm_keyval, "MPI_Comm_free_keyval");
}
AMP_WEAK_ALIAS(Comm_free_keyval)

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn,
                            int *type_keyval, void *extra_state)
{
    return keyval_create(KIND_TYPE, (void *)type_copy_attr_fn,
                         (void *)type_delete_attr_fn, type_keyval, extra_state,
                         "MPI_Type_create_keyval");
}
AMP_WEAK_ALIAS(Type_create_keyval)

int PMPI_Type_free_keyval(int *type_keyval)
{
    return keyval_free(KIND_TYPE, type_keyval, "MPI_Type_free_keyval");
}
AMP_WEAK_ALIAS(Type_free_keyval)

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn,
                           int *win_keyval, void *extra_state)
{
    return keyval_create(KIND_WIN, (void *)win_copy_attr_fn,
                         (void *)win_delete_attr_fn, win_keyval, extra_state,
                         "MPI_Win_create_keyval");
}
AMP_WEAK_ALIAS(Win_create_keyval)

int PMPI_Win_free_keyval(int *win_keyval)
{
    return keyval_free(KIND_WIN, win_keyval, "MPI_Win_free_keyval");
}
AMP_WEAK_ALIAS(Win_free_keyval)

int PMPI_Keyval_create(MPI_Copy_function *copy_fn,
                       MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state)
{
    return keyval_create(KIND_COMM, (void *)copy_fn, (void *)delete_fn, keyval,
                         extra_state, "MPI_Keyval_create");
}
AMP_WEAK_ALIAS(Keyval_create)

int PMPI_Keyval_free(int *keyval)
{
    return keyval_free(KIND_COMM, keyval, "MPI_Keyval_free");
}
AMP_WEAK_ALIAS(Keyval_free)

/* ---- attribute lists ---- */

static amp_attr_t *attr_find(amp_attr_t *list, const amp_keyval_t *kv)
{
    while (list && list->kv != kv)
        list = list->next;
    return list;
}

/* Calls the delete callback of a (set on object obj); MPI_SUCCESS or the
 * error, reported through comm's handler (MPI_COMM_WORLD's when NULL). */
static int call_delete(amp_rank_t *rank, amp_comm_t *comm, const amp_attr_t *a,
                       int obj, const char *call)
{
    if (!a->kv->del)
        return MPI_SUCCESS;
    attr_delete_fn_t *fn = amp_pie_to_rank(rank, (void *)a->kv->del);
    int rc = fn(obj, keyval_handle(a->kv), callback_view(a, a->kv),
                a->kv->extra_state);
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    return callback_error(rank, comm, rc, "delete", a->kv, call);
}

/* Sets kv's attribute on the object obj whose list is *list; an old value
 * goes through the delete callback first, and stays if that fails. */
static int attr_set(amp_rank_t *rank, amp_comm_t *comm, amp_attr_t **list,
                    amp_keyval_t *kv, int obj, void *value, int lang,
                    const char *call)
{
    amp_attr_t *a = attr_find(*list, kv);
    if (a) {
        int rc = call_delete(rank, comm, a, obj, call);
        if (rc != MPI_SUCCESS)
            return rc;
        /* Found again: the callback may have changed the list. */
        a = attr_find(*list, kv);
    }
    if (!a) {
        a = malloc(sizeof(*a));
        if (!a)
            return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call,
                                 "out of memory for an attribute");
        a->kv = kv;
        a->next = *list;
        *list = a;
        kv->refs++;
    }
    attr_store(a, value, lang);
    return MPI_SUCCESS;
}

/* Takes a off its list (already unlinked) for good. */
static void attr_drop(amp_rank_t *rank, amp_attr_t *a)
{
    keyval_release(rank, a->kv);
    free(a);
}

/* Deletes kv's attribute, if set, through its delete callback; when that
 * fails the attribute stays. */
static int attr_delete(amp_rank_t *rank, amp_comm_t *comm, amp_attr_t **list,
                       const amp_keyval_t *kv, int obj, const char *call)
{
    amp_attr_t **p = list;
    while (*p && (*p)->kv != kv)
        p = &(*p)->next;
    amp_attr_t *a = *p;
    if (!a)
        return MPI_SUCCESS;
    *p = a->next; /* unlinked first: the callback may look at the list */
    int rc = call_delete(rank, comm, a, obj, call);
    if (rc != MPI_SUCCESS) {
        a->next = *list;
        *list = a;
        return rc;
    }
    attr_drop(rank, a);
    return MPI_SUCCESS;
}

/* Deletes every attribute, newest first.  With stop_on_error, the first
 * failing callback stops it (that attribute and the older ones stay);
 * otherwise every attribute goes. */
static int attr_delete_all(amp_rank_t *rank, amp_comm_t *comm,
                           amp_attr_t **list, int obj, int stop_on_error,
                           const char *call)
{
    int first_rc = MPI_SUCCESS;
    while (*list) {
        amp_attr_t *a = *list;
        *list = a->next;
        int rc = call_delete(rank, comm, a, obj, call);
        if (rc != MPI_SUCCESS && stop_on_error) {
            a->next = *list;
            *list = a;
            return rc;
        }
        if (first_rc == MPI_SUCCESS)
            first_rc = rc;
        attr_drop(rank, a);
    }
    return first_rc;
}

/* Copies the attributes of from (set on oldobj) whose copy callback says
 * so onto the empty list *to, keeping their order. */
static int attr_copy(amp_rank_t *rank, amp_comm_t *comm, amp_attr_t *from,
                     amp_attr_t **to, int oldobj, const char *call)
{
    amp_attr_t **tail = to;
    for (amp_attr_t *a = from; a; a = a->next) {
        if (!a->kv->copy)
            continue;
        attr_copy_fn_t *fn = amp_pie_to_rank(rank, (void *)a->kv->copy);
        void *out = NULL;
        int flag = 0;
        int rc = fn(oldobj, keyval_handle(a->kv), a->kv->extra_state,
                    callback_view(a, a->kv), &out, &flag);
        if (rc != MPI_SUCCESS)
            return callback_error(rank, comm, rc, "copy", a->kv, call);
        if (!flag)
            continue;
        amp_attr_t *n = malloc(sizeof(*n));
        if (!n)
            return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call,
                                 "out of memory for an attribute");
        n->kv = a->kv;
        /* A Fortran callback gives a Fortran value; a C one that copies
         * the pointer to a Fortran value (MPI_COMM_DUP_FN) copies it. */
        if (a->kv->lang != LANG_C)
            attr_store(n, out, a->kv->lang);
        else if (a->lang != LANG_C && out == a->value)
            attr_store(n, (void *)fortran_view(a), a->lang);
        else
            attr_store(n, out, LANG_C);
        n->next = NULL;
        n->kv->refs++;
        *tail = n;
        tail = &n->next;
    }
    return MPI_SUCCESS;
}

/* ---- communicators ---- */

static int comm_handle(const amp_comm_t *comm)
{
    return AMPI_HANDLE(AMPI_HANDLE_COMM, comm->obj.idx);
}

int amp_attr_comm_copy(amp_rank_t *rank, amp_comm_t *old, amp_comm_t *newcomm,
                       const char *call)
{
    int rc = attr_copy(rank, old, old->attrs, &newcomm->attrs, comm_handle(old),
                       call);
    if (rc != MPI_SUCCESS)
        attr_delete_all(rank, newcomm, &newcomm->attrs, comm_handle(newcomm), 0,
                        call);
    return rc;
}

int amp_attr_comm_delete_all(amp_rank_t *rank, amp_comm_t *comm,
                             const char *call)
{
    return attr_delete_all(rank, comm, &comm->attrs, comm_handle(comm), 1,
                           call);
}

void amp_attr_comm_clear(amp_rank_t *rank, amp_comm_t *comm)
{
    attr_delete_all(rank, comm, &comm->attrs, comm_handle(comm), 0,
                    "MPI_Comm_free");
}

/* MPI_WTIME_IS_GLOBAL: the clocks of the job's processes count from one
 * boot (MPI_Wtime, init/env.c) when they all run on one node. */
static const int *wtime_global(void)
{
    static const int yes = 1, no = 0;
    const amp_p2p_world_t *w = &amp_proc.world;
    for (int q = 0; w->proc_node && q < w->nprocs; q++)
        if (w->proc_node[q] != w->proc_node[0])
            return &no;
    return &yes;
}

/* The value a predefined attribute key points to: 1 and *value (NULL when
 * the attribute is not set) for a predefined key, else 0. */
static int predefined_value(amp_rank_t *rank, int keyval, const int **value)
{
    switch (keyval) {
    case MPI_TAG_UB: *value = &tag_ub; return 1;
    case MPI_HOST: *value = &host; return 1;
    case MPI_IO: *value = &io; return 1;
    case MPI_WTIME_IS_GLOBAL: *value = wtime_global(); return 1;
    case MPI_APPNUM: *value = &appnum; return 1;
    case MPI_UNIVERSE_SIZE: *value = &amp_proc.nranks; return 1;
    case MPI_LASTUSEDCODE: *value = amp_mpi_lastusedcode(rank); return 1;
    case AMPI_MY_WTH:
        /* Where the rank runs between its calls (its home, or where
         * AMPI_Migrate_to_pe lodged it); elsewhere after a migration. */
        rank->attr_my_wth = amp_sched_where(&rank->thr)->id;
        *value = &rank->attr_my_wth;
        return 1;
    case AMPI_NUM_WTHS: *value = &amp_proc.sched.npes; return 1;
    case AMPI_MY_PROCESS: *value = &amp_proc.boot.index; return 1;
    case AMPI_NUM_PROCESSES: *value = &amp_proc.boot.nprocs; return 1;
    }
    return 0;
}

/* The attribute list of datatype h (predefined types keep theirs in the
 * rank), or NULL after reporting MPI_ERR_TYPE in *rc. */
static amp_attr_t **type_attrs(amp_rank_t *rank, MPI_Datatype h,
                               const char *call, int *rc)
{
    unsigned kind = AMP_HANDLE_KIND(h);
    int idx = AMP_HANDLE_INDEX(h);
    if (kind == AMPI_HANDLE_DATATYPE && amp_dt_predefined(idx)) {
        size_t bytes = AMPI_DTID_COUNT * sizeof(*rank->dt_attrs);
        if (!rank->dt_attrs && (rank->dt_attrs = amp_rank_alloc(rank, bytes)))
            memset(rank->dt_attrs, 0, bytes);
        if (rank->dt_attrs)
            return &rank->dt_attrs[idx];
        *rc = amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call, "out of memory");
        return NULL;
    }
    if (kind == AMPI_HANDLE_DATATYPE_DERIVED) {
        amp_dt_t *dt = amp_table_lookup(&rank->dts, idx);
        if (dt && dt->user_refs > 0)
            return &dt->attrs;
    }
    if (h == MPI_DATATYPE_NULL)
        *rc = amp_mpi_error(rank, NULL, MPI_ERR_TYPE, call,
                            "MPI_DATATYPE_NULL is not a valid datatype "
                            "(argument datatype)");
    else
        *rc = amp_mpi_error(rank, NULL, MPI_ERR_TYPE, call,
                            "invalid datatype handle %#x (argument datatype)",
                            (unsigned)h);
    return NULL;
}

/* The predefined attributes of windows, MPI_WIN_BASE .. MPI_WIN_MODEL: 1
 * (and the value through attribute_val, *flag 1) when keyval is one. */
static int win_predefined(amp_win_t *w, int keyval, void *attribute_val,
                          int *flag)
{
    static const int model = MPI_WIN_UNIFIED;
    void **out = attribute_val;
    *flag = 1;
    switch (keyval) {
    case MPI_WIN_BASE: *out = w->base; return 1;
    case MPI_WIN_SIZE: *out = &w->bytes; return 1;
    case MPI_WIN_DISP_UNIT: *out = &w->disp_unit; return 1;
    case MPI_WIN_CREATE_FLAVOR: *out = &w->flavor; return 1;
    case MPI_WIN_MODEL: *out = (void *)&model; return 1;
    default: *flag = 0; return 0;
    }
}

/* ---- setting, getting and deleting, on communicators and datatypes ---- */

/* A call on the attributes of communicator or datatype obj. */
typedef struct attr_call {
    const char *call;
    amp_rank_t *rank;
    amp_comm_t *comm; /* NULL for a datatype */
    amp_attr_t **list;
    amp_keyval_t *kv;
} attr_call_t;

/* Enters call on obj (a communicator for KIND_COMM, else a datatype) and
 * finds its attribute list. */
static int enter_obj(attr_call_t *ac, int kind, int obj, const char *call)
{
    ac->call = call;
    ac->comm = NULL;
    ac->list = NULL;
    int rc = amp_mpi_enter(&ac->rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (kind == KIND_TYPE) {
        ac->list = type_attrs(ac->rank, obj, call, &rc);
        return rc;
    }
    if (kind == KIND_WIN) { /* errors through the window's handler */
        amp_win_t *w;
        rc = amp_check_win(ac->rank, obj, call, &w);
        if (rc == MPI_SUCCESS) {
            ac->comm = amp_comm_lookup(ac->rank, w->comm);
            ac->list = &w->attrs;
        }
        return rc;
    }
    rc = amp_check_comm(ac->rank, obj, call, &ac->comm);
    if (rc == MPI_SUCCESS)
        ac->list = &ac->comm->attrs;
    return rc;
}

/* freed_ok: the keyval may have been freed while attributes use it (get,
 * delete); setting needs one the program still holds. */
static int find_keyval(attr_call_t *ac, int kind, int keyval, int freed_ok)
{
    return check_keyval(ac->rank, ac->comm, keyval, kind, freed_ok, ac->call,
                        &ac->kv);
}

static int set_attr_lang(int kind, int obj, int keyval, void *value, int lang,
                         const char *call)
{
    attr_call_t ac;
    int rc = enter_obj(&ac, kind, obj, call);
    if (rc == MPI_SUCCESS)
        rc = find_keyval(&ac, kind, keyval, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    return attr_set(ac.rank, ac.comm, ac.list, ac.kv, obj, value, lang, call);
}

static int set_attr(int kind, int obj, int keyval, void *value,
                    const char *call)
{
    return set_attr_lang(kind, obj, keyval, value, LANG_C, call);
}

static int get_attr(int kind, int obj, int keyval, void *value, int *flag,
                    const char *call)
{
    attr_call_t ac;
    const int *pre;
    int rc = enter_obj(&ac, kind, obj, call);
    if (rc == MPI_SUCCESS && (!value || !flag))
        rc = amp_mpi_error(ac.rank, ac.comm, MPI_ERR_ARG, call,
                           "NULL pointer (argument %s)",
                           flag ? "attribute_val" : "flag");
    if (rc != MPI_SUCCESS)
        return rc;
    if (kind == KIND_COMM && predefined_value(ac.rank, keyval, &pre)) {
        *flag = pre != NULL;
        if (pre)
            *(const int **)value = pre;
        return MPI_SUCCESS;
    }
    if (kind == KIND_WIN &&
        win_predefined(amp_win_lookup(ac.rank, obj), keyval, value, flag))
        return MPI_SUCCESS;
    rc = find_keyval(&ac, kind, keyval, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_attr_t *a = attr_find(*ac.list, ac.kv);
    *flag = a != NULL;
    if (a)
        *(void **)value = a->value;
    return MPI_SUCCESS;
}

static int delete_attr(int kind, int obj, int keyval, const char *call)
{
    attr_call_t ac;
    int rc = enter_obj(&ac, kind, obj, call);
    if (rc == MPI_SUCCESS)
        rc = find_keyval(&ac, kind, keyval, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    return attr_delete(ac.rank, ac.comm, ac.list, ac.kv, obj, call);
}

/* ---- the calls ---- */

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    return set_attr(KIND_COMM, comm, comm_keyval, attribute_val,
                    "MPI_Comm_set_attr");
}
AMP_WEAK_ALIAS(Comm_set_attr)

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val,
                       int *flag)
{
    return get_attr(KIND_COMM, comm, comm_keyval, attribute_val, flag,
                    "MPI_Comm_get_attr");
}
AMP_WEAK_ALIAS(Comm_get_attr)

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    return delete_attr(KIND_COMM, comm, comm_keyval, "MPI_Comm_delete_attr");
}
AMP_WEAK_ALIAS(Comm_delete_attr)

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return set_attr(KIND_COMM, comm, keyval, attribute_val, "MPI_Attr_put");
}
AMP_WEAK_ALIAS(Attr_put)

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return get_attr(KIND_COMM, comm, keyval, attribute_val, flag,
                    "MPI_Attr_get");
}
AMP_WEAK_ALIAS(Attr_get)

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return delete_attr(KIND_COMM, comm, keyval, "MPI_Attr_delete");
}
AMP_WEAK_ALIAS(Attr_delete)

/* ---- datatypes ---- */

int amp_attr_type_copy(amp_rank_t *rank, MPI_Datatype old, amp_dt_t *newdt,
                       const char *call)
{
    int rc = MPI_SUCCESS;
    amp_attr_t **from = type_attrs(rank, old, call, &rc);
    if (!from)
        return rc;
    rc = attr_copy(rank, NULL, *from, &newdt->attrs, old, call);
    if (rc != MPI_SUCCESS)
        attr_delete_all(
            rank, NULL, &newdt->attrs,
            AMPI_HANDLE(AMPI_HANDLE_DATATYPE_DERIVED, newdt->obj.idx), 0, call);
    return rc;
}

int amp_attr_type_delete_all(amp_rank_t *rank, MPI_Datatype h, const char *call)
{
    int rc = MPI_SUCCESS;
    amp_attr_t **list = type_attrs(rank, h, call, &rc);
    if (!list)
        return rc;
    return attr_delete_all(rank, NULL, list, h, 1, call);
}

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval,
                       void *attribute_val)
{
    return set_attr(KIND_TYPE, datatype, type_keyval, attribute_val,
                    "MPI_Type_set_attr");
}
AMP_WEAK_ALIAS(Type_set_attr)

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval,
                       void *attribute_val, int *flag)
{
    return get_attr(KIND_TYPE, datatype, type_keyval, attribute_val, flag,
                    "MPI_Type_get_attr");
}
AMP_WEAK_ALIAS(Type_get_attr)

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    return delete_attr(KIND_TYPE, datatype, type_keyval,
                       "MPI_Type_delete_attr");
}
AMP_WEAK_ALIAS(Type_delete_attr)

/* ---- windows ---- */

int amp_attr_win_delete_all(amp_rank_t *rank, amp_win_t *win, const char *call)
{
    return attr_delete_all(rank, amp_comm_lookup(rank, win->comm), &win->attrs,
                           AMPI_HANDLE(AMPI_HANDLE_WIN, win->obj.idx), 1, call);
}

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    return set_attr(KIND_WIN, win, win_keyval, attribute_val,
                    "MPI_Win_set_attr");
}
AMP_WEAK_ALIAS(Win_set_attr)

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val,
                      int *flag)
{
    return get_attr(KIND_WIN, win, win_keyval, attribute_val, flag,
                    "MPI_Win_get_attr");
}
AMP_WEAK_ALIAS(Win_get_attr)

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    return delete_attr(KIND_WIN, win, win_keyval, "MPI_Win_delete_attr");
}
AMP_WEAK_ALIAS(Win_delete_attr)

/* ---- the Fortran binding (fortran_attr.c) ---- */

int amp_attr_fortran_set(int kind, int obj, int keyval, MPI_Aint value,
                         int is_int, const char *call)
{
    return set_attr_lang(kind, obj, keyval, (void *)value,
                         is_int ? LANG_F_INT : LANG_F, call);
}

int amp_attr_fortran_get(int kind, int obj, int keyval, MPI_Aint *value,
                         int *flag, const char *call)
{
    attr_call_t ac;
    int rc = enter_obj(&ac, kind, obj, call);
    if (rc == MPI_SUCCESS)
        rc = find_keyval(&ac, kind, keyval, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_attr_t *a = attr_find(*ac.list, ac.kv);
    *flag = a != NULL;
    if (a)
        *value = fortran_view(a);
    return MPI_SUCCESS;
}

void amp_attr_keyval_fortran(int keyval, int is_int)
{
    amp_keyval_t *kv = keyval_lookup(amp_rank_self(), keyval);
    if (kv)
        kv->lang = is_int ? LANG_F_INT : LANG_F;
}
