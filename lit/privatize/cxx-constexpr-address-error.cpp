// A constexpr variable cannot hold the address of a privatized variable:
// that address is no longer a constant.
// REQUIRES: clang-plugin
// RUN: %clangxx -std=c++17 -fsyntax-only -fplugin=%ampi_plugin -Xclang -verify %s

int counter;
constexpr int *where = &counter; // expected-error {{constexpr variable 'where' takes the address of privatized variable 'counter', which is not a constant once privatized; drop 'constexpr' or mark 'counter' shared}}
