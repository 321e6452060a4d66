/*
 * io_many_small: many small independent writes and reads at explicit
 * offsets by every rank at once, so that the helper threads finish jobs
 * while the ranks' PEs take the finished ones and reuse their memory (a
 * helper once read a job after handing it back: a crash now and then
 * under +p 2, as MPICH's f77/io/writeatf found); then every value checked.
 */
#include "iotest.h"

enum { WRITES = 3000 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char name[128];
    io_name(MPI_COMM_WORLD, "io_many_small", name, sizeof(name));
    MPI_File fh;
    MT_CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name,
                               MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                               &fh));
    /* Value i of rank r at int (i * size + r): the ranks' writes interleave. */
    for (int i = 0; i < WRITES; i++) {
        int v = io_value((long long)i * size + rank, 3);
        MPI_Offset at = ((MPI_Offset)i * size + rank) * (MPI_Offset)sizeof(int);
        if (!MT_CHECK_MPI(
                MPI_File_write_at(fh, at, &v, 1, MPI_INT, MPI_STATUS_IGNORE)))
            break;
    }
    MT_CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MT_CHECK_MPI(MPI_File_sync(fh));
    int next = (rank + 1) % size;
    for (int i = 0; i < WRITES; i++) {
        int v = -1;
        MPI_Offset at = ((MPI_Offset)i * size + next) * (MPI_Offset)sizeof(int);
        MT_CHECK_MPI(
            MPI_File_read_at(fh, at, &v, 1, MPI_INT, MPI_STATUS_IGNORE));
        if (!MT_CHECK_INT_EQ(v, io_value((long long)i * size + next, 3)))
            break;
    }
    MT_CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MT_CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
    return mt_finish_and_finalize();
}
