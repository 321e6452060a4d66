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

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOTE_VAR "AMPI_CHECKPOINT_NOTE"
#define MEMORY_VAR "AMPI_CHECKPOINT_MEMORY"

/* The running job, for the signal handler (a wrapper's process, not the
 * runtime: the one place a handler can find it), and the stopping signals
 * passed on to it (a bit each). */
static volatile sig_atomic_t job_pid, stop_signal, passed;

/* A signal sent to ampirun goes on to the job; one the terminal sent
 * (SI_KERNEL: Ctrl-C, a hang-up) reached the job's process group already.
 * A stopping signal goes on once: one sent to ampirun's process group
 * (timeout(1) signals its child, then its group) reaches the job too, and
 * the runtime takes a second SIGTERM or SIGINT as "end now, no report".
 * SIGUSR1 and SIGUSR2 always pass on and stop nothing, as through Open
 * MPI's launcher. */
static void pass_on(int sig, siginfo_t *info, void *uc)
{
    int stops = sig != SIGUSR1 && sig != SIGUSR2;

    (void)uc;
    if (stops)
        stop_signal = sig;
    if (job_pid <= 0 || info->si_code == SI_KERNEL ||
        (stops && (passed & (1 << sig))))
        return;
    if (stops)
        passed |= 1 << sig;
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

char *ampirun_note_create(const char *first, bool asked)
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
        if (!asked) {
            if (fd >= 0)
                unlink(path);
            free(path);
            return NULL;
        }
        fprintf(stderr,
                "ampirun: --restart-on-failure: cannot create %s (set "
                "TMPDIR to a writable directory): %s\n",
                path, strerror(errno));
        exit(1);
    }
    return path;
}

const char *ampirun_memory_dir(void)
{
    const char *set = getenv(MEMORY_VAR);
    char *dir;

    if (set != NULL && set[0] != '\0')
        return set;
    if (asprintf(&dir, "/dev/shm/ampi-ckpt-%ld-run%ld", (long)getuid(),
                 (long)getpid()) < 0 ||
        setenv(MEMORY_VAR, dir, 1) != 0) {
        fputs("ampirun: out of memory\n", stderr);
        exit(1);
    }
    return dir;
}

/* Whether dir is the in-memory checkpoint directory memory. */
static bool in_memory(const char *dir, const char *memory)
{
    char abs[PATH_MAX];

    if (memory == NULL)
        return false;
    /* Not here when each node has its own /dev/shm and this is none of
     * the job's nodes. */
    return strcmp(realpath(memory, abs) != NULL ? abs : memory, dir) == 0;
}

/* Removes the checkpoint files (manifest, owner, rank-N.ckpt and their
 * .tmp) of dir, then dir if that empties it. */
static void remove_checkpoint(const char *dir)
{
    DIR *d = opendir(dir);
    char path[PATH_MAX];
    struct dirent *e;

    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, "manifest") == 0 ||
            strncmp(e->d_name, "manifest.", 9) == 0 ||
            strcmp(e->d_name, "owner") == 0 ||
            strcmp(e->d_name, "owner.tmp") == 0 ||
            strncmp(e->d_name, "rank-", 5) == 0) {
            snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(dir);
}

static void remove_memory(const char *memory)
{
    char next[PATH_MAX];

    if (memory == NULL)
        return;
    snprintf(next, sizeof(next), "%s.next", memory);
    remove_checkpoint(next);
    remove_checkpoint(memory);
}

/* What the note says: the checkpoint's directory, and whether copies of
 * it are kept on several nodes (a second line "nodes RANKS"). */
typedef struct noted {
    char *dir;  /* malloc'd; NULL: none complete */
    long ranks; /* with nodes: the checkpoint's ranks */
    bool nodes;
} noted_t;

/* The directory the note names, if its checkpoint is complete (or, kept
 * on several nodes, may be made so from the others: +ckptgather says);
 * n->dir NULL (and *why says why) if not. */
