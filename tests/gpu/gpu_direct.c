/* Point-to-point on device buffers between ranks of one process, the path
 * that moves them with the GPU (docs/gpu.md, "direct"): device to device,
 * device to host, host to device, host layouts with gaps, sizes from 0
 * past the chunk size, blocking, nonblocking and synchronous sends, a
 * wildcard source, truncation, and a cancelled receive.  Across processes
 * the same calls go through CUDA IPC (gpu.gpu_direct.auto.np2..., one
 * node) and the pipelined staging (gpu.gpu_direct.pipelined.np2...), and
 * with AMPI_GPU_PATH=staged (the .staged tests) everything is staged: the
 * answers must not change. */
#include "gpu_test.h"

#include <string.h>

#define MAXB                                                                   \
    ((size_t)3 << 20) /* past AMP_GPU_CHUNK (1 MiB), not a multiple            \
                       */
#define GUARD 64

enum { HOST, DEV };

typedef struct bufs {
    char *dev[2]; /* send, receive: MAXB + GUARD device bytes each */
    char *host[2];
    char *tmp; /* MAXB + GUARD host bytes */
} bufs_t;

static char *buf_of(bufs_t *b, int kind, int which)
{
    return kind == DEV ? b->dev[which] : b->host[which];
}

/* Fills the send buffer of kind with bytes of the pattern seed. */
static void fill_send(bufs_t *b, int kind, size_t bytes, unsigned seed)
{
    mt_fill(b->tmp, bytes, seed);
    if (kind == DEV)
        gpu_put(b->dev[0], b->tmp, bytes);
    else
        memcpy(b->host[0], b->tmp, bytes);
}

/* The receive buffer of kind: 0xee everywhere. */
static void clear_recv(bufs_t *b, int kind)
{
    if (kind == DEV)
        gpu_set(b->dev[1], 0xee, MAXB + GUARD);
    else
        memset(b->host[1], 0xee, MAXB + GUARD);
}

/* The receive buffer holds bytes of seed and nothing past them changed. */
static void check_recv(bufs_t *b, int kind, size_t bytes, unsigned seed,
                       const char *what)
{
    const char *h = b->host[1];
    if (kind == DEV) {
        GPU_CHECK(cudaMemcpy(b->tmp, b->dev[1], bytes + GUARD,
                             cudaMemcpyDeviceToHost));
        h = b->tmp;
    }
    if (!mt_check_pattern(h, bytes, seed, what, __FILE__, __LINE__))
        return;
    for (size_t i = bytes; i < bytes + GUARD; i++)
        if (!MT_CHECK_INT_EQ((unsigned char)h[i], 0xee))
            break;
}

enum { NONBLOCKING, BLOCKING, SYNC, ANY_SOURCE };

/* One ring step: bytes from a buffer of skind to the right, into one of
 * rkind from the left, the way op says. */
static void ring(bufs_t *b, int me, int size, int skind, int rkind,
                 size_t bytes, int op)
{
    int right = (me + 1) % size, left = (me + size - 1) % size;
    int n = (int)bytes, tag = 10 + op;
    fill_send(b, skind, bytes, (unsigned)(me * 7 + n));
    clear_recv(b, rkind);
    char *s = buf_of(b, skind, 0), *r = buf_of(b, rkind, 1);
    MPI_Status st;
    if (op == BLOCKING || op == SYNC) {
        int (*send)(const void *, int, MPI_Datatype, int, int, MPI_Comm) =
            op == SYNC ? MPI_Ssend : MPI_Send;
        if (me % 2 == 0) {
            MT_CHECK_MPI(send(s, n, MPI_BYTE, right, tag, MPI_COMM_WORLD));
            MT_CHECK_MPI(
                MPI_Recv(r, n, MPI_BYTE, left, tag, MPI_COMM_WORLD, &st));
        } else {
            MT_CHECK_MPI(
                MPI_Recv(r, n, MPI_BYTE, left, tag, MPI_COMM_WORLD, &st));
            MT_CHECK_MPI(send(s, n, MPI_BYTE, right, tag, MPI_COMM_WORLD));
        }
    } else {
        MPI_Request req[2];
        MPI_Status sts[2];
        int src = op == ANY_SOURCE ? MPI_ANY_SOURCE : left;
        MT_CHECK_MPI(
            MPI_Irecv(r, n, MPI_BYTE, src, tag, MPI_COMM_WORLD, &req[0]));
        MT_CHECK_MPI(
            MPI_Isend(s, n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &req[1]));
        MT_CHECK_MPI(MPI_Waitall(2, req, sts));
        st = sts[0];
    }
    int count = -1;
    MT_CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
    MT_CHECK_INT_EQ(count, n);
    MT_CHECK_INT_EQ(st.MPI_SOURCE, left);
    check_recv(b, rkind, bytes, (unsigned)(left * 7 + n), "ring");
}

/* Device data into a host layout with gaps, and host data with gaps into
 * a device buffer: n ints, every other int of the host buffer. */
