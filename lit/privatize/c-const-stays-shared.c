// Constant objects are the same in every rank and stay shared; a pointer to
// const is itself mutable and is privatized.
// REQUIRES: clang-plugin
// RUN: %clang -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -S -emit-llvm -o - %s | FileCheck %s

const int limit = 10;
static const double weights[3] = {0.25, 0.5, 0.25};
const char *const names[] = {"a", "b"};
const char *message = "hello";

int use(void) { return limit + (int)weights[1] + names[0][0] + message[0]; }

// CHECK-DAG: @limit = {{.*}}constant i32 10
// CHECK-DAG: @weights = internal constant [3 x double]
// CHECK-DAG: @names = {{.*}}constant [2 x ptr]
// CHECK-DAG: @message = {{.*}}thread_local global ptr
// CHECK-NOT: thread_local constant
