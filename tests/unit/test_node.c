/* The memory of the processes of one node (runtime/node/node.c) and the
 * rings between them (runtime/p2p/shmring.c), each side in its own
 * process. */
#include "unit.h"

#include "node/node.h"
#include "p2p/shmring.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RING 8192
#define RECORDS 20000

/* Record i: a header of 8 + i % 40 bytes and i % 300 bytes of data
 * (fillers, whole-ring wraps and a full ring all happen); its data holds
 * words that would look like valid record words if taken for one. */
static size_t hlen_of(int i)
{
    return 8 + (size_t)(i % 40);
}

static size_t bytes_of(int i)
{
    return (size_t)(i % 300);
}

static unsigned char byte_at(int i, size_t k)
{
    return (unsigned char)(k % 8 < 4 ? 0x80 : i + (int)k);
}

static void produce(amp_shr_t *r)
{
    amp_shr_tx_t tx = {.r = r, .size = RING};
    for (int i = 0; i < RECORDS; i++) {
        amp_shr_word_t *w;
        while (!(w = amp_shr_reserve(&tx, hlen_of(i), bytes_of(i))))
            ;
        memset(amp_shr_hdr(w), i & 0xff, hlen_of(i));
        char *d = amp_shr_data(w, hlen_of(i));
        for (size_t k = 0; k < bytes_of(i); k++)
            d[k] = (char)byte_at(i, k);
        amp_shr_commit(&tx, w, hlen_of(i), bytes_of(i),
                       i % 2 ? AMP_SHR_RNDV : 0);
    }
}

/* Every record arrives once, in order, with its header, data and flags,
 * although the producer runs in another process and reuses the lines
 * while the consumer reads. */
