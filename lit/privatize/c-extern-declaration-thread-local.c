// An extern declaration of a variable defined in another translation unit
// is privatized too, so that both sides agree on the symbol being TLS.
// This also holds for a block-scope extern declaration.
// REQUIRES: clang-plugin
// RUN: %clang -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -S -emit-llvm -o - %s | FileCheck %s

extern int elsewhere;
extern double table[];

int read(void)
{
    extern int inner;
    return elsewhere + (int)table[2] + inner;
}

// CHECK-DAG: @elsewhere = external thread_local global i32
// CHECK-DAG: @table = external thread_local global [0 x double]
// CHECK-DAG: @inner = external thread_local global i32
