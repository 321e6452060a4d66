// A structured binding by value of a struct or an array declares one
// hidden object, which is privatized like any other variable.
// REQUIRES: clang-plugin
// RUN: %clangxx -std=c++17 -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -S -emit-llvm -o - %s | FileCheck %s

struct Extent { int lo, hi; };
auto [lo, hi] = Extent{1, 8};

int width() { return hi - lo; }

// CHECK-DAG: @_ZDC2lo2hiE = {{.*}}thread_local global %struct.Extent { i32 1, i32 8 }
// CHECK-LABEL: define {{.*}}@_Z5widthv()
// CHECK: @llvm.threadlocal.address.p0(ptr {{.*}}@_ZDC2lo2hiE)
