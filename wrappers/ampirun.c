/*
 * ampirun: starts an AMPI program, in one process or through a PMIx
 * launcher.
 *
 *     ampirun [-n N] [-x VAR[=value]]... [--launcher L]
 *             [--launcher-arg ARG]... [--hostfile FILE]
 *             [--allow-run-as-root] [--show] [--] program [args...]
 *
 * A job runs `+vp V` virtual ranks (for the whole job) on `+p T` worker
 * threads per process.  Runtime options follow the program and pass through
 * to it untouched, like every other argument after the program.
 *
 * With one process (-n 1, the default) and no launcher asked for, ampirun
 * execs the program itself.  With -n N > 1, or a launcher named with
 * --launcher or AMPIRUN_LAUNCHER, or --launcher-arg, it execs a PMIx
 * launcher, which starts the processes; the runtime in each joins the job
 * (PMIX_NAMESPACE) and the ranks are spread over them:
 *
 *     mpirun -n N --bind-to none [-x VAR]... [ARG]... program [args...]
 *     srun --mpi=pmix -n N [ARG]... program [args...]
 *
 * --bind-to none because the runtime places its own worker threads on
 * cores.  When Open MPI's launcher is to start more processes than this
 * machine has cores (and no hosts are named with --launcher-arg), ampirun
 * adds --oversubscribe, which that launcher needs to start them, and says
 * so in one line: the runtime shares crowded cores itself (an idle PE
 * yields).  The launcher is the one named (`srun` by its name is Slurm's,
 * anything else takes Open MPI's syntax), else, inside a Slurm allocation
 * (SLURM_JOB_ID), srun from PATH, else the first prterun, mpirun.openmpi
 * or mpirun in PATH (directory by directory, in that order within each)
 * whose --version names Open MPI (OpenRTE) or PRRTE: MPICH's hydra mpirun
 * does not speak PMIx and is passed over.
 *
 * -x VAR=value sets VAR in ampirun's environment, which the program or the
 * launcher inherits; Open MPI's launcher is also given -x VAR so that it
 * exports VAR to remote processes (srun exports the whole environment).
 *
 * Open MPI's launcher (and PRRTE's) refuses to run as root unless told to
 * with --allow-run-as-root, which ampirun passes on when given it; as root
 * without it (nor Open MPI's OMPI_ALLOW_RUN_AS_ROOT and
 * OMPI_ALLOW_RUN_AS_ROOT_CONFIRM), ampirun says so in one line instead of
 * the launcher's screen of text.
 *
 * --hostfile FILE (or AMPIRUN_HOSTFILE) names the hosts for Open MPI's
 * launcher (`--hostfile FILE`; slots as the file says, so no automatic
 * --oversubscribe).  Comment lines of the file
 *
 *     # ampirun launch-agent: COMMAND
 *     # ampirun export: VAR=value
 *
 * make the launcher enter the hosts with COMMAND instead of ssh
 * (`--mca plm_rsh_agent COMMAND`, unless --launcher-arg names an agent),
 * and set VAR (unless the environment has it already) and export it to
 * every process (`-x VAR`): scripts/cluster.sh writes such a file for its
 * nodes.  srun takes its
 * nodes from the Slurm allocation and refuses --hostfile.
 *
 * --show prints the command, on one line that a shell can run, instead of
 * running it.  ampirun stays the parent of the job (the launcher, or the
 * program for one process) and ends as it ended (its exit status, or its
 * signal); when the job fails after it took an in-memory checkpoint, it
 * starts it again from there, at most 3 times, and with
 * --restart-on-failure[=N] from its last complete checkpoint of any kind,
 * at most N times (restart_on_failure.c).  --no-restart-on-failure: ampirun
 * execs the job.  Misuse gets one line
 * on stderr naming the option at fault, and status 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "restart_on_failure.h"

#define USAGE "usage: ampirun [options] [--] program [args...]"

#define NO_LAUNCHER_FOUND                                                      \
    "needs a PMIx launcher (Open MPI's mpirun or prterun, or srun inside a "   \
    "Slurm allocation) and none was found in PATH; name one with "             \
    "--launcher or AMPIRUN_LAUNCHER"

/* --restart-on-failure without a value: restarts allowed. */
#define DEFAULT_RESTARTS 3

/* The most '# ampirun export:' lines a host file may have. */
#define HOSTFILE_EXPORTS 64

/* How long a candidate launcher may take to answer --version. */
#define VERSION_TIMEOUT_MS 10000

