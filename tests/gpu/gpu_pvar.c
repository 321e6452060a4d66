/* The MPI_T performance variables gpu_device_copies and
 * gpu_device_copy_bytes count the copies the GPUs make for MPI calls on
 * device buffers: a ring exchange of N ints from device memory to device
 * memory, within the process or between processes on any path, adds at
 * least one copy and N ints' bytes on some process of the job, and the
 * data arrives. */
#include "gpu_test.h"

#define N 4096

static MPI_T_pvar_handle counter(MPI_T_pvar_session s, const char *name)
{
    int i = -1, count = -1;
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    MT_CHECK_MPI(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &i));
    MT_CHECK_MPI(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count));
    MT_CHECK_INT_EQ(count, 1);
    return h;
}

int main(int argc, char **argv)
{
    gpu_skip_without_device();
    int me, size, provided;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_T_pvar_session s;
    MT_CHECK_MPI(MPI_T_pvar_session_create(&s));
    MPI_T_pvar_handle copies = counter(s, "gpu_device_copies");
    MPI_T_pvar_handle bytes = counter(s, "gpu_device_copy_bytes");
    int *h = malloc(N * sizeof(int)), *sd = gpu_ints(N), *rd = gpu_ints(N);
    for (int i = 0; i < N; i++)
        h[i] = me * N + i;
    gpu_put_ints(sd, h, N);
    gpu_set(rd, 0, N * sizeof(int));
    MPI_Barrier(MPI_COMM_WORLD);
    MT_CHECK_MPI(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    int right = (me + 1) % size, left = (me + size - 1) % size;
    MT_CHECK_MPI(MPI_Sendrecv(sd, N, MPI_INT, right, 1, rd, N, MPI_INT, left,
                              1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD);
    MT_CHECK_MPI(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
    gpu_get_ints(h, rd, N);
    gpu_check_iota(h, N, left * N);
    /* The counters are the process's: summed over the job, each process
     * counted once (its first rank reports). */
    unsigned long long c = 0, b = 0, mine[2] = {0, 0}, all[2] = {0, 0};
    MT_CHECK_MPI(MPI_T_pvar_read(s, copies, &c));
    MT_CHECK_MPI(MPI_T_pvar_read(s, bytes, &b));
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, AMPI_COMM_TYPE_PROCESS, 0,
                        MPI_INFO_NULL, &node);
    int first = 1;
    MPI_Comm_rank(node, &first);
    if (first == 0) {
        mine[0] = c;
        mine[1] = b;
    }
    MPI_Allreduce(mine, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM,
                  MPI_COMM_WORLD);
    MT_CHECK(all[0] >= 1);
    MT_CHECK(all[1] >= (unsigned long long)N * sizeof(int));
    MPI_Comm_free(&node);
    MT_CHECK_MPI(MPI_T_pvar_session_free(&s));
    MT_CHECK_MPI(MPI_T_finalize());
    GPU_CHECK(cudaFree(sd));
    GPU_CHECK(cudaFree(rd));
    free(h);
    return mt_finish_and_finalize();
}
