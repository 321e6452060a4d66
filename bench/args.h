/* Command-line helpers shared by the benchmark programs (header only, so
 * each program still builds from its one source with any mpicc). */
#ifndef AMPI_BENCH_ARGS_H
#define AMPI_BENCH_ARGS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* Parses arg as an integer in lo..hi into *out; on failure returns -1 after
 * one line naming prog and flag on err (unless err is NULL). */
static inline int bench_parse_long(const char *prog, const char *arg,
                                   const char *flag, long lo, long hi,
                                   long *out, FILE *err)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (end == arg || *end != '\0' || errno != 0 || v < lo || v > hi) {
        if (err)
            fprintf(err, "%s: %s wants an integer in %ld..%ld, got '%s'\n",
                    prog, flag, lo, hi, arg);
        return -1;
    }
    *out = v;
    return 0;
}

#endif
