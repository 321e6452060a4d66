// PEs are bound to distinct cores among those the process may use (its
// CPU binding, here from taskset), one core each, wrapping around with a
// one-line warning only when +p asks for more PEs than that; +p defaults to
// the number of such cores.  Each rank prints the CPUs its PE may run on
// (+nosteal: with stealing, a rank may compute on an idle PE's core between
// two MPI calls, and would print that one).
// REQUIRES: ampi-runtime, taskset-cpus-0-1
// RUN: %ampicc %s -o %t
// RUN: taskset -c 0,1 %t +vp 8 +p 2 +nosteal +showmap 2>&1 | FileCheck %s --check-prefix=TWO --implicit-check-not={{.}}
// RUN: taskset -c 1 %t +vp 2 +showmap 2>&1 | FileCheck %s --check-prefix=CPU1 --implicit-check-not={{.}}
// RUN: taskset -c 0 %t +vp 4 +showmap 2>&1 | FileCheck %s --check-prefix=CPU0 --implicit-check-not={{.}}
// RUN: taskset -c 0 %t +vp 3 +p 3 2>&1 | FileCheck %s --check-prefix=OVER --implicit-check-not={{.}}
// RUN: taskset -c 0 %t +vp 3 +p 3 +nopin 2>&1 | FileCheck %s --check-prefix=NOPIN --implicit-check-not={{.}}

#define _GNU_SOURCE 1
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

/* The CPUs the calling thread (the rank's PE) may run on, as "0,1". */
static void my_cpus(char *buf, size_t size)
{
    cpu_set_t set;
    size_t n = 0;
    buf[0] = '\0';
    if (sched_getaffinity(0, sizeof(set), &set) != 0) {
        snprintf(buf, size, "unknown");
        return;
    }
    for (int c = 0; c < CPU_SETSIZE && n + 8 < size; c++)
        if (CPU_ISSET(c, &set))
            n += (size_t)snprintf(buf + n, size - n, "%s%d", n ? "," : "", c);
}

int main(int argc, char **argv)
{
    int rank, size;
    char cpus[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    my_cpus(cpus, sizeof(cpus));
    char *all = rank == 0 ? malloc((size_t)size * sizeof(cpus)) : NULL;
    MPI_Gather(cpus, sizeof(cpus), MPI_CHAR, all, sizeof(cpus), MPI_CHAR, 0,
               MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++)
            printf("rank %d: cpus %s\n", r, all + (size_t)r * sizeof(cpus));
        free(all);
    }
    MPI_Finalize();
    return 0;
}

// Two cores: one PE on each.
// TWO:      ampi: placement of 8 ranks on 2 PEs (mapping block); this process may use 2 cores: {{[-,0-9]+}} (PUs 0-1)
// TWO-NEXT: ampi: PE 0: core {{[0-9]+}} (PU 0): ranks 0-3
// TWO-NEXT: ampi: PE 1: core {{[0-9]+}} (PU 1): ranks 4-7
// TWO-NEXT: rank 0: cpus 0
// TWO-NEXT: rank 1: cpus 0
// TWO-NEXT: rank 2: cpus 0
// TWO-NEXT: rank 3: cpus 0
// TWO-NEXT: rank 4: cpus 1
// TWO-NEXT: rank 5: cpus 1
// TWO-NEXT: rank 6: cpus 1
// TWO-NEXT: rank 7: cpus 1

// Only CPU 1: one PE by default, and it stays on CPU 1.
// CPU1:      ampi: placement of 2 ranks on 1 PE (mapping block); this process may use 1 core: {{[0-9]+}} (PU 1)
// CPU1-NEXT: ampi: PE 0: core {{[0-9]+}} (PU 1): ranks 0-1
// CPU1-NEXT: rank 0: cpus 1
// CPU1-NEXT: rank 1: cpus 1

// CPU0:      ampi: placement of 4 ranks on 1 PE (mapping block); this process may use 1 core: 0 (PU 0)
// CPU0-NEXT: ampi: PE 0: core 0 (PU 0): ranks 0-3
// CPU0-NEXT: rank 0: cpus 0
// CPU0-NEXT: rank 1: cpus 0
// CPU0-NEXT: rank 2: cpus 0
// CPU0-NEXT: rank 3: cpus 0

// OVER:      ampi: warning: 3 PEs (+p) but this process may use 1 core: 0 (PU 0); PEs share cores
// OVER-NEXT: rank 0: cpus 0
// OVER-NEXT: rank 1: cpus 0
// OVER-NEXT: rank 2: cpus 0

// NOPIN:      rank 0: cpus 0
// NOPIN-NEXT: rank 1: cpus 0
// NOPIN-NEXT: rank 2: cpus 0
