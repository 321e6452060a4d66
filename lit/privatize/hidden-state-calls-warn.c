// Calls to C library functions that keep state between calls warn at the
// call: a rank that yields between two calls may find the state changed.
// REQUIRES: clang-plugin
// RUN: %clang -fsyntax-only -fplugin=%ampi_plugin -Xclang -verify %s

#include <stdlib.h>
#include <string.h>
#include <time.h>

int first_word_length(char *line, time_t now)
{
    int dec, sign;
    char *digits = ecvt((double)now, 3, &dec, &sign); // expected-warning {{call to 'ecvt' keeps hidden state that other ranks can change between calls; use 'ecvt_r' [-Wampi-hidden-state]}}
    char *err = strerror(dec); // expected-warning {{call to 'strerror' keeps hidden state that other ranks can change between calls; use 'strerror_r'}}
    // The runtime gives each rank its own state of these: no warning.
    char *word = strtok(line, " ");
    struct tm *t = localtime(&now);
    srand(t->tm_sec);
    int r = rand() + (digits != 0);
    // The reentrant forms are fine.
    char *save;
    char *again = strtok_r(line, " ", &save);
    return (int)strlen(word) + (again != 0) + (err != 0) + r;
}

// A function of the program's own with a library name is not the library's.
static int getlogin(void) { return 4; }
int own(void) { return getlogin(); }