typedef enum {
    LAUNCHER_OPENMPI, /* Open MPI's mpirun, prterun, or unknown but named */
    LAUNCHER_SLURM,   /* srun --mpi=pmix */
} launcher_kind_t;

typedef struct {
    char *path; /* what is exec'd */
    launcher_kind_t kind;
} launcher_t;

typedef struct {
    const char *nprocs_flag; /* "-n" or "-np" as given, or NULL */
    const char *nprocs_text; /* its value, as given */
    long nprocs;             /* default 1 */
    const char *launcher;    /* --launcher, or NULL */
    const char **exports;    /* -x values, VAR or VAR=value */
    int nexports;
    const char **launcher_args; /* --launcher-arg values */
    int nlauncher_args;
    const char *hostfile; /* --hostfile or AMPIRUN_HOSTFILE, or NULL */
    const char *hostfile_source;
    char *agent;               /* the host file's launch agent, or NULL */
    const char **host_exports; /* the host file's exported variables */
    int nhost_exports;
    bool show;
    bool allow_root; /* --allow-run-as-root */
    long restarts;   /* --restart-on-failure's count, 0 without it */
    bool no_restart; /* --no-restart-on-failure */
    int prog;        /* index of the program in argv */
} options_t;

/* An argument vector under construction, NULL-terminated. */
typedef struct {
    const char **v;
    int n;
} command_t;

static void die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
    va_list ap;

    fputs("ampirun: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);

    if (p == NULL)
        die("out of memory");
    return p;
}

static char *xstrndup(const char *s, size_t n)
{
    char *p = strndup(s, n);

    if (p == NULL)
        die("out of memory");
    return p;
}

static void usage(void)
{
    puts(USAGE
         "\n"
         "Runs an AMPI program.  Runtime options follow the program:\n\n"
         "  ampirun ./jacobi +vp 64 +p 2         64 ranks on 2 worker "
         "threads\n"
         "  ampirun -n 4 ./jacobi +vp 64 +p 2    the 64 ranks in 4 "
         "processes\n\n"
         "One process runs without a launcher.  More start through a PMIx\n"
         "launcher: Open MPI's mpirun or prterun (with --bind-to none: the\n"
         "runtime places its worker threads itself), or srun --mpi=pmix\n"
         "inside a Slurm allocation.\n\n"
         "Options:\n"
         "  -n N, -np N           number of processes (default 1)\n"
         "  -x VAR, -x VAR=value  export VAR to the processes (VAR=value "
         "sets it)\n"
         "  --launcher L          the launcher, a name or a path (also\n"
         "                        AMPIRUN_LAUNCHER); srun is Slurm's, any\n"
         "                        other takes Open MPI's mpirun syntax\n"
         "  --launcher-arg ARG    pass ARG to the launcher, before the "
         "program\n"
         "  --hostfile FILE       run on the hosts FILE lists (Open MPI's\n"
         "                        launcher; also AMPIRUN_HOSTFILE); a line\n"
         "                        '# ampirun launch-agent: CMD' enters them\n"
         "                        with CMD instead of ssh\n"
         "  --allow-run-as-root   let Open MPI's launcher run as root\n"
         "  --restart-on-failure[=N]  when the job fails after a complete\n"
         "                        checkpoint (files or memory), start it again from\n"
         "                        the last one (+restart DIR), at most N\n"
         "                        times (default 3); without it, only from\n"
         "                        an in-memory checkpoint, at most 3 times\n"
         "  --no-restart-on-failure  never restart (ampirun execs the job)\n"
         "  --show, --dry-run     print the command instead of running it\n"
         "  --                    end of ampirun's options\n"
         "  -h, --help            print this help");
}

/* The value after flag argv[i], or a one-line error saying what it needs. */
static const char *option_value(int argc, char **argv, int i, const char *needs)
{
    if (i + 1 >= argc)
        die("option '%s' needs %s (%s)", argv[i], needs, USAGE);
    return argv[i + 1];
}

/* The process count that follows -n or -np: a positive decimal integer. */
static void parse_count(options_t *opts, const char *flag, const char *value)
{
    char *end;
    long n;

    errno = 0;
    n = strtol(value, &end, 10);
    if (end == value || *end != '\0' || errno != 0 || n < 1 || n > INT_MAX)
        die("invalid process count '%s' for option '%s' (expected a "
            "positive integer)",
            value, flag);
    opts->nprocs_flag = flag;
    opts->nprocs_text = value;
    opts->nprocs = n;
}

