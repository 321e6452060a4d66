// C++: an initializer that takes the address of a privatized variable stops
// being a constant, so it becomes a thread_local dynamic initialization,
// which runs in each rank.  A const pointer and a reference bound to a
// privatized variable are privatized for the same reason, and so is a
// variable initialized from that const pointer (a value Sema folded).
// REQUIRES: clang-plugin
// RUN: %clangxx -std=c++17 -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -S -emit-llvm -o - %s | FileCheck %s

int counter;
int *current = &counter;
int *const fixed = &counter;
int &alias = counter;
int *copy = fixed;

int get() { return *current + *fixed + alias + *copy; }

// CHECK-DAG: @current = {{.*}}thread_local global ptr null
// CHECK-DAG: @_ZL5fixed = internal thread_local global ptr null
// CHECK-DAG: @alias = {{.*}}thread_local global ptr null
// CHECK-DAG: @copy = {{.*}}thread_local global ptr null
// CHECK-DAG: @_ZTH7current = {{.*}}alias void (), ptr @__tls_init
// CHECK-LABEL: define internal void @__cxx_global_var_init()
// CHECK: [[ADDR:%.*]] = call {{.*}}@llvm.threadlocal.address.p0(ptr {{.*}}@counter)
// CHECK: store ptr [[ADDR]], ptr
