/* Device buffers in the combined and matched receives: MPI_Sendrecv,
 * MPI_Sendrecv_replace, MPI_Isendrecv, MPI_Isendrecv_replace (small, and
 * large enough that both halves take the direct path), MPI_Mprobe +
 * MPI_Mrecv / MPI_Imrecv, and MPI_Ibsend from device memory. */
#include "gpu_test.h"

#define N 2048

int main(int argc, char **argv)
{
    gpu_skip_without_device();
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (me + 1) % size, left = (me + size - 1) % size;
    int *h = malloc(N * sizeof(int)), *sd = gpu_ints(N), *rd = gpu_ints(N);
    MPI_Status st;

    /* sendrecv around the ring; the receive is shorter than the buffer,
     * so the tail of rd keeps its values */
    for (int i = 0; i < N; i++)
        h[i] = me * N + i;
    gpu_put_ints(sd, h, N);
    gpu_set(rd, 0, N * sizeof(int));
    MT_CHECK_MPI(MPI_Sendrecv(sd, N / 2, MPI_INT, right, 1, rd, N, MPI_INT,
                              left, 1, MPI_COMM_WORLD, &st));
    int got = -1;
    MPI_Get_count(&st, MPI_INT, &got);
    MT_CHECK_INT_EQ(got, N / 2);
    gpu_get_ints(h, rd, N);
    gpu_check_iota(h, N / 2, left * N);
    MT_CHECK_INT_EQ(h[N - 1], 0);

    /* sendrecv_replace: sd comes back holding the left neighbor's data */
    MT_CHECK_MPI(MPI_Sendrecv_replace(sd, N, MPI_INT, right, 2, left, 2,
                                      MPI_COMM_WORLD, &st));
    gpu_get_ints(h, sd, N);
    gpu_check_iota(h, N, left * N);

    /* nonblocking: isendrecv (device to device), isendrecv_replace */
    for (int i = 0; i < N; i++)
        h[i] = 7 * me + i;
    gpu_put_ints(sd, h, N);
    MPI_Request req;
    MT_CHECK_MPI(MPI_Isendrecv(sd, N, MPI_INT, right, 3, rd, N, MPI_INT, left,
                               3, MPI_COMM_WORLD, &req));
    MT_CHECK_MPI(MPI_Wait(&req, &st));
    MT_CHECK_INT_EQ(st.MPI_SOURCE, left);
    gpu_get_ints(h, rd, N);
    gpu_check_iota(h, N, 7 * left);
    MT_CHECK_MPI(MPI_Isendrecv_replace(rd, N, MPI_INT, right, 4, left, 4,
                                       MPI_COMM_WORLD, &req));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    gpu_get_ints(h, rd, N);
    gpu_check_iota(h, N, 7 * ((left + size - 1) % size));

    /* a large sendrecv (above the eager limit: both halves direct), and
     * its nonblocking form */
    {
        const int big = 3 << 17; /* 1.5 MiB of ints */
        int *hb = malloc((size_t)big * sizeof(int));
        int *sb = gpu_ints(big), *rb = gpu_ints(big);
        for (int i = 0; i < big; i++)
            hb[i] = 11 * me + i;
        gpu_put_ints(sb, hb, big);
        MT_CHECK_MPI(MPI_Sendrecv(sb, big, MPI_INT, right, 6, rb, big, MPI_INT,
                                  left, 6, MPI_COMM_WORLD, &st));
        gpu_get_ints(hb, rb, big);
        gpu_check_iota(hb, big, 11 * left);
        gpu_set(rb, 0, (size_t)big * sizeof(int));
        MT_CHECK_MPI(MPI_Isendrecv(sb, big, MPI_INT, right, 7, rb, big, MPI_INT,
                                   left, 7, MPI_COMM_WORLD, &req));
        MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        gpu_get_ints(hb, rb, big);
        gpu_check_iota(hb, big, 11 * left);
        GPU_CHECK(cudaFree(sb));
        GPU_CHECK(cudaFree(rb));
        free(hb);
    }

    /* matched receives into device memory */
    for (int i = 0; i < N; i++)
        h[i] = 100 * me + i;
    gpu_put_ints(sd, h, N);
    MT_CHECK_MPI(MPI_Isend(sd, N, MPI_INT, right, 5, MPI_COMM_WORLD, &req));
    MPI_Message msg;
    MT_CHECK_MPI(MPI_Mprobe(left, 5, MPI_COMM_WORLD, &msg, &st));
    MT_CHECK_MPI(MPI_Mrecv(rd, N, MPI_INT, &msg, &st));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    gpu_get_ints(h, rd, N);
    gpu_check_iota(h, N, 100 * left);
    MT_CHECK_MPI(MPI_Isend(sd, N, MPI_INT, right, 6, MPI_COMM_WORLD, &req));
    MPI_Request rreq;
    gpu_set(rd, 0, N * sizeof(int));
    MT_CHECK_MPI(MPI_Mprobe(left, 6, MPI_COMM_WORLD, &msg, &st));
    MT_CHECK_MPI(MPI_Imrecv(rd, N, MPI_INT, &msg, &rreq));
    MT_CHECK_MPI(MPI_Wait(&rreq, &st));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    gpu_get_ints(h, rd, N);
    gpu_check_iota(h, N, 100 * left);

    /* buffered send from device memory into a host attached buffer */
    int bsize = N * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
    char *attached = malloc((size_t)bsize);
    MT_CHECK_MPI(MPI_Buffer_attach(attached, bsize));
    MT_CHECK_MPI(MPI_Ibsend(sd, N, MPI_INT, right, 7, MPI_COMM_WORLD, &req));
    MT_CHECK_MPI(MPI_Recv(h, N, MPI_INT, left, 7, MPI_COMM_WORLD, &st));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    gpu_check_iota(h, N, 100 * left);
    void *old;
    MT_CHECK_MPI(MPI_Buffer_detach(&old, &bsize));
    free(attached);

    /* a device buffer cannot be the attached buffer */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(MPI_Buffer_attach(sd, N * (int)sizeof(int)),
                       MPI_ERR_BUFFER);

    GPU_CHECK(cudaFree(sd));
    GPU_CHECK(cudaFree(rd));
    free(h);
    return mt_finish_and_finalize();
}
