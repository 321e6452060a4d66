/*
 * Whether this is the AddressSanitizer build (AMPI_SANITIZE): AMP_ASAN is
 * then 1, and undefined otherwise.  Safe to include from assembly.
 */
#ifndef AMP_BASE_SANITIZE_H
#define AMP_BASE_SANITIZE_H

#if defined(__SANITIZE_ADDRESS__)
#define AMP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AMP_ASAN 1
#endif
#endif

#ifndef __ASSEMBLER__
#include <stddef.h>
#ifdef AMP_ASAN
#include <sanitizer/asan_interface.h>
#endif

/* Makes [p, p + n) readable to AddressSanitizer again: the stack of a
 * stopped rank, which the runtime copies whole (checkpoints, moves), red
 * zones of its frames included.  Nothing otherwise. */
static inline void amp_asan_unpoison(const void *p, size_t n)
{
#ifdef AMP_ASAN
    __asan_unpoison_memory_region(p, n);
#else
    (void)p;
    (void)n;
#endif
}
#endif

#endif
