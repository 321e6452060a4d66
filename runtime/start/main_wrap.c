/*
 * Linked into every program (libampi_main.a) together with
 * -Wl,--wrap=main: the C runtime's call to main lands here, and the
 * program's own main becomes __real_main, which each rank runs.
 */
typedef int (*amp_main_fn_t)(int argc, char **argv, char **envp);

int __real_main(int argc, char **argv, char **envp);
int amp_start_main(int argc, char **argv, char **envp, amp_main_fn_t main_fn);
int __wrap_main(int argc, char **argv, char **envp);

#include "base/sanitize.h"
#ifdef AMP_ASAN
/* The sanitizer build's defaults (sanitize.c) come into every program. */
extern const char amp_sanitize_defaults[];
__attribute__((used)) static const char *const sanitize_defaults =
    amp_sanitize_defaults;
#endif

int __wrap_main(int argc, char **argv, char **envp)
{
    return amp_start_main(argc, argv, envp, __real_main);
}
