// -Werror makes the plugin's warnings errors too.
// REQUIRES: clang-plugin
// RUN: not %clang -fsyntax-only -fplugin=%ampi_plugin -Werror %s 2>&1 | FileCheck %s

#include <stdio.h>

char *first(char *line) { return tmpnam(line); }
// CHECK: warnings-as-errors.c:[[@LINE-1]]:34: error: call to 'tmpnam' keeps hidden state
