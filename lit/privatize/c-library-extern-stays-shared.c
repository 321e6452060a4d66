// An extern declaration, written in the program, of a variable the C library
// defines (environ, optind, stdout...) must not become thread-local: libc's
// symbol is not TLS and the link would fail.
// REQUIRES: clang-plugin
// RUN: %clang -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -S -emit-llvm -o - %s | FileCheck %s

extern char **environ;
extern long timezone;

int count_env(void)
{
    int n = 0;
    while (environ[n])
        n++;
    return n + (int)timezone;
}

// CHECK-DAG: @environ = external global ptr
// CHECK-DAG: @timezone = external global i64
