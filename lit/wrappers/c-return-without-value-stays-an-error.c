// ampicc turns off the warnings of Clang that gcc lacks by default, among
// them -Wreturn-type, but what Clang makes an error by default stays one:
// a return without a value in a function that returns one, and with a
// value in a function that returns none.
// RUN: not %ampicc -fsyntax-only %s 2>&1 | FileCheck %s

// CHECK: [[@LINE+1]]:{{[0-9]+}}: error: non-void function 'f' should return a value [-Wreturn-mismatch]
int f(void) { return; }
// CHECK: [[@LINE+1]]:{{[0-9]+}}: error: void function 'g' should not return a value [-Wreturn-mismatch]
void g(void) { return 1; }
