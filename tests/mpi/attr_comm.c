/*
 * attr_comm: attributes cached on communicators.
 *   - set/get/delete round trips; get of an unset key gives flag 0;
 *   - the delete callback runs on delete, on overwrite (with the old
 *     value), on MPI_Comm_free (newest attribute first) and, for
 *     MPI_COMM_SELF, in MPI_Finalize;
 *   - MPI_Comm_dup copies through the copy callback (MPI_COMM_DUP_FN,
 *     MPI_COMM_NULL_COPY_FN, a user function choosing with its flag);
 *   - a keyval freed while attributes use it stays usable by them, and its
 *     delete callback still runs; no new attribute may be set with it, and
 *     freeing it again (through a copy of the handle) changes nothing;
 *   - a failing copy or delete callback fails the call with its class;
 *   - the MPI-1 forms (MPI_Keyval_create, MPI_Attr_put, ...).
 * Callback counts live in a struct in main, passed as extra_state.
 */
#include "mpitest.h"

#include <stdint.h>
#include <stdlib.h>

enum { MAXLOG = 16 };

typedef struct counts {
    int copies, deletes;
    int fail_copy, fail_delete; /* make the next callback fail */
    int veto_copy;              /* copy callback answers flag 0 */
    intptr_t deleted[MAXLOG];   /* values passed to delete, in order */
    MPI_Comm delete_comm;       /* communicator of the last delete */
} counts_t;

#define VAL(i) ((void *)(intptr_t)(i))

static int copy_fn(MPI_Comm oldcomm, int keyval, void *extra, void *in,
                   void *out, int *flag)
{
    counts_t *c = extra;
    (void)oldcomm;
    (void)keyval;
    c->copies++;
    if (c->fail_copy) {
        c->fail_copy = 0;
        return MPI_ERR_OTHER;
    }
    *flag = !c->veto_copy;
    /* The copy holds the old value plus 1000. */
    *(void **)out = VAL((intptr_t)in + 1000);
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int keyval, void *value, void *extra)
{
    counts_t *c = extra;
    (void)keyval;
    if (c->deletes < MAXLOG)
        c->deleted[c->deletes] = (intptr_t)value;
    c->deletes++;
    c->delete_comm = comm;
    if (c->fail_delete) {
        c->fail_delete = 0;
        return MPI_ERR_OTHER;
    }
    return MPI_SUCCESS;
}

static void reset(counts_t *c)
{
    memset(c, 0, sizeof(*c));
}

static intptr_t get_val(MPI_Comm comm, int keyval, int *flag)
{
    void *v = NULL;
    *flag = -1;
    MT_CHECK_MPI(MPI_Comm_get_attr(comm, keyval, &v, flag));
    return (intptr_t)v;
}

static void round_trip(counts_t *c)
{
    int kv, flag;
    reset(c);
    MT_CHECK_MPI(MPI_Comm_create_keyval(copy_fn, delete_fn, &kv, c));
    MT_CHECK(kv != MPI_KEYVAL_INVALID);
    get_val(MPI_COMM_WORLD, kv, &flag);
    MT_CHECK_INT_EQ(flag, 0);

    MT_CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, VAL(7)));
    MT_CHECK_INT_EQ(get_val(MPI_COMM_WORLD, kv, &flag), 7);
    MT_CHECK_INT_EQ(flag, 1);
    /* Not visible on another communicator. */
    get_val(MPI_COMM_SELF, kv, &flag);
    MT_CHECK_INT_EQ(flag, 0);

    /* Overwrite: the old value goes through delete. */
    MT_CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, VAL(8)));
    MT_CHECK_INT_EQ(c->deletes, 1);
    MT_CHECK_INT_EQ(c->deleted[0], 7);
    MT_CHECK(c->delete_comm == MPI_COMM_WORLD);
    MT_CHECK_INT_EQ(get_val(MPI_COMM_WORLD, kv, &flag), 8);

    MT_CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, kv));
    MT_CHECK_INT_EQ(c->deletes, 2);
    MT_CHECK_INT_EQ(c->deleted[1], 8);
    get_val(MPI_COMM_WORLD, kv, &flag);
    MT_CHECK_INT_EQ(flag, 0);
    /* Deleting an unset attribute does nothing. */
    MT_CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, kv));
    MT_CHECK_INT_EQ(c->deletes, 2);

    MT_CHECK_MPI(MPI_Comm_free_keyval(&kv));
    MT_CHECK(kv == MPI_KEYVAL_INVALID);
    MT_CHECK_INT_EQ(c->copies, 0);
}

