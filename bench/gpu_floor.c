/*
 * The floor under the device-buffer ping-pong (bench/gpu_pingpong.c): the
 * same exchange done with bare CUDA, no MPI and no runtime, so that
 * bench/run_gpu.sh can print each path's latency over it.
 *
 *   gpu_floor one    one process: two device buffers, each one-way trip is
 *                    one cudaMemcpyAsync device to device on a stream,
 *                    waited for by polling cudaStreamQuery
 *   gpu_floor two    two processes (forked before CUDA starts) on the same
 *                    device: each maps the other's buffer (CUDA IPC) and
 *                    they take turns copying theirs into the other's,
 *                    handing the turn over through shared memory; the GPU
 *                    switches between the two processes' contexts at every
 *                    trip, as it does for the runtime's processes
 *
 *   gpu_floor check  both, on sizes up to 1 MiB with few trips and no
 *                    output but " No Errors" (the ctest gpu.gpu_floor)
 *
 * Output (the format of gpu_pingpong): a header line, then one line per
 * size, one-way latency in microseconds:
 *   size=8 lat_us=... bw_MBps=... iters=...
 * Every run checks at the end that the bytes went around (each buffer holds
 * what the first one started with) and fails otherwise.  Exits 77 with
 * "SKIP: no CUDA device (...)" without a device.
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_BYTES ((size_t)1 << 24)

/* How much a run measures. */
typedef struct plan {
    size_t max; /* the largest message */
    int few;    /* check: a few trips per size, no output */
} plan_t;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* What the two processes share. */
typedef struct shared {
    cudaIpcMemHandle_t handle[2];
    _Atomic int ready;  /* processes that published their handle */
    _Atomic long turn;  /* trips made so far; even: process 0 copies */
    _Atomic int failed; /* a process hit an error: the other stops */
} shared_t;

static shared_t *two; /* gpu_floor two: the shared page */

static void die(const char *what, cudaError_t e)
{
    fprintf(stderr, "gpu_floor: %s: %s\n", what, cudaGetErrorString(e));
    if (two)
        atomic_store(&two->failed, 1);
    exit(1);
}

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess)
        die(what, e);
}

/* Waits for s by polling, as the runtime's scheduler polls its events. */
static void spin_on(cudaStream_t s)
{
    cudaError_t e;
    while ((e = cudaStreamQuery(s)) == cudaErrorNotReady)
        ;
    check(e, "cudaStreamQuery");
}

static int iters_for(const plan_t *pl, size_t bytes)
{
    if (pl->few)
        return 10;
    return bytes <= 65536 ? 1000 : 50;
}

static void report(const plan_t *pl, size_t bytes, double one_way, int iters)
{
    if (pl->few)
        return;
    printf("size=%zu lat_us=%.3f bw_MBps=%.1f iters=%d\n", bytes, one_way * 1e6,
           (double)bytes / one_way / 1e6, iters);
    fflush(stdout);
}

/* The first max bytes of device buffer d are all byte (what went around);
 * exits 1 otherwise. */
static void verify(const char *d, size_t max, int byte, const char *what)
{
    unsigned char *h = malloc(max);
    if (!h) {
        fprintf(stderr, "gpu_floor: out of memory\n");
        exit(1);
    }
    check(cudaMemcpy(h, d, max, cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (size_t i = 0; i < max; i++)
        if (h[i] != byte) {
            fprintf(stderr,
                    "gpu_floor: %s: byte %zu is %d, not %d: the copies did "
                    "not move the data\n",
                    what, i, h[i], byte);
            if (two)
                atomic_store(&two->failed, 1);
            exit(1);
        }
    free(h);
}

static void run_one(const plan_t *pl)
{
    char *a = NULL, *b = NULL;
    cudaStream_t s;
    check(cudaMalloc((void **)&a, MAX_BYTES), "cudaMalloc");
    check(cudaMalloc((void **)&b, MAX_BYTES), "cudaMalloc");
    check(cudaMemset(a, 1, MAX_BYTES), "cudaMemset");
    check(cudaMemset(b, 2, MAX_BYTES), "cudaMemset");
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking),
          "cudaStreamCreate");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    if (!pl->few)
        printf("# bare cudaMemcpyAsync ping-pong, one process\n");
    size_t moved = 0;
    for (size_t bytes = 8; bytes <= pl->max; moved = bytes, bytes *= 4) {
        int iters = iters_for(pl, bytes);
        for (int warm = 1; warm >= 0; warm--) {
            int reps = warm ? iters / 10 + 1 : iters;
            double t0 = now_s();
            for (int i = 0; i < reps; i++) {
                check(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s),
                      "cudaMemcpyAsync");
                spin_on(s);
                check(cudaMemcpyAsync(a, b, bytes, cudaMemcpyDeviceToDevice, s),
                      "cudaMemcpyAsync");
                spin_on(s);
            }
            if (!warm)
                report(pl, bytes, (now_s() - t0) / reps / 2, iters);
        }
    }
    /* a's ones went to b and back, for every size up to the largest */
    verify(a, moved, 1, "one process");
    verify(b, moved, 1, "one process");
    cudaFree(a);
    cudaFree(b);
}

