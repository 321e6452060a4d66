/*
 * env_init: MPI_Initialized and MPI_Finalized before MPI_Init, between
 * MPI_Init and MPI_Finalize, and after MPI_Finalize (Initialized stays true).
 */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int flag = -1;

    MT_CHECK_MPI(MPI_Initialized(&flag));
    MT_CHECK_INT_EQ(flag, 0);
    MT_CHECK_MPI(MPI_Finalized(&flag));
    MT_CHECK_INT_EQ(flag, 0);

    MPI_Init(&argc, &argv);

    MT_CHECK_MPI(MPI_Initialized(&flag));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK_MPI(MPI_Finalized(&flag));
    MT_CHECK_INT_EQ(flag, 0);

    int status = mt_finish_and_finalize();

    /* The verdict is already printed; a failure here only sets the exit
     * status (mt_fail still reports it, with rank -1). */
    MT_CHECK_MPI(MPI_Finalized(&flag));
    if (!MT_CHECK_INT_EQ(flag, 1))
        status = 1;
    MT_CHECK_MPI(MPI_Initialized(&flag));
    if (!MT_CHECK_INT_EQ(flag, 1))
        status = 1;
    return status;
}
