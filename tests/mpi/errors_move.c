/*
 * The message of an error stays with the rank: an error code taken before
 * the rank moves (RotateLB sends every rank to the next PE, across
 * processes in a job of several) still gives its message afterwards, and
 * a rank that never had an error gives its class's text.  The messages
 * live in the rank's heap from its first error on (errors.c).
 */
#include "mpitest.h"

#include <string.h>

static int my_process(void)
{
    int *v, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_MY_PROCESS, &v, &flag);
    return flag ? *v : -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int code = MPI_SUCCESS, x = 0;
    if (rank % 2 == 0) /* odd ranks have no error at all */
        code = MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    char before[MPI_MAX_ERROR_STRING], after[MPI_MAX_ERROR_STRING];
    int len;
    if (rank % 2 == 0) {
        MT_CHECK(code != MPI_SUCCESS);
        MT_CHECK_MPI(MPI_Error_string(code, before, &len));
        MT_CHECK(strstr(before, "count") != NULL);
    }
    int from = my_process(), crossed = 0;
    for (int step = 0; step < 2; step++) {
        MT_CHECK_MPI(AMPI_Migrate(AMPI_INFO_LB_SYNC));
        crossed |= my_process() != from;
        if (rank % 2 == 0) {
            MT_CHECK_MPI(MPI_Error_string(code, after, &len));
            MT_CHECK(strcmp(before, after) == 0);
        }
    }
    /* Across processes some ranks changed process (those of each
     * process's last PE, at every step). */
    int any = 0;
    MPI_Allreduce(&crossed, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    MT_CHECK(any == (mt_nprocs() > 1));
    int cls = -1;
    MT_CHECK_MPI(MPI_Error_class(MPI_ERR_COUNT, &cls));
    MT_CHECK_INT_EQ(cls, MPI_ERR_COUNT);
    MT_CHECK_MPI(MPI_Error_string(MPI_ERR_COUNT, after, &len));
    MT_CHECK(len > 0);
    return mt_finish_and_finalize();
}
