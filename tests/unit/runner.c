#include "unit.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_TESTS 256
#define TIME_LIMIT_S 30

static struct {
    const char *name;
    unit_fn_t fn;
} tests[MAX_TESTS];
static int ntests;

void unit_register(const char *name, unit_fn_t fn)
{
    if (ntests == MAX_TESTS) {
        fprintf(stderr, "too many unit tests\n");
        exit(2);
    }
    tests[ntests].name = name;
    tests[ntests].fn = fn;
    ntests++;
}

void unit_fail(const char *file, int line, const char *expr, long long a,
               long long b)
{
    fprintf(stderr, "%s:%d: check failed: %s (%lld vs %lld)\n", file, line,
            expr, a, b);
    fflush(stderr);
    _exit(1);
}

static int run_one(int i)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(TIME_LIMIT_S);
        tests[i].fn();
        fflush(NULL);
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 1;
    if (WIFSIGNALED(status))
        fprintf(stderr, "  %s: killed by signal %d%s\n", tests[i].name,
                WTERMSIG(status),
                WTERMSIG(status) == SIGALRM ? " (time limit)" : "");
    return 0;
}

int main(int argc, char **argv)
{
    const char *filter = argc > 1 ? argv[1] : "";
    int passed = 0, failed = 0;
    for (int i = 0; i < ntests; i++) {
        if (strncmp(tests[i].name, filter, strlen(filter)) != 0)
            continue;
        int ok = run_one(i);
        printf("%s %s\n", ok ? "PASS" : "FAIL", tests[i].name);
        ok ? passed++ : failed++;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed || passed == 0 ? 1 : 0;
}