static void wait_turn(shared_t *sh, long want)
{
    while (atomic_load(&sh->turn) != want)
        if (atomic_load(&sh->failed))
            exit(1);
}

/* Process me's side of the ping-pong of process 0 and 1. */
static void run_two_side(shared_t *sh, int me, const plan_t *pl)
{
    char *mine = NULL, *theirs = NULL;
    cudaStream_t s;
    check(cudaMalloc((void **)&mine, MAX_BYTES), "cudaMalloc");
    check(cudaMemset(mine, me + 1, MAX_BYTES), "cudaMemset");
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking),
          "cudaStreamCreate");
    check(cudaIpcGetMemHandle(&sh->handle[me], mine), "cudaIpcGetMemHandle");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    atomic_fetch_add(&sh->ready, 1);
    while (atomic_load(&sh->ready) < 2)
        if (atomic_load(&sh->failed))
            exit(1);
    check(cudaIpcOpenMemHandle((void **)&theirs, sh->handle[1 - me],
                               cudaIpcMemLazyEnablePeerAccess),
          "cudaIpcOpenMemHandle");
    if (me == 0 && !pl->few)
        printf("# bare cudaMemcpyAsync ping-pong, two processes (CUDA IPC)\n");
    long trip = 0;
    size_t moved = 0;
    for (size_t bytes = 8; bytes <= pl->max; moved = bytes, bytes *= 4) {
        int iters = iters_for(pl, bytes);
        for (int warm = 1; warm >= 0; warm--) {
            int reps = warm ? iters / 10 + 1 : iters;
            double t0 = now_s();
            for (int i = 0; i < 2 * reps; i++, trip++) {
                if (trip % 2 != me)
                    continue;
                wait_turn(sh, trip);
                check(cudaMemcpyAsync(theirs, mine, bytes,
                                      cudaMemcpyDeviceToDevice, s),
                      "cudaMemcpyAsync");
                spin_on(s);
                atomic_store(&sh->turn, trip + 1);
            }
            wait_turn(sh, trip);
            if (me == 0 && !warm)
                report(pl, bytes, (now_s() - t0) / reps / 2, iters);
        }
    }
    /* process 0's ones went around: both buffers hold them */
    verify(mine, moved, 1, me ? "process 1 of two" : "process 0 of two");
    check(cudaIpcCloseMemHandle(theirs), "cudaIpcCloseMemHandle");
    cudaFree(mine);
}

/* Whether there is a device, asked in a child process: CUDA must not
 * have started in a process that forks the two.  77 without one. */
static int probe(void)
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        int n = 0;
        cudaError_t e = cudaGetDeviceCount(&n);
        if (e != cudaSuccess || n == 0) {
            printf("SKIP: no CUDA device (%s)\n",
                   e != cudaSuccess ? cudaGetErrorString(e) : "none found");
            fflush(stdout);
            _exit(77);
        }
        _exit(0);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status))
        return 1;
    return WEXITSTATUS(status);
}

static int run_two(const plan_t *pl)
{
    int rc = probe();
    if (rc != 0)
        return rc;
    shared_t *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("gpu_floor: mmap");
        return 1;
    }
    memset(sh, 0, sizeof(*sh));
    two = sh;
    fflush(stdout);
    pid_t child = fork(); /* before either process touches CUDA */
    if (child < 0) {
        perror("gpu_floor: fork");
        return 1;
    }
    int me = child == 0 ? 1 : 0;
    run_two_side(sh, me, pl);
    if (me == 1)
        _exit(0);
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc == 2 ? argv[1] : "";
    int both = strcmp(mode, "check") == 0;
    if (!both && strcmp(mode, "one") && strcmp(mode, "two")) {
        fprintf(stderr, "usage: gpu_floor one | two | check\n");
        return 2;
    }
    plan_t pl = {.max = both ? (size_t)1 << 20 : MAX_BYTES, .few = both};
    /* CUDA must not start in this process before it forks the two */
    if (both || strcmp(mode, "two") == 0) {
        int rc = run_two(&pl);
        if (rc != 0 || !both)
            return rc;
    }
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        printf("SKIP: no CUDA device (%s)\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        return 77;
    }
    run_one(&pl);
    if (both)
        printf(" No Errors\n");
    return 0;
}
