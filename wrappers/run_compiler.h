#ifndef AMPI_WRAPPERS_RUN_COMPILER_H
#define AMPI_WRAPPERS_RUN_COMPILER_H

#include <stddef.h>

/* Runs cmd as a child, passing its output through, explains a TLS
 * mismatch at link time in one line, and returns the child's exit status
 * (128 + signal number when killed). */
int amp_wrapper_run(char **cmd, const char *wrapper, const char *what,
                    const char *hint);

/* Replaces the process with cmd; returns only on failure, after one line
 * naming what could not run (the compiler) and the hint to fix it. */
int amp_wrapper_exec(char **cmd, const char *wrapper, const char *what,
                     const char *hint);

/* Runs cmd with --version and keeps what it prints (stdout and stderr, at
 * most size - 1 bytes, NUL-terminated) in out; 0 when it ran and exited
 * with status 0, else -1. */
int amp_wrapper_banner(char **cmd, char *out, size_t size);

#endif
