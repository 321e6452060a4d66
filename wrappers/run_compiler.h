#ifndef AMPI_WRAPPERS_RUN_COMPILER_H
#define AMPI_WRAPPERS_RUN_COMPILER_H

/* Runs cmd as a child, passing its output through, explains a TLS
 * mismatch at link time in one line, and returns the child's exit status
 * (128 + signal number when killed). */
int amp_wrapper_run(char **cmd, const char *wrapper, const char *what,
                    const char *hint);

/* Replaces the process with cmd; returns only on failure, after one line
 * naming what could not run (the compiler) and the hint to fix it. */
int amp_wrapper_exec(char **cmd, const char *wrapper, const char *what,
                     const char *hint);

#endif
