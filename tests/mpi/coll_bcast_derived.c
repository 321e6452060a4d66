/* MPI_Bcast with a non-contiguous type (a column of a 2-D array) changes
 * only the column at the receivers: the other entries keep their values. */
#include "mpitest.h"

#include <stdlib.h>

#define ROWS 6
#define COLS 5

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Datatype column;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_vector(ROWS, 1, COLS, MPI_INT, &column);
    MPI_Type_commit(&column);
    for (int root = 0; root < size && root < 4; root++) {
        int grid[ROWS][COLS];
        for (int i = 0; i < ROWS; i++)
            for (int j = 0; j < COLS; j++)
                grid[i][j] = rank == root ? 1000 + i * COLS + j : -rank - 1;
        MPI_Bcast(&grid[0][2], 1, column, root, MPI_COMM_WORLD);
        for (int i = 0; i < ROWS; i++) {
            for (int j = 0; j < COLS; j++) {
                int want =
                    (rank == root || j == 2) ? 1000 + i * COLS + j : -rank - 1;
                MT_CHECK_INT_EQ(grid[i][j], want);
            }
        }
    }
    MPI_Type_free(&column);
    return mt_finish_and_finalize();
}
