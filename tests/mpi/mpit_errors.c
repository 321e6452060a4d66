/*
 * The tool interface's error classes: every call before MPI_T_init_thread
 * (MPI_T_ERR_NOT_INITIALIZED), bad indices, names, handles and sessions,
 * writes of read-only variables, start and stop of a continuous one, and
 * the MPI-4.0 events and sources (none).  MPI_T_init_thread and
 * MPI_T_finalize are counted, and MPI_T works before MPI_Init and after
 * MPI_Finalize.
 */
#include "mpitest.h"

#define T_CLASS(call, cls) MT_CHECK_INT_EQ((call), (cls))

static int cvar_index(const char *name)
{
    int i = -1;
    MT_CHECK_MPI(MPI_T_cvar_get_index(name, &i));
    return i;
}

static void check_cvars(void)
{
    int n = 0, count = 0;
    MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
    MT_CHECK_MPI(MPI_T_cvar_get_num(&n));
    MT_CHECK(n > 0);
    T_CLASS(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                NULL, NULL),
            MPI_T_ERR_INVALID_INDEX);
    T_CLASS(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                NULL, NULL),
            MPI_T_ERR_INVALID_INDEX);
    int i;
    T_CLASS(MPI_T_cvar_get_index("no_such_cvar", &i), MPI_T_ERR_INVALID_NAME);
    T_CLASS(MPI_T_cvar_handle_alloc(n, NULL, &h, &count),
            MPI_T_ERR_INVALID_INDEX);
    int v = 0;
    T_CLASS(MPI_T_cvar_read(12345, &v), MPI_T_ERR_INVALID_HANDLE);
    T_CLASS(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, &v),
            MPI_T_ERR_INVALID_HANDLE);
    /* A read-only variable, and a value naming no balancer. */
    MT_CHECK_MPI(MPI_T_cvar_handle_alloc(cvar_index("vp"), NULL, &h, &count));
    MT_CHECK_INT_EQ(count, 1);
    v = 3;
    T_CLASS(MPI_T_cvar_write(h, &v), MPI_T_ERR_CVAR_SET_NEVER);
    MT_CHECK_MPI(MPI_T_cvar_handle_free(&h));
    MT_CHECK_INT_EQ(h, MPI_T_CVAR_HANDLE_NULL);
    T_CLASS(MPI_T_cvar_handle_free(&h), MPI_T_ERR_INVALID_HANDLE);
    MT_CHECK_MPI(
        MPI_T_cvar_handle_alloc(cvar_index("balancer"), NULL, &h, &count));
    v = 123;
    T_CLASS(MPI_T_cvar_write(h, &v), MPI_T_ERR_INVALID);
    MPI_T_enum e = MPI_T_ENUM_NULL;
    MT_CHECK_MPI(MPI_T_cvar_get_info(cvar_index("balancer"), NULL, NULL, NULL,
                                     NULL, &e, NULL, NULL, NULL, NULL));
    int items = 0, value = -1;
    MT_CHECK_MPI(MPI_T_enum_get_info(e, &items, NULL, NULL));
    MT_CHECK(items > 1);
    T_CLASS(MPI_T_enum_get_item(e, items, &value, NULL, NULL),
            MPI_T_ERR_INVALID_ITEM);
    T_CLASS(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &items, NULL, NULL),
            MPI_T_ERR_INVALID_HANDLE);
    MT_CHECK_MPI(MPI_T_cvar_handle_free(&h));
}

