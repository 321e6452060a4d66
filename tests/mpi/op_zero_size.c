/*
 * Operations on no data: a predefined operation on a datatype of size zero
 * (a contiguous type of no ints), or on zero elements of differing types,
 * is accepted and changes nothing, in the reductions (MPI_Allreduce,
 * MPI_Reduce_local) and in the accumulates of one-sided communication
 * (MPI_Accumulate, MPI_Get_accumulate), to every rank of the window.
 */
#include "mpitest.h"

static void check_reductions(MPI_Datatype none)
{
    int in[2] = {1, 2}, out[2] = {7, 8};
    MT_CHECK_MPI(MPI_Allreduce(in, out, 3, none, MPI_SUM, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(out[0], 7);
    MT_CHECK_MPI(MPI_Reduce_local(in, out, 1, none, MPI_MAX));
    MT_CHECK_INT_EQ(out[1], 8);
}

static void check_accumulates(MPI_Datatype none, int size)
{
    int *base, got[2] = {-1, -1}, origin[2] = {5, 6};
    MPI_Win win;
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &base, &win);
    base[0] = 10;
    base[1] = 20;
    MPI_Win_fence(0, win);
    for (int t = 0; t < size; t++) {
        MT_CHECK_MPI(
            MPI_Accumulate(origin, 1, none, t, 0, 1, none, MPI_SUM, win));
        MT_CHECK_MPI(MPI_Accumulate(origin, 0, MPI_INT, t, 0, 0, MPI_DOUBLE,
                                    MPI_PROD, win));
        MT_CHECK_MPI(MPI_Get_accumulate(origin, 2, none, got, 0, MPI_INT, t, 1,
                                        1, none, MPI_REPLACE, win));
        MT_CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_INT, got, 1, none, t, 0, 0,
                                        MPI_INT, MPI_NO_OP, win));
    }
    MPI_Win_fence(0, win);
    MT_CHECK_INT_EQ(base[0], 10);
    MT_CHECK_INT_EQ(base[1], 20);
    MT_CHECK_INT_EQ(got[0], -1);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype none;
    MPI_Type_contiguous(0, MPI_INT, &none);
    MPI_Type_commit(&none);
    check_reductions(none);
    check_accumulates(none, size);
    MPI_Type_free(&none);
    return mt_finish_and_finalize();
}
