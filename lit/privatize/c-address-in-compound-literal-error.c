// A compound literal at file scope is an unnamed static object; moved into
// the per-rank function it would become a local one and the pointer to it
// would dangle, so that case is an error at the source line.
// REQUIRES: clang-plugin
// RUN: %clang -fsyntax-only -fplugin=%ampi_plugin -Xclang -verify %s

int value;
int **table = (int *[]){&value, 0}; // expected-error {{cannot initialize 'table' in each rank: its initializer takes the address of privatized variable 'value' inside a compound literal; assign it in code that each rank runs, or mark 'value' shared}}
