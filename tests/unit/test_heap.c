/* The rank heap (runtime/mem/heap.c) on a reserved region of its own:
 * contents survive, freed spans merge back into the top, small blocks are
 * reused, alignment, realloc, full regions, bad and double frees, and
 * blocks given back from other threads. */
#include "unit.h"

#include "mem/heap.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define REGION ((size_t)64 << 20)
#define NBLOCKS 200

static amp_heap_t *new_heap(size_t size)
{
    void *base = mmap(NULL, size, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    UNIT_TRUE(base != MAP_FAILED);
    amp_heap_t *h = amp_heap_create(base, size, (size_t)getpagesize());
    UNIT_TRUE(h != NULL);
    return h;
}

static unsigned next_random(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return *state >> 8;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i + 1 < n; i += 61)
        p[i] = (unsigned char)(seed + i);
    p[n - 1] = (unsigned char)seed;
}

static int intact(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i + 1 < n; i += 61)
        if (p[i] != (unsigned char)(seed + i))
            return 0;
    return p[n - 1] == (unsigned char)seed;
}

/* Large blocks freed in random order merge back: the heap ends where it
 * began. */
UNIT_TEST(heap_spans_merge_back_into_top)
{
    amp_heap_t *h = new_heap(REGION);
    size_t empty = amp_heap_extent(h);
    unsigned char *p[NBLOCKS];
    size_t n[NBLOCKS];
    unsigned seed = 7;
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < NBLOCKS; i++) {
            n[i] = 9000 + next_random(&seed) % 200000;
            p[i] = amp_heap_alloc(h, n[i], 16);
            UNIT_TRUE(p[i] != NULL);
            UNIT_TRUE(amp_heap_usable_size(p[i]) >= n[i]);
            fill(p[i], n[i], (unsigned)i);
        }
        for (int k = 0; k < NBLOCKS; k++) {
            int i = (int)(next_random(&seed) % NBLOCKS);
            while (!p[i])
                i = (i + 1) % NBLOCKS;
            UNIT_TRUE(intact(p[i], n[i], (unsigned)i));
            UNIT_EQ(amp_heap_free(h, p[i]), AMP_OK);
            p[i] = NULL;
        }
        UNIT_EQ(amp_heap_extent(h), empty);
    }
}

/* Small blocks of every class come back for the next allocations. */
UNIT_TEST(heap_small_blocks_are_reused)
{
    amp_heap_t *h = new_heap(REGION);
    void *p[NBLOCKS] = {0};
    unsigned seed = 3;
    size_t extent = 0;
    for (int round = 0; round < 50; round++) {
        for (int i = 0; i < NBLOCKS; i++) {
            size_t n = 1 + next_random(&seed) % 8192;
            p[i] = amp_heap_alloc(h, n, 16);
            UNIT_TRUE(p[i] != NULL);
            UNIT_EQ((uintptr_t)p[i] % 16, 0);
            UNIT_TRUE(amp_heap_usable_size(p[i]) >= n);
            UNIT_TRUE(amp_heap_usable_size(p[i]) <= n + n / 4 + 16);
            memset(p[i], 0xab, n);
        }
        for (int i = 0; i < NBLOCKS; i++)
            UNIT_EQ(amp_heap_free(h, p[i]), AMP_OK);
        if (round == 9)
            extent = amp_heap_extent(h);
    }
    /* After the classes have their blocks, no round needs more. */
    UNIT_TRUE(amp_heap_extent(h) <= extent + ((size_t)1 << 20));
}

/* The first small blocks fill the header's page: a heap that holds a few
 * small objects touches one page (a rank's memory at scale). */
UNIT_TEST(heap_first_small_blocks_share_the_header_page)
{
    amp_heap_t *h = new_heap(REGION);
    uintptr_t page = (uintptr_t)getpagesize();
    void *a = amp_heap_alloc(h, 40, 16), *b = amp_heap_alloc(h, 200, 16);
    UNIT_TRUE(a != NULL && b != NULL);
    UNIT_EQ((uintptr_t)a / page, (uintptr_t)h / page);
    UNIT_EQ((uintptr_t)b / page, (uintptr_t)h / page);
    UNIT_EQ(amp_heap_extent(h), (size_t)page); /* no span taken yet */
    UNIT_TRUE(amp_heap_contains(h, a) && amp_heap_contains(h, b));
    memset(a, 1, 40);
    memset(b, 2, 200);
    UNIT_EQ(amp_heap_free(h, a), AMP_OK);
    UNIT_TRUE(amp_heap_alloc(h, 40, 16) == a); /* reused from its class */
    void *c = amp_heap_realloc(h, b, 5000); /* grows into a span */
    UNIT_TRUE(c != NULL && (uintptr_t)c / page != (uintptr_t)h / page);
    UNIT_EQ(((unsigned char *)c)[199], 2);
    UNIT_EQ(amp_heap_free(h, c), AMP_OK);
    UNIT_TRUE(amp_heap_free(h, (char *)h + 8) != AMP_OK); /* the header */
}

