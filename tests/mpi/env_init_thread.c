/*
 * env_init_thread: MPI_Init_thread returns a valid thread level, the levels
 * are ordered as the standard requires, MPI_Query_thread agrees with it and
 * MPI_Is_thread_main is true on the thread that called MPI_Init_thread.
 */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int provided = -1, queried = -2, flag = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);

    MT_CHECK(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED);
    MT_CHECK(MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED);
    MT_CHECK(MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE);
    MT_CHECK(provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED ||
             provided == MPI_THREAD_SERIALIZED ||
             provided == MPI_THREAD_MULTIPLE);

    MT_CHECK_MPI(MPI_Query_thread(&queried));
    MT_CHECK_INT_EQ(queried, provided);
    MT_CHECK_MPI(MPI_Is_thread_main(&flag));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK_MPI(MPI_Initialized(&flag));
    MT_CHECK_INT_EQ(flag, 1);

    return mt_finish_and_finalize();
}
