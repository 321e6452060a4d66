/*
 * threads_openmp: MPI_THREAD_MULTIPLE with OpenMP (libomp).  Inside a
 * parallel region of each rank, thread t of every rank talks to thread t
 * of its partner and runs collectives on a communicator of its own; the
 * threads see the rank's privatized globals; only the master is the main
 * thread; MPI from the master alone (the funneled style) with a barrier
 * after it; omp_set_num_threads and num_threads per rank; a worksharing
 * loop with a reduction; a region serialized by its if clause.
 */
#include "mpitest.h"

#include <omp.h>
#include <stdlib.h>

enum { NT = 3, NMSG = 20, N = 1000 };

static int my_rank_global = -1; /* privatized per rank */

static void exchange(int t, int rank, int partner, MPI_Comm shared,
                     MPI_Comm own)
{
    int out[NMSG], in[NMSG], size, sum = 0, one = t + 1;
    MPI_Request reqs[NMSG];
    MPI_Comm_size(own, &size);
    for (int i = 0; i < NMSG; i++) {
        out[i] = rank * 1000 + t * 100 + i;
        MT_CHECK_MPI(
            MPI_Isend(&out[i], 1, MPI_INT, partner, t, shared, &reqs[i]));
    }
    for (int i = 0; i < NMSG; i++) {
        MT_CHECK_MPI(MPI_Recv(&in[i], 1, MPI_INT, partner, t, shared,
                              MPI_STATUS_IGNORE));
        MT_CHECK_INT_EQ(in[i], partner * 1000 + t * 100 + i);
    }
    MT_CHECK_MPI(MPI_Waitall(NMSG, reqs, MPI_STATUSES_IGNORE));
    MT_CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, own));
    MT_CHECK_INT_EQ(sum, size * (t + 1));
}

int main(int argc, char **argv)
{
    int provided = -1, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MT_CHECK_INT_EQ(provided, MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    my_rank_global = rank;
    int partner = mt_partner(MPI_COMM_WORLD);
    MPI_Comm shared, own[NT];
    MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &shared));
    for (int t = 0; t < NT; t++)
        MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &own[t]));

    int team = 0;
#pragma omp parallel num_threads(NT)
    {
        int t = omp_get_thread_num(), main = -1;
#pragma omp single
        team = omp_get_num_threads();
        MT_CHECK_INT_EQ(my_rank_global, rank);
        MT_CHECK_MPI(MPI_Is_thread_main(&main));
        MT_CHECK_INT_EQ(main, t == 0);
        exchange(t, rank, partner, shared, own[t]);
    }
    MT_CHECK_INT_EQ(team, NT);

    /* Funneled: the master talks while the others wait in a barrier. */
    omp_set_num_threads(2);
    int total = -1;
#pragma omp parallel
    {
#pragma omp single
        team = omp_get_num_threads();
#pragma omp master
        MT_CHECK_MPI(MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM,
                                   MPI_COMM_WORLD));
#pragma omp barrier
        MT_CHECK_INT_EQ(total, size * (size - 1) / 2);
    }
    MT_CHECK_INT_EQ(team, 2);

    /* A worksharing loop over the rank's data, then MPI outside. */
    double *v = malloc(N * sizeof(double)), local = 0, global = 0;
#pragma omp parallel for reduction(+ : local)
    for (int i = 0; i < N; i++) {
        v[i] = rank + i;
        local += v[i];
    }
    MT_CHECK_MPI(
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    MT_CHECK_DBL_EQ(global, (double)N * size * (size - 1) / 2 +
                                (double)size * N * (N - 1) / 2);
    free(v);

    /* Serialized by its if clause: runs on the rank's own thread. */
    int serial = 0;
#pragma omp parallel if (size < 0)
    {
        serial = omp_get_num_threads();
        MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    MT_CHECK_INT_EQ(serial, 1);

    for (int t = 0; t < NT; t++)
        MT_CHECK_MPI(MPI_Comm_free(&own[t]));
    MT_CHECK_MPI(MPI_Comm_free(&shared));
    return mt_finish_and_finalize();
}
