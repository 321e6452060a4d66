// Calls to C library functions that keep state between calls, which the
// runtime cannot keep per rank, warn at the call: a rank that yields
// between two calls may find the state changed.
// REQUIRES: clang-plugin
// RUN: %clang -fsyntax-only -fplugin=%ampi_plugin -Xclang -verify %s

#include <dirent.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int listing(DIR *dir, char *name)
{
    struct dirent *e = readdir(dir); // expected-warning {{call to 'readdir' keeps hidden state that other ranks can change between calls; copy the entry before the next MPI call, or give each rank its own directory stream [-Wampi-hidden-state]}}
    char *tmp = tmpnam(name); // expected-warning {{call to 'tmpnam' keeps hidden state that other ranks can change between calls; use 'mkstemp' [-Wampi-hidden-state]}}
    setlocale(LC_ALL, ""); // expected-warning {{call to 'setlocale' keeps hidden state}}
    double g = lgamma(2.5); // expected-warning {{call to 'lgamma' keeps hidden state}}
    int n = mblen(name, 4); // expected-warning {{call to 'mblen' keeps hidden state that other ranks can change between calls; use 'mbrlen' with a per-rank 'mbstate_t'}}
    return (e != 0) + (tmp != 0) + (int)g + n + signgam; // expected-warning {{'signgam' is C library state shared by all ranks; use 'lgamma_r', which returns the sign itself}}
}

// A function of the program's own with a library name is not the library's.
static int readdir_count(void) { return 4; }
static int tmpnam_len(void) { return readdir_count(); }
int own(void) { return tmpnam_len(); }
