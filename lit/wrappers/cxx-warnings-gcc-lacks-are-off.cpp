// ampicxx keeps Clang's warnings for C++ to what g++ 12 reports by
// default: old code builds without the warnings that g++ gives only with
// -Wall or -Wextra, or never (the constructs below, one a line), and with
// those it gives by default (a function that may end without a value).
// -ampi-strict and AMPI_STRICT_C=1 bring back Clang's defaults, and each
// warning comes back when the user asks for it by name.
// RUN: %ampicxx -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=QUIET
// RUN: %ampicxx -ampi-strict -fsyntax-only %s 2>&1 | FileCheck %s
// RUN: env AMPI_STRICT_C=1 %ampicxx -fsyntax-only %s 2>&1 | FileCheck %s
// RUN: %ampicxx -fsyntax-only %s -Winconsistent-missing-override \
// RUN:   -Wdynamic-class-memaccess -Wmismatched-new-delete -Wuninitialized \
// RUN:   -Wdangling-else -Wformat -Wimplicit-const-int-float-conversion \
// RUN:   -Wliteral-conversion -Wstring-plus-int 2>&1 | FileCheck %s
// QUIET-NOT: warning:

#include <cstdio>
#include <cstring>

struct Base {
    virtual void f();
    virtual void g();
    virtual ~Base();
};
// CHECK-DAG: [[@LINE+1]]:{{[0-9]+}}: warning: {{.*}} [-Winconsistent-missing-override]
struct Derived : Base { void f() override; void g(); };
struct Shape { virtual void draw(); };
// CHECK-DAG: [[@LINE+1]]:{{[0-9]+}}: warning: {{.*}} [-Wdynamic-class-memaccess]
void wipe(Shape *s) { std::memset(s, 0, sizeof(*s)); }
// CHECK-DAG: [[@LINE+1]]:{{[0-9]+}}: warning: {{.*}} [-Wmismatched-new-delete]
void drop() { int *p = new int[3]; delete p; }
// CHECK-DAG: [[@LINE+1]]:{{[0-9]+}}: warning: {{.*}} [-Wuninitialized]
struct Pair { int a, b; Pair() : a(b), b(1) {} };
// CHECK-DAG: [[@LINE+1]]:{{[0-9]+}}: warning: {{.*}} [-Wdangling-else]
int pick(int x) { if (x) if (x > 1) return 1; else return 2; return 0; }
// CHECK-DAG: [[@LINE+1]]:{{[0-9]+}}: warning: {{.*}} [-Wformat]
void say(long n) { std::printf("%d\n", n); }
// CHECK-DAG: [[@LINE+1]]:{{[0-9]+}}: warning: {{.*}} [-Wimplicit-const-int-float-conversion]
float big() { return 2147483647; }
// CHECK-DAG: [[@LINE+1]]:{{[0-9]+}}: warning: {{.*}} [-Wliteral-conversion]
int half() { int x = 3.5; return x; }
// CHECK-DAG: [[@LINE+1]]:{{[0-9]+}}: warning: {{.*}} [-Wstring-plus-int]
char at(int i) { return *("abc" + i); }
// QUIET: [[@LINE+2]]:{{[0-9]+}}: warning: {{.*}} [-Wreturn-type]
// CHECK-DAG: [[@LINE+1]]:{{[0-9]+}}: warning: {{.*}} [-Wreturn-type]
int maybe(int x) { if (x) return 1; }
// QUIET-NOT: warning:
// QUIET: 1 warning generated.
// CHECK: 10 warnings generated.