static void noted_checkpoint(const char *note, noted_t *n, const char **why)
{
    char text[PATH_MAX + 16], path[PATH_MAX + 32], line[512], last[512] = "";
    FILE *f = fopen(note, "re");
    const char *nodes;
    size_t len;

    *n = (noted_t){NULL, 0, false};
    *why = "before it wrote a checkpoint";
    if (!f)
        return;
    len = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[len] = '\0';
    nodes = strstr(text, "\nnodes ");
    n->nodes = nodes != NULL && sscanf(nodes, "\nnodes %ld", &n->ranks) == 1;
    text[strcspn(text, "\n")] = '\0';
    if (text[0] == '\0')
        return;
    if (n->nodes) { /* each node's own; +ckptgather checks them */
        n->dir = strdup(text);
        return;
    }
    snprintf(path, sizeof(path), "%s/manifest", text);
    *why = "and its last checkpoint is not complete (no manifest ending "
           "with 'end')";
    if (!(f = fopen(path, "re")))
        return;
    if (!fgets(line, sizeof(line), f) ||
        strncmp(line, "ampi-checkpoint ", 16) != 0) {
        fclose(f);
        return;
    }
    while (fgets(last, sizeof(last), f))
        ;
    fclose(f);
    if (strcmp(last, "end\n") == 0)
        n->dir = strdup(text);
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
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* ampirun killed: the job too */
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
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2};
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = pass_on;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaction(sigs[i], &sa, NULL);
}

int ampirun_exit(int status, bool as_signal)
{
    struct rlimit none = {0, 0};

    if (!as_signal || !WIFSIGNALED(status))
        return exit_status(status);
    /* The job's signal, without a core of ampirun's own. */
    setrlimit(RLIMIT_CORE, &none);
    signal(WTERMSIG(status), SIG_DFL);
    raise(WTERMSIG(status));
    return exit_status(status);
}

/* Whether to restart after a failed run (status), and from where (*dir,
 * malloc'd); prints why not when the user asked for restarts. */
static bool restart_from(const char *note, const ampirun_recovery_t *r,
                         long restarts, int status, noted_t *n)
{
    char how[64];
    const char *why;
    char **dir = &n->dir;

    describe(status, how, sizeof(how));
    noted_checkpoint(note, n, &why);
    if (*dir != NULL && !r->asked && !in_memory(*dir, r->memory)) {
        free(*dir); /* a checkpoint to files: restarted when asked */
        *dir = NULL;
    }
    if (*dir == NULL) {
        if (r->asked)
            fprintf(stderr,
                    "ampirun: --restart-on-failure: the job failed (%s) %s; "
                    "not restarted\n",
                    how, why);
        return false;
    }
    if (restarts == r->max_restarts) {
        fprintf(stderr,
                "ampirun: %s=%ld: the job failed (%s) after %ld restart%s; "
                "not restarted again\n",
                r->asked ? "--restart-on-failure" : "restarts from memory",
                r->max_restarts, how, restarts, restarts == 1 ? "" : "s");
        return false;
    }
    fprintf(stderr,
            "ampirun: the job failed (%s); restarting it from the %s%s "
            "(restart %ld of at most %ld)\n",
            how,
            in_memory(*dir, r->memory) ? "in-memory checkpoint "
                                       : "checkpoint ",
            *dir, restarts + 1, r->max_restarts);
    return true;
}

/* Before a restart from an in-memory checkpoint kept on several nodes:
 * the job that brings each process the files it restarts from.  Whether
 * it did (it said why not). */
static bool gather(const noted_t *n, ampirun_command_fn_t command, void *ctx)
{
    int status;
    char how[64];

    if (!n->nodes)
        return true;
    status = run_once(command(ctx, n->dir, n->ranks));
    if (status == 0)
        return true;
    describe(status, how, sizeof(how));
    fprintf(stderr,
            "ampirun: the copies of the checkpoint %s could not be brought "
            "to the restarted processes (%s); not restarted\n",
            n->dir, how);
    return false;
}

int ampirun_supervise(const char *note, const ampirun_recovery_t *r,
                      ampirun_command_fn_t command, void *ctx)
{
    noted_t n = {NULL, 0, false};
    long restarts = 0;
    int status;

    handle_stops();
    for (;;) {
        status = run_once(command(ctx, n.dir, 0));
        free(n.dir);
        n.dir = NULL;
        if (status == 0 || stop_signal ||
            !restart_from(note, r, restarts, status, &n))
            break;
        if (!gather(&n, command, ctx) || stop_signal)
            break;
        restarts++;
    }
    free(n.dir);
    unlink(note);
    remove_memory(r->memory);
    return status;
}
