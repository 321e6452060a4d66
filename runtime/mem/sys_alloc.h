/*
 * The runtime's own allocations.
 *
 * libampi defines malloc and its family for the whole process
 * (start/alloc.c): what a rank's code allocates goes to the rank's heap, in
 * its isomalloc slot, so that it moves with the rank.  The runtime's own
 * memory must not: every runtime source file is compiled with this header
 * forced in first (-include, runtime/CMakeLists.txt), which renames the
 * runtime's calls of the family to amp_sys_*.  Those allocate from the C
 * library's heap whatever thread calls them; amp_sys_free and
 * amp_sys_realloc take a block of either kind (told apart by its address).
 *
 * What the runtime's calls into other libraries allocate (UCX, PMIx,
 * hwloc, the C library's own strdup or fopen) reaches the interposed
 * malloc; from a rank, it would land in the rank's slot.  Around such calls
 * made from a rank, amp_sys_alloc_enter/leave send the rank's allocations
 * to the C library meanwhile.
 *
 * Declared and defined at the bottom (sys_alloc.c) so that every layer can
 * use it.  Which rank calls is known above: the layer that makes the ranks
 * registers at startup how to find the calling rank's count
 * (amp_sys_alloc_route).
 */
#ifndef AMP_MEM_SYS_ALLOC_H
#define AMP_MEM_SYS_ALLOC_H

#include <stddef.h>

void *amp_sys_malloc(size_t size) __attribute__((malloc, alloc_size(1)));
void *amp_sys_calloc(size_t n, size_t size)
    __attribute__((malloc, alloc_size(1, 2)));
void *amp_sys_realloc(void *p, size_t size) __attribute__((alloc_size(2)));
void amp_sys_free(void *p);
void *amp_sys_aligned_alloc(size_t align, size_t size)
    __attribute__((malloc, alloc_size(2)));
int amp_sys_posix_memalign(void **p, size_t align, size_t size);
char *amp_sys_strdup(const char *s) __attribute__((malloc));

/* Between these (nested freely), the calling rank's allocations go to the
 * C library; no-ops outside a rank. */
void amp_sys_alloc_enter(void);
void amp_sys_alloc_leave(void);

/* The calling rank's count of nested amp_sys_alloc_enter (its allocations
 * go to the C library while it is above 0), or NULL outside a rank. */
typedef int *(*amp_sys_alloc_count_fn_t)(void);
/* Registers fn, once at startup, before the PEs and the ranks exist;
 * amp_sys_alloc_enter/leave are no-ops until then. */
void amp_sys_alloc_route(amp_sys_alloc_count_fn_t fn);

/* start/alloc.c defines the family, and sys_alloc.c calls it: they alone
 * see the real names. */
#ifndef AMP_ALLOC_INTERPOSER
#define malloc amp_sys_malloc
#define calloc amp_sys_calloc
#define realloc amp_sys_realloc
#define free amp_sys_free
#define aligned_alloc amp_sys_aligned_alloc
#define posix_memalign amp_sys_posix_memalign
#define strdup amp_sys_strdup
#endif

#endif
