// Privatized variables are only per rank when every access loads the
// thread pointer from %fs:0 (which the runtime switches), what
// -mno-tls-direct-seg-refs asks for.  The plugin asks for it itself, so a
// compilation that lost the flag (CMake's FindMPI keeps only the -f, -D and
// -I flags of a wrapper's -showme:compile) still reaches each rank's copy:
// the accesses load %fs:0 with the flag and without it.
// REQUIRES: clang-plugin
// RUN: %clang -fplugin=%ampi_plugin -O2 -S -o - %s | FileCheck %s
// RUN: %clang -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -O2 -S -o - %s | FileCheck %s
// RUN: %clang -fplugin=%ampi_plugin -fsyntax-only %s

int counter;

int next(void) { return ++counter; }
// CHECK-LABEL: next:
// CHECK: movq %fs:0, %[[TP:[a-z]+]]
// CHECK: counter@TPOFF(%[[TP]])
// CHECK-NOT: %fs:counter
