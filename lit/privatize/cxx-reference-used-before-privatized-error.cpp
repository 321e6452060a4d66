// A reference bound to a privatized variable is privatized too, but not
// when code in the same declaration already used it: Sema treated those
// uses as constants.  That is an error at the reference's initializer.
// REQUIRES: clang-plugin
// RUN: %clangxx -std=c++17 -fsyntax-only -fplugin=%ampi_plugin -Xclang -verify %s

namespace state {
int count;
int &alias = count; // expected-error {{'state::alias' is not privatized (a constant that code above already uses as one), but its initializer takes the address of privatized variable 'state::count', which differs in each rank; mark 'state::count' shared or initialize 'state::alias' in code}}
int get() { return alias; }
} // namespace state
