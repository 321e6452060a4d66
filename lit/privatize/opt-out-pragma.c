// '#pragma ampi shared' keeps the next declaration shared: every variable it
// declares, at file scope or in a function, and nothing after it.
// REQUIRES: clang-plugin
// RUN: %clang -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -S -emit-llvm -o - %s | FileCheck %s

#pragma ampi shared
int shared_a, shared_b;
int after;

int get(void)
{
#pragma ampi shared
    static int shared_calls;
    static int calls;
    return ++shared_calls + ++calls + shared_a + shared_b + after;
}

// CHECK-DAG: @shared_a = {{(dso_local )?}}global i32 0
// CHECK-DAG: @shared_b = {{(dso_local )?}}global i32 0
// CHECK-DAG: @after = {{.*}}thread_local global i32 0
// CHECK-DAG: @get.shared_calls = internal global i32 0
// CHECK-DAG: @get.calls = internal thread_local global i32 0
