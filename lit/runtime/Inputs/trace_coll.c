/* Blocking collectives for trace-otf2-print.test and
 * trace-two-processes.test: 4 ranks, on MPI_COMM_WORLD and on halves that
 * number their members backwards (world ranks 2, 0 and 3, 1), with roots
 * and sizes that tell the calls apart.  Each checks its result. */
#include <mpi.h>
#include <stdio.h>

static int check_world(int w, int *errs)
{
    double d[2] = {w, 1}, dsum[2] = {0, 0};
    MPI_Reduce(d, dsum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    *errs += w == 0 && (dsum[0] != 6 || dsum[1] != 4);
    int g[3] = {w, w, w}, all[12];
    MPI_Gather(g, 3, MPI_INT, all, 3, MPI_INT, 2, MPI_COMM_WORLD);
    *errs += w == 2 && (all[0] != 0 || all[11] != 3);
    int counts[4] = {1, 2, 3, 4}, displs[4] = {0, 1, 3, 6}, v[10], mine[4];
    for (int i = 0; i < 10; i++)
        v[i] = i;
    MPI_Scatterv(v, counts, displs, MPI_INT, mine, w + 1, MPI_INT, 0,
                 MPI_COMM_WORLD);
    *errs += mine[0] != displs[w];
    int one = w, four[4];
    MPI_Allgather(&one, 1, MPI_INT, four, 1, MPI_INT, MPI_COMM_WORLD);
    *errs += four[3] != 3;
    int out[8], in[8];
    for (int i = 0; i < 8; i++)
        out[i] = w;
    MPI_Alltoall(out, 2, MPI_INT, in, 2, MPI_INT, MPI_COMM_WORLD);
    *errs += in[7] != 3;
    int blk[4] = {1, 1, 1, 1}, got = 0;
    MPI_Reduce_scatter_block(blk, &got, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    *errs += got != 4;
    return 0;
}

int main(int argc, char **argv)
{
    int w, errs = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &w);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, w % 2, -w, &half);
    int b[8] = {0};
    if (w < 2) /* half rank 1: world ranks 0 and 1 */
        for (int i = 0; i < 8; i++)
            b[i] = 10 + w;
    MPI_Bcast(b, 8, MPI_INT, 1, half);
    errs += b[7] != 10 + w % 2;
    MPI_Barrier(half);
    check_world(w, &errs);
    long e = errs;
    MPI_Allreduce(MPI_IN_PLACE, &e, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (w == 0 && e == 0)
        printf(" No Errors\n");
    MPI_Comm_free(&half);
    MPI_Finalize();
    return e != 0;
}
