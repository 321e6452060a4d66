// C++: namespace-scope variables, anonymous namespaces, static data members
// (declared in the class and defined outside it, or inline) and locals of
// member functions become thread_local.
// REQUIRES: clang-plugin
// RUN: %clangxx -std=c++17 -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -S -emit-llvm -o - %s | FileCheck %s

int plain = 1;
namespace solver {
int iterations = 10;
namespace {
double tolerance = 1e-6;
}
} // namespace solver

struct Stats {
  static int samples;
  static inline int resets = 0;
  static const int kind = 2;
  int bump() { static int calls; return ++calls + samples + resets + kind; }
};
int Stats::samples;

int use() {
  Stats s;
  return plain + solver::iterations + int(solver::tolerance) + s.bump();
}

// CHECK-DAG: @plain = {{.*}}thread_local global i32 1
// CHECK-DAG: @_ZN6solver10iterationsE = {{.*}}thread_local global i32 10
// CHECK-DAG: @_ZN6solver12_GLOBAL__N_19toleranceE = internal thread_local global double
// CHECK-DAG: @_ZN5Stats7samplesE = {{.*}}thread_local global i32 0
// CHECK-DAG: @_ZN5Stats6resetsE = linkonce_odr {{.*}}thread_local global i32 0
// CHECK-DAG: @_ZZN5Stats4bumpEvE5calls = linkonce_odr {{.*}}thread_local global i32 0
// CHECK-NOT: @_ZN5Stats4kindE = {{.*}}thread_local