static void dup_and_free(counts_t *c)
{
    int user, dupfn, nullfn, flag;
    MPI_Comm dup, dup2;
    reset(c);
    MT_CHECK_MPI(MPI_Comm_create_keyval(copy_fn, delete_fn, &user, c));
    MT_CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, delete_fn, &dupfn, c));
    MT_CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
                                        MPI_COMM_NULL_DELETE_FN, &nullfn, c));
    MT_CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, user, VAL(1)));
    MT_CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, dupfn, VAL(2)));
    MT_CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, nullfn, VAL(3)));

    MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MT_CHECK_INT_EQ(c->copies, 1);
    MT_CHECK_INT_EQ(get_val(dup, user, &flag), 1001);
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK_INT_EQ(get_val(dup, dupfn, &flag), 2);
    MT_CHECK_INT_EQ(flag, 1);
    get_val(dup, nullfn, &flag);
    MT_CHECK_INT_EQ(flag, 0);

    /* A copy callback answering flag 0 leaves the attribute off. */
    c->veto_copy = 1;
    MT_CHECK_MPI(MPI_Comm_dup(dup, &dup2));
    c->veto_copy = 0;
    MT_CHECK_INT_EQ(c->copies, 2);
    get_val(dup2, user, &flag);
    MT_CHECK_INT_EQ(flag, 0);
    MT_CHECK_INT_EQ(get_val(dup2, dupfn, &flag), 2);
    MT_CHECK_MPI(MPI_Comm_free(&dup2));
    MT_CHECK_INT_EQ(c->deletes, 1);
    MT_CHECK_INT_EQ(c->deleted[0], 2);

    /* Free deletes newest first: dupfn (set second) before user. */
    MT_CHECK_MPI(MPI_Comm_set_attr(dup, nullfn, VAL(30)));
    MT_CHECK_MPI(MPI_Comm_free(&dup));
    MT_CHECK(dup == MPI_COMM_NULL);
    MT_CHECK_INT_EQ(c->deletes, 3); /* nullfn has no delete callback */
    MT_CHECK_INT_EQ(c->deleted[1], 2);
    MT_CHECK_INT_EQ(c->deleted[2], 1001);

    MT_CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, user));
    MT_CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, dupfn));
    MT_CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, nullfn));
    MT_CHECK_INT_EQ(c->deletes, 5);
    MT_CHECK_MPI(MPI_Comm_free_keyval(&user));
    MT_CHECK_MPI(MPI_Comm_free_keyval(&dupfn));
    MT_CHECK_MPI(MPI_Comm_free_keyval(&nullfn));
}

static void keyval_lifetime(counts_t *c)
{
    int kv, saved, flag;
    MPI_Comm dup;
    reset(c);
    MT_CHECK_MPI(MPI_Comm_create_keyval(copy_fn, delete_fn, &kv, c));
    saved = kv;
    MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MT_CHECK_MPI(MPI_Comm_set_attr(dup, kv, VAL(5)));
    MT_CHECK_MPI(MPI_Comm_free_keyval(&kv));
    MT_CHECK(kv == MPI_KEYVAL_INVALID);
    /* The freed handle sets nothing new, and a second free changes
     * nothing... */
    MT_CHECK_ERR_CLASS(MPI_Comm_set_attr(dup, saved, VAL(6)), MPI_ERR_KEYVAL);
    MT_CHECK_MPI(MPI_Comm_free_keyval(&saved));
    MT_CHECK(saved == MPI_KEYVAL_INVALID);
    /* ...but its attribute is still copied and deleted. */
    MPI_Comm dup2;
    MT_CHECK_MPI(MPI_Comm_dup(dup, &dup2));
    MT_CHECK_INT_EQ(c->copies, 1);
    MT_CHECK_MPI(MPI_Comm_free(&dup2));
    MT_CHECK_MPI(MPI_Comm_free(&dup));
    MT_CHECK_INT_EQ(c->deletes, 2);
    MT_CHECK_INT_EQ(c->deleted[0], 1005);
    MT_CHECK_INT_EQ(c->deleted[1], 5);
    (void)flag;
}

