// On standard error ampi-privatize names each variable of the files it
// rewrites, at its definition: made thread-local (and how it is
// initialized), or left shared and why.  --quiet leaves these out.
// REQUIRES: clang-plugin
// RUN: %ampi_privatize %s -- -Xclang -verify > %t.c
// RUN: %ampi_privatize --quiet %s -- -Xclang -verify=quiet > %t.c
// quiet-no-diagnostics

int counter; // expected-remark {{tentative 'counter' made _Thread_local}}
int *cursor = &counter; // expected-remark {{global 'cursor' made _Thread_local; the addresses in its initializer are assigned in each rank, in __ampi_rank_init}}
const int limit = 4; // expected-remark {{global 'limit' stays shared: constant}}
#pragma ampi shared
long moved; // expected-remark {{tentative 'moved' stays shared: marked shared with '#pragma ampi shared'}}

int next(void)
{
    static int calls; // expected-remark {{local-static 'next::calls' made _Thread_local}}
    return ++calls + *cursor + limit + (int)moved;
}
