// getopt's variables are the C library's, one for the whole process; the
// runtime has one per rank (thread-locals, of which every rank has its own
// copy), and the plugin renames the program's references to them, with
// the program's TLS access model.  Reads and writes alike go to the rank's
// own.
// REQUIRES: clang-plugin
// RUN: %clang -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -ftls-model=initial-exec -S -emit-llvm -o - %s | FileCheck %s
// RUN: %clang -x c++ -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -ftls-model=initial-exec -S -emit-llvm -o - %s | FileCheck %s

#include <unistd.h>

int parse(int argc, char **argv)
{
    int c, n = 0;
    opterr = 0;
    while ((c = getopt(argc, argv, "n:")) != -1)
        if (c == 'n')
            n = optarg[0];
        else
            n += optopt;
    return n + optind;
}

// CHECK-DAG: @__ampi_opterr = external thread_local(initialexec) global i32
// CHECK-DAG: @__ampi_optarg = external thread_local(initialexec) global ptr
// CHECK-DAG: @__ampi_optopt = external thread_local(initialexec) global i32
// CHECK-DAG: @__ampi_optind = external thread_local(initialexec) global i32
// CHECK-NOT: @optind
// CHECK-NOT: @optarg
