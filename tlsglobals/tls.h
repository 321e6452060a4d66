/*
 * tlsglobals: per-rank copies of the static TLS block.
 *
 * Privatized code is compiled so that every TLS access first reads the
 * thread pointer from %fs:0 (-mno-tls-direct-seg-refs) and then adds the
 * variable's offset (initial- or local-exec model).  Each rank gets its own
 * copy of the static TLS area below the thread pointer, initialized from
 * the modules' TLS images, and the scheduler stores the running rank's
 * pointer into %fs:0 at every switch.  Code compiled normally (the C
 * library, this runtime) addresses TLS as %fs:offset and keeps using the
 * kernel thread's block: errno, stdio locks and the runtime's own
 * thread-local data are untouched.  The C library's functions that hand
 * out such an address computed from %fs:0 (__errno_location, the ctype
 * table lookups) are replaced by libc.c with ones that answer the kernel
 * thread's block.
 *
 * x86-64 (TLS variant II): module blocks sit at negative offsets from the
 * thread pointer; *tp holds tp itself.
 */
#ifndef AMP_TLSGLOBALS_TLS_H
#define AMP_TLSGLOBALS_TLS_H

#include "base/base.h"

#define AMP_TLS_MAX_MODULES 64

typedef struct amp_tls_module {
    const void *init; /* initialization image */
    size_t filesz, memsz;
    ptrdiff_t off; /* block start relative to the thread pointer */
} amp_tls_module_t;

/* The layout of the static TLS area, the same for every kernel thread. */
typedef struct amp_tls_image {
    size_t below; /* bytes from the lowest block start up to tp */
    size_t align; /* alignment the thread pointer needs */
    int nmodules;
    amp_tls_module_t modules[AMP_TLS_MAX_MODULES];
} amp_tls_image_t;

/* Reads the static TLS layout of the modules loaded now (call at startup,
 * on a kernel thread). */
amp_status_t amp_tls_image_init(amp_tls_image_t *img);

/* Bytes a per-rank copy needs (including alignment slack). */
size_t amp_tls_copy_size(const amp_tls_image_t *img);

/* Lays out a fresh copy in mem (amp_tls_copy_size bytes, zeroed or not)
 * and returns the thread pointer to install for it. */
void *amp_tls_copy_init(const amp_tls_image_t *img, void *mem);

/* The thread pointer of the copy laid out in mem (what amp_tls_copy_init
 * returns), without touching it. */
void *amp_tls_copy_tp(const amp_tls_image_t *img, void *mem);

/* The calling kernel thread's current thread pointer (%fs:0). */
static inline void *amp_tls_get(void)
{
    void *tp;
    __asm__ volatile("movq %%fs:0, %0" : "=r"(tp));
    return tp;
}

/* The kernel thread's own thread pointer, whatever %fs:0 holds now: glibc
 * keeps it at %fs:16 (tcbhead_t's self pointer), which the runtime never
 * changes. */
static inline void *amp_tls_kernel_get(void)
{
    void *tp;
    __asm__("movq %%fs:16, %0" : "=r"(tp));
    return tp;
}

/* Makes tp the thread pointer that privatized code sees. */
static inline void amp_tls_set(void *tp)
{
    __asm__ volatile("movq %0, %%fs:0" : : "r"(tp) : "memory");
}

#endif