UNIT_TEST(node_ring_keeps_order_between_processes)
{
    amp_shr_t *r = mmap(NULL, AMP_SHR_BYTES(RING), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    UNIT_TRUE(r != MAP_FAILED);
    pid_t child = fork();
    if (child == 0) {
        produce(r);
        _exit(0);
    }
    amp_shr_rx_t rx = {.r = r, .size = RING};
    for (int i = 0; i < RECORDS; i++) {
        amp_shr_word_t *w;
        while (!(w = amp_shr_peek(&rx)))
            ;
        UNIT_EQ(w->hlen, hlen_of(i));
        UNIT_EQ(w->bytes, bytes_of(i));
        UNIT_EQ((w->flags & AMP_SHR_RNDV) != 0, i % 2);
        UNIT_EQ((unsigned char)amp_shr_hdr(w)[hlen_of(i) - 1], i & 0xff);
        const unsigned char *d =
            (const unsigned char *)amp_shr_data(w, hlen_of(i));
        for (size_t k = 0; k < bytes_of(i); k++)
            if (d[k] != byte_at(i, k))
                UNIT_EQ(d[k], byte_at(i, k));
        amp_shr_release(&rx, w);
    }
    int status;
    waitpid(child, &status, 0);
    UNIT_EQ(status, 0);
    UNIT_TRUE(!amp_shr_nonempty(&rx));
}

/* A record larger than half the ring, and one when the ring is full, are
 * refused (the caller sends them another way). */
UNIT_TEST(node_ring_refuses_when_full)
{
    static _Alignas(64) char mem[AMP_SHR_BYTES(RING)];
    memset(mem, 0, sizeof(mem));
    amp_shr_tx_t tx = {.r = (amp_shr_t *)mem, .size = RING};
    UNIT_TRUE(amp_shr_reserve(&tx, 48, RING / 2) == NULL);
    int n = 0;
    amp_shr_word_t *w;
    while ((w = amp_shr_reserve(&tx, 48, 8))) {
        amp_shr_commit(&tx, w, 48, 8, 0);
        n++;
    }
    UNIT_EQ(n, RING / 64); /* every line */
    amp_shr_rx_t rx = {.r = tx.r, .size = RING};
    amp_shr_release(&rx, amp_shr_peek(&rx));
    UNIT_TRUE(amp_shr_reserve(&tx, 48, 8) != NULL);
}

/* ---- the sleep handshake (shmring.h) ---------------------------------- */

#define HS_ROUNDS 50000
#define HS_SECONDS 5 /* at most, each way (below the runner's limit) */
#define HS_RING 4096

/* Two processes ping-pong one record at a time through a ring each way.
 * Each "sleeps" (waits for its flag to be cleared) as soon as its ring is
 * empty, after a varying short pause, so that records race with their
 * consumer going to sleep.  Each also counts the records whose flag it
 * has looked at: a consumer that still sleeps once its producer looked
 * after the record it waits for lost its wake-up. */
typedef struct hs_shared {
    _Alignas(64) _Atomic uint32_t sleeping[2][16]; /* [side][0] */
    _Alignas(64) _Atomic uint32_t looked[2][16];   /* [side][0] */
    _Atomic int rounds; /* side 0 cuts it short on a loaded machine */
    _Alignas(64) char rings[2][AMP_SHR_BYTES(HS_RING)];
} hs_shared_t;

static void hs_pause(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    for (unsigned k = (*seed >> 16) % 64; k > 0; k--)
        __builtin_ia32_pause();
}

static void hs_send(hs_shared_t *s, amp_shr_tx_t *tx, int to, int i, int asym)
{
    int me = 1 - to;
    amp_shr_word_t *w;
    while (!(w = amp_shr_reserve(tx, 8, 8)))
        ;
    memcpy(amp_shr_hdr(w), &i, sizeof(i));
    amp_shr_commit(tx, w, 8, 8, 0);
    amp_shr_fence_producer(asym);
    _Atomic uint32_t *f = &s->sleeping[to][0];
    if (atomic_load_explicit(f, memory_order_relaxed))
        atomic_store_explicit(f, 0, memory_order_relaxed);
    atomic_store_explicit(&s->looked[me][0], (uint32_t)i + 1,
                          memory_order_release);
}

/* Waits for record i: 0, or 1 when a wake-up was lost (or i is not the
 * record that came). */
static int hs_recv(hs_shared_t *s, amp_shr_rx_t *rx, int me, int i, int asym,
                   unsigned *seed)
{
    _Atomic uint32_t *f = &s->sleeping[me][0];
    _Atomic uint32_t *looked = &s->looked[1 - me][0];
    int lost = 0;
    amp_shr_word_t *w;
    hs_pause(seed);
    while (!(w = amp_shr_peek(rx))) {
        atomic_store_explicit(f, 1, memory_order_seq_cst);
        if (amp_shr_fence_sleeper(asym) && !amp_shr_nonempty(rx))
            while (atomic_load_explicit(f, memory_order_relaxed)) {
                if (atomic_load_explicit(looked, memory_order_acquire) >
                        (uint32_t)i &&
                    atomic_load_explicit(f, memory_order_relaxed)) {
                    lost = 1;
                    break;
                }
                sched_yield(); /* the producer may need this core */
            }
        atomic_store_explicit(f, 0, memory_order_relaxed);
    }
    int got;
    memcpy(&got, amp_shr_hdr(w), sizeof(got));
    amp_shr_release(rx, w);
    return lost || got != i;
}

/* One side of the ping-pong (side 0 sends first): how many of its waits
 * lost their wake-up. */
static int hs_side(hs_shared_t *s, int me, int asym)
{
    amp_shr_tx_t tx = {.r = (amp_shr_t *)s->rings[me], .size = HS_RING};
    amp_shr_rx_t rx = {.r = (amp_shr_t *)s->rings[1 - me], .size = HS_RING};
    unsigned seed = (unsigned)me + 7;
    int bad = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < atomic_load(&s->rounds); i++) {
        if (me == 0 && clock_gettime(CLOCK_MONOTONIC, &t) == 0 &&
            t.tv_sec - t0.tv_sec > HS_SECONDS)
            atomic_store(&s->rounds, i + 1); /* before record i goes */
        if (me == 0)
            hs_send(s, &tx, 1, i, asym);
        bad += hs_recv(s, &rx, me, i, asym, &seed);
        if (me == 1)
            hs_send(s, &tx, 0, i, asym);
    }
    return bad;
}

static void hs_run(int asym)
{
    hs_shared_t *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    UNIT_TRUE(s != MAP_FAILED);
    s->rounds = HS_ROUNDS;
    pid_t child = fork();
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (asym && !amp_shr_fence_register())
            _exit(2);
        _exit(hs_side(s, 1, asym) ? 1 : 0);
    }
    UNIT_TRUE(child > 0);
    UNIT_EQ(hs_side(s, 0, asym), 0);
    int status;
    waitpid(child, &status, 0);
    UNIT_EQ(WEXITSTATUS(status), 0);
    munmap(s, sizeof(*s));
}

/* With full fences on both sides no wake-up is lost, nor with the
 * asymmetric fence where the kernel has it (else that run repeats the
 * first). */
UNIT_TEST(node_sleep_handshake_loses_no_wakeup)
{
    hs_run(0);
    hs_run(amp_shr_fence_register());
}

/* A node of this process: the names of its objects are this test's. */
static void test_node(amp_node_t *n)
{
    UNIT_EQ(amp_node_init_alone(n), AMP_OK);
    snprintf(n->prefix, sizeof(n->prefix), "/ampi-unit-%ld", (long)getpid());
}

