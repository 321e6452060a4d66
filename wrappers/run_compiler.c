/*
 * Runs the compiler for a wrapper and passes its output through.  One
 * linker message gets an explanation: "TLS definition in A mismatches
 * non-TLS reference in B" (or the reverse) means some objects were built
 * with privatization (globals made thread-local) and some without, which a
 * user of the wrappers meets by mixing -privatize modes or a plain
 * compiler; the linker's words do not say that.
 */
#define _GNU_SOURCE
#include "run_compiler.h"

#include <errno.h>
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Copies the child's stderr to ours; returns whether a TLS mismatch was
 * reported. */
static int relay(int fd)
{
    FILE *in = fdopen(fd, "r");
    char line[4096];
    int mismatch = 0;
    if (!in)
        return 0;
    while (fgets(line, sizeof(line), in)) {
        fputs(line, stderr);
        if (strstr(line, "mismatches non-TLS") ||
            strstr(line, "mismatches TLS"))
            mismatch = 1;
    }
    fclose(in);
    return mismatch;
}

static int exit_status(int wstatus)
{
    if (WIFEXITED(wstatus))
        return WEXITSTATUS(wstatus);
    return 128 + WTERMSIG(wstatus);
}

int amp_wrapper_run(char **cmd, const char *wrapper, const char *what,
                    const char *hint)
{
    int fds[2];
    fflush(stdout);
    if (pipe(fds) != 0)
        return amp_wrapper_exec(cmd, wrapper, what, hint);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        _exit(amp_wrapper_exec(cmd, wrapper, what, hint));
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return amp_wrapper_exec(cmd, wrapper, what, hint);
    }
    int mismatch = relay(fds[0]);
    int wstatus;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
        ;
    int status = exit_status(wstatus);
    if (status != 0 && mismatch)
        fprintf(stderr,
                "%s: some objects were built with privatized globals and "
                "some without; build every object and library with the "
                "wrappers and the same -privatize mode\n",
                wrapper);
    return status;
}

int amp_wrapper_exec(char **cmd, const char *wrapper, const char *what,
                     const char *hint)
{
    execvp(cmd[0], cmd);
    int err = errno;
    fprintf(stderr, "%s: cannot run the %s '%s': %s (%s)\n", wrapper, what,
            cmd[0], strerror(err), hint);
    return err == ENOENT ? 127 : 126;
}

int amp_wrapper_banner(char **cmd, char *out, size_t size)
{
    int fds[2];
    size_t n = 0;
    int wstatus;

    out[0] = '\0';
    if (size == 0 || pipe(fds) != 0)
        return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        size_t argc = 0;
        while (cmd[argc])
            argc++;
        char **argv = calloc(argc + 2, sizeof(char *));
        if (!argv)
            _exit(127);
        memcpy(argv, cmd, argc * sizeof(char *));
        argv[argc] = "--version";
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return -1;
    }
    for (;;) {
        ssize_t got = read(fds[0], out + n, size - 1 - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        n += (size_t)got;
        if (n == size - 1) {
            char sink[256];
            while (read(fds[0], sink, sizeof(sink)) > 0)
                ;
            break;
        }
    }
    out[n] = '\0';
    close(fds[0]);
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 ? 0 : -1;
}
