// Declarations in system headers (here through -isystem) belong to the
// library: its variables, statics and inline functions stay as they are.
// REQUIRES: clang-plugin
// RUN: %clang -isystem %S/Inputs/system -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -S -emit-llvm -o - %s | FileCheck %s

#include <sysvars.h>

int mine;

int get(void) { return lib_next() + lib_counter + mine; }

// CHECK-DAG: @lib_counter = external global i32
// CHECK-DAG: @lib_static = internal global i32 0
// CHECK-DAG: @mine = {{.*}}thread_local global i32 0
