/*
 * attr_predefined: the predefined attributes, read on MPI_COMM_WORLD.
 *   MPI_TAG_UB >= 32767, MPI_HOST MPI_PROC_NULL, MPI_IO MPI_ANY_SOURCE,
 *   MPI_WTIME_IS_GLOBAL 1 where every process runs on one node (else 0),
 *   MPI_UNIVERSE_SIZE the world size, MPI_APPNUM 0,
 *   MPI_LASTUSEDCODE >= MPI_ERR_LASTCODE; AMPI_NUM_WTHS the +p count
 *   (MT_EXPECT_PES, set by the test registration) and one more than the
 *   largest AMPI_MY_WTH of any rank (every PE runs a rank), AMPI_MY_PROCESS
 *   0, AMPI_NUM_PROCESSES 1.  Window attributes: keyvals work, attribute
 *   calls on a window are MPI_ERR_WIN (no window exists).
 */
#include "mpitest.h"

#include <stdlib.h>

static int get_int(MPI_Comm comm, int key, const char *name)
{
    int *v = NULL, flag = 0;
    if (!MT_CHECK_MPI(MPI_Comm_get_attr(comm, key, &v, &flag)))
        return -1;
    if (!flag || !v) {
        MT_FAIL("%s is not set", name);
        return -1;
    }
    return *v;
}

static void windows(void)
{
    int kv = MPI_KEYVAL_INVALID, flag;
    void *v;
    MT_CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN,
                                       &kv, NULL));
    MT_CHECK(kv != MPI_KEYVAL_INVALID);
    MT_CHECK_ERR_CLASS(MPI_Win_set_attr(MPI_WIN_NULL, kv, NULL), MPI_ERR_WIN);
    MT_CHECK_ERR_CLASS(MPI_Win_get_attr(MPI_WIN_NULL, MPI_WIN_BASE, &v, &flag),
                       MPI_ERR_WIN);
    MT_CHECK_ERR_CLASS(MPI_Win_delete_attr(12345, kv), MPI_ERR_WIN);
    /* A window keyval is no communicator keyval. */
    MT_CHECK_ERR_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, NULL),
                       MPI_ERR_KEYVAL);
    MT_CHECK_MPI(MPI_Win_free_keyval(&kv));
    MT_CHECK(kv == MPI_KEYVAL_INVALID);
}

int main(int argc, char **argv)
{
    int size, rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MT_CHECK(get_int(MPI_COMM_WORLD, MPI_TAG_UB, "MPI_TAG_UB") >= 32767);
    MT_CHECK_INT_EQ(get_int(MPI_COMM_WORLD, MPI_HOST, "MPI_HOST"),
                    MPI_PROC_NULL);
    MT_CHECK_INT_EQ(get_int(MPI_COMM_WORLD, MPI_IO, "MPI_IO"), MPI_ANY_SOURCE);
    /* Global where every process runs on one node (its clock). */
    MPI_Comm node;
    int nnode = 0;
    MT_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                                     MPI_INFO_NULL, &node));
    MT_CHECK_MPI(MPI_Comm_size(node, &nnode));
    MT_CHECK_MPI(MPI_Comm_free(&node));
    int one_node = nnode == size;
    MT_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &one_node, 1, MPI_INT, MPI_LAND,
                               MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(
        get_int(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, "MPI_WTIME_IS_GLOBAL"),
        one_node);
    MT_CHECK_INT_EQ(
        get_int(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, "MPI_UNIVERSE_SIZE"), size);
    MT_CHECK_INT_EQ(get_int(MPI_COMM_WORLD, MPI_APPNUM, "MPI_APPNUM"), 0);
    MT_CHECK(get_int(MPI_COMM_WORLD, MPI_LASTUSEDCODE, "MPI_LASTUSEDCODE") >=
             MPI_ERR_LASTCODE);

    int npes = get_int(MPI_COMM_WORLD, AMPI_NUM_WTHS, "AMPI_NUM_WTHS");
    int mype = get_int(MPI_COMM_WORLD, AMPI_MY_WTH, "AMPI_MY_WTH");
    MT_CHECK(npes >= 1 && npes <= size);
    MT_CHECK(mype >= 0 && mype < npes);
    const char *expect = getenv("MT_EXPECT_PES");
    if (expect)
        MT_CHECK_INT_EQ(npes, atoi(expect));
    int maxpe = -1;
    MT_CHECK_MPI(
        MPI_Allreduce(&mype, &maxpe, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(maxpe + 1, npes);
    /* Processes: as many as the launcher started (MT_EXPECT_PROCESSES),
     * each with its block of ranks. */
    int nprocs =
        get_int(MPI_COMM_WORLD, AMPI_NUM_PROCESSES, "AMPI_NUM_PROCESSES");
    const char *procs = getenv("MT_EXPECT_PROCESSES");
    MT_CHECK_INT_EQ(nprocs, procs ? atoi(procs) : 1);
    MT_CHECK_INT_EQ(get_int(MPI_COMM_WORLD, AMPI_MY_PROCESS, "AMPI_MY_PROCESS"),
                    mt_process_of(rank));

    /* Predefined attributes can be read on any communicator. */
    MT_CHECK(get_int(MPI_COMM_SELF, MPI_TAG_UB, "MPI_TAG_UB") >= 32767);
    windows();
    return mt_finish_and_finalize();
}
