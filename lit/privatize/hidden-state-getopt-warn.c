// getopt keeps its position in optind, shared by all ranks: the call and
// each use of optind or optarg warn.
// REQUIRES: clang-plugin
// RUN: %clang -fsyntax-only -fplugin=%ampi_plugin -Xclang -verify %s

#include <unistd.h>

int parse(int argc, char **argv)
{
    int c, n = 0;
    while ((c = getopt(argc, argv, "n:")) != -1) // expected-warning {{call to 'getopt' keeps hidden state that other ranks can change between calls; set 'optind = 1' before each rank's option loop and finish it before any MPI call [-Wampi-hidden-state]}}
        if (c == 'n')
            n = optarg[0]; // expected-warning {{'optarg' is C library state shared by all ranks; set 'optind = 1'}}
    return n + optind; // expected-warning {{'optind' is C library state shared by all ranks}}
}
