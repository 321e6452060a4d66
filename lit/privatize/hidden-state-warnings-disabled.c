// The plugin argument Wno-ampi-hidden-state turns the group off, as does -w.
// REQUIRES: clang-plugin
// RUN: %clang -fsyntax-only -fplugin=%ampi_plugin -fplugin-arg-ampi-privatize-Wno-ampi-hidden-state -Xclang -verify %s
// RUN: %clang -fsyntax-only -fplugin=%ampi_plugin -w -Xclang -verify %s
// expected-no-diagnostics

#include <string.h>

char *first(char *line) { return strtok(line, ","); }
