// The runtime keeps the C library's state of these functions per rank
// (strtok's position, the generators, the broken-down time and its
// string), so calling them needs no warning.
// REQUIRES: clang-plugin
// RUN: %clang -fsyntax-only -fplugin=%ampi_plugin -Xclang -verify %s
// expected-no-diagnostics

#include <stdlib.h>
#include <string.h>
#include <time.h>

long per_rank(char *line, time_t now, unsigned short seed[3])
{
    char *word = strtok(line, " ");
    srand(7);
    srandom(7);
    srand48(7);
    long r = rand() + random() + lrand48() + mrand48() + (long)drand48();
    r += seed48(seed)[0];
    char *when = asctime(gmtime(&now));
    when = ctime(&now);
    return r + localtime(&now)->tm_sec + (word != 0) + (when != 0);
}
