/* Collectives on device buffers, staged through host copies: gather,
 * scatter, allgather, alltoall, alltoallv, gatherv with gaps, scan,
 * exscan, reduce_scatter_block, reduce_local, and nonblocking ones
 * (iallreduce, ialltoall, ibcast) whose data is back on the device when
 * the request completes. */
#include "gpu_test.h"

#define K 64 /* ints per rank */

int main(int argc, char **argv)
{
    gpu_skip_without_device();
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = K * size, root = size - 1;
    int *h = malloc((size_t)2 * n * sizeof(int));
    int *sd = gpu_ints(n), *rd = gpu_ints(2 * n);

    /* gather: block r of the root's rd is rank r's K ints */
    for (int i = 0; i < K; i++)
        h[i] = me * K + i;
    gpu_put_ints(sd, h, K);
    MT_CHECK_MPI(
        MPI_Gather(sd, K, MPI_INT, rd, K, MPI_INT, root, MPI_COMM_WORLD));
    if (me == root) {
        gpu_get_ints(h, rd, n);
        gpu_check_iota(h, n, 0);
    }
    /* scatter back from the root's rd */
    gpu_set(sd, 0, K * sizeof(int));
    MT_CHECK_MPI(
        MPI_Scatter(rd, K, MPI_INT, sd, K, MPI_INT, root, MPI_COMM_WORLD));
    gpu_get_ints(h, sd, K);
    gpu_check_iota(h, K, me * K);
    /* allgather, in place too */
    MT_CHECK_MPI(MPI_Allgather(sd, K, MPI_INT, rd, K, MPI_INT, MPI_COMM_WORLD));
    gpu_get_ints(h, rd, n);
    gpu_check_iota(h, n, 0);
    MT_CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rd, K,
                               MPI_INT, MPI_COMM_WORLD));
    gpu_get_ints(h, rd, n);
    gpu_check_iota(h, n, 0);

    /* gatherv into every other block: the gaps keep their values */
    int *counts = malloc(size * sizeof(int)),
        *displs = malloc(size * sizeof(int));
    for (int r = 0; r < size; r++) {
        counts[r] = K;
        displs[r] = 2 * r * K;
    }
    for (int i = 0; i < 2 * n; i++)
        h[i] = -1;
    gpu_put_ints(rd, h, 2 * n);
    MT_CHECK_MPI(MPI_Gatherv(sd, K, MPI_INT, rd, counts, displs, MPI_INT, root,
                             MPI_COMM_WORLD));
    if (me == root) {
        gpu_get_ints(h, rd, 2 * n);
        for (int r = 0; r < size; r++) {
            gpu_check_iota(h + 2 * r * K, K, r * K);
            MT_CHECK_INT_EQ(h[2 * r * K + K], -1);
        }
    }

    /* alltoall: rank r sends block j (values r * n + j * K + i) to j */
    for (int i = 0; i < n; i++)
        h[i] = me * n + i;
    gpu_put_ints(sd, h, n);
    MT_CHECK_MPI(MPI_Alltoall(sd, K, MPI_INT, rd, K, MPI_INT, MPI_COMM_WORLD));
    gpu_get_ints(h, rd, n);
    for (int r = 0; r < size; r++)
        gpu_check_iota(h + r * K, K, r * n + me * K);
    /* alltoallv with the same layout */
    for (int r = 0; r < size; r++)
        displs[r] = r * K;
    MT_CHECK_MPI(MPI_Alltoallv(sd, counts, displs, MPI_INT, rd, counts, displs,
                               MPI_INT, MPI_COMM_WORLD));
    gpu_get_ints(h, rd, n);
    for (int r = 0; r < size; r++)
        gpu_check_iota(h + r * K, K, r * n + me * K);

    /* scan, exscan (rank 0's recvbuf is left alone), reduce_scatter_block */
    for (int i = 0; i < K; i++)
        h[i] = 1;
    gpu_put_ints(sd, h, K);
    MT_CHECK_MPI(MPI_Scan(sd, rd, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    gpu_get_ints(h, rd, K);
    MT_CHECK_INT_EQ(h[K - 1], me + 1);
    gpu_set(rd, 0, K * sizeof(int));
    MT_CHECK_MPI(MPI_Exscan(sd, rd, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    gpu_get_ints(h, rd, K);
    MT_CHECK_INT_EQ(h[0], me);
    for (int i = 0; i < n; i++)
        h[i] = i;
    gpu_put_ints(sd, h, n);
    MT_CHECK_MPI(
        MPI_Reduce_scatter_block(sd, rd, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    gpu_get_ints(h, rd, K);
    for (int i = 0; i < K; i++)
        if (!MT_CHECK_INT_EQ(h[i], size * (me * K + i)))
            break;
    /* reduce_local: rd += sd */
    MT_CHECK_MPI(MPI_Reduce_local(sd, rd, K, MPI_INT, MPI_SUM));
    gpu_get_ints(h, rd, K);
    MT_CHECK_INT_EQ(h[1], size * (me * K + 1) + 1);

    /* nonblocking: the data is on the device once the request is done */
    for (int i = 0; i < n; i++)
        h[i] = me + i;
    gpu_put_ints(sd, h, n);
    MPI_Request req[3];
    MT_CHECK_MPI(
        MPI_Iallreduce(sd, rd, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]));
    MT_CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    gpu_get_ints(h, rd, n);
    for (int i = 0; i < n; i++)
        if (!MT_CHECK_INT_EQ(h[i], size * i + size * (size - 1) / 2))
            break;
    int *bd = gpu_ints(K), *ad = gpu_ints(n);
    for (int i = 0; i < K; i++)
        h[i] = me == 0 ? 5 * i : 0;
    gpu_put_ints(bd, h, K);
    for (int i = 0; i < n; i++)
        h[i] = me * n + i;
    gpu_put_ints(sd, h, n);
    MT_CHECK_MPI(MPI_Ibcast(bd, K, MPI_INT, 0, MPI_COMM_WORLD, &req[0]));
    MT_CHECK_MPI(
        MPI_Ialltoall(sd, K, MPI_INT, ad, K, MPI_INT, MPI_COMM_WORLD, &req[1]));
    MT_CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, rd, n, MPI_INT, MPI_MAX,
                                MPI_COMM_WORLD, &req[2]));
    MT_CHECK_MPI(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
    gpu_get_ints(h, bd, K);
    for (int i = 0; i < K; i++)
        if (!MT_CHECK_INT_EQ(h[i], 5 * i))
            break;
    gpu_get_ints(h, ad, n);
    for (int r = 0; r < size; r++)
        gpu_check_iota(h + r * K, K, r * n + me * K);
    gpu_get_ints(h, rd, n);
    MT_CHECK_INT_EQ(h[n - 1], size * (n - 1) + size * (size - 1) / 2);

    GPU_CHECK(cudaFree(sd));
    GPU_CHECK(cudaFree(rd));
    GPU_CHECK(cudaFree(bd));
    GPU_CHECK(cudaFree(ad));
    free(counts);
    free(displs);
    free(h);
    return mt_finish_and_finalize();
}
