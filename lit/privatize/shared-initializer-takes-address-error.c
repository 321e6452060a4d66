// A variable left shared cannot point at a privatized one: which rank's
// copy would it point at?  The error names both and the ways out.
// REQUIRES: clang-plugin
// RUN: %clang -fsyntax-only -fplugin=%ampi_plugin -Xclang -verify %s

int per_rank;
#pragma ampi shared
int *everyone = &per_rank; // expected-error {{'everyone' is not privatized (marked shared with '#pragma ampi shared'), but its initializer takes the address of privatized variable 'per_rank', which differs in each rank; mark 'per_rank' shared or initialize 'everyone' in code}}

// Taking the size is not taking the address.
#pragma ampi shared
unsigned long size = sizeof per_rank;