/* -x VAR or -x VAR=value, VAR a shell variable name. */
static void parse_export(options_t *opts, const char *value)
{
    size_t len = strcspn(value, "=");
    size_t i;
    bool ok = len > 0 && !(value[0] >= '0' && value[0] <= '9');

    for (i = 0; ok && i < len; i++)
        ok = value[i] == '_' || (value[i] >= 'a' && value[i] <= 'z') ||
             (value[i] >= 'A' && value[i] <= 'Z') ||
             (value[i] >= '0' && value[i] <= '9');
    if (!ok)
        die("invalid variable '%s' for option '-x' (expected VAR or "
            "VAR=value)",
            value);
    opts->exports[opts->nexports++] = value;
}

static const char *nonempty(const char *flag, const char *value,
                            const char *what)
{
    if (value[0] == '\0')
        die("invalid %s '' for option '%s' (expected a non-empty value)", what,
            flag);
    return value;
}

/* One option with its value at argv[i]; returns false if argv[i] is not
 * one of them. */
static bool parse_valued(options_t *opts, int argc, char **argv, int i)
{
    const char *arg = argv[i];

    if (strcmp(arg, "-n") == 0 || strcmp(arg, "-np") == 0)
        parse_count(opts, arg, option_value(argc, argv, i, "a process count"));
    else if (strcmp(arg, "-x") == 0)
        parse_export(opts, option_value(argc, argv, i,
                                        "a variable (VAR or "
                                        "VAR=value)"));
    else if (strcmp(arg, "--launcher") == 0)
        opts->launcher = nonempty(
            arg, option_value(argc, argv, i, "a launcher name or path"),
            "launcher");
    else if (strcmp(arg, "--launcher-arg") == 0)
        opts->launcher_args[opts->nlauncher_args++] = nonempty(
            arg, option_value(argc, argv, i, "an argument for the launcher"),
            "launcher argument");
    else if (strcmp(arg, "--hostfile") == 0) {
        opts->hostfile = nonempty(
            arg, option_value(argc, argv, i, "a host file"), "host file");
        opts->hostfile_source = "--hostfile";
    } else
        return false;
    return true;
}

/* --restart-on-failure or --restart-on-failure=N. */
static void parse_restarts(options_t *opts, const char *arg)
{
    if (arg[20] == '\0') {
        opts->restarts = DEFAULT_RESTARTS;
        return;
    }
    opts->restarts = ampirun_restarts_parse(arg + 21);
    if (opts->restarts < 0)
        die("invalid count '%s' for option '--restart-on-failure' (expected "
            "a positive integer: --restart-on-failure=N)",
            arg + 21);
}

/* Reads ampirun's own options into opts, up to the program. */
static void parse_options(options_t *opts, int argc, char **argv)
{
    int i;

    opts->nprocs = 1;
    opts->exports = xcalloc((size_t)argc + 4, sizeof(char *));
    opts->launcher_args = xcalloc((size_t)argc, sizeof(char *));
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];

        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            usage();
            exit(0);
        }
        if (strcmp(arg, "--show") == 0 || strcmp(arg, "--dry-run") == 0) {
            opts->show = true;
            continue;
        }
        if (strcmp(arg, "--allow-run-as-root") == 0) {
            opts->allow_root = true;
            continue;
        }
        if (strcmp(arg, "--no-restart-on-failure") == 0) {
            opts->no_restart = true;
            continue;
        }
        if (strncmp(arg, "--restart-on-failure", 20) == 0 &&
            (arg[20] == '\0' || arg[20] == '=')) {
            parse_restarts(opts, arg);
            continue;
        }
        if (parse_valued(opts, argc, argv, i)) {
            i++;
            continue;
        }
        if (arg[0] == '-' && arg[1] != '\0')
            die("unknown option '%s' (%s)", arg, USAGE);
        break;
    }
    opts->prog = i;
    if (opts->no_restart && opts->restarts > 0)
        die("options '--restart-on-failure' and '--no-restart-on-failure' "
            "contradict each other: give one");
}

/* -x VAR=value sets VAR; -x VAR needs VAR to be set already. */
static void apply_exports(const options_t *opts)
{
    int i;

    for (i = 0; i < opts->nexports; i++) {
        const char *x = opts->exports[i];
        const char *eq = strchr(x, '=');

        if (eq != NULL) {
            char *name = xstrndup(x, (size_t)(eq - x));

            if (setenv(name, eq + 1, 1) != 0)
                die("option '-x %s': cannot set the variable: %s", x,
                    strerror(errno));
            free(name);
        } else if (getenv(x) == NULL) {
            die("option '-x %s': %s is not set (give it a value: -x "
                "%s=value)",
                x, x, x);
        }
    }
}

