/*
 * sessions: the MPI-4.0 sessions model, without MPI_Init.  A session
 * lists its process sets ("mpi://WORLD", "mpi://SELF") and their info;
 * groups from them make communicators (MPI_Comm_create_from_group, twice
 * with different string tags) that carry collectives and point-to-point,
 * and an inter-communicator between the even and odd ranks
 * (MPI_Intercomm_create_from_groups); the session's info and error
 * handlers (a bad process set name goes to the session's handler, which
 * the program may also call); process set names in any case.  The verdict is
 * reduced over the session's own communicator.  Two sessions are open at once.
 */
#include "mpitest.h"

#include <stdlib.h>
#include <string.h>

static void count_calls(MPI_Session *s, int *code, ...)
{
    (void)s;
    (void)code;
    atomic_fetch_add(mt_error_count(), 1000); /* undone by the caller */
}

static void psets(MPI_Session s)
{
    int n = 0, world = 0, self = 0;
    MT_CHECK_MPI(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    MT_CHECK(n >= 2);
    for (int i = 0; i < n; i++) {
        int len = 0;
        MT_CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        char *name = malloc(len);
        MT_CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        MT_CHECK_INT_EQ((int)strlen(name) + 1, len);
        world += strcmp(name, "mpi://WORLD") == 0;
        self += strcmp(name, "mpi://SELF") == 0;
        free(name);
    }
    MT_CHECK_INT_EQ(world, 1);
    MT_CHECK_INT_EQ(self, 1);
    MPI_Info info;
    char value[64];
    int vlen = sizeof(value), flag = 0;
    MT_CHECK_MPI(MPI_Session_get_pset_info(s, "mpi://SELF", &info));
    MT_CHECK_MPI(MPI_Info_get_string(info, "mpi_size", &vlen, value, &flag));
    MT_CHECK(flag && strcmp(value, "1") == 0);
    MT_CHECK_MPI(MPI_Info_free(&info));
}

/* Process set names match whatever their case, as MPICH's do (Open MPI 5
 * matches the part after "mpi://" so): docs/mpi-support.md. */
static void pset_case(MPI_Session s, int wsize)
{
    const char *names[] = {"mpi://world", "MPI://World", "mpi://self",
                           "Mpi://sElF"};
    for (int i = 0; i < 4; i++) {
        MPI_Group g;
        MPI_Info info;
        char value[16];
        int size = -1, vlen = sizeof(value), flag = 0;
        int expect = i < 2 ? wsize : 1;
        MT_CHECK_MPI(MPI_Group_from_session_pset(s, names[i], &g));
        MT_CHECK_MPI(MPI_Group_size(g, &size));
        MT_CHECK_INT_EQ(size, expect);
        MT_CHECK_MPI(MPI_Group_free(&g));
        MT_CHECK_MPI(MPI_Session_get_pset_info(s, names[i], &info));
        MT_CHECK_MPI(
            MPI_Info_get_string(info, "mpi_size", &vlen, value, &flag));
        MT_CHECK(flag && atoi(value) == expect);
        MT_CHECK_MPI(MPI_Info_free(&info));
    }
}

/* Collectives and a ring on comm, made from the world process set. */
static void use(MPI_Comm comm, int expect_size)
{
    int rank, size, sum = -1;
    MT_CHECK_MPI(MPI_Comm_rank(comm, &rank));
    MT_CHECK_MPI(MPI_Comm_size(comm, &size));
    MT_CHECK_INT_EQ(size, expect_size);
    MT_CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm));
    MT_CHECK_INT_EQ(sum, size * (size - 1) / 2);
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    MT_CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, right, 4, &got, 1, MPI_INT,
                              left, 4, comm, MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(got, left);
}

static void inter(MPI_Group world, int wrank, int wsize)
{
    if (wsize < 2)
        return;
    int n[2] = {(wsize + 1) / 2, wsize / 2};
    int *ranks[2] = {malloc(n[0] * sizeof(int)), malloc(n[1] * sizeof(int))};
    for (int r = 0; r < wsize; r++)
        ranks[r & 1][r / 2] = r;
    MPI_Group g[2];
    for (int i = 0; i < 2; i++)
        MT_CHECK_MPI(MPI_Group_incl(world, n[i], ranks[i], &g[i]));
    int mine = wrank & 1;
    MPI_Comm ic;
    MT_CHECK_MPI(MPI_Intercomm_create_from_groups(
        g[mine], 0, g[!mine], 0, "org.ampi.test.inter", MPI_INFO_NULL,
        MPI_ERRORS_RETURN, &ic));
    int flag = 0, rsize = 0, sum = -1, one = 1;
    MT_CHECK_MPI(MPI_Comm_test_inter(ic, &flag));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK_MPI(MPI_Comm_remote_size(ic, &rsize));
    MT_CHECK_INT_EQ(rsize, n[!mine]);
    MT_CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, ic));
    MT_CHECK_INT_EQ(sum, n[!mine]);
    MT_CHECK_MPI(MPI_Comm_free(&ic));
    for (int i = 0; i < 2; i++) {
        MT_CHECK_MPI(MPI_Group_free(&g[i]));
        free(ranks[i]);
    }
}

