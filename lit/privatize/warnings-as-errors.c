// -Werror makes the plugin's warnings errors too.
// REQUIRES: clang-plugin
// RUN: not %clang -fsyntax-only -fplugin=%ampi_plugin -Werror %s 2>&1 | FileCheck %s

#include <string.h>

char *first(char *line) { return strtok(line, ","); }
// CHECK: warnings-as-errors.c:[[@LINE-1]]:34: error: call to 'strtok' keeps hidden state