static void callback_errors(counts_t *c)
{
    int kv, flag;
    MPI_Comm dup = MPI_COMM_NULL;
    reset(c);
    MT_CHECK_MPI(MPI_Comm_create_keyval(copy_fn, delete_fn, &kv, c));
    MT_CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, kv, VAL(1)));

    /* Failing copy: MPI_Comm_dup fails (MPI_COMM_SELF: no other rank
     * waits) and leaves no communicator. */
    c->fail_copy = 1;
    MT_CHECK_ERR_CLASS(MPI_Comm_dup(MPI_COMM_SELF, &dup), MPI_ERR_OTHER);
    MT_CHECK_INT_EQ(c->copies, 1);

    /* Failing delete on overwrite: the old value stays. */
    c->fail_delete = 1;
    MT_CHECK_ERR_CLASS(MPI_Comm_set_attr(MPI_COMM_SELF, kv, VAL(2)),
                       MPI_ERR_OTHER);
    MT_CHECK_INT_EQ(get_val(MPI_COMM_SELF, kv, &flag), 1);
    /* Failing delete: the attribute stays. */
    c->fail_delete = 1;
    MT_CHECK_ERR_CLASS(MPI_Comm_delete_attr(MPI_COMM_SELF, kv), MPI_ERR_OTHER);
    MT_CHECK_INT_EQ(get_val(MPI_COMM_SELF, kv, &flag), 1);
    MT_CHECK_INT_EQ(flag, 1);

    /* Failing delete in MPI_Comm_free: the communicator stays. */
    MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &dup));
    c->fail_delete = 1;
    MT_CHECK_ERR_CLASS(MPI_Comm_free(&dup), MPI_ERR_OTHER);
    MT_CHECK(dup != MPI_COMM_NULL);
    MT_CHECK_MPI(MPI_Comm_free(&dup));
    MT_CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_SELF, kv));
    MT_CHECK_MPI(MPI_Comm_free_keyval(&kv));
}

static void argument_errors(void)
{
    int kv, tkv, flag;
    void *v;
    MT_CHECK_ERR_CLASS(MPI_Comm_create_keyval(MPI_COMM_DUP_FN,
                                              MPI_COMM_NULL_DELETE_FN, NULL,
                                              NULL),
                       MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(
        MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, NULL),
        MPI_ERR_KEYVAL);
    MT_CHECK_ERR_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL),
                       MPI_ERR_KEYVAL);
    MT_CHECK_ERR_CLASS(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB),
                       MPI_ERR_KEYVAL);
    kv = MPI_TAG_UB;
    MT_CHECK_ERR_CLASS(MPI_Comm_free_keyval(&kv), MPI_ERR_KEYVAL);
    MT_CHECK_ERR_CLASS(MPI_Comm_get_attr(MPI_COMM_NULL, MPI_TAG_UB, &v, &flag),
                       MPI_ERR_COMM);
    MT_CHECK_ERR_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, NULL),
                       MPI_ERR_ARG);
    /* A datatype keyval is no communicator keyval. */
    MT_CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN,
                                        MPI_TYPE_NULL_DELETE_FN, &tkv, NULL));
    MT_CHECK_ERR_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, tkv, NULL),
                       MPI_ERR_KEYVAL);
    MT_CHECK_ERR_CLASS(MPI_Comm_free_keyval(&tkv), MPI_ERR_KEYVAL);
    MT_CHECK_MPI(MPI_Type_free_keyval(&tkv));
}

static void mpi1_forms(counts_t *c)
{
    int kv, flag;
    void *v = NULL;
    reset(c);
    MT_CHECK_MPI(MPI_Keyval_create(MPI_DUP_FN, delete_fn, &kv, c));
    MT_CHECK_MPI(MPI_Attr_put(MPI_COMM_WORLD, kv, VAL(42)));
    MT_CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, kv, &v, &flag));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK_INT_EQ((intptr_t)v, 42);
    MT_CHECK_MPI(MPI_Attr_delete(MPI_COMM_WORLD, kv));
    MT_CHECK_INT_EQ(c->deletes, 1);
    MT_CHECK_INT_EQ(c->deleted[0], 42);
    MT_CHECK_MPI(MPI_Keyval_free(&kv));
    MT_CHECK(kv == MPI_KEYVAL_INVALID);
}

int main(int argc, char **argv)
{
    /* Lives until after MPI_Finalize: the finalize hook writes into it. */
    counts_t c, at_exit;
    int kv1, kv2;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    round_trip(&c);
    dup_and_free(&c);
    keyval_lifetime(&c);
    callback_errors(&c);
    argument_errors();
    mpi1_forms(&c);

    /* MPI_Finalize deletes MPI_COMM_SELF's attributes first, newest
     * first, even when the keyval was freed already. */
    reset(&at_exit);
    MT_CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &kv1,
                                        &at_exit));
    MT_CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &kv2,
                                        &at_exit));
    MT_CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, kv1, VAL(11)));
    MT_CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, kv2, VAL(12)));
    MT_CHECK_MPI(MPI_Comm_free_keyval(&kv1));

    int status = mt_finish();
    if (MPI_Finalize() != MPI_SUCCESS)
        status = 1;
    if (at_exit.deletes != 2 || at_exit.deleted[0] != 12 ||
        at_exit.deleted[1] != 11 || at_exit.delete_comm != MPI_COMM_SELF) {
        fprintf(stderr,
                "attr_comm: MPI_Finalize called %d delete callbacks "
                "(values %ld, %ld), expected 2 (12, 11) on MPI_COMM_SELF\n",
                at_exit.deletes, (long)at_exit.deleted[0],
                (long)at_exit.deleted[1]);
        status = 1;
    }
    return status;
}
