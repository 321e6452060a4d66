// Privatized variables are only per rank when every access loads the
// thread pointer from %fs:0 (which the runtime switches); without
// -mno-tls-direct-seg-refs the compiler would use %fs-relative accesses, so
// generating code without it is an error.  Checking syntax needs no flag.
// REQUIRES: clang-plugin
// RUN: not %clang -fplugin=%ampi_plugin -c -o /dev/null %s 2>&1 | FileCheck %s
// RUN: %clang -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -c -o /dev/null %s
// RUN: %clang -fplugin=%ampi_plugin -fsyntax-only %s

int counter;
// CHECK: missing-indirect-tls-flag-error.c:[[@LINE-1]]:5: error: privatized variables must be reached through %fs:0: compile with -mno-tls-direct-seg-refs (ampicc -privatize=tls adds it)

int next(void) { return ++counter; }
