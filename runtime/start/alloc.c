/*
 * The malloc family for the whole process (isomalloc).
 *
 * libampi defines malloc, calloc, realloc, reallocarray, free,
 * posix_memalign, aligned_alloc, memalign, valloc, pvalloc and
 * malloc_usable_size ahead of the C library (C++'s new and delete reach
 * them through libstdc++).  Where a new block comes from:
 * - a rank's allocation, made while the rank runs (its own code, or a
 *   library it calls), goes to the rank's heap in its isomalloc slot
 *   (mem/heap.h), and moves with the rank;
 * - the runtime's own calls are renamed to amp_sys_* when it is compiled
 *   (mem/sys_alloc.h, mem/sys_alloc.c) and use the C library's heap
 *   (__libc_malloc and co.),
 *   as does a rank between amp_sys_alloc_enter and amp_sys_alloc_leave
 *   (around the runtime's calls into UCX, PMIx or hwloc from a rank);
 * - so do threads that are not PEs (UCX's, PMIx's), the main thread
 *   before the ranks start, and the PEs' schedulers between ranks.
 * free, realloc and malloc_usable_size go by the block's address: inside
 * the isomalloc range, to the heap of the slot holding it, elsewhere to the
 * C library.  A thread other than the owning rank gives a block back
 * through the heap's remote list, so freeing another rank's memory is safe
 * from any PE or thread.
 */
