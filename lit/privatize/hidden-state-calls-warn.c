// Calls to C library functions that keep state between calls warn at the
// call: a rank that yields between two calls may find the state changed.
// REQUIRES: clang-plugin
// RUN: %clang -fsyntax-only -fplugin=%ampi_plugin -Xclang -verify %s

#include <stdlib.h>
#include <string.h>
#include <time.h>

int first_word_length(char *line, time_t now)
{
    char *word = strtok(line, " "); // expected-warning {{call to 'strtok' keeps hidden state that other ranks can change between calls; use 'strtok_r' [-Wampi-hidden-state]}}
    struct tm *t = localtime(&now); // expected-warning {{call to 'localtime' keeps hidden state that other ranks can change between calls; use 'localtime_r' [-Wampi-hidden-state]}}
    srand(t->tm_sec); // expected-warning {{call to 'srand' keeps hidden state}}
    int r = rand(); // expected-warning {{call to 'rand' keeps hidden state}}
    char *err = strerror(r); // expected-warning {{call to 'strerror' keeps hidden state that other ranks can change between calls; use 'strerror_r'}}
    // The reentrant forms are fine.
    char *save;
    char *again = strtok_r(line, " ", &save);
    return (int)strlen(word) + (again != 0) + (err != 0);
}

// A function of the program's own with a library name is not the library's.
static int getlogin(void) { return 4; }
int own(void) { return getlogin(); }
