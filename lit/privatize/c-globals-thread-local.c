// File-scope variables of every linkage become thread-local: external,
// internal (static), tentative definitions, and one declared extern first.
// REQUIRES: clang-plugin
// RUN: %clang -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -S -emit-llvm -o - %s | FileCheck %s

extern int counter;
int counter = 3;
static double file_static = 1.5;
int tentative;
int array[16];
struct point { int x, y; } origin = {1, 2};
volatile int flag;

// CHECK-DAG: @counter = {{.*}}thread_local global i32 3
// CHECK-DAG: @file_static = internal thread_local global double 1.5
// CHECK-DAG: @tentative = {{.*}}thread_local global i32 0
// CHECK-DAG: @array = {{.*}}thread_local global [16 x i32] zeroinitializer
// CHECK-DAG: @origin = {{.*}}thread_local global %struct.point { i32 1, i32 2 }
// CHECK-DAG: @flag = {{.*}}thread_local global i32 0

int sum(void)
{
    return counter + (int)file_static + tentative + array[1] + origin.y + flag;
}

// Every access goes through the thread-local address.
// CHECK-LABEL: define {{.*}}i32 @sum(
// CHECK: call {{.*}} @llvm.threadlocal.address.p0(ptr {{.*}}@counter)
// CHECK: call {{.*}} @llvm.threadlocal.address.p0(ptr {{.*}}@file_static)
// CHECK: call {{.*}} @llvm.threadlocal.address.p0(ptr {{.*}}@tentative)