static bool is_executable_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           access(path, X_OK) == 0;
}

/* dir/name (malloc'd) if it is an executable that accept (if not NULL)
 * takes, else NULL. */
static char *try_dir(const char *dir, size_t len, const char *name,
                     bool (*accept)(const char *path))
{
    char *path;

    /* An empty PATH entry is the current directory. */
    if (asprintf(&path, "%.*s/%s", len ? (int)len : 1, len ? dir : ".", name) <
        0)
        die("out of memory");
    if (is_executable_file(path) && (accept == NULL || accept(path)))
        return path;
    free(path);
    return NULL;
}

/* The first executable in PATH named one of names (in that order within
 * each directory) that accept (if not NULL) takes: malloc'd, or NULL.
 * Directories come first, so the launcher is the one a shell would run. */
static char *find_in_path(const char *const *names, size_t nnames,
                          bool (*accept)(const char *path))
{
    const char *dir = getenv("PATH");

    if (dir == NULL)
        dir = "/usr/local/bin:/bin:/usr/bin";
    for (;; dir++) {
        size_t len = strcspn(dir, ":");
        size_t i;

        for (i = 0; i < nnames; i++) {
            char *path = try_dir(dir, len, names[i], accept);

            if (path != NULL)
                return path;
        }
        dir += len;
        if (*dir == '\0')
            return NULL;
    }
}

/* In the child: runs `path --version` with its output into fd. */
static void exec_version(const char *path, int fd) __attribute__((noreturn));

static void exec_version(const char *path, int fd)
{
    int null = open("/dev/null", O_RDONLY);

    if (null >= 0)
        dup2(null, STDIN_FILENO);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    execl(path, path, "--version", (char *)NULL);
    _exit(127);
}

/* Reads fd into buf (NUL-terminated) until end of file, a full buffer or
 * VERSION_TIMEOUT_MS without output. */