static void check_pvars(void)
{
    int n = 0, count = 0, i;
    MPI_T_pvar_session s, s2;
    MPI_T_pvar_handle h, q;
    MT_CHECK_MPI(MPI_T_pvar_get_num(&n));
    MT_CHECK(n > 0);
    T_CLASS(MPI_T_pvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                NULL, NULL, NULL, NULL, NULL),
            MPI_T_ERR_INVALID_INDEX);
    T_CLASS(MPI_T_pvar_get_index("no_such_pvar", MPI_T_PVAR_CLASS_COUNTER, &i),
            MPI_T_ERR_INVALID_NAME);
    /* The right name in the wrong class. */
    T_CLASS(
        MPI_T_pvar_get_index("p2p_messages_sent", MPI_T_PVAR_CLASS_TIMER, &i),
        MPI_T_ERR_INVALID_NAME);
    T_CLASS(
        MPI_T_pvar_handle_alloc(MPI_T_PVAR_SESSION_NULL, 0, NULL, &h, &count),
        MPI_T_ERR_INVALID_SESSION);
    MT_CHECK_MPI(MPI_T_pvar_session_create(&s));
    MT_CHECK_MPI(MPI_T_pvar_session_create(&s2));
    T_CLASS(MPI_T_pvar_handle_alloc(s, n, NULL, &h, &count),
            MPI_T_ERR_INVALID_INDEX);
    MT_CHECK_MPI(MPI_T_pvar_get_index("p2p_messages_sent",
                                      MPI_T_PVAR_CLASS_COUNTER, &i));
    MT_CHECK_MPI(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count));
    MT_CHECK_INT_EQ(count, 1);
    unsigned long long v;
    /* A handle of another session. */
    T_CLASS(MPI_T_pvar_read(s2, h, &v), MPI_T_ERR_INVALID_HANDLE);
    T_CLASS(MPI_T_pvar_read(s, 4242, &v), MPI_T_ERR_INVALID_HANDLE);
    T_CLASS(MPI_T_pvar_write(s, h, &v), MPI_T_ERR_PVAR_NO_WRITE);
    T_CLASS(MPI_T_pvar_reset(s, h), MPI_T_ERR_PVAR_NO_WRITE);
    MT_CHECK_MPI(MPI_T_pvar_get_index("p2p_unexpected_queue_length",
                                      MPI_T_PVAR_CLASS_LEVEL, &i));
    MT_CHECK_MPI(MPI_T_pvar_handle_alloc(s, i, NULL, &q, &count));
    T_CLASS(MPI_T_pvar_start(s, q), MPI_T_ERR_PVAR_NO_STARTSTOP);
    MT_CHECK_MPI(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    MT_CHECK_MPI(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
    MT_CHECK_MPI(MPI_T_pvar_handle_free(s, &h));
    MT_CHECK_INT_EQ(h, MPI_T_PVAR_HANDLE_NULL);
    /* Freeing the session frees q. */
    MT_CHECK_MPI(MPI_T_pvar_session_free(&s));
    MT_CHECK_INT_EQ(s, MPI_T_PVAR_SESSION_NULL);
    T_CLASS(MPI_T_pvar_session_free(&s), MPI_T_ERR_INVALID_SESSION);
    MT_CHECK_MPI(MPI_T_pvar_session_free(&s2));
}

static void check_categories_events(void)
{
    int n = 0, i;
    char name[64];
    int len = sizeof(name);
    MT_CHECK_MPI(MPI_T_category_get_num(&n));
    MT_CHECK(n > 0);
    T_CLASS(
        MPI_T_category_get_info(n, name, &len, NULL, NULL, NULL, NULL, NULL),
        MPI_T_ERR_INVALID_INDEX);
    T_CLASS(MPI_T_category_get_index("no_such_category", &i),
            MPI_T_ERR_INVALID_NAME);
    MT_CHECK_MPI(MPI_T_event_get_num(&n));
    MT_CHECK_INT_EQ(n, 0);
    MT_CHECK_MPI(MPI_T_source_get_num(&n));
    MT_CHECK_INT_EQ(n, 0);
    T_CLASS(MPI_T_event_get_index("anything", &i), MPI_T_ERR_INVALID_NAME);
    MPI_T_event_registration reg;
    T_CLASS(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg),
            MPI_T_ERR_INVALID_INDEX);
    MPI_Count ts;
    T_CLASS(MPI_T_source_get_timestamp(0, &ts), MPI_T_ERR_INVALID_INDEX);
}

int main(int argc, char **argv)
{
    int provided = -1, n;
    /* Before MPI_Init, and before MPI_T_init_thread. */
    T_CLASS(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    T_CLASS(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    MT_CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MT_CHECK_INT_EQ(provided, MPI_THREAD_MULTIPLE);
    MT_CHECK_MPI(MPI_T_init_thread(MPI_THREAD_FUNNELED, &provided));
    MT_CHECK_MPI(MPI_T_cvar_get_num(&n));
    MPI_Init(&argc, &argv);
    MT_CHECK_MPI(MPI_T_finalize()); /* one of two: still initialized */
    check_cvars();
    check_pvars();
    check_categories_events();
    int rc = mt_finish();
    MPI_Finalize();
    /* After MPI_Finalize (a failure here fails the exit status). */
    MT_CHECK_MPI(MPI_T_pvar_get_num(&n));
    MT_CHECK_MPI(MPI_T_finalize());
    T_CLASS(MPI_T_pvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    return rc || atomic_load(mt_error_count()) != 0;
}
