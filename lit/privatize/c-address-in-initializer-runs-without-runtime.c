// Without the AMPI runtime (a plain process) the constructor runs the
// per-rank initialization itself, so the program sees the addresses its
// initializers name.
// REQUIRES: clang-plugin
// RUN: %clang -O2 -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -ftls-model=initial-exec %s -o %t
// RUN: %t | FileCheck %s

#include <stdio.h>

int counter = 41;
int *current = &counter;
static int slots[4];
static int *picks[] = {&slots[1], &slots[3], 0};

int main(void)
{
    static int local;
    static int *local_ptr = &local;
    *current += 1;
    *picks[1] = 7;
    *local_ptr = 3;
    printf("counter=%d slot=%d local=%d\n", counter, slots[3], local);
    return 0;
}

// CHECK: counter=42 slot=7 local=3
