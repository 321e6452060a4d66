/*
 * MPI_Comm_idup does not wait for the other members: rank 0 starts an idup
 * and then sends to rank 1, which receives before it starts its own idup
 * (and so on along the ranks), so an idup that waited for every member to
 * arrive would deadlock.  Also the idup of an inter-communicator, started
 * on both groups before a message between them.
 */
#include "mpitest.h"

/* Starts an idup of comm after receiving from the previous rank, and sends
 * to the next one before waiting; the new communicator then works. */
static void chain(MPI_Comm comm)
{
    int rank, size, token = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm dup;
    MPI_Request req;
    if (rank > 0)
        MPI_Recv(&token, 1, MPI_INT, rank - 1, 3, comm, MPI_STATUS_IGNORE);
    MT_CHECK_INT_EQ(MPI_Comm_idup(comm, &dup, &req), MPI_SUCCESS);
    token++;
    if (rank + 1 < size)
        MPI_Send(&token, 1, MPI_INT, rank + 1, 3, comm);
    MT_CHECK_INT_EQ(token, rank + 1);
    MT_CHECK_INT_EQ(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    int sum = 0, one = 1, result;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup);
    MT_CHECK_INT_EQ(sum, size);
    MPI_Comm_compare(comm, dup, &result);
    MT_CHECK_INT_EQ(result, MPI_CONGRUENT);
    MPI_Comm_free(&dup);
}

/* The two halves of comm (even and odd ranks) joined by an
 * inter-communicator; each rank's idup of it is started before the
 * message the leaders swap, and the duplicate carries traffic of its own. */
static void inter(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm half, ic, dup;
    int color = rank % 2;
    MPI_Comm_split(comm, color, rank, &half);
    MPI_Intercomm_create(half, 0, comm, 1 - color, 7, &ic);
    MPI_Request req;
    MT_CHECK_INT_EQ(MPI_Comm_idup(ic, &dup, &req), MPI_SUCCESS);
    int hrank, out = rank, in = -1;
    MPI_Comm_rank(half, &hrank);
    if (hrank == 0) /* the leaders swap before they wait */
        MPI_Sendrecv(&out, 1, MPI_INT, 0, 4, &in, 1, MPI_INT, 0, 4, ic,
                     MPI_STATUS_IGNORE);
    if (hrank == 0)
        MT_CHECK_INT_EQ(in, 1 - color);
    MT_CHECK_INT_EQ(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    int flag = 0, rsize = -1, result = -1;
    MPI_Comm_test_inter(dup, &flag);
    MT_CHECK_INT_EQ(flag, 1);
    MPI_Comm_remote_size(dup, &rsize);
    MT_CHECK_INT_EQ(rsize, color ? (size + 1) / 2 : size / 2);
    MPI_Comm_compare(ic, dup, &result);
    MT_CHECK_INT_EQ(result, MPI_CONGRUENT);
    int sum = -1;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup);
    int expect = 0; /* the sum of the other half's world ranks */
    for (int r = 1 - color; r < size; r += 2)
        expect += r;
    MT_CHECK_INT_EQ(sum, expect);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    chain(MPI_COMM_WORLD);
    /* Again on a communicator whose members are in another order. */
    MPI_Comm rev;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    chain(rev);
    MPI_Comm_free(&rev);
    if (size >= 2)
        inter(MPI_COMM_WORLD);
    return mt_finish_and_finalize();
}
