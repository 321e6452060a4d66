// Marking a variable shared on a later declaration works in this file, but
// other files that see only the first declaration privatize it, and the
// link then fails: the warning points at both declarations.
// REQUIRES: clang-plugin
// RUN: %clang -fsyntax-only -fplugin=%ampi_plugin -Xclang -verify %s

extern int late; // expected-note {{first declaration of 'late' is here}}
#pragma ampi shared
int late = 1; // expected-warning {{'late' is marked shared here but not where it is first declared; translation units that see only that declaration privatize it, and linking them with this one fails [-Wampi-shared-redecl]}}