static void read_bounded(int fd, char *buf, size_t size)
{
    size_t len = 0;
    struct pollfd pfd = {.fd = fd, .events = POLLIN};

    while (len + 1 < size && poll(&pfd, 1, VERSION_TIMEOUT_MS) > 0) {
        ssize_t got = read(fd, buf + len, size - 1 - len);

        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    buf[len] = '\0';
}

/* Whether `path --version` names Open MPI (or its OpenRTE) or PRRTE: a
 * PMIx launcher. */
static bool is_pmix_mpirun(const char *path)
{
    char out[4096];
    int fds[2];
    pid_t pid;

    if (pipe2(fds, O_CLOEXEC) != 0)
        return false;
    pid = fork();
    if (pid == 0)
        exec_version(path, fds[1]);
    close(fds[1]);
    out[0] = '\0';
    if (pid > 0) {
        read_bounded(fds[0], out, sizeof(out));
        kill(pid, SIGKILL); /* one that hangs or talks on; a no-op else */
        waitpid(pid, NULL, 0);
    }
    close(fds[0]);
    /* mpirun: "mpirun (Open MPI) 4.1.4"; under other names Open MPI's
     * launcher says "(OpenRTE)", PRRTE's "prterun (PRRTE) 3.0.0". */
    return strstr(out, "Open MPI") != NULL || strstr(out, "OpenRTE") != NULL ||
           strstr(out, "PRRTE") != NULL;
}

/* The launcher found without being named; false if there is none. */
static bool detect_launcher(launcher_t *l)
{
    static const char *const srun[] = {"srun"};
    static const char *const mpiruns[] = {"prterun", "mpirun.openmpi",
                                          "mpirun"};
    const char *job = getenv("SLURM_JOB_ID");

    l->path = NULL;
    if (job != NULL && job[0] != '\0') {
        l->path = find_in_path(srun, 1, NULL);
        l->kind = LAUNCHER_SLURM;
    }
    if (l->path == NULL) {
        l->path = find_in_path(mpiruns, sizeof(mpiruns) / sizeof(mpiruns[0]),
                               is_pmix_mpirun);
        l->kind = LAUNCHER_OPENMPI;
    }
    return l->path != NULL;
}

/* The launcher named by source (--launcher or AMPIRUN_LAUNCHER). */
static void named_launcher(launcher_t *l, const char *name, const char *source)
{
    const char *base = strrchr(name, '/');
    struct stat st;

    if (base == NULL) {
        l->path = find_in_path(&name, 1, NULL);
        if (l->path == NULL)
            die("launcher '%s' (%s) was not found in PATH", name, source);
        base = name;
    } else {
        if (stat(name, &st) != 0)
            die("launcher '%s' (%s) cannot be run: %s", name, source,
                strerror(errno));
        if (!is_executable_file(name))
            die("launcher '%s' (%s) is not an executable file", name, source);
        l->path = xstrndup(name, strlen(name));
        base++;
    }
    l->kind = strcmp(base, "srun") == 0 ? LAUNCHER_SLURM : LAUNCHER_OPENMPI;
}

/* Chooses how to start the job; false: exec the program directly. */
static bool choose_launcher(const options_t *opts, launcher_t *l)
{
    const char *env = getenv("AMPIRUN_LAUNCHER");

    if (opts->launcher != NULL) {
        named_launcher(l, opts->launcher, "--launcher");
        return true;
    }
    if (env != NULL && env[0] != '\0') {
        named_launcher(l, env, "AMPIRUN_LAUNCHER");
        return true;
    }
    if (opts->nprocs == 1 && opts->nlauncher_args == 0 &&
        opts->hostfile == NULL)
        return false;
    if (detect_launcher(l))
        return true;
    if (opts->nprocs > 1)
        die("%s %s " NO_LAUNCHER_FOUND, opts->nprocs_flag, opts->nprocs_text);
    if (opts->hostfile != NULL)
        die("%s " NO_LAUNCHER_FOUND, opts->hostfile_source);
    die("--launcher-arg " NO_LAUNCHER_FOUND);
}

static void push(command_t *cmd, const char *arg)
{
    cmd->v[cmd->n++] = arg;
}

/* The cores ampirun may run on: distinct (package, core) pairs of the CPUs
 * of its affinity mask, as Open MPI counts slots (the CPUs, where the
 * topology cannot be read). */
static long cores_available(void)
{
    cpu_set_t set;
    long ids[CPU_SETSIZE], n = 0;

    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return sysconf(_SC_NPROCESSORS_ONLN);
    for (int c = 0; c < CPU_SETSIZE; c++) {
        char path[96];
        long core = -1, pkg = 0;
        FILE *f;

        if (!CPU_ISSET(c, &set))
            continue;
        snprintf(path, sizeof(path),
                 "/sys/devices/system/cpu/cpu%d/topology/core_id", c);
        if ((f = fopen(path, "r")) != NULL) {
            if (fscanf(f, "%ld", &core) != 1)
                core = -1;
            fclose(f);
        }
        snprintf(path, sizeof(path),
                 "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
                 c);
        if ((f = fopen(path, "r")) != NULL) {
            if (fscanf(f, "%ld", &pkg) != 1)
                pkg = 0;
            fclose(f);
        }
        if (core < 0)
            return CPU_COUNT(&set); /* no topology: the CPUs */
        long id = pkg * 1000000 + core, k = 0;
        while (k < n && ids[k] != id)
            k++;
        if (k == n)
            ids[n++] = id;
    }
    return n > 0 ? n : 1;
}

/* Whether --launcher-arg names where to run (hosts, a host file) or
 * already allows more processes than slots. */
static bool placement_given(const options_t *opts)
{
    static const char *const words[] = {"host", "-H", "oversubscribe",
                                        "machinefile", "map-by"};
    if (opts->hostfile != NULL)
        return true;
    for (int i = 0; i < opts->nlauncher_args; i++)
        for (size_t w = 0; w < sizeof(words) / sizeof(*words); w++)
            if (strstr(opts->launcher_args[i], words[w]) != NULL)
                return true;
    return false;
}

/* The value of a comment line '# ampirun KEY: VALUE' (malloc'd, blanks
 * around it dropped), or NULL when line is no such line. */
static char *directive(const char *line, const char *key)
{
    const char *p = line + strspn(line, " \t");
    size_t len;

    if (*p != '#')
        return NULL;
    p += 1 + strspn(p + 1, " \t");
    if (strncmp(p, "ampirun ", 8) != 0)
        return NULL;
    p += 8;
    len = strlen(key);
    if (strncmp(p, key, len) != 0 || p[len] != ':')
        return NULL;
    p += len + 1;
    p += strspn(p, " \t");
    len = strcspn(p, "\r\n");
    while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
        len--;
    return xstrndup(p, len);
}

/* An 'export: VAR=value' line: sets VAR unless the environment has it
 * already (-x and the caller's environment win), and exports it. */
static void hostfile_export(options_t *opts, char *x)
{
    char *eq = strchr(x, '=');

    if (eq == NULL || eq == x)
        die("option '%s': the host file '%s' has '# ampirun export: %s' "
            "(expected VAR=value)",
            opts->hostfile_source, opts->hostfile, x);
    *eq = '\0';
    if (getenv(x) == NULL && setenv(x, eq + 1, 1) != 0)
        die("option '%s': cannot set %s: %s", opts->hostfile_source, x,
            strerror(errno));
    opts->host_exports[opts->nhost_exports++] = x;
}

/* Reads the host file's directives: '# ampirun launch-agent: COMMAND' and
 * '# ampirun export: VAR=value' lines (at most HOSTFILE_EXPORTS). */
static void read_hostfile(options_t *opts)
{
    FILE *f = fopen(opts->hostfile, "r");
    char line[4096], *v;

    if (f == NULL)
        die("option '%s': cannot read the host file '%s': %s",
            opts->hostfile_source, opts->hostfile, strerror(errno));
    opts->host_exports = xcalloc(HOSTFILE_EXPORTS, sizeof(char *));
    while (fgets(line, sizeof(line), f) != NULL) {
        if ((v = directive(line, "launch-agent")) != NULL) {
            if (v[0] == '\0')
                die("option '%s': the host file '%s' names an empty launch "
                    "agent",
                    opts->hostfile_source, opts->hostfile);
            free(opts->agent);
            opts->agent = v;
        } else if ((v = directive(line, "export")) != NULL) {
            if (opts->nhost_exports == HOSTFILE_EXPORTS)
                die("option '%s': the host file '%s' has more than %d export "
                    "lines",
                    opts->hostfile_source, opts->hostfile, HOSTFILE_EXPORTS);
            hostfile_export(opts, v);
        }
    }
    fclose(f);
}

/* Whether --launcher-arg already names how to enter the hosts. */
static bool agent_given(const options_t *opts)
{
    for (int i = 0; i < opts->nlauncher_args; i++)
        if (strstr(opts->launcher_args[i], "rsh_agent") != NULL ||
            strstr(opts->launcher_args[i], "launch-agent") != NULL)
            return true;
    return false;
}

/* --hostfile FILE for Open MPI's launcher, and the file's launch agent. */
static void push_hostfile(command_t *cmd, const options_t *opts)
{
    push(cmd, "--hostfile");
    push(cmd, opts->hostfile);
    if (opts->agent != NULL && !agent_given(opts)) {
        push(cmd, "--mca");
        push(cmd, "plm_rsh_agent");
        push(cmd, opts->agent);
    }
    for (int i = 0; i < opts->nhost_exports; i++) {
        push(cmd, "-x");
        push(cmd, opts->host_exports[i]);
    }
}

/* The launcher's command line that starts the program at argv[prog]. */
static command_t launcher_command(const options_t *opts, const launcher_t *l,
                                  int argc, char **argv)
{
    command_t cmd;
    char *count;
    int i;

    cmd.n = 0;
    cmd.v = xcalloc((size_t)(16 + 2 * opts->nexports + 2 * HOSTFILE_EXPORTS +
                             opts->nlauncher_args + argc),
                    sizeof(char *));
    if (asprintf(&count, "%ld", opts->nprocs) < 0)
        die("out of memory");
    push(&cmd, l->path);
    if (l->kind == LAUNCHER_SLURM)
        push(&cmd, "--mpi=pmix");
    push(&cmd, "-n");
    push(&cmd, count);
    if (l->kind == LAUNCHER_OPENMPI) {
        push(&cmd, "--bind-to");
        push(&cmd, "none");
        for (i = 0; i < opts->nexports; i++) {
            push(&cmd, "-x");
            push(&cmd,
                 xstrndup(opts->exports[i], strcspn(opts->exports[i], "=")));
        }
    }
    if (l->kind == LAUNCHER_OPENMPI && opts->allow_root)
        push(&cmd, "--allow-run-as-root");
    if (opts->hostfile != NULL)
        push_hostfile(&cmd, opts);
    if (l->kind == LAUNCHER_OPENMPI && !placement_given(opts)) {
        long cores = cores_available();
        if (opts->nprocs > cores) {
            fprintf(stderr,
                    "ampirun: %ld processes on %ld cores: the launcher is "
                    "asked to start more processes than cores "
                    "(--oversubscribe)\n",
                    opts->nprocs, cores);
            push(&cmd, "--oversubscribe");
        }
    }
    for (i = 0; i < opts->nlauncher_args; i++)
        push(&cmd, opts->launcher_args[i]);
    for (i = opts->prog; i < argc; i++)
        push(&cmd, argv[i]);
    return cmd;
}

/* Whether Open MPI's launcher will agree to run: not as root, or told
 * that root is fine (our option, its own, or its environment variables). */
static bool root_allowed(const options_t *opts)
{
    const char *allow = getenv("OMPI_ALLOW_RUN_AS_ROOT");
    const char *confirm = getenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM");
    int i;

    if (geteuid() != 0 || opts->allow_root)
        return true;
    for (i = 0; i < opts->nlauncher_args; i++)
        if (strcmp(opts->launcher_args[i], "--allow-run-as-root") == 0)
            return true;
    return allow != NULL && confirm != NULL && strcmp(allow, "1") == 0 &&
           strcmp(confirm, "1") == 0;
}

/* Prints s for a shell: as it is if it is safe, else in single quotes. */
static void print_quoted(const char *s)
{
    const char *safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                       "0123456789_@%+=:,./-";

    if (s[0] != '\0' && s[strspn(s, safe)] == '\0') {
        fputs(s, stdout);
        return;
    }
    putchar('\'');
    for (; *s != '\0'; s++) {
        if (*s == '\'')
            fputs("'\\''", stdout);
        else
            putchar(*s);
    }
    putchar('\'');
}

/* --show: the variables -x VAR=value sets, then the command, one line. */
static void show_command(const options_t *opts, const char *const *cmd)
{
    int i;

    for (i = 0; i < opts->nexports; i++) {
        const char *eq = strchr(opts->exports[i], '=');

        if (eq != NULL) {
            printf("%.*s=", (int)(eq - opts->exports[i]), opts->exports[i]);
            print_quoted(eq + 1);
            putchar(' ');
        }
    }
    for (i = 0; i < opts->nhost_exports; i++) {
        printf("%s=", opts->host_exports[i]);
        print_quoted(getenv(opts->host_exports[i]));
        putchar(' ');
    }
    for (i = 0; cmd[i] != NULL; i++) {
        if (i > 0)
            putchar(' ');
        print_quoted(cmd[i]);
    }
    putchar('\n');
}

/* The command lines of one run of the job (its arguments, the launcher's
 * line), kept until ampirun exits. */
typedef struct kept {
    struct kept *next;
    char **argv;
    const char *const *cmd;
} kept_t;

/* What --restart-on-failure needs to make the job's command again. */
typedef struct {
    const options_t *opts;
    const launcher_t *launcher; /* NULL: the program runs itself */
    int argc;
    char **argv;
    /* Every run's command lines: ampirun's memory until it exits, as the
     * command line was when it exec'd the launcher, and reachable from
     * here rather than lost (the sanitizer build counts lost memory). */
    kept_t *kept;
} job_t;

/* The job's command line with +restart dir added to the runtime's
 * options (any +restart given dropped), where a wrapper script between
 * ampirun and the program passes them on too: last, or just before "++"
 * (after which the arguments are the program's).  With gather, +ckptgather
 * dir +vp gather instead. */
static char **restart_args(const job_t *job, const char *dir, long gather,
                           int *argc)
{
    char **v = xcalloc((size_t)job->argc + 5, sizeof(char *));
    int n = 0, i, prog = job->opts->prog;
    bool added = false;

    for (i = 0; i <= prog; i++)
        v[n++] = job->argv[i];
    for (i = prog + 1; i <= job->argc; i++) {
        if (!added && (i == job->argc || strcmp(job->argv[i], "++") == 0)) {
            v[n++] = gather > 0 ? "+ckptgather" : "+restart";
            v[n++] = (char *)dir;
            if (gather > 0) {
                v[n++] = "+vp";
                if (asprintf(&v[n++], "%ld", gather) < 0)
                    die("out of memory");
            }
            added = true;
        }
        if (i == job->argc)
            break;
        if (!added && strcmp(job->argv[i], "+restart") == 0 &&
            i + 1 < job->argc) {
            i++;
            continue;
        }
        v[n++] = job->argv[i];
    }
    *argc = n;
    return v;
}

static const char *const *job_command(void *ctx, const char *dir, long gather)
{
    job_t *job = ctx;
    int argc = job->argc;
    char **argv = dir ? restart_args(job, dir, gather, &argc) : job->argv;
    kept_t *k = xcalloc(1, sizeof(*k));

    k->argv = dir ? argv : NULL;
    k->cmd = job->launcher == NULL
                 ? (const char *const *)&argv[job->opts->prog]
                 : launcher_command(job->opts, job->launcher, argc, argv).v;
    k->next = job->kept;
    job->kept = k;
    return k->cmd;
}

/* The checkpoint the job is started from: +restart DIR among the runtime's
 * arguments, else AMPI_RESTART; NULL: none. */
static const char *given_restart(const options_t *opts, int argc, char **argv)
{
    const char *env = getenv("AMPI_RESTART");

    for (int i = opts->prog + 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "++") == 0)
            break;
        if (strcmp(argv[i], "+restart") == 0)
            return argv[i + 1];
    }
    return env != NULL && env[0] != '\0' ? env : NULL;
}

