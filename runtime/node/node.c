/* The node's processes and what they share; see node.h. */
#define _GNU_SOURCE
#include "node/node.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define OBJ_MAGIC 0x414d504e4f444531ull /* "AMPNODE1" */

/* The head of every object (its first AMP_NODE_HDR bytes). */
typedef struct obj_hdr {
    _Atomic uint64_t magic; /* set last by the creator */
    uint64_t bytes;         /* after the head */
    uint32_t users;         /* processes that are to open it */
    _Atomic uint32_t opened;
} obj_hdr_t;

static amp_status_t alloc_tables(amp_node_t *n, int nprocs, int nlocal)
{
    n->procs = calloc((size_t)nlocal, sizeof(int));
    n->of_proc = malloc((size_t)nprocs * sizeof(int));
    n->pids = calloc((size_t)nlocal, sizeof(pid_t));
    n->cma = calloc((size_t)nlocal, 1);
    if (!n->procs || !n->of_proc || !n->pids || !n->cma) {
        amp_node_cleanup(n);
        return AMP_ERR_NOMEM;
    }
    return AMP_OK;
}

amp_status_t amp_node_init_alone(amp_node_t *n)
{
    memset(n, 0, sizeof(*n));
    amp_status_t st = alloc_tables(n, 1, 1);
    if (st != AMP_OK)
        return st;
    n->nprocs = 1;
    n->of_proc[0] = 0;
    n->pids[0] = getpid();
    n->cma[0] = 1;
    snprintf(n->prefix, sizeof(n->prefix), "/ampi-%ld-0", (long)getpid());
    return AMP_OK;
}

/* Whether this process can read process pid's word at probe. */
static int cma_works(pid_t pid, uint64_t probe)
{
    uint64_t v = 0;
    return amp_node_cma_read(pid, &v, probe, sizeof(v)) == AMP_OK &&
           v == AMP_NODE_PROBE;
}

amp_status_t amp_node_init(amp_node_t *n, int nprocs, int proc,
                           const int *proc_node, const int *pids,
                           const uint64_t *probe, uint64_t nonce)
{
    memset(n, 0, sizeof(*n));
    int nlocal = 0;
    for (int q = 0; q < nprocs; q++)
        nlocal += proc_node[q] == proc_node[proc];
    amp_status_t st = alloc_tables(n, nprocs, nlocal);
    if (st != AMP_OK)
        return st;
    for (int q = 0; q < nprocs; q++) {
        n->of_proc[q] = -1;
        if (proc_node[q] != proc_node[proc])
            continue;
        if (q == proc)
            n->index = n->nprocs;
        n->of_proc[q] = n->nprocs;
        n->procs[n->nprocs] = q;
        n->pids[n->nprocs] = pids[q];
        n->nprocs++;
    }
    for (int i = 0; i < n->nprocs; i++)
        n->cma[i] = i == n->index || cma_works(n->pids[i], probe[n->procs[i]]);
    snprintf(n->prefix, sizeof(n->prefix), "/ampi-%d-%016llx",
             pids[proc_node[proc]], (unsigned long long)nonce);
    return AMP_OK;
}

void amp_node_cleanup(amp_node_t *n)
{
    free(n->procs);
    free(n->of_proc);
    free(n->pids);
    free(n->cma);
    n->procs = n->of_proc = NULL;
    n->pids = NULL;
    n->cma = NULL;
}

void amp_node_name(const amp_node_t *n, const char *tag,
                   char out[AMP_NODE_NAME_MAX])
{
    snprintf(out, AMP_NODE_NAME_MAX, "%s-%.24s", n->prefix, tag);
}

/* ---- shared objects --------------------------------------------------- */

