/*
 * MPI-4.1's memory allocation kinds (section 12.4.3): a session asks for
 * kinds with "mpi_memory_alloc_kinds" in MPI_Session_init's info and
 * MPI_Session_get_info returns those this process supports, each once, in
 * the order asked ("mpi" and its restrictors, "system"; kinds of devices
 * this process lacks, unknown restrictors and managed memory dropped); the
 * default is "mpi,system", and a request of nothing supported gives ""
 * (MPI_Info_set takes no empty value, as in MPICH).  The communicators made
 * from the session's groups (and their duplicates, splits and windows)
 * report the session's value; MPI_COMM_WORLD, its windows and files the
 * World Model's, "mpi,system".  Without MPI_Init, then with it.
 */
#include "mpitest.h"

#include <stdlib.h>
#include <unistd.h>

static void expect(MPI_Info info, const char *want)
{
    char value[MPI_MAX_INFO_VAL + 1] = "";
    int len = MPI_MAX_INFO_VAL, flag = 0;
    MT_CHECK_MPI(MPI_Info_get_string(info, "mpi_memory_alloc_kinds", &len,
                                     value, &flag));
    if (!MT_CHECK(flag) || !MT_CHECK(strcmp(value, want) == 0))
        fprintf(stderr, "mpi_memory_alloc_kinds: got '%s', want '%s'\n", value,
                want);
}

static void expect_session(MPI_Session s, const char *want)
{
    MPI_Info info;
    MT_CHECK_MPI(MPI_Session_get_info(s, &info));
    expect(info, want);
    MT_CHECK_MPI(MPI_Info_free(&info));
}

static void expect_comm(MPI_Comm c, const char *want)
{
    MPI_Info info;
    MT_CHECK_MPI(MPI_Comm_get_info(c, &info));
    expect(info, want);
    MT_CHECK_MPI(MPI_Info_free(&info));
}

static void expect_win(MPI_Comm c, const char *want)
{
    MPI_Win win;
    MPI_Info info;
    void *base = NULL;
    MT_CHECK_MPI(MPI_Win_allocate(64, 1, MPI_INFO_NULL, c, &base, &win));
    MT_CHECK_MPI(MPI_Win_get_info(win, &info));
    expect(info, want);
    MT_CHECK_MPI(MPI_Info_free(&info));
    MT_CHECK_MPI(MPI_Win_free(&win));
}

static MPI_Session session_asking(const char *kinds)
{
    MPI_Session s;
    MPI_Info info = MPI_INFO_NULL;
    if (kinds) {
        MT_CHECK_MPI(MPI_Info_create(&info));
        MT_CHECK_MPI(MPI_Info_set(info, "mpi_memory_alloc_kinds", kinds));
    }
    MT_CHECK_MPI(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
    if (kinds)
        MT_CHECK_MPI(MPI_Info_free(&info));
    return s;
}

/* A session asking for kinds: its value, and its communicators'. */
static void session_case(void)
{
    const char *want = "system,mpi:alloc_mem,mpi";
    MPI_Session s = session_asking(
        " system, mpi:alloc_mem,level_zero:device,cuda:managed,mpi:bogus,"
        "system,mpi, quantum");
    expect_session(s, want);
    MPI_Group g;
    MPI_Comm c, dup, half;
    MT_CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    MT_CHECK_MPI(MPI_Comm_create_from_group(
        g, "org.ampi.test.memkinds", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    expect_comm(c, want);
    MT_CHECK_MPI(MPI_Comm_dup(c, &dup));
    expect_comm(dup, want);
    int me;
    MPI_Comm_rank(c, &me);
    MT_CHECK_MPI(MPI_Comm_split(c, me % 2, me, &half));
    expect_comm(half, want);
    expect_win(c, want);
    MT_CHECK_MPI(MPI_Comm_free(&half));
    MT_CHECK_MPI(MPI_Comm_free(&dup));
    MT_CHECK_MPI(MPI_Comm_free(&c));
    MT_CHECK_MPI(MPI_Group_free(&g));
    MT_CHECK_MPI(MPI_Session_finalize(&s));
}

static void world_case(void)
{
    expect_comm(MPI_COMM_WORLD, "mpi,system");
    MPI_Comm dup;
    MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    expect_comm(dup, "mpi,system");
    MT_CHECK_MPI(MPI_Comm_free(&dup));
    expect_win(MPI_COMM_WORLD, "mpi,system");
    char path[64];
    int pid = (int)getpid();
    MT_CHECK_MPI(MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD));
    snprintf(path, sizeof(path), "/tmp/ampi-memkinds-%d", pid);
    MPI_File fh;
    MPI_Info info;
    MT_CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path,
                               MPI_MODE_CREATE | MPI_MODE_RDWR |
                                   MPI_MODE_DELETE_ON_CLOSE,
                               MPI_INFO_NULL, &fh));
    MT_CHECK_MPI(MPI_File_get_info(fh, &info));
    expect(info, "mpi,system");
    MT_CHECK_MPI(MPI_Info_free(&info));
    MT_CHECK_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    /* Before MPI_Init: sessions alone. */
    MPI_Session d = session_asking(NULL),
                none = session_asking("quantum,cuda:managed");
    expect_session(d, "mpi,system");
    expect_session(none, "");
    MT_CHECK_MPI(MPI_Session_finalize(&d));
    MT_CHECK_MPI(MPI_Session_finalize(&none));
    session_case();
    MPI_Init(&argc, &argv);
    world_case();
    session_case();
    return mt_finish_and_finalize();
}