UNIT_TEST(heap_aligned_blocks)
{
    amp_heap_t *h = new_heap(REGION);
    for (size_t align = 32; align <= 65536; align *= 2) {
        for (size_t n = 1; n < 100000; n = n * 5 + 3) {
            unsigned char *p = amp_heap_alloc(h, n, align);
            UNIT_TRUE(p != NULL);
            UNIT_EQ((uintptr_t)p % align, 0);
            UNIT_TRUE(amp_heap_usable_size(p) >= n);
            memset(p, 1, n);
            UNIT_EQ(amp_heap_free(h, p), AMP_OK);
        }
    }
}

/* realloc keeps the contents while growing at the top, moving, and
 * shrinking. */
UNIT_TEST(heap_realloc_keeps_contents)
{
    amp_heap_t *h = new_heap(REGION);
    size_t n = 10;
    unsigned char *p = amp_heap_alloc(h, n, 16);
    fill(p, n, 5);
    void *blocker = NULL;
    while (n < ((size_t)8 << 20)) {
        size_t next = n * 2 + 100;
        unsigned char *q = amp_heap_realloc(h, p, next);
        UNIT_TRUE(q != NULL);
        UNIT_TRUE(intact(q, n, 5));
        fill(q, next, 5);
        p = q;
        n = next;
        if (!blocker && n > 100000)
            blocker = amp_heap_alloc(h, 20000, 16); /* forces moves */
    }
    p = amp_heap_realloc(h, p, 100);
    UNIT_TRUE(p != NULL && p[0] == 5);
    UNIT_EQ(amp_heap_free(h, p), AMP_OK);
    UNIT_EQ(amp_heap_free(h, blocker), AMP_OK);
}

/* A full region answers NULL, and works again once blocks are freed. */
UNIT_TEST(heap_full_region)
{
    amp_heap_t *h = new_heap((size_t)4 << 20);
    void *p[64];
    int k = 0;
    while (k < 64 && (p[k] = amp_heap_alloc(h, 300000, 16)) != NULL)
        k++;
    UNIT_TRUE(k > 5 && k < 64);
    UNIT_TRUE(amp_heap_alloc(h, (size_t)8 << 20, 16) == NULL);
    UNIT_TRUE(amp_heap_alloc(h, SIZE_MAX - 100, 16) == NULL);
    UNIT_TRUE(amp_heap_alloc(h, 100, (size_t)1 << 40) == NULL);
    for (int i = 0; i < k; i++)
        UNIT_EQ(amp_heap_free(h, p[i]), AMP_OK);
    UNIT_TRUE(amp_heap_alloc(h, (size_t)3 << 20, 16) != NULL);
}

UNIT_TEST(heap_bad_and_double_frees)
{
    amp_heap_t *h = new_heap(REGION);
    char *small = amp_heap_alloc(h, 40, 16);
    char *large = amp_heap_alloc(h, 50000, 16);
    char *keep = amp_heap_alloc(h, 50000, 16);
    char *aligned = amp_heap_alloc(h, 100, 256);
    UNIT_EQ(amp_heap_free(h, small + 16), AMP_ERR_ARG);
    UNIT_EQ(amp_heap_free(h, small), AMP_OK);
    UNIT_EQ(amp_heap_free(h, small), AMP_ERR_ARG);
    UNIT_EQ(amp_heap_free(h, large), AMP_OK);
    UNIT_EQ(amp_heap_free(h, large), AMP_ERR_ARG);
    UNIT_EQ(amp_heap_free_remote(h, aligned), AMP_OK);
    UNIT_EQ(amp_heap_free_remote(h, aligned), AMP_ERR_ARG);
    UNIT_EQ(amp_heap_free_remote(h, keep + 4096), AMP_ERR_ARG);
    UNIT_EQ(amp_heap_free(h, keep), AMP_OK);
}

