/* Ranks move to another PE while device transfers of theirs are under
 * way: a 3 MiB device receive and send around a ring (the receive posted
 * first, so the GPU copies as soon as the send arrives), a long kernel
 * watched by AMPI_GPU_Iinvoke, then AMPI_Migrate_to_pe, which runs the
 * rank on the new PE at once while its transfers stay with its home PE;
 * every request completes with the right data, and so do the transfers
 * of the next rounds.  Runs within a process and across processes (the
 * moves stay in each process). */
#include "gpu_test.h"

#include "ampi.h"

#include <string.h>

#define N (3 << 18) /* ints: 3 MiB, more than one chunk */

static int pe_attr(int key)
{
    int *v, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, key, &v, &flag);
    MT_CHECK(flag);
    return flag ? *v : 0;
}

static void round_trip(int me, int size, int round, int *h, int *sendd,
                       int *recvd, int *kern, cudaStream_t s)
{
    int right = (me + 1) % size, left = (me + size - 1) % size;
    for (int i = 0; i < N; i++)
        h[i] = me * 7 + round * 1000 + i;
    gpu_put_ints(sendd, h, N);
    gpu_set(recvd, 0, (size_t)N * sizeof(int));
    MPI_Request req[3];
    MT_CHECK_MPI(
        MPI_Irecv(recvd, N, MPI_INT, left, round, MPI_COMM_WORLD, &req[0]));
    MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MT_CHECK_MPI(
        MPI_Isend(sendd, N, MPI_INT, right, round, MPI_COMM_WORLD, &req[1]));
    gpu_iota(kern, 1024, me + round, 50 * 1000 * 1000LL, s); /* ~50 ms */
    GPU_CHECK(cudaGetLastError());
    MT_CHECK_MPI(AMPI_GPU_Iinvoke(s, &req[2]));

    int npes = pe_attr(AMPI_NUM_WTHS), before = pe_attr(AMPI_MY_WTH);
    int target = (before + 1) % npes;
    MT_CHECK_MPI(AMPI_Migrate_to_pe(target));
    MT_CHECK_INT_EQ(pe_attr(AMPI_MY_WTH), target);

    MT_CHECK_MPI(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
    gpu_get_ints(h, recvd, N);
    gpu_check_iota(h, N, left * 7 + round * 1000);
    gpu_get_ints(h, kern, 1024);
    gpu_check_iota(h, 1024, me + round);
}

int main(int argc, char **argv)
{
    gpu_skip_without_device();
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *h = malloc((size_t)N * sizeof(int));
    int *sendd = gpu_ints(N), *recvd = gpu_ints(N), *kern = gpu_ints(1024);
    cudaStream_t s;
    GPU_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int round = 0; round < 3; round++)
        round_trip(me, size, round, h, sendd, recvd, kern, s);
    GPU_CHECK(cudaStreamDestroy(s));
    GPU_CHECK(cudaFree(sendd));
    GPU_CHECK(cudaFree(recvd));
    GPU_CHECK(cudaFree(kern));
    free(h);
    return mt_finish_and_finalize();
}
