// '#pragma ampi shared' in a class template or a function template keeps
// the variable shared in every instantiation.
// REQUIRES: clang-plugin
// RUN: %clangxx -std=c++17 -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -S -emit-llvm -o - %s | FileCheck %s

template <class T> struct Registry {
#pragma ampi shared
  static int entries;
  static int lookups;
};
template <class T> int Registry<T>::entries;
template <class T> int Registry<T>::lookups;

template <class T> int next_ticket() {
#pragma ampi shared
  static int ticket;
  return ++ticket;
}

int use() {
  return Registry<int>::entries + Registry<int>::lookups + next_ticket<int>();
}

// CHECK-DAG: @_ZN8RegistryIiE7entriesE = linkonce_odr {{(dso_local )?}}global i32 0
// CHECK-DAG: @_ZN8RegistryIiE7lookupsE = linkonce_odr {{.*}}thread_local global i32 0
// CHECK-DAG: @_ZZ11next_ticketIiEivE6ticket = linkonce_odr {{(dso_local )?}}global i32 0