static void strided(bufs_t *b, int me, int size, int n)
{
    int right = (me + 1) % size, left = (me + size - 1) % size;
    MPI_Datatype every_other;
    MT_CHECK_MPI(MPI_Type_vector(n, 1, 2, MPI_INT, &every_other));
    MT_CHECK_MPI(MPI_Type_commit(&every_other));
    int *h = (int *)b->host[0], *hr = (int *)b->host[1], *t = (int *)b->tmp;
    /* device (contiguous) -> host (strided) */
    for (int i = 0; i < n; i++)
        t[i] = me * 1000000 + i;
    gpu_put(b->dev[0], t, (size_t)n * sizeof(int));
    for (int i = 0; i < 2 * n; i++)
        hr[i] = -1;
    MPI_Request req[2];
    MT_CHECK_MPI(
        MPI_Irecv(hr, 1, every_other, left, 30, MPI_COMM_WORLD, &req[0]));
    MT_CHECK_MPI(
        MPI_Isend(b->dev[0], n, MPI_INT, right, 30, MPI_COMM_WORLD, &req[1]));
    MT_CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 2 * n; i++)
        if (!MT_CHECK_INT_EQ(hr[i], i % 2 ? -1 : left * 1000000 + i / 2))
            break;
    /* host (strided) -> device (contiguous) */
    for (int i = 0; i < 2 * n; i++)
        h[i] = i % 2 ? -7 : me * 1000000 + i / 2 + 3;
    gpu_set(b->dev[1], 0, (size_t)n * sizeof(int));
    MT_CHECK_MPI(
        MPI_Irecv(b->dev[1], n, MPI_INT, left, 31, MPI_COMM_WORLD, &req[0]));
    MT_CHECK_MPI(
        MPI_Isend(h, 1, every_other, right, 31, MPI_COMM_WORLD, &req[1]));
    MT_CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    GPU_CHECK(cudaMemcpy(t, b->dev[1], (size_t)n * sizeof(int),
                         cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        if (!MT_CHECK_INT_EQ(t[i], left * 1000000 + i + 3))
            break;
    MT_CHECK_MPI(MPI_Type_free(&every_other));
}

/* A message longer than the device receive buffer: MPI_ERR_TRUNCATE, and
 * the bytes that fit arrive. */
static void truncated(bufs_t *b, int me, int size, size_t bytes)
{
    int right = (me + 1) % size, left = (me + size - 1) % size;
    int n = (int)bytes;
    fill_send(b, DEV, bytes, 99u + (unsigned)me);
    clear_recv(b, DEV);
    MPI_Request sreq;
    MT_CHECK_MPI(
        MPI_Isend(b->dev[0], n, MPI_BYTE, right, 40, MPI_COMM_WORLD, &sreq));
    MT_CHECK_ERR_CLASS(MPI_Recv(b->dev[1], n / 2, MPI_BYTE, left, 40,
                                MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                       MPI_ERR_TRUNCATE);
    MT_CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    check_recv(b, DEV, (size_t)n / 2, 99u + (unsigned)left, "truncated");
}

/* A receive into device memory that nothing matches is cancelled (direct
 * or staged): it completes as cancelled and the buffer keeps its bytes. */
static void cancelled(bufs_t *b, size_t bytes)
{
    clear_recv(b, DEV);
    MPI_Request req;
    MPI_Status st;
    int flag = 0;
    MT_CHECK_MPI(MPI_Irecv(b->dev[1], (int)bytes, MPI_BYTE, MPI_ANY_SOURCE, 41,
                           MPI_COMM_WORLD, &req));
    MT_CHECK_MPI(MPI_Cancel(&req));
    MT_CHECK_MPI(MPI_Wait(&req, &st));
    MT_CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    MT_CHECK_INT_EQ(flag, 1);
    GPU_CHECK(cudaMemcpy(b->tmp, b->dev[1], bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < bytes; i++)
        if ((unsigned char)b->tmp[i] != 0xee) {
            MT_CHECK_INT_EQ((unsigned char)b->tmp[i], 0xee);
            break;
        }
}

int main(int argc, char **argv)
{
    gpu_skip_without_device();
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    bufs_t b;
    for (int i = 0; i < 2; i++) {
        GPU_CHECK(cudaMalloc((void **)&b.dev[i], MAXB + GUARD));
        b.host[i] = malloc(MAXB + GUARD);
    }
    b.tmp = malloc(MAXB + GUARD);
    const size_t sizes[] = {0, 8, 4000, 100000, MAXB};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(*sizes); k++)
        for (int op = NONBLOCKING; op <= ANY_SOURCE; op++)
            for (int skind = HOST; skind <= DEV; skind++)
                for (int rkind = HOST; rkind <= DEV; rkind++)
                    if ((skind == DEV || rkind == DEV) &&
                        (size > 1 || op == NONBLOCKING || op == ANY_SOURCE))
                        ring(&b, me, size, skind, rkind, sizes[k], op);
    strided(&b, me, size, 1000);
    strided(&b, me, size, 300000); /* 1.2 MB: more than one chunk */
    truncated(&b, me, size, 200000);
    cancelled(&b, 16);
    cancelled(&b, 200000);
    for (int i = 0; i < 2; i++) {
        GPU_CHECK(cudaFree(b.dev[i]));
        free(b.host[i]);
    }
    free(b.tmp);
    return mt_finish_and_finalize();
}
