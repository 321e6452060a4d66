// The C library functions whose state the runtime keeps per rank
// (runtime/libc: the random number generators, getopt, strtok and the
// static buffers of the time, error and user lookups) need no warning, nor
// do getopt's variables, which each rank has its own of.
// REQUIRES: clang-plugin
// RUN: %clang -fsyntax-only -fplugin=%ampi_plugin -Xclang -verify %s
// expected-no-diagnostics

#define _GNU_SOURCE 1
#include <arpa/inet.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

long state(char *line, time_t now, int argc, char **argv)
{
    static char buf[64];
    long sum = rand() + random() + lrand48() + mrand48() + (long)drand48();
    srand(1);
    srandom(2);
    srand48(3);
    initstate(4, buf, sizeof(buf));
    setstate(buf);
    unsigned short seed[3] = {1, 2, 3}, param[7] = {0};
    seed48(seed);
    lcong48(param);
    sum += strtok(line, " ") != 0;
    sum += localtime(&now)->tm_sec + gmtime(&now)->tm_min;
    sum += ctime(&now)[0] + asctime(gmtime(&now))[0];
    sum += strerror(2)[0] + strsignal(9)[0] + (ttyname(0) != 0);
    sum += (getlogin() != 0) + (getpwuid(0) != 0) + (getpwnam("root") != 0);
    sum += (getgrgid(0) != 0) + (getgrnam("root") != 0);
    struct in_addr a = {0};
    sum += inet_ntoa(a)[0];
    int c;
    static const struct option longs[] = {{"n", required_argument, 0, 'n'},
                                           {0, 0, 0, 0}};
    while ((c = getopt(argc, argv, "n:")) != -1 ||
           (c = getopt_long(argc, argv, "n:", longs, 0)) != -1 ||
           (c = getopt_long_only(argc, argv, "n:", longs, 0)) != -1)
        sum += optarg[0] + optopt;
    opterr = 0;
    return sum + optind;
}
