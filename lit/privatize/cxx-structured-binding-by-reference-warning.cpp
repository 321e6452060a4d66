// Structured bindings by reference, or of tuple-like objects, bind their
// names through references that Sema has already made constants; they stay
// shared, with a warning.
// REQUIRES: clang-plugin
// RUN: %clangxx -std=c++17 -fsyntax-only -fplugin=%ampi_plugin -Xclang -verify %s

#include <utility>

auto [first, second] = std::pair<int, int>{1, 2}; // expected-warning {{'[first, second]' stays shared by all ranks: a structured binding by reference or of a tuple-like object, which cannot be privatized; mark it with '#pragma ampi shared' if that is intended [-Wampi-unprivatized]}}

#pragma ampi shared
int limits[2];
auto &[low, high] = limits; // expected-warning {{'[low, high]' stays shared by all ranks}}
