/*
 * env_anytime: the calls the standard allows at any time (MPI-4.0 section
 * 11.4.1, Table 11.1, with MPI-4.1's MPI_Add_error_class, _code and
 * _string) made where a rank's main has begun but not yet called MPI_Init
 * (built with -DMT_SESSIONS: MPI_Session_init), and again after
 * MPI_Finalize (MPI_Session_finalize): MPI_Initialized, MPI_Finalized,
 * MPI_Get_version, MPI_Get_library_version, the info calls,
 * MPI_Session_create_errhandler, MPI_Errhandler_free, the handle
 * conversions, MPI_Error_class, MPI_Error_string and the added error
 * classes, codes and strings.  What was made before stays valid inside: a
 * session opened with the handler made before calls it, and the added
 * class, code and string are what MPI_Error_class and MPI_Error_string
 * report there.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { CALLED = 1000 };

typedef struct made {
    MPI_Errhandler errh; /* a session handler */
    MPI_Info info;       /* holds "made" = "before" */
    int errclass, errcode;
} made_t;

static void count_calls(MPI_Session *s, int *code, ...)
{
    (void)s;
    (void)code;
    atomic_fetch_add(mt_error_count(), CALLED); /* undone by the caller */
}

static void versions(void)
{
    int version = 0, subversion = -1, len = 0;
    char *lib = malloc(MPI_MAX_LIBRARY_VERSION_STRING);
    MT_CHECK_MPI(MPI_Get_version(&version, &subversion));
    MT_CHECK_INT_EQ(version, MPI_VERSION);
    MT_CHECK_INT_EQ(subversion, MPI_SUBVERSION);
    MT_CHECK_MPI(MPI_Get_library_version(lib, &len));
    MT_CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING);
    MT_CHECK_INT_EQ((int)strlen(lib), len);
    free(lib);
}

static void states(int initialized, int finalized)
{
    int flag = -1;
    MT_CHECK_MPI(MPI_Initialized(&flag));
    MT_CHECK_INT_EQ(flag, initialized);
    MT_CHECK_MPI(MPI_Finalized(&flag));
    MT_CHECK_INT_EQ(flag, finalized);
}

/* Every info call on a fresh object; returns one holding "made". */
static MPI_Info infos(void)
{
    MPI_Info info, dup, env;
    char buf[64], key[MPI_MAX_INFO_KEY];
    int flag = 0, len = sizeof(buf), nkeys = -1;
    MT_CHECK_MPI(MPI_Info_create(&info));
    MT_CHECK(MPI_Info_f2c(MPI_Info_c2f(info)) == info);
    MT_CHECK_MPI(MPI_Info_set(info, "made", "before"));
    MT_CHECK_MPI(MPI_Info_set(info, "gone", "soon"));
    MT_CHECK_MPI(MPI_Info_get_string(info, "made", &len, buf, &flag));
    MT_CHECK(flag && strcmp(buf, "before") == 0);
    flag = 0;
    MT_CHECK_MPI(MPI_Info_get(info, "gone", sizeof(buf) - 1, buf, &flag));
    MT_CHECK(flag && strcmp(buf, "soon") == 0);
    MT_CHECK_MPI(MPI_Info_get_valuelen(info, "gone", &len, &flag));
    MT_CHECK(flag && len == 4);
    MT_CHECK_MPI(MPI_Info_get_nkeys(info, &nkeys));
    MT_CHECK_INT_EQ(nkeys, 2);
    MT_CHECK_MPI(MPI_Info_get_nthkey(info, 1, key));
    MT_CHECK(strcmp(key, "gone") == 0);
    MT_CHECK_MPI(MPI_Info_dup(info, &dup));
    MT_CHECK_MPI(MPI_Info_delete(info, "gone"));
    MT_CHECK_MPI(MPI_Info_get_nkeys(info, &nkeys));
    MT_CHECK_INT_EQ(nkeys, 1);
    MT_CHECK_MPI(MPI_Info_get_nkeys(dup, &nkeys));
    MT_CHECK_INT_EQ(nkeys, 2);
    MT_CHECK_MPI(MPI_Info_free(&dup));
    MT_CHECK(dup == MPI_INFO_NULL);
    MT_CHECK_MPI(MPI_Info_create_env(0, NULL, &env));
    MT_CHECK_MPI(MPI_Info_free(&env));
    return info;
}

/* A session handler made and freed, and one kept. */
static MPI_Errhandler errhandlers(void)
{
    MPI_Errhandler gone, kept;
    MT_CHECK_MPI(MPI_Session_create_errhandler(count_calls, &gone));
    MT_CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(gone)) == gone);
    MT_CHECK_MPI(MPI_Errhandler_free(&gone));
    MT_CHECK(gone == MPI_ERRHANDLER_NULL);
    MT_CHECK_MPI(MPI_Session_create_errhandler(count_calls, &kept));
    return kept;
}

