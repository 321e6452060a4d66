// More ranks in a process than the kernel's limit on memory mappings
// allows with a guard page each (vm.max_map_count; each rank then takes
// up to 4): the slots become one mapping without guard pages and the job
// runs, each rank with its own global.  With AMPI_ISOMALLOC_GUARD=1 the
// guard pages stay, and the job ends with a line that names the limit,
// its value and how to raise it, not a bare "cannot allocate"; also
// with 2 PEs, whose threads make the slots ready before the ranks are
// created (amp_mem_slots_prepare) and stop where the kernel refuses.
// REQUIRES: ampi-runtime, max-map-count-small
// RUN: %ampicc %s -o %t
// RUN: bash -c 'exec %t +vp $(( $(cat /proc/sys/vm/max_map_count) / 2 + 2000 )) +p 2 +stacksize 64K' 2>&1 | FileCheck %s --check-prefix=FLAT
// RUN: not bash -c 'AMPI_ISOMALLOC_GUARD=1 exec %t +vp $(( $(cat /proc/sys/vm/max_map_count) / 2 + 2000 )) +p 1 +stacksize 64K' 2>&1 | FileCheck %s
// RUN: not bash -c 'AMPI_ISOMALLOC_GUARD=1 exec %t +vp $(( $(cat /proc/sys/vm/max_map_count) / 2 + 2000 )) +p 2 +stacksize 64K' 2>&1 | FileCheck %s

// FLAT: every rank its own counter: ok
// CHECK: ampi: cannot set up rank slot {{[0-9]+}}: the process has {{[0-9]+}} memory mappings, the kernel's limit vm.max_map_count is {{[0-9]+}}, and each rank takes up to 4 with guard pages (AMPI_ISOMALLOC_GUARD=1, or the kernel's strict overcommit, vm.overcommit_memory=2); raise it (as root: sysctl -w vm.max_map_count={{[0-9]+}}) or run fewer ranks per process
// CHECK-NEXT: ampi: cannot set up rank {{[0-9]+}} (the line above says why)

#include <mpi.h>
#include <stdio.h>

static int counter;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, sum = 0;
    counter++;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&counter, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("every rank its own counter: %s\n", sum == size ? "ok" : "WRONG");
    MPI_Finalize();
    return 0;
}
