/*
 * The C library's thread-local addresses, answered for the kernel thread.
 *
 * The runtime switches the word at %fs:0 per rank (tls.h).  glibc reads
 * and writes its own thread-local variables %fs-relative (errno after a
 * failed call, the locale's ctype tables at thread start), which reaches
 * the kernel thread's block.  But the functions that hand out the
 * *address* of such a variable compute it as %fs:0 plus an offset, which in
 * a rank lands in the rank's copy: errno read through __errno_location
 * would never see what the library stored, and the ctype table pointers in
 * a copy are null (glibc sets them per kernel thread, in its block), so
 * toupper() or isalpha() in a rank, and gfortran's formatted I/O, would
 * crash.
 *
 * libampi therefore defines these functions itself, ahead of the C library
 * in every lookup, and answers the kernel thread's address: the C
 * library's answer moved from the current thread pointer (%fs:0) to the
 * kernel thread's own, which glibc keeps at %fs:16 (tcbhead_t's self
 * pointer; the runtime never changes it).  errno is then per kernel
 * thread, as the library itself sees it; a rank only switches inside MPI
 * calls, so it reads the errno of its own last library call.
 *
 * The C library's functions are found with dlsym(RTLD_NEXT) on first use
 * and kept in one function-local cache each: written once, the same value
 * by every thread that races to write it.
 */
#define _GNU_SOURCE 1
#include "tlsglobals/tls.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void *(*loc_fn_t)(void);

#define EXPORT __attribute__((visibility("default")))

static loc_fn_t find_real(_Atomic(loc_fn_t) *cache, const char *name)
{
    loc_fn_t fn = atomic_load_explicit(cache, memory_order_acquire);
    if (fn)
        return fn;
    void *sym = dlsym(RTLD_NEXT, name);
    if (!sym) {
        static const char msg[] = "ampi: the C library has no thread-local "
                                  "address function this runtime needs\n";
        ssize_t ignored = write(STDERR_FILENO, msg, sizeof(msg) - 1);
        (void)ignored;
        abort();
    }
    memcpy(&fn, &sym, sizeof(fn));
    atomic_store_explicit(cache, fn, memory_order_release);
    return fn;
}

/* The C library's answer for name, in the kernel thread's block. */
static void *kernel_address(_Atomic(loc_fn_t) *cache, const char *name)
{
    char *addr = find_real(cache, name)();
    return (char *)amp_tls_kernel_get() + (addr - (char *)amp_tls_get());
}

#define AMP_KERNEL_TLS_ADDRESS(type, name)                                     \
    EXPORT type name(void);                                                    \
    type name(void)                                                            \
    {                                                                          \
        static _Atomic(loc_fn_t) real;                                         \
        return (type)kernel_address(&real, #name);                             \
    }

AMP_KERNEL_TLS_ADDRESS(int *, __errno_location)
AMP_KERNEL_TLS_ADDRESS(int *, __h_errno_location)
AMP_KERNEL_TLS_ADDRESS(const unsigned short **, __ctype_b_loc)
AMP_KERNEL_TLS_ADDRESS(const int **, __ctype_tolower_loc)
AMP_KERNEL_TLS_ADDRESS(const int **, __ctype_toupper_loc)
