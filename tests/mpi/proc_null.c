/*
 * proc_null: communication with MPI_PROC_NULL completes at once. Sends of
 * every kind succeed; receives (blocking, nonblocking, with MPI_ANY_TAG)
 * leave the buffer untouched and return source MPI_PROC_NULL, tag
 * MPI_ANY_TAG and count 0.
 */
#include "mpitest.h"

#include <stdlib.h>

static void check_untouched(const int *buf)
{
    for (int i = 0; i < 4; i++)
        MT_CHECK_INT_EQ(buf[i], -7);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);

    /* Buffered sends to MPI_PROC_NULL should need no buffer space; attach
     * some anyway, since the standard does not say so. */
    int bufsize = 2 * (4 * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char *attached = malloc((size_t)bufsize);
    MPI_Buffer_attach(attached, bufsize);

    int out[4] = {1, 2, 3, 4}, in[4] = {-7, -7, -7, -7};
    MPI_Status st;
    MPI_Request reqs[6];

    MT_CHECK_MPI(MPI_Send(out, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    MT_CHECK_MPI(MPI_Ssend(out, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    MT_CHECK_MPI(MPI_Rsend(out, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    MT_CHECK_MPI(MPI_Bsend(out, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));

    MT_CHECK_MPI(
        MPI_Recv(in, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    MT_CHECK_EMPTY_STATUS(st, MPI_PROC_NULL);
    MT_CHECK_MPI(MPI_Recv(in, 4, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG,
                          MPI_COMM_WORLD, &st));
    MT_CHECK_EMPTY_STATUS(st, MPI_PROC_NULL);
    check_untouched(in);

    MT_CHECK_MPI(
        MPI_Isend(out, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &reqs[0]));
    MT_CHECK_MPI(MPI_Issend(out, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD,
                            &reqs[1]));
    MT_CHECK_MPI(MPI_Irsend(out, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD,
                            &reqs[2]));
    MT_CHECK_MPI(MPI_Ibsend(out, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD,
                            &reqs[3]));
    MT_CHECK_MPI(
        MPI_Irecv(in, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &reqs[4]));
    MT_CHECK_MPI(MPI_Irecv(in, 4, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG,
                           MPI_COMM_WORLD, &reqs[5]));

    /* Complete at once: the first Test sees them done. */
    int flag = 0;
    MT_CHECK_MPI(MPI_Test(&reqs[4], &flag, &st));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK_EMPTY_STATUS(st, MPI_PROC_NULL);
    MPI_Status sts[6];
    MT_CHECK_MPI(MPI_Waitall(6, reqs, sts));
    MT_CHECK_EMPTY_STATUS(sts[5], MPI_PROC_NULL);
    check_untouched(in);

    MT_CHECK_MPI(MPI_Sendrecv(out, 4, MPI_INT, MPI_PROC_NULL, 1, in, 4, MPI_INT,
                              MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    MT_CHECK_EMPTY_STATUS(st, MPI_PROC_NULL);
    check_untouched(in);

    void *detached;
    MPI_Buffer_detach(&detached, &bufsize);
    free(attached);
    return mt_finish_and_finalize();
}
