// Function-local statics become thread-local, in functions emitted at once
// and in static functions emitted only at the end of the file.
// REQUIRES: clang-plugin
// RUN: %clang -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -S -emit-llvm -o - %s | FileCheck %s

static int helper(void)
{
    static int hidden = 7;
    return ++hidden;
}

int next_id(void)
{
    static int id;
    return ++id + helper();
}

// CHECK-DAG: @next_id.id = internal thread_local global i32 0
// CHECK-DAG: @helper.hidden = internal thread_local global i32 7