typedef struct remote_job {
    amp_heap_t *heap;
    void **blocks;
    int first, count;
} remote_job_t;

static void *free_remotely(void *arg)
{
    remote_job_t *job = arg;
    for (int i = job->first; i < job->first + job->count; i++)
        if (amp_heap_free_remote(job->heap, job->blocks[i]) != AMP_OK)
            return job;
    return NULL;
}

/* Four threads give the owner's blocks back at once; the owner's next
 * calls reuse the memory, round after round. */
UNIT_TEST(heap_remote_frees_from_threads)
{
    amp_heap_t *h = new_heap(REGION);
    enum { NTHREADS = 4, PER = 500 };
    static void *blocks[NTHREADS * PER];
    size_t extent = 0;
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < NTHREADS * PER; i++) {
            blocks[i] = amp_heap_alloc(h, i % 3 ? 100 : 20000, 16);
            UNIT_TRUE(blocks[i] != NULL);
        }
        pthread_t t[NTHREADS];
        remote_job_t jobs[NTHREADS];
        for (int k = 0; k < NTHREADS; k++) {
            jobs[k] = (remote_job_t){h, blocks, k * PER, PER};
            UNIT_EQ(pthread_create(&t[k], NULL, free_remotely, &jobs[k]), 0);
        }
        for (int k = 0; k < NTHREADS; k++) {
            void *failed;
            pthread_join(t[k], &failed);
            UNIT_TRUE(failed == NULL);
        }
        if (round == 1)
            extent = amp_heap_extent(h);
    }
    UNIT_TRUE(amp_heap_extent(h) <= extent + ((size_t)1 << 20));
}

/* Resident pages of [p, p + n) (mincore). */
static size_t resident(const void *p, size_t n)
{
    size_t page = (size_t)getpagesize(), count = 0;
    uintptr_t start = (uintptr_t)p & ~(uintptr_t)(page - 1);
    size_t pages = ((uintptr_t)p + n - start + page - 1) / page;
    unsigned char vec[4096];
    UNIT_TRUE(pages <= sizeof(vec));
    UNIT_EQ(mincore((void *)start, pages * page, vec), 0);
    for (size_t i = 0; i < pages; i++)
        count += vec[i] & 1;
    return count;
}

/* A program that frees its large buffer and mallocs it again every step
 * gets the same pages back still resident (no page faults), in the middle
 * of the heap and at its top; past the budget (twice the largest span
 * freed) and at amp_heap_trim the pages go back to the system. */
UNIT_TEST(heap_keeps_freed_pages_for_reuse)
{
    amp_heap_t *h = new_heap(REGION);
    size_t big = (size_t)4 << 20, page = (size_t)getpagesize();
    for (int at_top = 0; at_top < 2; at_top++) {
        unsigned char *p = amp_heap_alloc(h, big, 16);
        void *guard = at_top ? NULL : amp_heap_alloc(h, 64 << 10, 16);
        memset(p, 1, big);
        UNIT_EQ(amp_heap_free(h, p), AMP_OK);
        UNIT_TRUE(resident(p, big) >= big / page - 2);
        unsigned char *q = amp_heap_alloc(h, big, 16);
        UNIT_TRUE(q == p);
        UNIT_TRUE(resident(q, big) >= big / page - 2);
        UNIT_EQ(amp_heap_free(h, q), AMP_OK);
        amp_heap_trim(h);
        UNIT_TRUE(resident(q, big) <= 2);
        if (guard)
            UNIT_EQ(amp_heap_free(h, guard), AMP_OK);
    }
    /* Three 4 MiB spans kept apart by live blocks: 12 MiB free passes the
     * budget of 8 MiB, and the heap gives them back by itself. */
    unsigned char *a[3];
    void *g[3];
    for (int i = 0; i < 3; i++) {
        a[i] = amp_heap_alloc(h, big, 16);
        g[i] = amp_heap_alloc(h, 64 << 10, 16);
        memset(a[i], 2, big);
    }
    for (int i = 0; i < 3; i++)
        UNIT_EQ(amp_heap_free(h, a[i]), AMP_OK);
    for (int i = 0; i < 3; i++)
        UNIT_TRUE(resident(a[i], big) <= 2);
    for (int i = 0; i < 3; i++)
        UNIT_EQ(amp_heap_free(h, g[i]), AMP_OK);
}
