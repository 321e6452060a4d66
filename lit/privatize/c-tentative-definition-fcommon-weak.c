// Under -fcommon a tentative definition would be a common symbol, which
// cannot be thread-local: it becomes a weak thread-local definition, which
// merges across translation units the same way.  A static one, or one with
// an initializer, is an ordinary definition.
// REQUIRES: clang-plugin
// RUN: %clang -fcommon -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -S -emit-llvm -o - %s | FileCheck %s
// RUN: %clang -fno-common -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -S -emit-llvm -o - %s | FileCheck %s --check-prefix=NOCOMMON

int shared_by_headers;
static int local_one;
int initialized = 1;

int get(void) { return shared_by_headers + local_one + initialized; }

// CHECK-DAG: @shared_by_headers = weak {{.*}}thread_local global i32 0
// CHECK-DAG: @local_one = internal thread_local global i32 0
// CHECK-DAG: @initialized = {{(dso_local )?}}thread_local global i32 1

// NOCOMMON: @shared_by_headers = {{(dso_local )?}}thread_local global i32 0