static amp_status_t map_fd(int fd, size_t bytes, obj_hdr_t **out)
{
    void *p = mmap(NULL, AMP_NODE_HDR + bytes, PROT_READ | PROT_WRITE,
                   MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return AMP_ERR_NOMEM;
    *out = p;
    return AMP_OK;
}

amp_status_t amp_node_create(const amp_node_t *n, const char *tag, size_t bytes,
                             int users, void **out)
{
    char name[AMP_NODE_NAME_MAX];
    amp_node_name(n, tag, name);
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0 && errno == EEXIST)
        return AMP_ERR_EXIST;
    if (fd < 0) {
        amp_log_error("cannot create shared memory %s: %s", name,
                      strerror(errno));
        return AMP_ERR_SYS;
    }
    obj_hdr_t *h = NULL;
    amp_status_t st = AMP_OK;
    if (ftruncate(fd, (off_t)(AMP_NODE_HDR + bytes)) != 0) {
        amp_log_error("cannot size shared memory %s to %zu bytes: %s (is "
                      "/dev/shm large enough?)",
                      name, bytes, strerror(errno));
        st = AMP_ERR_SYS;
    }
    if (st == AMP_OK)
        st = map_fd(fd, bytes, &h);
    close(fd);
    if (st != AMP_OK || users == 0)
        shm_unlink(name);
    if (st != AMP_OK)
        return st;
    h->bytes = bytes;
    h->users = (uint32_t)users;
    atomic_init(&h->opened, 0);
    atomic_store_explicit(&h->magic, OBJ_MAGIC, memory_order_release);
    *out = (char *)h + AMP_NODE_HDR;
    return AMP_OK;
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void nap(void)
{
    struct timespec ts = {0, 50000};
    nanosleep(&ts, NULL);
}

/* The descriptor of object name once it exists at its full size, or -1
 * after deadline. */
static int open_sized(const char *name, size_t bytes, long deadline)
{
    for (;;) {
        int fd = shm_open(name, O_RDWR, 0);
        struct stat sb;
        if (fd >= 0 && fstat(fd, &sb) == 0 &&
            (size_t)sb.st_size >= AMP_NODE_HDR + bytes)
            return fd;
        if (fd >= 0)
            close(fd);
        if (now_ms() >= deadline)
            return -1;
        nap();
    }
}

amp_status_t amp_node_open(const amp_node_t *n, const char *tag, size_t bytes,
                           int wait_ms, void **out)
{
    char name[AMP_NODE_NAME_MAX];
    amp_node_name(n, tag, name);
    long deadline = now_ms() + wait_ms;
    int fd = open_sized(name, bytes, deadline);
    if (fd < 0)
        return AMP_ERR_NOENT;
    obj_hdr_t *h;
    amp_status_t st = map_fd(fd, bytes, &h);
    close(fd);
    if (st != AMP_OK)
        return st;
    while (atomic_load_explicit(&h->magic, memory_order_acquire) != OBJ_MAGIC) {
        if (now_ms() >= deadline) {
            munmap(h, AMP_NODE_HDR + bytes);
            return AMP_ERR_NOENT;
        }
        nap();
    }
    if (h->bytes != bytes) {
        amp_log_error("shared memory %s holds %llu bytes, not %zu: are all "
                      "processes the same program with the same options?",
                      name, (unsigned long long)h->bytes, bytes);
        munmap(h, AMP_NODE_HDR + bytes);
        return AMP_ERR_ARG;
    }
    if (atomic_fetch_add(&h->opened, 1) + 1 == h->users)
        shm_unlink(name);
    *out = (char *)h + AMP_NODE_HDR;
    return AMP_OK;
}

void amp_node_drop(const amp_node_t *n, const char *tag)
{
    char name[AMP_NODE_NAME_MAX];
    amp_node_name(n, tag, name);
    shm_unlink(name);
}

/* A directory entry as getdents64 gives it (the C library's readdir
 * allocates, which a signal handler may not). */
struct dent64 {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

void amp_node_abandon(const amp_node_t *n)
{
    const char *prefix = n->prefix + 1; /* without its '/' */
    size_t len = strlen(prefix);
    if (len == 0)
        return; /* no node yet */
    int fd = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[4096] __attribute__((aligned(8)));
    long got;
    while ((got = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
        for (long at = 0; at < got;) {
            const struct dent64 *d = (const void *)(buf + at);
            if (strncmp(d->name, prefix, len) == 0 && d->name[len] == '-')
                (void)unlinkat(fd, d->name, 0);
            at += d->reclen;
        }
    close(fd);
}

void amp_node_unmap(void *p, size_t bytes)
{
    if (p)
        munmap((char *)p - AMP_NODE_HDR, AMP_NODE_HDR + bytes);
}

/* ---- cross-memory copies ---------------------------------------------- */

amp_status_t amp_node_cma_read(pid_t pid, void *local, uint64_t remote,
                               size_t n)
{
    amp_node_iov_t l = {local, n}, r = {(void *)(uintptr_t)remote, n};
    return amp_node_cma_readv(pid, &l, 1, &r, 1);
}

amp_status_t amp_node_cma_write(pid_t pid, const void *local, uint64_t remote,
                                size_t n)
{
    amp_node_iov_t l = {(void *)local, n}, r = {(void *)(uintptr_t)remote, n};
    return amp_node_cma_writev(pid, &l, 1, &r, 1);
}

/* Batches of at most this many pieces per call (the kernel's limit), and
 * of at most this many bytes (the kernel moves less than 2 GiB a call). */
#define CMA_BATCH 1024
#define CMA_BATCH_BYTES ((size_t)1 << 30)

/* Bytes left in list v of n pieces from piece i, offset off on. */
static size_t left(const amp_node_iov_t *v, int n, int i, size_t off)
{
    size_t sum = 0;
    for (; i < n; i++, off = 0)
        sum += v[i].len - off;
    return sum;
}

/* Walks both lists in step, cutting pieces where either side's piece
 * ends, and copies up to CMA_BATCH such pieces (CMA_BATCH_BYTES) per
 * system call. */
static amp_status_t cma_vec(pid_t pid, int write, const amp_node_iov_t *l,
                            int nl, const amp_node_iov_t *r, int nr)
{
    struct iovec lv[CMA_BATCH], rv[CMA_BATCH];
    int i = 0, j = 0;
    size_t li = 0, rj = 0;
    for (;;) {
        int k = 0;
        size_t batch = 0;
        while (i < nl && j < nr && k < CMA_BATCH && batch < CMA_BATCH_BYTES) {
            size_t a = l[i].len - li, b = r[j].len - rj;
            size_t len = a < b ? a : b;
            if (len > CMA_BATCH_BYTES - batch)
                len = CMA_BATCH_BYTES - batch;
            if (len) {
                lv[k] = (struct iovec){(char *)l[i].base + li, len};
                rv[k] = (struct iovec){(char *)r[j].base + rj, len};
                k++;
                batch += len;
            }
            li += len;
            rj += len;
            if (li == l[i].len)
                i++, li = 0;
            if (rj == r[j].len)
                j++, rj = 0;
        }
        if (k == 0)
            break;
        ssize_t got = write ? process_vm_writev(pid, lv, (unsigned long)k, rv,
                                                (unsigned long)k, 0)
                            : process_vm_readv(pid, lv, (unsigned long)k, rv,
                                               (unsigned long)k, 0);
        if (got < 0 || (size_t)got != batch)
            return AMP_ERR_SYS;
    }
    /* The lists must hold the same bytes. */
    return left(l, nl, i, li) || left(r, nr, j, rj) ? AMP_ERR_ARG : AMP_OK;
}

amp_status_t amp_node_cma_readv(pid_t pid, const amp_node_iov_t *local,
                                int nlocal, const amp_node_iov_t *remote,
                                int nremote)
{
    return cma_vec(pid, 0, local, nlocal, remote, nremote);
}

amp_status_t amp_node_cma_writev(pid_t pid, const amp_node_iov_t *local,
                                 int nlocal, const amp_node_iov_t *remote,
                                 int nremote)
{
    return cma_vec(pid, 1, local, nlocal, remote, nremote);
}
