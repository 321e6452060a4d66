// A variable placed in a named section cannot be thread-local (TLS lives in
// .tdata/.tbss); it stays shared, with a warning in -Wampi-unprivatized.
// REQUIRES: clang-plugin
// RUN: %clang -fsyntax-only -fplugin=%ampi_plugin -Xclang -verify %s

int registry_slot __attribute__((section("registry"))); // expected-warning {{'registry_slot' stays shared by all ranks: placed in a named section; mark it with '#pragma ampi shared' if that is intended [-Wampi-unprivatized]}}

#pragma ampi shared
int confirmed __attribute__((section("registry")));