/* One process creates an object, another maps it and sees the same bytes;
 * the name goes once every user opened it; the same name cannot be made
 * twice; a size that does not match is refused. */
UNIT_TEST(node_objects_shared_and_unlinked)
{
    amp_node_t n;
    test_node(&n);
    int *p;
    UNIT_EQ(amp_node_create(&n, "t", 4096, 1, (void **)&p), AMP_OK);
    void *q;
    UNIT_EQ(amp_node_create(&n, "t", 4096, 1, &q), AMP_ERR_EXIST);
    p[0] = 42;
    pid_t child = fork();
    if (child == 0) {
        int *c;
        if (amp_node_open(&n, "t", 2048, 1000, (void **)&c) != AMP_ERR_ARG)
            _exit(2);
        if (amp_node_open(&n, "t", 4096, 1000, (void **)&c) != AMP_OK)
            _exit(3);
        c[1] = c[0] + 1;
        _exit(0);
    }
    int status;
    waitpid(child, &status, 0);
    UNIT_EQ(WEXITSTATUS(status), 0);
    UNIT_EQ(p[1], 43);
    /* Its one user opened it: the name is gone. */
    UNIT_EQ(amp_node_open(&n, "t", 4096, 10, &q), AMP_ERR_NOENT);
    amp_node_unmap(p, 4096);
    amp_node_cleanup(&n);
}

/* Cross-memory copies between two processes along lists of pieces that
 * end at different places on the two sides. */
UNIT_TEST(node_cross_memory_copies_pieces)
{
    char *buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    static char mine[100];
    static uint64_t probe;
    probe = AMP_NODE_PROBE; /* set before the fork: the child holds it too */
    for (int i = 0; i < 100; i++)
        mine[i] = (char)i;
    pid_t child = fork();
    if (child == 0) { /* the other process: keeps its memory still */
        pause();
        _exit(0);
    }
    uint64_t got = 0;
    int ok = amp_node_cma_read(child, &got, (uint64_t)(uintptr_t)&probe,
                               sizeof(got)) == AMP_OK;
    if (!ok) { /* the kernel forbids it here: nothing more to check */
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        fprintf(stderr, "  (cross-memory copies are not allowed here)\n");
        return;
    }
    if (got != AMP_NODE_PROBE)
        kill(child, SIGKILL);
    UNIT_TRUE(got == AMP_NODE_PROBE);
    /* mine[0..100) in the child (same address there) into three local
     * pieces of 30, 50 and 20 bytes, from two remote pieces of 45 and 55. */
    amp_node_iov_t l[3] = {{buf, 30}, {buf + 100, 50}, {buf + 200, 20}};
    amp_node_iov_t r[2] = {{mine, 45}, {mine + 45, 55}};
    UNIT_EQ(amp_node_cma_readv(child, l, 3, r, 2), AMP_OK);
    UNIT_EQ(buf[29], 29);
    UNIT_EQ(buf[100], 30);
    UNIT_EQ(buf[219], 99);
    amp_node_iov_t shorter[1] = {{buf, 10}};
    UNIT_EQ(amp_node_cma_readv(child, shorter, 1, r, 2), AMP_ERR_ARG);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    munmap(buf, 4096);
}

/* A copy of more than the kernel moves in one call (2 GiB) goes in
 * several calls: 2.25 GiB of the other process's memory (untouched but
 * for two marks) land in 36 local pieces of one 64 MiB buffer. */
UNIT_TEST(node_cross_memory_copies_beyond_2gib)
{
    const size_t piece = (size_t)64 << 20, total = 36 * piece;
    static char *far;
    far = mmap(NULL, total, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    char *buf = mmap(NULL, piece, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    UNIT_TRUE(far != MAP_FAILED && buf != MAP_FAILED);
    far[0] = 'a';
    far[total - 1] = 'z';
    pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    char c = 0;
    if (amp_node_cma_read(child, &c, (uint64_t)(uintptr_t)far, 1) != AMP_OK) {
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        fprintf(stderr, "  (cross-memory copies are not allowed here)\n");
        return;
    }
    amp_node_iov_t l[36], r[1] = {{far, total}};
    for (int i = 0; i < 36; i++)
        l[i] = (amp_node_iov_t){buf, piece};
    amp_status_t st = amp_node_cma_readv(child, l, 36, r, 1);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    UNIT_EQ(c, 'a');
    UNIT_EQ(st, AMP_OK);
    UNIT_EQ(buf[piece - 1], 'z'); /* the last piece went there last */
    munmap(buf, piece);
    munmap(far, total);
}
