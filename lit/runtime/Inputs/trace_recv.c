/* Receives for trace-otf2-print.test, on a communicator that numbers the
 * ranks backwards (comm rank 3 - world rank, 4 ranks): each rank receives
 * from its previous world rank twice, by MPI_Irecv + MPI_Wait (tag 5,
 * 8 bytes) and by MPI_Sendrecv (tag 6, 16 bytes), and once by MPI_Recv on
 * MPI_COMM_WORLD (tag 7, 4 bytes).  A trace that gave the sender's rank
 * in the communicator would name the wrong one. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int w, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &w);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm back;
    MPI_Comm_split(MPI_COMM_WORLD, 0, -w, &back);
    int c;
    MPI_Comm_rank(back, &c);
    int from = (c + 1) % size, to = (c + size - 1) % size; /* in back */
    long a = w, b = -1;
    MPI_Request req;
    MPI_Irecv(&b, 1, MPI_LONG, from, 5, back, &req);
    MPI_Send(&a, 1, MPI_LONG, to, 5, back);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    int errs = b != (w + size - 1) % size;
    long s2[2] = {w, w}, r2[2];
    MPI_Sendrecv(s2, 2, MPI_LONG, to, 6, r2, 2, MPI_LONG, from, 6, back,
                 MPI_STATUS_IGNORE);
    errs += r2[1] != (w + size - 1) % size;
    int x = w, y = -1;
    if (w % 2 == 0) {
        MPI_Send(&x, 1, MPI_INT, (w + 1) % size, 7, MPI_COMM_WORLD);
        MPI_Recv(&y, 1, MPI_INT, (w + size - 1) % size, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&y, 1, MPI_INT, (w + size - 1) % size, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, (w + 1) % size, 7, MPI_COMM_WORLD);
    }
    errs += y != (w + size - 1) % size;
    int sum = 0;
    MPI_Allreduce(&errs, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (w == 0 && sum == 0)
        printf(" No Errors\n");
    MPI_Comm_free(&back);
    MPI_Finalize();
    return sum != 0;
}
