// Variables the program already made thread-local keep their own storage
// class, and the report says why they were left alone.
// REQUIRES: clang-plugin
// RUN: %clang -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -fplugin-arg-ampi-privatize-report=%t.json -S -emit-llvm -o - %s | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.json

_Thread_local int per_thread = 2;
__thread int gnu_per_thread;

int get(void) { return per_thread + gnu_per_thread; }

// CHECK-DAG: @per_thread = {{.*}}thread_local global i32 2
// CHECK-DAG: @gnu_per_thread = {{.*}}thread_local global i32 0

// REPORT: "privatized": []
// REPORT: "name": "per_thread",
// REPORT-NEXT: "reason": "already thread-local"
