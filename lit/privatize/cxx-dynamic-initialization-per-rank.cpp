// C++ globals with constructors and destructors become thread_local: each
// rank constructs its copy on its first use (through the TLS wrapper and
// __tls_init) and registers its destruction with __cxa_thread_atexit.  The
// report notes both.
// REQUIRES: clang-plugin
// RUN: %clangxx -std=c++17 -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -fplugin-arg-ampi-privatize-report=%t.json -S -emit-llvm -o - %s | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.json

struct Log {
  Log();
  ~Log();
  int lines;
};
Log log_file;

int lines() { return log_file.lines; }

// CHECK-DAG: @log_file = {{.*}}thread_local global %struct.Log zeroinitializer
// CHECK-DAG: @__tls_guard = internal thread_local global i8 0
// CHECK-LABEL: define internal void @__cxx_global_var_init()
// CHECK: call void @_ZN3LogC1Ev(ptr {{.*}}@log_file
// CHECK: call i32 @__cxa_thread_atexit(ptr @_ZN3LogD1Ev
// CHECK-LABEL: define {{.*}}i32 @_Z5linesv()
// CHECK: call {{.*}}@_ZTW8log_file()
// CHECK-LABEL: define internal void @__tls_init()
// CHECK: load i8, ptr @__tls_guard
// CHECK: call void @__cxx_global_var_init()

// REPORT: "name": "log_file",
// REPORT-NEXT: "notes": [
// REPORT-NEXT: "dynamic initialization: runs in each rank on the rank's first use (C++ thread_local semantics)",
// REPORT-NEXT: "non-trivial destructor: each rank's copy is destroyed when the rank ends (C++ thread_local semantics, registered with __cxa_thread_atexit)"
