// More ranks in a process than the kernel's limit on memory mappings
// (vm.max_map_count; each rank takes about 2) end with a line that names
// the limit, its value and how to raise it, not a bare "cannot allocate".
// REQUIRES: ampi-runtime, max-map-count-small
// RUN: %ampicc %s -o %t
// RUN: not bash -c 'exec %t +vp $(( $(cat /proc/sys/vm/max_map_count) / 2 + 2000 )) +p 1 +stacksize 64K' 2>&1 | FileCheck %s

// CHECK: ampi: cannot set up rank slot {{[0-9]+}}: the process has {{[0-9]+}} memory mappings, the kernel's limit vm.max_map_count is {{[0-9]+}}, and each rank takes about 2; raise it (as root: sysctl -w vm.max_map_count={{[0-9]+}}) or run fewer ranks per process
// CHECK-NEXT: ampi: cannot set up rank {{[0-9]+}} (the line above says why)

#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
