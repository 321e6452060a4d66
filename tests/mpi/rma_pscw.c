/* Post-start-complete-wait: a ring where each rank writes into its right
 * neighbour, repeated; MPI_Win_test on the exposure side. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int me, np, buf[2] = {-1, -1};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    MPI_Win win;
    MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                   &win);
    MPI_Group world, gl, gr;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &left, &gl);
    MPI_Group_incl(world, 1, &right, &gr);
    for (int round = 0; round < 5; round++) {
        MPI_Win_post(gl, 0, win);
        MPI_Win_start(gr, 0, win);
        int v = 100 * round + me;
        MPI_Put(&v, 1, MPI_INT, right, round % 2, 1, MPI_INT, win);
        MPI_Win_complete(win);
        if (round % 2) {
            int flag = 0;
            while (!flag)
                MPI_Win_test(win, &flag);
        } else {
            MPI_Win_wait(win);
        }
        MT_CHECK_INT_EQ(buf[round % 2], 100 * round + left);
    }
    /* Outside an access epoch an operation is an error. */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int v = 0;
    MT_CHECK_ERR_CLASS(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win),
                       MPI_ERR_RMA_SYNC);
    MT_CHECK_ERR_CLASS(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    MT_CHECK_ERR_CLASS(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
    MPI_Group_free(&gl);
    MPI_Group_free(&gr);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    return mt_finish_and_finalize();
}
