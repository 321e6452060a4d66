/*
 * ampirun --restart-on-failure (restart_on_failure.h): ampirun stays the
 * parent of the launcher (or of the program, for one process), waits for
 * it, and after a failed run restarts the job from the checkpoint the
 * note names, if that checkpoint is complete: its manifest, which the
 * runtime writes last and swaps in with the rank files in one step, ends
 * with its "end" line.  A run that ends because ampirun itself was told to
 * stop (SIGINT, SIGTERM, SIGHUP, passed on to the job) is not restarted.
 */
#define _GNU_SOURCE
#include "restart_on_failure.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOTE_VAR "AMPI_CHECKPOINT_NOTE"

/* The running job, for the signal handler (a wrapper's process, not the
 * runtime: the one place a handler can find it). */
static volatile sig_atomic_t job_pid, stop_signal;

static void pass_on(int sig)
{
    stop_signal = sig;
    if (job_pid > 0)
        kill((pid_t)job_pid, sig);
}

long ampirun_restarts_parse(const char *text)
{
    char *end;
    long n;

    errno = 0;
    n = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno != 0 || n < 1 || n > 1000000)
        return -1;
    return n;
}

char *ampirun_note_create(const char *first)
{
    const char *tmp = getenv("TMPDIR");
    char *path, abs[PATH_MAX];
    int fd;

    if (asprintf(&path, "%s/ampirun-note-XXXXXX",
                 tmp && tmp[0] ? tmp : "/tmp") < 0) {
        fputs("ampirun: out of memory\n", stderr);
        exit(1);
    }
    fd = mkstemp(path);
    if (fd >= 0 && first != NULL && realpath(first, abs) != NULL)
        dprintf(fd, "%s\n", abs);
    if (fd < 0 || close(fd) != 0 || setenv(NOTE_VAR, path, 1) != 0) {
        fprintf(stderr,
                "ampirun: --restart-on-failure: cannot create %s (set "
                "TMPDIR to a writable directory): %s\n",
                path, strerror(errno));
        exit(1);
    }
    return path;
}

/* The directory the note names, if its checkpoint is complete: malloc'd,
 * or NULL (and *why says why). */
static char *noted_checkpoint(const char *note, const char **why)
{
    char dir[PATH_MAX], path[PATH_MAX + 16], line[512], last[512] = "";
    FILE *f = fopen(note, "re");
    size_t n;

    *why = "before it wrote a checkpoint";
    if (!f)
        return NULL;
    n = fread(dir, 1, sizeof(dir) - 1, f);
    fclose(f);
    dir[n] = '\0';
    dir[strcspn(dir, "\n")] = '\0';
    if (dir[0] == '\0')
        return NULL;
    snprintf(path, sizeof(path), "%s/manifest", dir);
    *why = "and its last checkpoint is not complete (no manifest ending "
           "with 'end')";
    if (!(f = fopen(path, "re")))
        return NULL;
    if (!fgets(line, sizeof(line), f) ||
        strncmp(line, "ampi-checkpoint ", 16) != 0) {
        fclose(f);
        return NULL;
    }
    while (fgets(last, sizeof(last), f))
        ;
    fclose(f);
    return strcmp(last, "end\n") == 0 ? strdup(dir) : NULL;
}

/* Runs cmd to its end; its wait status. */
static int run_once(const char *const *cmd)
{
    int status;
    pid_t pid = fork();

    if (pid < 0) {
        fprintf(stderr, "ampirun: cannot start '%s': %s\n", cmd[0],
                strerror(errno));
        return 126 << 8;
    }
    if (pid == 0) {
        execvp(cmd[0], (char *const *)cmd);
        fprintf(stderr, "ampirun: cannot run '%s': %s\n", cmd[0],
                strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
    }
    job_pid = pid;
    if (stop_signal)
        kill(pid, stop_signal);
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 126 << 8;
    job_pid = 0;
    return status;
}

static int exit_status(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void describe(int status, char *buf, size_t len)
{
    if (WIFEXITED(status))
        snprintf(buf, len, "exit status %d", WEXITSTATUS(status));
    else
        snprintf(buf, len, "killed by signal %d", WTERMSIG(status));
}

static void handle_stops(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = pass_on;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

int ampirun_supervise(const char *note, long max_restarts,
                      ampirun_command_fn_t command, void *ctx)
{
    char *dir = NULL, how[64];
    const char *why;
    long restarts = 0;
    int status;

    handle_stops();
    for (;;) {
        status = run_once(command(ctx, dir));
        if (status == 0 || stop_signal)
            break;
        describe(status, how, sizeof(how));
        free(dir);
        dir = noted_checkpoint(note, &why);
        if (dir == NULL) {
            fprintf(stderr,
                    "ampirun: --restart-on-failure: the job failed (%s) %s; "
                    "not restarted\n",
                    how, why);
            break;
        }
        if (restarts == max_restarts) {
            fprintf(stderr,
                    "ampirun: --restart-on-failure=%ld: the job failed (%s) "
                    "after %ld restart%s; not restarted again\n",
                    max_restarts, how, restarts, restarts == 1 ? "" : "s");
            break;
        }
        restarts++;
        fprintf(stderr,
                "ampirun: the job failed (%s); restarting it from the "
                "checkpoint %s (restart %ld of at most %ld)\n",
                how, dir, restarts, max_restarts);
    }
    free(dir);
    unlink(note);
    return exit_status(status);
}