#define _GNU_SOURCE 1
#include "mem/heap.h"
#include "start/start.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* AddressSanitizer's malloc family comes first in the process, before ours
 * could: under it (the AMPI_SANITIZE build) ours is __wrap_malloc and so
 * on, which the wrappers link the program's own calls to
 * (-Wl,--wrap=malloc...), and what is not a rank's goes to
 * AddressSanitizer's.  Other libraries' allocations (strdup, C++'s new)
 * are then AddressSanitizer's, and do not move with the rank. */
#include "base/sanitize.h"
#ifdef AMP_ASAN
#define AMP_ALLOC_SANITIZED 1
#define AMP_ALLOC_FN(name) __wrap_##name
#else
#define AMP_ALLOC_FN(name) name
#endif

#ifdef AMP_ALLOC_SANITIZED
#define __libc_malloc malloc
#define __libc_calloc calloc
#define __libc_realloc realloc
#define __libc_free free
#define __libc_memalign memalign
#else
/* The C library's allocator under the names it keeps for itself. */
void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void __libc_free(void *p);
void *__libc_memalign(size_t align, size_t size);
#endif

/* The heap the calling thread's new blocks go to; NULL: the C library. */
static inline amp_heap_t *rank_heap(void)
{
    amp_rank_t *rank = amp_rank_self();
    return rank && !rank->sys_alloc ? amp_rank_heap(rank) : NULL;
}

/* Whether p lies in the range: the stacks part or the heaps part. */
static int in_range(const void *p)
{
    const amp_mem_t *mem = &amp_proc.mem;
    return (uintptr_t)p - (uintptr_t)mem->stacks <
           (size_t)(mem->base - mem->stacks) +
               mem->slot_size * (size_t)mem->nslots;
}

/* The heap of the slot holding p (p in the range), or NULL: self's own
 * (the calling rank, or NULL) found without a division. */
static amp_heap_t *heap_of(const void *p, const amp_rank_t *self)
{
    const amp_mem_t *mem = &amp_proc.mem;
    if (self && self->heap) {
        uintptr_t heap = (uintptr_t)mem->base +
                         (size_t)self->slot * mem->slot_size + mem->heap_offset;
        if ((uintptr_t)p - heap < mem->heap_size)
            return self->heap;
    }
    int slot = amp_mem_slot_of(mem, p);
    amp_rank_t *rank =
        slot >= 0 && amp_proc.ranks ? amp_proc.ranks[slot] : NULL;
    return rank && rank->heap && amp_heap_contains(rank->heap, p) ? rank->heap
                                                                  : NULL;
}

static _Noreturn void bad_pointer(const char *call, const void *p)
{
    amp_rank_t *rank = amp_rank_self();
    if (rank)
        rank->sys_alloc++;
    amp_fatal("%s(%p): not a live block of a rank's heap (freed twice, or "
              "never allocated)",
              call, p);
}

/* The one-line error of a rank whose slot is full. */
static void *out_of_memory(size_t size)
{
    amp_rank_t *rank = amp_rank_self();
    rank->sys_alloc++;
    amp_log_error("rank %d is out of memory in its %zu-byte isomalloc slot "
                  "(%zu bytes asked for); raise the slot size with "
                  "+isomalloc_slot BYTES or AMPI_ISOMALLOC_SLOT",
                  rank->world_rank, amp_proc.mem.slot_size, size);
    rank->sys_alloc--;
    errno = ENOMEM;
    return NULL;
}

static void *heap_alloc(amp_heap_t *heap, size_t size, size_t align)
{
    void *p = amp_heap_alloc(heap, size, align);
    return p ? p : out_of_memory(size);
}

/* Frees p, in the range, from whichever thread. */
static void free_in_slot(void *p, const char *call)
{
    amp_rank_t *self = amp_rank_self();
    amp_heap_t *heap = heap_of(p, self);
    amp_status_t status = AMP_ERR_ARG;
    if (heap && self && self->heap == heap)
        status = amp_heap_free(heap, p);
    else if (heap)
        status = amp_heap_free_remote(heap, p);
    if (status != AMP_OK)
        bad_pointer(call, p);
}

/* realloc of p, in the range, to size (not 0): the block moves where the
 * caller's malloc allocates, unless it is there already. */
static void *realloc_in_slot(void *p, size_t size)
{
    amp_rank_t *self = amp_rank_self();
    amp_heap_t *to = self && !self->sys_alloc ? amp_rank_heap(self) : NULL;
    amp_heap_t *heap = heap_of(p, self);
    size_t have = heap ? amp_heap_usable_size(p) : 0;
    if (have == 0)
        bad_pointer("realloc", p);
    if (heap == to) {
        void *q = amp_heap_realloc(heap, p, size);
        return q ? q : out_of_memory(size);
    }
    void *q = to ? heap_alloc(to, size, 16) : __libc_malloc(size);
    if (!q)
        return NULL;
    memcpy(q, p, size < have ? size : have);
    free_in_slot(p, "realloc");
    return q;
}

static inline void *aligned(size_t align, size_t size)
{
    amp_heap_t *heap = rank_heap();
    return heap ? heap_alloc(heap, size, align) : __libc_memalign(align, size);
}

static int power_of_two(size_t n)
{
    return n && !(n & (n - 1));
}

EXPORT void *AMP_ALLOC_FN(malloc)(size_t size)
{
    amp_heap_t *heap = rank_heap();
    return heap ? heap_alloc(heap, size, 16) : __libc_malloc(size);
}

EXPORT void *AMP_ALLOC_FN(calloc)(size_t n, size_t size)
{
    amp_heap_t *heap = rank_heap();
    if (!heap)
        return __libc_calloc(n, size);
    size_t bytes;
    if (__builtin_mul_overflow(n, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = heap_alloc(heap, bytes, 16);
    return p ? memset(p, 0, bytes) : NULL;
}

EXPORT void AMP_ALLOC_FN(free)(void *p)
{
    if (in_range(p))
        free_in_slot(p, "free");
    else
        __libc_free(p);
}

EXPORT void *AMP_ALLOC_FN(realloc)(void *p, size_t size)
{
    if (!p)
        return AMP_ALLOC_FN(malloc)(size);
    if (!in_range(p))
        return __libc_realloc(p, size);
    if (size == 0) {
        free_in_slot(p, "realloc");
        return NULL;
    }
    return realloc_in_slot(p, size);
}

EXPORT void *AMP_ALLOC_FN(reallocarray)(void *p, size_t n, size_t size)
{
    size_t bytes;
    if (__builtin_mul_overflow(n, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return AMP_ALLOC_FN(realloc)(p, bytes);
}

EXPORT int AMP_ALLOC_FN(posix_memalign)(void **out, size_t align, size_t size)
{
    if (!power_of_two(align) || align % sizeof(void *) != 0)
        return EINVAL;
    int saved = errno;
    void *p = aligned(align, size);
    if (!p) {
        errno = saved;
        return ENOMEM;
    }
    *out = p;
    return 0;
}

EXPORT void *AMP_ALLOC_FN(aligned_alloc)(size_t align, size_t size)
{
    if (!power_of_two(align)) {
        errno = EINVAL;
        return NULL;
    }
    return aligned(align, size);
}

/* As the C library's: an alignment that is no power of two is rounded up
 * to one. */
EXPORT void *AMP_ALLOC_FN(memalign)(size_t align, size_t size)
{
    if (align > ((size_t)1 << 62)) {
        errno = EINVAL;
        return NULL;
    }
    size_t a = 16;
    while (a < align)
        a <<= 1;
    return aligned(a, size);
}

EXPORT void *AMP_ALLOC_FN(valloc)(size_t size)
{
    return aligned(amp_proc.mem.page_size ? amp_proc.mem.page_size : 4096,
                   size);
}

EXPORT void *AMP_ALLOC_FN(pvalloc)(size_t size)
{
    size_t page = amp_proc.mem.page_size ? amp_proc.mem.page_size : 4096;
    if (size > SIZE_MAX - page) {
        errno = ENOMEM;
        return NULL;
    }
    return aligned(page, AMP_ROUND_UP(size ? size : 1, page));
}

typedef size_t (*usable_fn_t)(void *);

/* The C library's malloc_usable_size, looked up on first use (it has no
 * __libc_ name) and kept in a function-local cache: written once, the same
 * value by every thread that races to write it. */
static size_t libc_usable_size(void *p)
{
#ifdef AMP_ALLOC_SANITIZED
    return malloc_usable_size(p); /* AddressSanitizer's */
#else
    static _Atomic(usable_fn_t) real;
    usable_fn_t fn = atomic_load_explicit(&real, memory_order_acquire);
    if (!fn) {
        void *sym = dlsym(RTLD_NEXT, "malloc_usable_size");
        if (!sym)
            amp_fatal("the C library has no malloc_usable_size");
        memcpy(&fn, &sym, sizeof(fn));
        atomic_store_explicit(&real, fn, memory_order_release);
    }
    return fn(p);
#endif
}

EXPORT size_t AMP_ALLOC_FN(malloc_usable_size)(void *p)
{
    if (!p)
        return 0;
    if (!in_range(p))
        return libc_usable_size(p);
    size_t n = heap_of(p, amp_rank_self()) ? amp_heap_usable_size(p) : 0;
    if (n == 0)
        bad_pointer("malloc_usable_size", p);
    return n;
}

#ifdef AMP_ALLOC_SANITIZED
/* The C library's strdup would allocate through its own malloc, and
 * AddressSanitizer replaces it: the program's calls come here instead. */
EXPORT char *__wrap_strndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *copy = AMP_ALLOC_FN(malloc)(len + 1);
    if (!copy)
        return NULL;
    memcpy(copy, s, len);
    copy[len] = '\0';
    return copy;
}

EXPORT char *__wrap_strdup(const char *s)
{
    return __wrap_strndup(s, SIZE_MAX);
}
#endif

/* ---- the runtime's own allocations (mem/sys_alloc.h) ---- */

/* amp_sys_alloc_enter/leave count in the calling rank. */
static int *rank_sys_count(void)
{
    amp_rank_t *rank = amp_rank_self();
    return rank ? &rank->sys_alloc : NULL;
}

/* The C library's heap keeps what the runtime frees, up to sizes a
 * message's temporaries reach: by default it gives back the top of the
 * heap above 128 KiB at each free, so that the buffers of every collective
 * over 128 KiB between processes were made present again at each call
 * (docs/runtime-options.md, "Heap").  These are the largest values the C
 * library's own adaptation reaches; MALLOC_MMAP_THRESHOLD_,
 * MALLOC_TRIM_THRESHOLD_ or MALLOC_TOP_PAD_ in the environment leave its
 * settings alone. */
#define SYS_MMAP_THRESHOLD (32 << 20)
#define SYS_TRIM_THRESHOLD (64 << 20)

static void keep_freed_memory(void)
{
    if (getenv("MALLOC_MMAP_THRESHOLD_") || getenv("MALLOC_TRIM_THRESHOLD_") ||
        getenv("MALLOC_TOP_PAD_"))
        return;
    mallopt(M_MMAP_THRESHOLD, SYS_MMAP_THRESHOLD);
    mallopt(M_TRIM_THRESHOLD, SYS_TRIM_THRESHOLD);
}

void amp_start_alloc_init(void)
{
    amp_sys_alloc_route(rank_sys_count);
    keep_freed_memory();
}

/* ---- the query of ampi.h ---- */

int AMPI_Isomalloc_rank(const void *addr, int *rank_out)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "AMPI_Isomalloc_rank");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!rank_out)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, "AMPI_Isomalloc_rank",
                             "rank is NULL");
    int slot = amp_mem_slot_of(&amp_proc.mem, addr);
    *rank_out = slot >= 0 ? slot : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
