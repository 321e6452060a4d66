// __attribute__((annotate("ampi_shared"))) keeps a variable shared by all
// ranks, wherever it is declared.
// REQUIRES: clang-plugin
// RUN: %clang -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -S -emit-llvm -o - %s | FileCheck %s

#define AMPI_SHARED __attribute__((annotate("ampi_shared")))

AMPI_SHARED int job_wide_counter;
extern int declared_shared AMPI_SHARED;
int declared_shared = 4;
int per_rank;

int get(void)
{
    static int calls AMPI_SHARED;
    return ++calls + job_wide_counter + declared_shared + per_rank;
}

// CHECK-DAG: @job_wide_counter = {{(dso_local )?}}global i32 0
// CHECK-DAG: @declared_shared = {{(dso_local )?}}global i32 4
// CHECK-DAG: @get.calls = internal global i32 0
// CHECK-DAG: @per_rank = {{.*}}thread_local global i32 0
