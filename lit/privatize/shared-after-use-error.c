// Once code has used a variable as privatized, a later opt-out cannot be
// honoured: that code is already compiled.
// REQUIRES: clang-plugin
// RUN: %clang -fsyntax-only -fplugin=%ampi_plugin -Xclang -verify %s

extern int used;
int read_it(void) { return used; }
int used __attribute__((annotate("ampi_shared"))) = 1; // expected-error {{'used' is marked shared here, but code above already uses it as a privatized variable; mark its first declaration shared instead}}
