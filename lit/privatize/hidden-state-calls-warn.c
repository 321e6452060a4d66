// Calls to C library functions that keep state between calls warn at the
// call: a rank that yields between two calls may find the state changed.
// REQUIRES: clang-plugin
// RUN: %clang -fsyntax-only -fplugin=%ampi_plugin -Xclang -verify %s

#include <stdio.h>
#include <string.h>

int message_length(int code, char *name)
{
    char *err = strerror(code); // expected-warning {{call to 'strerror' keeps hidden state that other ranks can change between calls; use 'strerror_r' [-Wampi-hidden-state]}}
    char *sig = strsignal(code); // expected-warning {{call to 'strsignal' keeps hidden state that other ranks can change between calls; copy the string before the next MPI call [-Wampi-hidden-state]}}
    char *tmp = tmpnam(name); // expected-warning {{call to 'tmpnam' keeps hidden state}}
    // The reentrant forms are fine.
    char buf[64];
    int again = strerror_r(code, buf, sizeof(buf));
    return (int)strlen(err) + (sig != 0) + (tmp != 0) + again;
}

// A function of the program's own with a library name is not the library's.
static int getlogin(void) { return 4; }
int own(void) { return getlogin(); }
