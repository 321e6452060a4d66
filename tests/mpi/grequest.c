/*
 * Generalized requests (MPI_Grequest_start / MPI_Grequest_complete) and
 * the status setters: a request is not complete before
 * MPI_Grequest_complete; MPI_Wait, MPI_Test, MPI_Waitall, MPI_Waitany,
 * MPI_Testsome and MPI_Request_get_status complete it or look at it, with
 * the status its query function fills (MPI_Status_set_elements,
 * MPI_Status_set_cancelled); the free function runs once, after the query,
 * or at MPI_Grequest_complete when the request was freed first; cancel
 * reaches the cancel function with whether it is complete; an error code
 * of the query function is what the completion call returns.
 */
#include "mpitest.h"

typedef struct state {
    int queries, frees, cancels, last_complete;
    int source, elements, cancelled, fail;
} state_t;

static int query(void *extra, MPI_Status *st)
{
    state_t *s = extra;
    s->queries++;
    st->MPI_SOURCE = s->source;
    st->MPI_TAG = 77;
    MPI_Status_set_elements(st, MPI_INT, s->elements);
    MPI_Status_set_cancelled(st, s->cancelled);
    return s->fail ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int release(void *extra)
{
    ((state_t *)extra)->frees++;
    return MPI_SUCCESS;
}

static int cancel(void *extra, int complete)
{
    state_t *s = extra;
    s->cancels++;
    s->last_complete = complete;
    return MPI_SUCCESS;
}

static MPI_Request start(state_t *s)
{
    MPI_Request r;
    MT_CHECK_MPI(MPI_Grequest_start(query, release, cancel, s, &r));
    return r;
}

static void wait_and_test(void)
{
    state_t s = {.source = 3, .elements = 5};
    MPI_Request r = start(&s);
    int flag = 1, count = -1;
    MPI_Status st;
    MT_CHECK_MPI(MPI_Test(&r, &flag, &st));
    MT_CHECK_INT_EQ(flag, 0);
    MT_CHECK_INT_EQ(s.queries, 0);
    MT_CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
    MT_CHECK_INT_EQ(flag, 0);
    MT_CHECK_MPI(MPI_Cancel(&r));
    MT_CHECK_INT_EQ(s.cancels, 1);
    MT_CHECK_INT_EQ(s.last_complete, 0);
    MT_CHECK_MPI(MPI_Grequest_complete(r));
    MT_CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
    MT_CHECK(flag && s.queries == 1 && s.frees == 0);
    MT_CHECK_MPI(MPI_Wait(&r, &st));
    MT_CHECK(r == MPI_REQUEST_NULL);
    MT_CHECK_INT_EQ(s.queries, 2);
    MT_CHECK_INT_EQ(s.frees, 1);
    MT_CHECK_INT_EQ(st.MPI_SOURCE, 3);
    MT_CHECK_INT_EQ(st.MPI_TAG, 77);
    MPI_Get_count(&st, MPI_INT, &count);
    MT_CHECK_INT_EQ(count, 5);
    MPI_Get_elements(&st, MPI_INT, &count);
    MT_CHECK_INT_EQ(count, 5);
    MPI_Test_cancelled(&st, &flag);
    MT_CHECK_INT_EQ(flag, 0);

    /* Test completes it once complete; cancelled status. */
    state_t t = {.cancelled = 1};
    r = start(&t);
    MPI_Grequest_complete(r);
    flag = 0;
    MT_CHECK_MPI(MPI_Test(&r, &flag, &st));
    MT_CHECK(flag && r == MPI_REQUEST_NULL && t.frees == 1);
    MPI_Test_cancelled(&st, &flag);
    MT_CHECK_INT_EQ(flag, 1);
}

/* Several at once, with a receive among them. */
static void arrays(void)
{
    state_t a = {.elements = 1}, b = {.elements = 2};
    MPI_Request r[3];
    int x = 0, y = 5, index = -1, outcount = -1, idx[3];
    MPI_Status st[3];
    r[0] = start(&a);
    r[1] = start(&b);
    MPI_Irecv(&x, 1, MPI_INT, 0, 5, MPI_COMM_SELF, &r[2]);
    MPI_Send(&y, 1, MPI_INT, 0, 5, MPI_COMM_SELF);
    MT_CHECK_MPI(MPI_Waitany(3, r, &index, &st[0]));
    MT_CHECK_INT_EQ(index, 2);
    MT_CHECK_MPI(MPI_Testsome(3, r, &outcount, idx, st));
    MT_CHECK_INT_EQ(outcount, 0);
    MPI_Grequest_complete(r[1]);
    MT_CHECK_MPI(MPI_Testsome(3, r, &outcount, idx, st));
    MT_CHECK(outcount == 1 && idx[0] == 1 && b.frees == 1);
    MPI_Grequest_complete(r[0]);
    MT_CHECK_MPI(MPI_Waitall(3, r, st));
    MT_CHECK_INT_EQ(a.frees, 1);
    int count = -1;
    MPI_Get_count(&st[0], MPI_INT, &count);
    MT_CHECK_INT_EQ(count, 1);
    MT_CHECK_INT_EQ(x, 5);
}

/* Freed before completion: free_fn runs at MPI_Grequest_complete, and
 * no query; a failing query is the completion call's error. */
static void freed_and_failing(void)
{
    state_t s = {0};
    MPI_Request r = start(&s), keep = r;
    MT_CHECK_MPI(MPI_Request_free(&r));
    MT_CHECK_INT_EQ(s.frees, 0);
    MT_CHECK_MPI(MPI_Grequest_complete(keep));
    MT_CHECK_INT_EQ(s.frees, 1);
    MT_CHECK_INT_EQ(s.queries, 0);

    state_t f = {.fail = 1};
    r = start(&f);
    MPI_Grequest_complete(r);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_OTHER);
    MT_CHECK(r == MPI_REQUEST_NULL && f.frees == 1);
    MT_CHECK_ERR_CLASS(MPI_Grequest_complete(MPI_REQUEST_NULL),
                       MPI_ERR_REQUEST);
    MPI_Status st;
    MT_CHECK_ERR_CLASS(MPI_Status_set_elements(&st, MPI_DATATYPE_NULL, 1),
                       MPI_ERR_TYPE);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* The setters on their own: elements of a struct type, _x. */
static void setters(void)
{
    MPI_Status st;
    int count = -1;
    MPI_Count big = -1;
    MPI_Datatype t;
    int len[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, len, disp, types, &t);
    MPI_Type_commit(&t);
    MT_CHECK_MPI(MPI_Status_set_elements(&st, t, 5));
    MPI_Get_elements(&st, t, &count);
    MT_CHECK_INT_EQ(count, 5);
    MPI_Get_count(&st, t, &count);
    MT_CHECK_INT_EQ(count, MPI_UNDEFINED); /* 2.5 elements of t */
    MT_CHECK_MPI(MPI_Status_set_elements_x(&st, MPI_DOUBLE, 3));
    MPI_Get_elements_x(&st, MPI_DOUBLE, &big);
    MT_CHECK_INT_EQ(big, 3);
    MT_CHECK_MPI(MPI_Status_set_cancelled(&st, 1));
    MPI_Test_cancelled(&st, &count);
    MT_CHECK_INT_EQ(count, 1);
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    wait_and_test();
    arrays();
    freed_and_failing();
    setters();
    return mt_finish_and_finalize();
}