/* The predefined classes and codes, and a class, code and string added. */
static void errors(made_t *m)
{
    char text[MPI_MAX_ERROR_STRING];
    int cls = -1, len = 0;
    MT_CHECK_MPI(MPI_Error_class(MPI_ERR_TRUNCATE, &cls));
    MT_CHECK_INT_EQ(cls, MPI_ERR_TRUNCATE);
    MT_CHECK_MPI(MPI_Error_string(MPI_ERR_TRUNCATE, text, &len));
    MT_CHECK(len > 0 && (int)strlen(text) == len);
    MT_CHECK_MPI(MPI_Add_error_class(&m->errclass));
    MT_CHECK_MPI(MPI_Add_error_code(m->errclass, &m->errcode));
    MT_CHECK_MPI(MPI_Add_error_string(m->errcode, "made before MPI"));
    MT_CHECK_MPI(MPI_Error_class(m->errcode, &cls));
    MT_CHECK_INT_EQ(cls, m->errclass);
}

static void make_all(made_t *m)
{
    versions();
    m->info = infos();
    m->errh = errhandlers();
    errors(m);
}

/* Inside MPI: what was made before still works. */
static void use_made(const made_t *m)
{
    char text[MPI_MAX_ERROR_STRING];
    int cls = -1, len = 0, flag = 0;
    MT_CHECK_MPI(MPI_Error_class(m->errcode, &cls));
    MT_CHECK_INT_EQ(cls, m->errclass);
    MT_CHECK_MPI(MPI_Error_string(m->errcode, text, &len));
    MT_CHECK(strcmp(text, "made before MPI") == 0);
    len = sizeof(text);
    MT_CHECK_MPI(MPI_Info_get_string(m->info, "made", &len, text, &flag));
    MT_CHECK(flag && strcmp(text, "before") == 0);
    MPI_Session s;
    MT_CHECK_MPI(MPI_Session_init(m->info, m->errh, &s));
    int before = atomic_load(mt_error_count());
    MT_CHECK_MPI(MPI_Session_call_errhandler(s, m->errcode));
    MT_CHECK_INT_EQ(atomic_load(mt_error_count()) - before, CALLED);
    atomic_fetch_sub(mt_error_count(), CALLED);
    MT_CHECK_MPI(MPI_Session_finalize(&s));
}

static void free_made(made_t *m)
{
    MT_CHECK_MPI(MPI_Info_free(&m->info));
    MT_CHECK_MPI(MPI_Errhandler_free(&m->errh));
}

typedef struct verdict {
    int wrank; /* in the world process set */
    int total; /* failures of every rank, summed inside MPI */
    int local; /* this rank's failures then */
} verdict_t;

#ifdef MT_SESSIONS
/* The sessions model: MPI_Init is never called. */
static verdict_t inside(const made_t *before, int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    verdict_t v = {0, 0, 0};
    MPI_Session s;
    MPI_Group world;
    MPI_Comm comm;
    MT_CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MT_CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &world));
    MT_CHECK_MPI(MPI_Group_rank(world, &v.wrank));
    MT_CHECK_MPI(MPI_Comm_create_from_group(world, "org.ampi.test.anytime",
                                            MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                            &comm));
    states(0, 0);
    use_made(before);
    v.local = atomic_load(mt_error_count());
    MPI_Allreduce(&v.local, &v.total, 1, MPI_INT, MPI_SUM, comm);
    MT_CHECK_MPI(MPI_Comm_free(&comm));
    MT_CHECK_MPI(MPI_Group_free(&world));
    MT_CHECK_MPI(MPI_Session_finalize(&s));
    states(0, 0);
    return v;
}
#else
/* The world model. */
static verdict_t inside(const made_t *before, int *argc, char ***argv)
{
    verdict_t v = {0, 0, 0};
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &v.wrank);
    states(1, 0);
    use_made(before);
    v.local = atomic_load(mt_error_count());
    MPI_Allreduce(&v.local, &v.total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    states(1, 1);
    return v;
}
#endif

int main(int argc, char **argv)
{
    made_t before, after;
    states(0, 0);
    make_all(&before);
    verdict_t v = inside(&before, &argc, &argv);
    /* After: the same calls, and what was made before is still there. */
    make_all(&after);
    free_made(&before);
    free_made(&after);
    int found = v.total + atomic_load(mt_error_count()) - v.local;
    if (v.wrank == 0)
        printf(found ? " Found %d errors\n" : " No Errors\n", found);
    return found ? 1 : 0;
}
