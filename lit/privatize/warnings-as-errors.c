// -Werror makes the plugin's warnings errors too.
// REQUIRES: clang-plugin
// RUN: not %clang -fsyntax-only -fplugin=%ampi_plugin -Werror %s 2>&1 | FileCheck %s

#include <string.h>

char *message(int code) { return strerror(code); }
// CHECK: warnings-as-errors.c:[[@LINE-1]]:34: error: call to 'strerror' keeps hidden state
