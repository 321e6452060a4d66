// With -mno-tls-direct-seg-refs each access to a privatized variable first
// loads the thread pointer from %fs:0, the word the runtime switches per
// rank, in an executable (local-exec) and in a shared library
// (initial-exec).
// REQUIRES: clang-plugin
// RUN: %clang -O2 -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -S -o - %s | FileCheck %s --check-prefix=EXEC
// RUN: %clang -O2 -fPIC -ftls-model=initial-exec -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -S -o - %s | FileCheck %s --check-prefix=SHARED

static int counter;

int next(void) { return ++counter; }

// EXEC-LABEL: next:
// EXEC: movq %fs:0, [[TP:%r[a-z0-9]+]]
// EXEC: counter@TPOFF([[TP]])

// SHARED-LABEL: next:
// SHARED-DAG: movq %fs:0, %r{{[a-z0-9]+}}
// SHARED-DAG: counter@GOTTPOFF(%rip)
