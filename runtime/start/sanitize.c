/*
 * The sanitizer build's defaults (AMPI_SANITIZE, docs/testing.md), linked
 * into every program of that build (libampi_main.a; main_wrap.c pulls this
 * file in) and into the unit tests.  The sanitizers' runtime asks the
 * program for them at startup; ASAN_OPTIONS, UBSAN_OPTIONS and
 * LSAN_OPTIONS in the environment still override them.
 */
#define EXPORT __attribute__((visibility("default"), used))

/* What main_wrap.c refers to, so that this file is linked in. */
const char amp_sanitize_defaults[] = "AMPI_SANITIZE";

EXPORT const char *__ubsan_default_options(void);
EXPORT const char *__asan_default_options(void);
EXPORT const char *__lsan_default_suppressions(void);

EXPORT const char *__ubsan_default_options(void)
{
    return "print_stacktrace=1";
}

/* No leak check at exit: the runtime keeps its per-process and per-rank
 * state until the process ends (docs/testing.md; ASAN_OPTIONS=detect_leaks=1
 * turns it on).  The alternate signal stacks are the runtime's
 * (start/signals.c): AddressSanitizer must neither set its own nor unmap
 * the runtime's when a PE's thread ends. */
EXPORT const char *__asan_default_options(void)
{
    return "detect_leaks=0:use_sigaltstack=0";
}

/* What the libraries under the runtime keep until the process ends: not
 * ours to free. */
EXPORT const char *__lsan_default_suppressions(void)
{
    return "leak:libpmix.so\n";
}
