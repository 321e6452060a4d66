/*
 * A keyval freed while attributes still use it: MPI_*_free_keyval sets the
 * program's handle to MPI_KEYVAL_INVALID, but a copy of the handle still
 * reaches the attributes (get and delete) until the last one is gone; then
 * the keyval is invalid.  Freeing it again while it lives (from a delete
 * callback, or through a copy of the handle) is tolerated, on
 * communicators, datatypes and windows; the last frees come from the
 * delete callbacks that MPI_Finalize runs on MPI_COMM_SELF.
 */
#include "mpitest.h"

typedef struct counts {
    int deleted;
} counts_t;

static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)value;
    ((counts_t *)extra)->deleted++;
    return MPI_SUCCESS;
}

/* Each deletion frees the keyval again, through its own copy. */
static int free_in_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)value;
    (void)extra;
    return MPI_Comm_free_keyval(&keyval);
}

static int type_free_in_delete(MPI_Datatype t, int keyval, void *value,
                               void *extra)
{
    (void)t;
    (void)value;
    (void)extra;
    return MPI_Type_free_keyval(&keyval);
}

static int win_free_in_delete(MPI_Win w, int keyval, void *value, void *extra)
{
    (void)w;
    (void)value;
    (void)extra;
    return MPI_Win_free_keyval(&keyval);
}

/* Get and delete through a copy of a freed keyval's handle. */
static void freed_still_usable(void)
{
    counts_t c = {0};
    MPI_Comm dup;
    int keyval, copy, flag = 0, value = 7, *got = NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &keyval, &c);
    copy = keyval;
    MT_CHECK_MPI(MPI_Comm_set_attr(dup, keyval, &value));
    MT_CHECK_MPI(MPI_Comm_free_keyval(&keyval));
    MT_CHECK_INT_EQ(keyval, MPI_KEYVAL_INVALID);
    MT_CHECK_MPI(MPI_Comm_get_attr(dup, copy, &got, &flag));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK(got == &value);
    MT_CHECK_MPI(MPI_Comm_delete_attr(dup, copy));
    MT_CHECK_INT_EQ(c.deleted, 1);
    /* The last attribute is gone, and the keyval with it. */
    int cls = MPI_SUCCESS;
    MPI_Error_class(MPI_Comm_get_attr(dup, copy, &got, &flag), &cls);
    MT_CHECK_INT_EQ(cls, MPI_ERR_KEYVAL);
    MPI_Comm_free(&dup);
    MT_CHECK_INT_EQ(c.deleted, 1);
}

/* Four frees of one keyval: two from delete callbacks, two through the
 * handle and a copy; the SELF attribute's callback frees it once more in
 * MPI_Finalize. */
static void repeated_frees(void)
{
    MPI_Comm dup;
    int keyval, copy;
    MPI_Comm_dup(MPI_COMM_SELF, &dup);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_in_delete, &keyval,
                           NULL);
    copy = keyval;
    MT_CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL));
    MT_CHECK_MPI(MPI_Comm_set_attr(dup, keyval, NULL));
    MT_CHECK_MPI(MPI_Comm_free(&dup)); /* first free */
    MT_CHECK_MPI(MPI_Comm_free_keyval(&keyval));
    MT_CHECK_MPI(MPI_Comm_free_keyval(&copy));

    MPI_Datatype t1, t2;
    MPI_Type_contiguous(2, MPI_INT, &t1);
    MPI_Type_contiguous(3, MPI_INT, &t2);
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_free_in_delete, &keyval,
                           NULL);
    copy = keyval;
    MT_CHECK_MPI(MPI_Type_set_attr(t1, keyval, NULL));
    MT_CHECK_MPI(MPI_Type_set_attr(t2, keyval, NULL));
    MT_CHECK_MPI(MPI_Type_free(&t1));
    MT_CHECK_MPI(MPI_Type_free_keyval(&keyval));
    MT_CHECK_MPI(MPI_Type_free_keyval(&copy));
    MT_CHECK_MPI(MPI_Type_free(&t2));

    MPI_Win w1, w2;
    int mem[2];
    MPI_Win_create(&mem[0], sizeof(int), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w1);
    MPI_Win_create(&mem[1], sizeof(int), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w2);
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_free_in_delete, &keyval,
                          NULL);
    copy = keyval;
    MT_CHECK_MPI(MPI_Win_set_attr(w1, keyval, NULL));
    MT_CHECK_MPI(MPI_Win_set_attr(w2, keyval, NULL));
    MT_CHECK_MPI(MPI_Win_free(&w1));
    MT_CHECK_MPI(MPI_Win_free_keyval(&keyval));
    MT_CHECK_MPI(MPI_Win_free_keyval(&copy));
    MT_CHECK_MPI(MPI_Win_free(&w2));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    freed_still_usable();
    repeated_frees();
    return mt_finish_and_finalize();
}
