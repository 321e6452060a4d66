/* The ordering the runtime promises against the program's own GPU work
 * (docs/gpu.md, "Ordering"): a buffer written on the legacy default stream
 * (a kernel, cudaMemset, a cudaMemcpy from pageable memory) and handed to
 * MPI at once is sent with the new data, and a receive buffer written so
 * just before the receive is posted gets the message, not the earlier
 * write.  Nothing here waits for the device before an MPI call: that is
 * the point.  Each write is queued behind a kernel that spins for a while
 * on the same stream, so a copy that did not wait for it would overtake it
 * every time.  Sizes: staged (below the eager limit), direct in one chunk
 * (400 kB), and past AMP_GPU_CHUNK (3 MiB); device to device, device to host,
 * host to device; in one process and across processes (CUDA IPC, pipelined,
 * staged). */
#include "gpu_test.h"

#include <string.h>

#define MAXN (3 << 18) /* ints: 3 MiB, past AMP_GPU_CHUNK */
#define SPIN_NS (10 * 1000 * 1000LL)

enum { DEV_DEV, DEV_HOST, HOST_DEV };
enum { BY_KERNEL, BY_MEMSET, BY_PAGEABLE };

typedef struct bufs {
    int *sd, *rd, *scratch; /* device */
    int *sh, *rh, *tmp;     /* host (pageable) */
} bufs_t;

/* What rank r sends in test k: ints base(r, k) + i. */
static int base_of(int r, int k)
{
    return 1000000 * (r + 1) + 1000 * k;
}

/* A byte that no other rank or test uses (cudaMemset writes bytes). */
static int byte_of(int r, int k)
{
    return 1 + (r * 37 + k * 11) % 250;
}

/* Queues on the legacy default stream a kernel that spins and then fills
 * scratch: whatever is queued after it waits that long. */
static void hold_stream(bufs_t *b)
{
    gpu_iota(b->scratch, 1024, 0, SPIN_NS, 0);
    GPU_CHECK(cudaGetLastError());
}

/* The send data of test k, written the way `by` says and not waited for;
 * on the host when the send buffer is host memory. */
static void write_send(bufs_t *b, int kind, int by, int me, int k, int n)
{
    int base = base_of(me, k);
    if (kind == HOST_DEV) {
        for (int i = 0; i < n; i++)
            b->sh[i] = base + i;
        return;
    }
    if (by == BY_KERNEL) {
        gpu_iota(b->sd, n, base, SPIN_NS, 0);
        GPU_CHECK(cudaGetLastError());
    } else if (by == BY_MEMSET) {
        hold_stream(b);
        GPU_CHECK(cudaMemset(b->sd, byte_of(me, k), (size_t)n * sizeof(int)));
    } else {
        for (int i = 0; i < n; i++)
            b->tmp[i] = base + i;
        hold_stream(b);
        GPU_CHECK(cudaMemcpy(b->sd, b->tmp, (size_t)n * sizeof(int),
                             cudaMemcpyHostToDevice));
    }
}

/* Writes over the receive buffer on the legacy default stream, behind a
 * spinning kernel, and does not wait: a receive that overtook it would be
 * overwritten. */
static void spoil_recv(bufs_t *b, int kind, int n)
{
    if (kind == DEV_HOST) {
        memset(b->rh, 0x5a, (size_t)n * sizeof(int));
        return;
    }
    hold_stream(b);
    GPU_CHECK(cudaMemset(b->rd, 0x5a, (size_t)n * sizeof(int)));
}

/* The received data is left's data of test k. */
static void check_recv(bufs_t *b, int kind, int by, int left, int k, int n)
{
    int *h = b->rh;
    if (kind != DEV_HOST) {
        GPU_CHECK(cudaMemcpy(b->tmp, b->rd, (size_t)n * sizeof(int),
                             cudaMemcpyDeviceToHost));
        h = b->tmp;
    }
    if (kind == HOST_DEV || by != BY_MEMSET) {
        gpu_check_iota(h, n, base_of(left, k));
        return;
    }
    const unsigned char *c = (const unsigned char *)h;
    for (size_t i = 0; i < (size_t)n * sizeof(int); i++)
        if (!MT_CHECK_INT_EQ(c[i], byte_of(left, k)))
            break;
}

static void one(bufs_t *b, int me, int size, int kind, int by, int k, int n)
{
    int right = (me + 1) % size, left = (me + size - 1) % size;
    void *s = kind == HOST_DEV ? (void *)b->sh : (void *)b->sd;
    void *r = kind == DEV_HOST ? (void *)b->rh : (void *)b->rd;
    spoil_recv(b, kind, n);
    MPI_Request req[2];
    MT_CHECK_MPI(MPI_Irecv(r, n, MPI_INT, left, k, MPI_COMM_WORLD, &req[0]));
    write_send(b, kind, by, me, k, n);
    MT_CHECK_MPI(MPI_Isend(s, n, MPI_INT, right, k, MPI_COMM_WORLD, &req[1]));
    MT_CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    check_recv(b, kind, by, left, k, n);
    /* the next test starts from a quiet device (its own answer only) */
    gpu_sync();
    MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    gpu_skip_without_device();
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bufs_t b = {.sd = gpu_ints(MAXN),
                .rd = gpu_ints(MAXN),
                .scratch = gpu_ints(1024),
                .sh = malloc(MAXN * sizeof(int)),
                .rh = malloc(MAXN * sizeof(int)),
                .tmp = malloc(MAXN * sizeof(int))};
    const int sizes[] = {1000, 100000, MAXN};
    int k = 0;
    for (int i = 0; i < 3; i++) {
        for (int by = BY_KERNEL; by <= BY_PAGEABLE; by++)
            one(&b, me, size, DEV_DEV, by, k++, sizes[i]);
        one(&b, me, size, DEV_HOST, BY_KERNEL, k++, sizes[i]);
        one(&b, me, size, HOST_DEV, BY_KERNEL, k++, sizes[i]);
    }
    GPU_CHECK(cudaFree(b.sd));
    GPU_CHECK(cudaFree(b.rd));
    GPU_CHECK(cudaFree(b.scratch));
    free(b.sh);
    free(b.rh);
    free(b.tmp);
    return mt_finish_and_finalize();
}
