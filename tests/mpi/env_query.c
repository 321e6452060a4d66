/*
 * env_query: MPI_Wtime never goes backwards and advances, MPI_Wtick is
 * positive, MPI_Get_processor_name and MPI_Get_library_version return
 * NUL-terminated strings of the reported length, and MPI_Get_version (also
 * callable before MPI_Init, like MPI_Get_library_version) reports 4.0 or
 * later, matching mpi.h.
 */
#include "mpitest.h"

/* A name returned by an MPI query: NUL-terminated, of the reported length,
 * which is positive and below the documented maximum. */
static void check_name(const char *name, int len, int max, const char *what)
{
    if (!MT_CHECK(len > 0 && len < max)) {
        MT_FAIL("%s: length %d", what, len);
        return;
    }
    MT_CHECK_INT_EQ(name[len], '\0');
    MT_CHECK_INT_EQ(strlen(name), len);
}

static void check_version(void)
{
    int version = -1, subversion = -1;
    MT_CHECK_MPI(MPI_Get_version(&version, &subversion));
    MT_CHECK(version * 100 + subversion >= 301);
    MT_CHECK_INT_EQ(version * 100 + subversion, 401); /* MPI-4.1 */
    MT_CHECK_INT_EQ(version, MPI_VERSION);
    MT_CHECK_INT_EQ(subversion, MPI_SUBVERSION);
}

static void check_wtime(void)
{
    double tick = MPI_Wtick();
    MT_CHECK(tick > 0.0);

    double start = MPI_Wtime(), prev = start, now = start;
    for (int i = 0; i < 1000; i++) {
        now = MPI_Wtime();
        if (!MT_CHECK(now >= prev))
            return;
        prev = now;
    }
    /* The clock must move; the bound only turns a stopped clock into a
     * failure instead of a hang. */
    for (long i = 0; i < 100000000L && now == start; i++)
        now = MPI_Wtime();
    MT_CHECK(now > start);
}

static void check_library_version(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = -1;
    memset(lib, 'x', sizeof(lib));
    MT_CHECK_MPI(MPI_Get_library_version(lib, &len));
#if defined(OPEN_MPI)
    /* Open MPI 4.1 counts the NUL in resultlen; the standard stores the NUL
     * at version[resultlen]. */
    if (len > 0 && lib[len - 1] == '\0')
        len--;
#endif
    check_name(lib, len, MPI_MAX_LIBRARY_VERSION_STRING,
               "MPI_Get_library_version");
}

int main(int argc, char **argv)
{
    check_version();
    check_library_version();

    MPI_Init(&argc, &argv);

    check_version();
    check_wtime();

    char name[MPI_MAX_PROCESSOR_NAME];
    int len = -1;
    memset(name, 'x', sizeof(name));
    MT_CHECK_MPI(MPI_Get_processor_name(name, &len));
    check_name(name, len, MPI_MAX_PROCESSOR_NAME, "MPI_Get_processor_name");

    check_library_version();

    return mt_finish_and_finalize();
}
