/* Each rank's malloc family allocates in its own isomalloc slot: every
 * call's block lies in the caller's slot (AMPI_Isomalloc_rank), as its
 * stack does; alignment, usable sizes, calloc's zeroes and realloc's
 * copies are right; and a long run of mixed allocations and frees fits a
 * small slot again and again (freed memory is reused, nothing leaks).  Run
 * with +isomalloc_slot 16M. */
#define _GNU_SOURCE 1
#include "mpitest.h"

#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NLIVE 128
#define ROUNDS 6
#define OPS 1000

static int owner(const void *p)
{
    int r = -2;
    MT_CHECK_MPI(AMPI_Isomalloc_rank(p, &r));
    return r;
}

/* p (size bytes, aligned to align) is a live block of the calling rank. */
static void check_block(const char *what, void *p, size_t size, size_t align,
                        int me)
{
    if (!MT_CHECK(p != NULL)) {
        MT_FAIL("%s returned NULL", what);
        return;
    }
    if (owner(p) != me)
        MT_FAIL("%s: %p lies in rank %d's slot, not %d's", what, p, owner(p),
                me);
    if ((uintptr_t)p % align != 0)
        MT_FAIL("%s: %p is not aligned to %zu", what, p, align);
    if (malloc_usable_size(p) < size)
        MT_FAIL("%s: usable size %zu < %zu", what, malloc_usable_size(p), size);
    mt_fill(p, size, (unsigned)size);
    MT_CHECK_PATTERN(p, size, (unsigned)size);
}

static void check_family(int me)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    static const size_t sizes[] = {1,    16,   100,    1000,
                                   8192, 9000, 100000, 1 << 20};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
        size_t n = sizes[i];
        void *p = malloc(n);
        check_block("malloc", p, n, 16, me);
        free(p);
        unsigned char *z = calloc(n, 1);
        check_block("calloc", z, 0, 16, me);
        for (size_t k = 0; z && k < n; k++)
            if (z[k] != 0 && MT_CHECK(z[k] == 0))
                break;
        free(z);
        void *a = NULL;
        MT_CHECK_INT_EQ(posix_memalign(&a, 256, n), 0);
        check_block("posix_memalign", a, n, 256, me);
        free(a);
        a = aligned_alloc(4096, n);
        check_block("aligned_alloc", a, n, 4096, me);
        free(a);
        a = memalign(64, n);
        check_block("memalign", a, n, 64, me);
        free(a);
        a = valloc(n);
        check_block("valloc", a, n, page, me);
        free(a);
        a = pvalloc(n);
        check_block("pvalloc", a, (n + page - 1) / page * page, page, me);
        free(a);
        a = reallocarray(NULL, n, 1);
        check_block("reallocarray", a, n, 16, me);
        free(a);
    }
    char *s = strdup("isomalloc");
    check_block("strdup", s, 0, 1, me);
    MT_CHECK(s && strcmp(s, "isomalloc") == 0);
    free(s);
    MT_CHECK(malloc_usable_size(NULL) == 0);
    MT_CHECK(posix_memalign((void **)&s, 24, 8) == EINVAL);
}

/* realloc keeps the data while it grows small to large, and shrinks. */
static void check_realloc(int me)
{
    size_t n = 24;
    unsigned char *p = malloc(n);
    mt_fill(p, n, 7);
    while (n < (2u << 20)) {
        size_t next = n * 3;
        unsigned char *q = realloc(p, next);
        if (!MT_CHECK(q != NULL))
            return;
        p = q;
        MT_CHECK_PATTERN(p, n, 7);
        MT_CHECK_INT_EQ(owner(p), me);
        mt_fill(p, next, 7);
        n = next;
    }
    unsigned char *q = realloc(p, 40);
    if (MT_CHECK(q != NULL)) {
        MT_CHECK_PATTERN(q, 40, 7);
        p = q;
    }
    MT_CHECK(realloc(p, 0) == NULL); /* frees it */
}

/* Mixed sizes, random order, contents checked before each free.  The
 * rounds allocate about 25 MiB in all, more than a 16 MiB slot holds: they
 * only fit if freed memory is reused. */
static void stress(int me)
{
    void **live = calloc(NLIVE, sizeof(*live));
    size_t *len = calloc(NLIVE, sizeof(*len));
    unsigned seed = 12345u + (unsigned)me;
    for (int round = 0; round < ROUNDS; round++) {
        for (int op = 0; op < OPS; op++) {
            seed = seed * 1103515245u + 12345u;
            int i = (int)((seed >> 8) % NLIVE);
            if (live[i]) {
                if (!MT_CHECK_PATTERN(live[i], len[i], (unsigned)i))
                    return;
                free(live[i]);
                live[i] = NULL;
                continue;
            }
            unsigned r = (seed >> 16) & 0x7fff;
            len[i] = r % 4 == 0 ? r * 2 : r % 600 + 1;
            live[i] = r % 7 == 0 ? aligned_alloc(128, len[i]) : malloc(len[i]);
            if (!MT_CHECK(live[i] != NULL) || !MT_CHECK(owner(live[i]) == me))
                return;
            mt_fill(live[i], len[i], (unsigned)i);
        }
        for (int i = 0; i < NLIVE; i++) {
            free(live[i]);
            live[i] = NULL;
        }
    }
    free(len);
    free(live);
}

int main(int argc, char **argv)
{
    int me;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int local = 0;
    MT_CHECK_INT_EQ(owner(&local), me);
    int outside = 0;
    MT_CHECK_MPI(AMPI_Isomalloc_rank(stdout, &outside));
    MT_CHECK_INT_EQ(outside, MPI_UNDEFINED);
    check_family(me);
    check_realloc(me);
    /* MPI_Alloc_mem's memory moves with the rank too. */
    void *mem = NULL;
    MT_CHECK_MPI(MPI_Alloc_mem(1000, MPI_INFO_NULL, &mem));
    check_block("MPI_Alloc_mem", mem, 1000, 64, me);
    MT_CHECK_MPI(MPI_Free_mem(mem));
    stress(me);
    return mt_finish_and_finalize();
}
