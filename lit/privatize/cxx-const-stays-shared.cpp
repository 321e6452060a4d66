// C++: const and constexpr objects stay shared, unless a mutable member
// makes a const object writable.
// REQUIRES: clang-plugin
// RUN: %clangxx -std=c++17 -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -S -emit-llvm -o - %s | FileCheck %s

struct Cache {
  int key;
  mutable int hits;
};
constexpr int limit = 10;
const double weights[2] = {0.5, 0.5};
extern const Cache cache;
const Cache cache = {1, 0};

int use() { return limit + int(weights[1]) + cache.key + ++cache.hits; }

// CHECK-DAG: @_ZL7weights = internal constant [2 x double]
// CHECK-DAG: @cache = {{.*}}thread_local global %struct.Cache
// CHECK-NOT: @_ZL5limit = {{.*}}thread_local
