/*
 * attr_type: attributes cached on datatypes, derived and predefined.
 *   - set/get/delete on a derived type and on MPI_INT (each rank keeps
 *     its own attributes on predefined types);
 *   - MPI_Type_dup copies through the copy callback (MPI_TYPE_DUP_FN, a
 *     user function, MPI_TYPE_NULL_COPY_FN), of derived and predefined
 *     types alike;
 *   - MPI_Type_free runs the delete callbacks, newest first; a failing
 *     one fails the call and keeps the type;
 *   - keyval kinds are checked: a communicator keyval is not a datatype
 *     keyval; invalid datatypes are MPI_ERR_TYPE.
 */
#include "mpitest.h"

#include <stdint.h>

enum { MAXLOG = 8 };

typedef struct counts {
    int copies, deletes, fail_delete;
    intptr_t deleted[MAXLOG];
    MPI_Datatype last_old; /* oldtype the copy callback saw */
} counts_t;

#define VAL(i) ((void *)(intptr_t)(i))

static int copy_fn(MPI_Datatype oldtype, int keyval, void *extra, void *in,
                   void *out, int *flag)
{
    counts_t *c = extra;
    (void)keyval;
    c->copies++;
    c->last_old = oldtype;
    *(void **)out = VAL((intptr_t)in * 10);
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Datatype type, int keyval, void *value, void *extra)
{
    counts_t *c = extra;
    (void)type;
    (void)keyval;
    if (c->deletes < MAXLOG)
        c->deleted[c->deletes] = (intptr_t)value;
    c->deletes++;
    if (c->fail_delete) {
        c->fail_delete = 0;
        return MPI_ERR_OTHER;
    }
    return MPI_SUCCESS;
}

static intptr_t get_val(MPI_Datatype t, int kv, int *flag)
{
    void *v = NULL;
    *flag = -1;
    MT_CHECK_MPI(MPI_Type_get_attr(t, kv, &v, flag));
    return (intptr_t)v;
}

static void derived(counts_t *c, int rank)
{
    int user, dupfn, nullfn, flag;
    MPI_Datatype vec, dup;
    memset(c, 0, sizeof(*c));
    MT_CHECK_MPI(MPI_Type_create_keyval(copy_fn, delete_fn, &user, c));
    MT_CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, delete_fn, &dupfn, c));
    MT_CHECK_MPI(
        MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_fn, &nullfn, c));
    MT_CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    get_val(vec, user, &flag);
    MT_CHECK_INT_EQ(flag, 0);
    MT_CHECK_MPI(MPI_Type_set_attr(vec, user, VAL(rank + 1)));
    MT_CHECK_MPI(MPI_Type_set_attr(vec, dupfn, VAL(2)));
    MT_CHECK_MPI(MPI_Type_set_attr(vec, nullfn, VAL(3)));
    MT_CHECK_INT_EQ(get_val(vec, user, &flag), rank + 1);
    MT_CHECK_INT_EQ(flag, 1);

    MT_CHECK_MPI(MPI_Type_dup(vec, &dup));
    MT_CHECK_INT_EQ(c->copies, 1);
    MT_CHECK(c->last_old == vec);
    MT_CHECK_INT_EQ(get_val(dup, user, &flag), 10 * (rank + 1));
    MT_CHECK_INT_EQ(get_val(dup, dupfn, &flag), 2);
    MT_CHECK_INT_EQ(flag, 1);
    get_val(dup, nullfn, &flag);
    MT_CHECK_INT_EQ(flag, 0);

    /* Free: newest first (dupfn, then user); none from vec's own. */
    MT_CHECK_MPI(MPI_Type_free(&dup));
    MT_CHECK_INT_EQ(c->deletes, 2);
    MT_CHECK_INT_EQ(c->deleted[0], 2);
    MT_CHECK_INT_EQ(c->deleted[1], 10 * (rank + 1));

    /* A failing delete keeps the type and its older attributes. */
    c->fail_delete = 1;
    MT_CHECK_ERR_CLASS(MPI_Type_free(&vec), MPI_ERR_OTHER);
    MT_CHECK(vec != MPI_DATATYPE_NULL);
    MT_CHECK_INT_EQ(c->deleted[2], 3);
    MT_CHECK_INT_EQ(get_val(vec, nullfn, &flag), 3);
    MT_CHECK_INT_EQ(get_val(vec, user, &flag), rank + 1);
    MT_CHECK_MPI(MPI_Type_free(&vec));
    MT_CHECK_INT_EQ(c->deletes, 6);
    MT_CHECK_INT_EQ(c->deleted[3], 3);
    MT_CHECK_INT_EQ(c->deleted[4], 2);
    MT_CHECK_INT_EQ(c->deleted[5], rank + 1);
    /* The freed type is gone for the attribute calls too. */
    MT_CHECK_ERR_CLASS(MPI_Type_set_attr(vec, user, VAL(1)), MPI_ERR_TYPE);

    MT_CHECK_MPI(MPI_Type_free_keyval(&user));
    MT_CHECK_MPI(MPI_Type_free_keyval(&dupfn));
    MT_CHECK_MPI(MPI_Type_free_keyval(&nullfn));
}

