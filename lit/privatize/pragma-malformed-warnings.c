// Malformed '#pragma ampi' lines are warnings in the -Wampi-pragma group.
// REQUIRES: clang-plugin
// RUN: %clang -fsyntax-only -fplugin=%ampi_plugin -Xclang -verify %s

#pragma ampi private // expected-warning {{unknown '#pragma ampi private' ignored; expected '#pragma ampi shared' [-Wampi-pragma]}}
#pragma ampi // expected-warning {{'#pragma ampi' without an argument ignored; expected '#pragma ampi shared' [-Wampi-pragma]}}
#pragma ampi shared now // expected-warning {{extra tokens at the end of '#pragma ampi shared' ignored [-Wampi-pragma]}}
int still_marked;
