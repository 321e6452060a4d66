#include "base/base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

const char *amp_status_str(amp_status_t status)
{
    switch (status) {
#define AMP_STATUS_CASE(name, value, text)                                     \
    case name: return text;
        AMP_STATUS_LIST(AMP_STATUS_CASE)
#undef AMP_STATUS_CASE
    }
    return "unknown status";
}

static void vlog(const char *fmt, va_list ap)
{
    char line[1024];
    int n = snprintf(line, sizeof(line), "ampi: ");
    n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    if (n > (int)sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    fflush(stdout);
    ssize_t ignored = write(STDERR_FILENO, line, (size_t)n);
    (void)ignored;
}

void amp_log_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

__attribute__((weak)) void amp_fatal_last_words(void)
{
}

void amp_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
    amp_fatal_last_words();
    _exit(1);
}

void amp_assert_fail(const char *expr, const char *file, int line)
{
    amp_log_error("internal error: assertion '%s' failed at %s:%d", expr, file,
                  line);
    abort();
}
