/*
 * The runtime's own allocations (sys_alloc.h): the C library's heap.
 *
 * New blocks come from the C library under the names it keeps for itself
 * (__libc_malloc and co.), which the process's malloc family (start/
 * alloc.c) does not interpose.  A block the runtime gives back or resizes
 * may be a rank's (in its isomalloc slot): free and realloc go through the
 * process's own free and realloc, which tell the two kinds apart by
 * address, with the calling rank's allocations sent to the C library for
 * the time of the realloc.
 *
 * Which rank calls, this layer cannot know: the layer that makes the ranks
 * registers, once at startup, the function that finds the calling rank's
 * count of nested amp_sys_alloc_enter.
 */
#define _GNU_SOURCE 1
#include "mem/sys_alloc.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

/* AddressSanitizer's malloc family comes first in the process: under it
 * the runtime uses that one (start/alloc.c). */
#if defined(__SANITIZE_ADDRESS__)
#define AMP_SYS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AMP_SYS_SANITIZED 1
#endif
#endif

#ifdef AMP_SYS_SANITIZED
#define __libc_malloc malloc
#define __libc_calloc calloc
#define __libc_memalign memalign
#else
void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_memalign(size_t align, size_t size);
#endif

/* Written once at startup, before the PEs and the ranks exist, then only
 * read. */
/* The process's free and realloc: libampi's (start/alloc.c), which sends
 * a rank's blocks to its slot; under AddressSanitizer they have the
 * names the wrappers link the program's calls to (-Wl,--wrap=free...). */
#include "base/sanitize.h"
#ifdef AMP_ASAN
void __wrap_free(void *p);
void *__wrap_realloc(void *p, size_t size);
#define process_free __wrap_free
#define process_realloc __wrap_realloc
#else
#define process_free free
#define process_realloc realloc
#endif

static amp_sys_alloc_count_fn_t count_fn;

void amp_sys_alloc_route(amp_sys_alloc_count_fn_t fn)
{
    count_fn = fn;
}

void amp_sys_alloc_enter(void)
{
    int *count = count_fn ? count_fn() : NULL;
    if (count)
        (*count)++;
}

void amp_sys_alloc_leave(void)
{
    int *count = count_fn ? count_fn() : NULL;
    if (count)
        (*count)--;
}

void *amp_sys_malloc(size_t size)
{
    return __libc_malloc(size);
}

void *amp_sys_calloc(size_t n, size_t size)
{
    return __libc_calloc(n, size);
}

/* The process's realloc with the caller's new blocks in the C library's
 * heap: a rank's block moves there, one of the C library stays. */
void *amp_sys_realloc(void *p, size_t size)
{
    amp_sys_alloc_enter();
    void *q = process_realloc(p, size);
    amp_sys_alloc_leave();
    return q;
}

void amp_sys_free(void *p)
{
    process_free(p);
}

void *amp_sys_aligned_alloc(size_t align, size_t size)
{
    return __libc_memalign(align, size);
}

int amp_sys_posix_memalign(void **out, size_t align, size_t size)
{
    if (!align || (align & (align - 1)) || align % sizeof(void *) != 0)
        return EINVAL;
    void *p = __libc_memalign(align, size);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

char *amp_sys_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = __libc_malloc(n);
    return copy ? memcpy(copy, s, n) : NULL;
}
