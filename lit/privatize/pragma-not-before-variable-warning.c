// '#pragma ampi shared' applies to the next declaration only; when that is
// not a variable, or nothing follows, it is ignored with a warning.
// REQUIRES: clang-plugin
// RUN: %clang -fsyntax-only -fplugin=%ampi_plugin -Xclang -verify %s

#pragma ampi shared // expected-warning {{'#pragma ampi shared' is not followed by a variable declaration; ignored [-Wampi-pragma]}}
void function(void);
int not_shared;

#pragma ampi shared // expected-warning {{'#pragma ampi shared' is not followed by a variable declaration; ignored [-Wampi-pragma]}}
