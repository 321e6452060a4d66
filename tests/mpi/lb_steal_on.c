/*
 * Work stealing is on in a process exactly when it holds more ranks than
 * PEs (runtime/rank/slot.c): read through MPI_T's control variable
 * "steal" at the start and after a balancing step that may bring a
 * process more ranks.  With 5 ranks in 2 processes of 2 PEs (ranks 0-1,
 * 2-4), process 0 starts without stealing and process 1 with it; loads
 * {1, 1, 5, 5, 5} make GreedyLB give three PEs a heavy rank each and the
 * fourth both light ones, so one process ends with 3 ranks and the other
 * with 2.  Before, stealing was on in every process of two PEs or more.
 * Once on it stays on (a process that gave ranks away keeps it).
 */
#include "mpitest.h"

#include <string.h>

/* Finalized before any step: a rank with MPI_T in effect stays in its
 * process (docs/tools.md). */
static int steal_cvar(void)
{
    int value = -1;
    mt_cvar_read("steal", &value);
    return value;
}

/* Whether stealing is on when this process holds more ranks than PEs,
 * and (exact: at the start) off when not. */
static void check_steal(const char *when, int exact)
{
    MPI_Comm here;
    int nhere, *wths, flag;
    MT_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, AMPI_COMM_TYPE_PROCESS, 0,
                                     MPI_INFO_NULL, &here));
    MT_CHECK_MPI(MPI_Comm_size(here, &nhere));
    MT_CHECK_MPI(MPI_Comm_free(&here));
    MT_CHECK_MPI(
        MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_NUM_WTHS, &wths, &flag));
    MT_CHECK(flag);
    int npes = *wths; /* of each process */
    int want = nhere > npes && npes > 1;
    int got = steal_cvar();
    if (got != want && (exact || want))
        MT_FAIL("%s: steal is %d with %d ranks on %d PEs in this process", when,
                got, nhere, npes);
}

int main(int argc, char **argv)
{
    static const double loads[5] = {1, 1, 5, 5, 5};
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_steal("at the start", 1);
    MT_CHECK_MPI(AMPI_Load_set_value(size == 5 ? loads[rank] : 1.0));
    MT_CHECK_MPI(AMPI_Migrate(AMPI_INFO_LB_SYNC));
    check_steal("after the step", 0);
    return mt_finish_and_finalize();
}
