// The report lists each variable left shared with the reason, library
// variables the program uses, and every warning and error with its place.
// REQUIRES: clang-plugin
// RUN: %clang -isystem %S/Inputs/system -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -fplugin-arg-ampi-privatize-report=%t.json -c -o /dev/null %s
// RUN: FileCheck %s < %t.json

#include <string.h>
#include <sysvars.h>

const int limit = 3;
#pragma ampi shared
int by_pragma;
int by_attribute __attribute__((annotate("ampi_shared")));

int f(char *s) { return limit + by_pragma + by_attribute + lib_counter + (strtok(s, ",") != 0); }

// CHECK: "errors": [],
// CHECK: "privatized": [],
// CHECK-NEXT: "skipped": [
// CHECK-NEXT: {
// CHECK-NEXT: "file": "{{.*}}report-skipped-and-warnings.c",
// CHECK-NEXT: "kind": "global",
// CHECK-NEXT: "line": 10,
// CHECK-NEXT: "name": "limit",
// CHECK-NEXT: "reason": "constant"
// CHECK: "line": 12,
// CHECK-NEXT: "name": "by_pragma",
// CHECK-NEXT: "reason": "marked shared with '#pragma ampi shared'"
// CHECK: "line": 13,
// CHECK-NEXT: "name": "by_attribute",
// CHECK-NEXT: "reason": "marked shared with the attribute"
// CHECK: "file": "{{.*}}sysvars.h",
// CHECK-NEXT: "kind": "extern",
// CHECK-NEXT: "line": 3,
// CHECK-NEXT: "name": "lib_counter",
// CHECK-NEXT: "reason": "declared in a system header"
// CHECK: "warnings": [
// CHECK-NEXT: {
// CHECK-NEXT: "column": 75,
// CHECK-NEXT: "file": "{{.*}}report-skipped-and-warnings.c",
// CHECK-NEXT: "group": "ampi-hidden-state",
// CHECK-NEXT: "line": 15,
// CHECK-NEXT: "message": "call to 'strtok' keeps hidden state that other ranks can change between calls; use 'strtok_r'"
// CHECK-NEXT: }
// CHECK-NEXT: ]
