// report=FILE writes what was privatized (name, kind, file and line, and
// how it is initialized when that differs from a plain copy of the image).
// REQUIRES: clang-plugin
// RUN: %clang -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -fplugin-arg-ampi-privatize-report=%t.json -c -o /dev/null %s
// RUN: FileCheck %s < %t.json

extern int declared_only;
int global = 1;
static int file_static;
int tentative;
int *points_at_global = &global;

int f(void)
{
    static int calls;
    return ++calls + declared_only + file_static + tentative;
}

// CHECK: "errors": [],
// CHECK-NEXT: "privatized": [
// CHECK-NEXT: {
// CHECK-NEXT: "file": "{{.*}}report-json.c",
// CHECK-NEXT: "kind": "extern",
// CHECK-NEXT: "line": 7,
// CHECK-NEXT: "name": "declared_only"
// CHECK-NEXT: },
// CHECK-NEXT: {
// CHECK-NEXT: "file": "{{.*}}report-json.c",
// CHECK-NEXT: "kind": "global",
// CHECK-NEXT: "line": 8,
// CHECK-NEXT: "name": "global"
// CHECK-NEXT: },
// CHECK: "kind": "file-static",
// CHECK-NEXT: "line": 9,
// CHECK-NEXT: "name": "file_static"
// CHECK: "kind": "tentative",
// CHECK-NEXT: "line": 10,
// CHECK-NEXT: "name": "tentative"
// CHECK: "kind": "global",
// CHECK-NEXT: "line": 11,
// CHECK-NEXT: "name": "points_at_global",
// CHECK-NEXT: "notes": [
// CHECK-NEXT: "initialized in each rank before main (AMPI_Register_rank_init): its initializer takes the address of privatized 'global'"
// CHECK-NEXT: ]
// CHECK: "kind": "local-static",
// CHECK-NEXT: "line": 15,
// CHECK-NEXT: "name": "f::calls"
// CHECK: "skipped": [],
// CHECK-NEXT: "source": "{{.*}}report-json.c",
// CHECK-NEXT: "version": 1,
// CHECK-NEXT: "warnings": []
