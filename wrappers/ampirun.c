/*
 * ampirun: starts an AMPI program.
 *
 *     ampirun [-n N | -np N] [--] program [args...]
 *
 * An AMPI job runs all its virtual ranks in one process (`+vp N` ranks on
 * `+p P` worker threads), so for now ampirun checks its options and execs
 * the program with its arguments; runtime options such as `+vp 8 +p 2`
 * follow the program and pass through to it untouched.  The program's exit
 * status is ampirun's.
 *
 * -n / -np count processes, and this build runs one: N > 1 is refused with a
 * pointer to +vp.  Multi-process jobs come with the PMIx bootstrap.
 *
 * Misuse gets one line on stderr naming the option at fault, and status 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define USAGE "usage: ampirun [-n N | -np N] [--] program [args...]"

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

static void usage(void)
{
    puts(USAGE
         "\n"
         "Runs an AMPI program.  All its ranks live in one process:\n"
         "runtime options follow the program, for example\n\n"
         "  ampirun ./jacobi +vp 64 +p 2    64 ranks on 2 worker threads\n\n"
         "Options:\n"
         "  -n N, -np N   number of processes (only 1 in this build)\n"
         "  --            end of ampirun's options\n"
         "  -h, --help    print this help");
}

/* The process count that follows -n or -np: a positive decimal integer. */
static long parse_count(const char *flag, const char *value)
{
    char *end;
    long n;

    if (value == NULL)
        die("option '%s' needs a process count (%s)", flag, USAGE);
    errno = 0;
    n = strtol(value, &end, 10);
    if (end == value || *end != '\0' || errno != 0 || n < 1 || n > INT_MAX)
        die("invalid process count '%s' for option '%s' (expected a "
            "positive integer)",
            value, flag);
    if (n > 1)
        die("option '%s %ld': multi-process runs are not available in this "
            "build yet; '+vp %ld' after the program gives %ld ranks in one "
            "process",
            flag, n, n, n);
    return n;
}

/* Reads ampirun's own options; returns the index of the program. */
static int parse_options(int argc, char **argv)
{
    int i;

    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];

        if (strcmp(arg, "--") == 0)
            return i + 1;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            usage();
            exit(0);
        }
        if (strcmp(arg, "-n") == 0 || strcmp(arg, "-np") == 0) {
            parse_count(arg, i + 1 < argc ? argv[i + 1] : NULL);
            i++;
            continue;
        }
        if (arg[0] == '-' && arg[1] != '\0')
            die("unknown option '%s' (%s)", arg, USAGE);
        break;
    }
    return i;
}

int main(int argc, char **argv)
{
    int prog = parse_options(argc, argv);
    int err;

    if (prog >= argc)
        die("missing the program to run (%s)", USAGE);
    if (argv[prog][0] == '+')
        die("runtime option '%s' must follow the program "
            "(ampirun program %s ...)",
            argv[prog], argv[prog]);
    execvp(argv[prog], &argv[prog]);
    err = errno;
    fprintf(stderr, "ampirun: cannot run '%s': %s\n", argv[prog],
            strerror(err));
    return err == ENOENT ? 127 : 126;
}