static void predefined(counts_t *c, int rank)
{
    int kv, flag;
    MPI_Datatype dup;
    memset(c, 0, sizeof(*c));
    MT_CHECK_MPI(MPI_Type_create_keyval(copy_fn, delete_fn, &kv, c));
    MT_CHECK_MPI(MPI_Type_set_attr(MPI_INT, kv, VAL(100 + rank)));
    MT_CHECK_INT_EQ(get_val(MPI_INT, kv, &flag), 100 + rank);
    MT_CHECK_INT_EQ(flag, 1);
    get_val(MPI_DOUBLE, kv, &flag);
    MT_CHECK_INT_EQ(flag, 0);
    MT_CHECK_MPI(MPI_Type_dup(MPI_INT, &dup));
    MT_CHECK(c->last_old == MPI_INT);
    MT_CHECK_INT_EQ(get_val(dup, kv, &flag), 10 * (100 + rank));
    MT_CHECK_MPI(MPI_Type_free(&dup));
    MT_CHECK_MPI(MPI_Type_delete_attr(MPI_INT, kv));
    MT_CHECK_INT_EQ(c->deletes, 2);
    MT_CHECK_INT_EQ(c->deleted[1], 100 + rank);
    get_val(MPI_INT, kv, &flag);
    MT_CHECK_INT_EQ(flag, 0);
    MT_CHECK_MPI(MPI_Type_free_keyval(&kv));
}

static void argument_errors(void)
{
    int ckv, flag;
    void *v;
    MT_CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN,
                                        MPI_COMM_NULL_DELETE_FN, &ckv, NULL));
    MT_CHECK_ERR_CLASS(MPI_Type_set_attr(MPI_INT, ckv, NULL), MPI_ERR_KEYVAL);
    MT_CHECK_ERR_CLASS(MPI_Type_get_attr(MPI_INT, ckv, &v, &flag),
                       MPI_ERR_KEYVAL);
    MT_CHECK_ERR_CLASS(MPI_Type_free_keyval(&ckv), MPI_ERR_KEYVAL);
    MT_CHECK_ERR_CLASS(MPI_Type_get_attr(MPI_DATATYPE_NULL, ckv, &v, &flag),
                       MPI_ERR_TYPE);
    MT_CHECK_ERR_CLASS(MPI_Type_delete_attr(MPI_INT, MPI_KEYVAL_INVALID),
                       MPI_ERR_KEYVAL);
    MT_CHECK_MPI(MPI_Comm_free_keyval(&ckv));
}

int main(int argc, char **argv)
{
    counts_t c;
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    derived(&c, rank);
    predefined(&c, rank);
    argument_errors();
    return mt_finish_and_finalize();
}