static void errors(MPI_Session s)
{
    MPI_Group g;
    MPI_Errhandler eh, got;
    int before = atomic_load(mt_error_count());
    MT_CHECK_ERR_CLASS(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g),
                       MPI_ERR_ARG);
    MT_CHECK_MPI(MPI_Session_create_errhandler(count_calls, &eh));
    MT_CHECK_MPI(MPI_Session_set_errhandler(s, eh));
    MT_CHECK_MPI(MPI_Session_get_errhandler(s, &got));
    MT_CHECK(got == eh);
    MT_CHECK_MPI(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    MPI_Session_get_num_psets(s, MPI_INFO_NULL, NULL); /* MPI_ERR_ARG */
    MT_CHECK_INT_EQ(atomic_load(mt_error_count()) - before, 2000);
    atomic_fetch_sub(mt_error_count(), 2000);
    MT_CHECK_MPI(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
    MT_CHECK_MPI(MPI_Errhandler_free(&eh));
}

int main(void)
{
    /* A first session without info; the second asks for a thread level. */
    MPI_Session first, s;
    MPI_Info info;
    MT_CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &first));
    /* Asked for no level: MPI_THREAD_MULTIPLE, as MPICH's
     * threads/init/mult_session expects. */
    char level[64];
    int llen = sizeof(level), lflag = 0;
    MT_CHECK_MPI(MPI_Session_get_info(first, &info));
    MT_CHECK_MPI(
        MPI_Info_get_string(info, "thread_level", &llen, level, &lflag));
    MT_CHECK(lflag && strcmp(level, "MPI_THREAD_MULTIPLE") == 0);
    MPI_Info_free(&info);
    MT_CHECK_MPI(MPI_Info_create(&info));
    MT_CHECK_MPI(MPI_Info_set(info, "thread_level", "MPI_THREAD_MULTIPLE"));
    MT_CHECK_MPI(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
    MT_CHECK_MPI(MPI_Info_free(&info));
    int flag = 1;
    MT_CHECK_MPI(MPI_Initialized(&flag));
    MT_CHECK_INT_EQ(flag, 0);
    char value[64];
    int vlen = sizeof(value);
    MT_CHECK_MPI(MPI_Session_get_info(s, &info));
    MT_CHECK_MPI(
        MPI_Info_get_string(info, "thread_level", &vlen, value, &flag));
    MT_CHECK(flag && strcmp(value, "MPI_THREAD_MULTIPLE") == 0);
    MPI_Info_free(&info);
    psets(s);
    MPI_Group world, self;
    MPI_Comm comm, comm2, selfc;
    int wrank, wsize;
    MT_CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &world));
    MT_CHECK_MPI(MPI_Group_rank(world, &wrank));
    MT_CHECK_MPI(MPI_Group_size(world, &wsize));
    MT_CHECK_MPI(MPI_Comm_create_from_group(
        world, "org.ampi.test.a", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm));
    MT_CHECK_MPI(MPI_Comm_create_from_group(
        world, "org.ampi.test.b", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm2));
    use(comm, wsize);
    use(comm2, wsize);
    MT_CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://SELF", &self));
    MT_CHECK_MPI(MPI_Comm_create_from_group(
        self, "org.ampi.test.self", MPI_INFO_NULL, MPI_ERRORS_RETURN, &selfc));
    use(selfc, 1);
    inter(world, wrank, wsize);
    pset_case(s, wsize);
    errors(s);
    int mine = atomic_load(mt_error_count()), all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, comm);
    if (wrank == 0)
        printf(all ? " Found %d errors\n" : " No Errors\n", all);
    MT_CHECK_MPI(MPI_Comm_free(&comm));
    MT_CHECK_MPI(MPI_Comm_free(&comm2));
    MT_CHECK_MPI(MPI_Comm_free(&selfc));
    MT_CHECK_MPI(MPI_Group_free(&world));
    MT_CHECK_MPI(MPI_Group_free(&self));
    MT_CHECK_MPI(MPI_Session_finalize(&s));
    MT_CHECK(s == MPI_SESSION_NULL);
    MT_CHECK_MPI(MPI_Session_finalize(&first));
    return all != 0 || atomic_load(mt_error_count()) != mine;
}