/* The job run by a parent that restarts it when it fails: from its last
 * complete checkpoint with --restart-on-failure, else from its last
 * in-memory one (restart_on_failure.h).  -1: no parent after all (no note
 * file could be made), exec the job. */
static int supervise(options_t *opts, launcher_t *l, bool use_launcher,
                     int argc, char **argv)
{
    /* Static: what ampirun made stays reachable until it exits. */
    static job_t job;
    static char *note;
    static ampirun_recovery_t r;
    bool asked = opts->restarts > 0;

    job = (job_t){opts, use_launcher ? l : NULL, argc, argv, NULL};
    note = ampirun_note_create(given_restart(opts, argc, argv), asked);
    r = (ampirun_recovery_t){asked ? opts->restarts : DEFAULT_RESTARTS, asked,
                             NULL};

    if (note == NULL)
        return -1;
    r.memory = ampirun_memory_dir();
    opts->exports[opts->nexports++] = "AMPI_CHECKPOINT_NOTE";
    opts->exports[opts->nexports++] = "AMPI_CHECKPOINT_MEMORY";
    return ampirun_exit(ampirun_supervise(note, &r, job_command, &job), !asked);
}

int main(int argc, char **argv)
{
    /* Static: ampirun's options and command lines are its memory until it
     * exits, reachable (not lost) when it returns instead of exec'ing. */
    static options_t opts;
    static launcher_t launcher;
    static const char *const *cmd;
    bool use_launcher;
    int err;

    parse_options(&opts, argc, argv);
    if (opts.prog >= argc)
        die("missing the program to run (%s)", USAGE);
    if (argv[opts.prog][0] == '+')
        die("runtime option '%s' must follow the program "
            "(ampirun program %s ...)",
            argv[opts.prog], argv[opts.prog]);
    apply_exports(&opts);
    if (opts.hostfile == NULL && getenv("AMPIRUN_HOSTFILE") != NULL &&
        getenv("AMPIRUN_HOSTFILE")[0] != '\0') {
        opts.hostfile = getenv("AMPIRUN_HOSTFILE");
        opts.hostfile_source = "AMPIRUN_HOSTFILE";
    }
    use_launcher = choose_launcher(&opts, &launcher);
    if (use_launcher && launcher.kind == LAUNCHER_SLURM &&
        opts.hostfile != NULL)
        die("option '%s': srun takes its nodes from the Slurm allocation, "
            "not from a host file",
            opts.hostfile_source);
    if (use_launcher && opts.hostfile != NULL)
        read_hostfile(&opts);
    cmd = use_launcher ? launcher_command(&opts, &launcher, argc, argv).v
                       : (const char *const *)&argv[opts.prog];
    if (opts.show) {
        show_command(&opts, cmd);
        return 0;
    }
    if (use_launcher && launcher.kind == LAUNCHER_OPENMPI &&
        !root_allowed(&opts))
        die("running as root, which Open MPI's launcher refuses: add "
            "--allow-run-as-root (or set OMPI_ALLOW_RUN_AS_ROOT=1 and "
            "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)");
    if (!opts.no_restart) {
        int status = supervise(&opts, &launcher, use_launcher, argc, argv);

        if (status >= 0)
            return status;
    }
    execvp(cmd[0], (char *const *)cmd);
    err = errno;
    fprintf(stderr, "ampirun: cannot run %s'%s': %s\n",
            use_launcher ? "the launcher " : "", cmd[0], strerror(err));
    return err == ENOENT ? 127 : 126;
}
