// In a shared library the default TLS model calls __tls_get_addr, which
// finds the thread's block without %fs:0 and so ignores the runtime's
// switch: -fPIC needs an exec TLS model.
// REQUIRES: clang-plugin
// RUN: not %clang -fPIC -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -c -o /dev/null %s 2>&1 | FileCheck %s
// RUN: %clang -fPIC -ftls-model=initial-exec -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -c -o /dev/null %s
// RUN: %clang -fPIE -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -c -o /dev/null %s

int counter;
// CHECK: pic-needs-exec-tls-model.c:[[@LINE-1]]:5: error: privatized variables in position-independent code need an exec TLS model: compile with -ftls-model=initial-exec (ampicc -privatize=tls adds it)

int next(void) { return ++counter; }
