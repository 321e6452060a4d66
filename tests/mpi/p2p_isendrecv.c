/*
 * p2p_isendrecv: MPI-4 MPI_Isendrecv and MPI_Isendrecv_replace around a
 * ring: the data, the status (source, tag, count) after MPI_Wait and after
 * an MPI_Test loop, a strided send type landing as contiguous ints,
 * MPI_PROC_NULL on either side, and argument errors (MPI_ERR_RANK,
 * MPI_ERR_TAG, MPI_ERR_ARG for a NULL request).
 */
#include "mpitest.h"

#include <stdlib.h>

#define N 1000 /* over the eager limit with doubles: rendezvous too */

static void ring(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double *out = malloc(N * sizeof(double)), *in = malloc(N * sizeof(double));
    for (int n = 1; n <= N; n *= 10) {
        for (int i = 0; i < n; i++) {
            out[i] = rank * 10000.0 + i;
            in[i] = -1;
        }
        MPI_Request req;
        MPI_Status st;
        MT_CHECK_MPI(MPI_Isendrecv(out, n, MPI_DOUBLE, right, 3, in, n,
                                   MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &req));
        MT_CHECK_MPI(MPI_Wait(&req, &st));
        MT_CHECK(req == MPI_REQUEST_NULL);
        MT_CHECK_INT_EQ(st.MPI_SOURCE, left);
        MT_CHECK_INT_EQ(st.MPI_TAG, 3);
        int count;
        MT_CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &count));
        MT_CHECK_INT_EQ(count, n);
        for (int i = 0; i < n; i++)
            MT_CHECK_DBL_EQ(in[i], left * 10000.0 + i);
    }
    free(out);
    free(in);
}

static void replace(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *buf = malloc(N * sizeof(int));
    for (int i = 0; i < N; i++)
        buf[i] = rank * 100000 + i;
    MPI_Request req;
    MPI_Status st;
    MT_CHECK_MPI(MPI_Isendrecv_replace(buf, N, MPI_INT, right, 5, left, 5,
                                       MPI_COMM_WORLD, &req));
    int flag = 0;
    while (!flag)
        MT_CHECK_MPI(MPI_Test(&req, &flag, &st));
    MT_CHECK_INT_EQ(st.MPI_SOURCE, left);
    MT_CHECK_INT_EQ(st.MPI_TAG, 5);
    for (int i = 0; i < N; i++)
        MT_CHECK_INT_EQ(buf[i], left * 100000 + i);
    free(buf);
}

static void strided(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int a[30], b[10];
    for (int i = 0; i < 30; i++)
        a[i] = rank * 100 + i;
    MPI_Datatype v;
    MT_CHECK_MPI(MPI_Type_vector(10, 1, 3, MPI_INT, &v));
    MT_CHECK_MPI(MPI_Type_commit(&v));
    MPI_Request req;
    MT_CHECK_MPI(MPI_Isendrecv(a, 1, v, right, 9, b, 10, MPI_INT, left, 9,
                               MPI_COMM_WORLD, &req));
    MT_CHECK_MPI(MPI_Type_free(&v)); /* pending use keeps it working */
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < 10; i++)
        MT_CHECK_INT_EQ(b[i], left * 100 + 3 * i);
}

static void proc_null(void)
{
    int x = 1, y = 7;
    MPI_Request req;
    MPI_Status st;
    MT_CHECK_MPI(MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT,
                               MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req));
    MT_CHECK_MPI(MPI_Wait(&req, &st));
    MT_CHECK_INT_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
    MT_CHECK_INT_EQ(y, 7);
    MT_CHECK_MPI(MPI_Isendrecv_replace(&y, 1, MPI_INT, MPI_PROC_NULL, 0,
                                       MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req));
    MT_CHECK_MPI(MPI_Wait(&req, &st));
    MT_CHECK_INT_EQ(y, 7);
}

static void errors(int size)
{
    int x = 0, y;
    MPI_Request req;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(MPI_Isendrecv(&x, 1, MPI_INT, size, 0, &y, 1, MPI_INT, 0,
                                     0, MPI_COMM_WORLD, &req),
                       MPI_ERR_RANK);
    MT_CHECK_ERR_CLASS(MPI_Isendrecv(&x, 1, MPI_INT, 0, -5, &y, 1, MPI_INT, 0,
                                     0, MPI_COMM_WORLD, &req),
                       MPI_ERR_TAG);
    MT_CHECK_ERR_CLASS(MPI_Isendrecv(&x, 1, MPI_INT, 0, 0, &y, 1, MPI_INT, 0, 0,
                                     MPI_COMM_WORLD, NULL),
                       MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Isendrecv_replace(&x, 1, MPI_INT, 0, 0, -3, 0,
                                             MPI_COMM_WORLD, &req),
                       MPI_ERR_RANK);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ring(rank, size);
    replace(rank, size);
    strided(rank, size);
    proc_null();
    errors(size);
    return mt_finish_and_finalize();
}
