/* Host-only (+gpumap none, or no device): AMPI_GPU_Iinvoke fails with
 * MPI_ERR_UNSUPPORTED_OPERATION through the error handler, and host
 * buffers work as ever. */
#include "../mpi/mpitest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Request req = MPI_REQUEST_NULL;
    MT_CHECK_ERR_CLASS(AMPI_GPU_Iinvoke(NULL, &req),
                       MPI_ERR_UNSUPPORTED_OPERATION);
    MT_CHECK_INT_EQ(req, MPI_REQUEST_NULL);
    MT_CHECK_ERR_CLASS(AMPI_GPU_Iinvoke(NULL, NULL), MPI_ERR_ARG);
    int me, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MT_CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK_INT_EQ(sum, size * (size - 1) / 2);
    return mt_finish_and_finalize();
}
