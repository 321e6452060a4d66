// C++ templates: static data members of class templates, variable
// templates and statics in function templates are privatized in each
// instantiation.
// REQUIRES: clang-plugin
// RUN: %clangxx -std=c++17 -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -S -emit-llvm -o - %s | FileCheck %s

template <class T> struct Pool {
  static int allocated;
  static T last;
};
template <class T> int Pool<T>::allocated = 0;
template <class T> T Pool<T>::last{};

template <class T> T scale = T(2);

template <class T> T &instance() {
  static T value;
  return value;
}

int use() {
  return Pool<int>::allocated + int(Pool<double>::last) + scale<int> +
         instance<int>() + int(instance<float>());
}

// CHECK-DAG: @_ZN4PoolIiE9allocatedE = linkonce_odr {{.*}}thread_local global i32 0
// CHECK-DAG: @_ZN4PoolIdE4lastE = linkonce_odr {{.*}}thread_local global double
// CHECK-DAG: @_Z5scaleIiE = linkonce_odr {{.*}}thread_local global i32 2
// CHECK-DAG: @_ZZ8instanceIiERT_vE5value = linkonce_odr {{.*}}thread_local global i32 0
// CHECK-DAG: @_ZZ8instanceIfERT_vE5value = linkonce_odr {{.*}}thread_local global float
