// Runtime options of Charm++'s AMPI, for jobs written for it: the ones that
// hold here anyway are taken quietly (+isomalloc_sync, +setcpuaffinity),
// some are ours under another name (+tcharm_stacksize is +stacksize,
// +LBDebug is +lbdebug, +LBPeriod is +lbperiod), the rest is accepted with
// one line saying it has no effect; none of them reaches the program.
// Charm++'s balancer names are strategies here (RotateLB) or give the
// closest one with a line saying so (MetisLB).
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: %t +vp 2 +isomalloc_sync +setcpuaffinity +tcharm_stacksize 2M a 2>&1 | FileCheck %s --check-prefix=QUIET --implicit-check-not={{.}}
// RUN: %t +vp 2 +ppn 2 +pemap 0-1 b +LBOff +tcharm_stacksize 2M 2>&1 | FileCheck %s --check-prefix=NOTES --implicit-check-not={{.}}
// RUN: %t +vp 2 +balancer GreedyLB +LBPeriod 0.5 c +tcharm_stacksize 2M 2>&1 | FileCheck %s --check-prefix=PERIOD --implicit-check-not={{.}}
// RUN: not %t +LBPeriod 0.5 2>&1 | FileCheck %s --check-prefix=NOSTRATEGY --implicit-check-not={{.}}
// RUN: %t +vp 2 +balancer MetisLB +LBPeriod 0.5 d +tcharm_stacksize 2M 2>&1 | FileCheck %s --check-prefix=MAPPED --implicit-check-not={{.}}
// RUN: %t +vp 2 +balancer RotateLB +LBPeriod 0.5 e +tcharm_stacksize 2M 2>&1 | FileCheck %s --check-prefix=ROTATE --implicit-check-not={{.}}
// RUN: not %t +tcharm_stacksize 1K 2>&1 | FileCheck %s --check-prefix=SMALL --implicit-check-not={{.}}
// RUN: not %t +LBPeriod 2>&1 | FileCheck %s --check-prefix=MISSING --implicit-check-not={{.}}

// QUIET: size=2 argc=2 [a] stack ok
// NOTES-DAG: ampi: +ppn has no effect here: +p sets the PEs of each process
// NOTES-DAG: ampi: +pemap has no effect here: the PEs are pinned to cores in order (+nopin: not)
// NOTES-DAG: ampi: +LBOff has no effect here: ranks are balanced only by AMPI_Migrate and +lbperiod
// NOTES-DAG: size=2 argc=2 [b] stack ok
// SMALL: ampi: +tcharm_stacksize: 1K is too small; the minimum is 65536 bytes
// MISSING: ampi: +LBPeriod: missing value
// PERIOD: size=2 argc=2 [c] stack ok
// MAPPED: ampi: +balancer MetisLB: GreedyCommLB is used here (no graph partitioner: load and bytes)
// MAPPED-NEXT: size=2 argc=2 [d] stack ok
// ROTATE: size=2 argc=2 [e] stack ok
// NOSTRATEGY: ampi: +lbperiod: periodic balancing needs a strategy; add +balancer GreedyLB (or another strategy)

#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* 1.5 MiB on the stack fits the 2 MiB of +tcharm_stacksize 2M. */
    volatile char big[3 << 19];
    memset((char *)big, rank, sizeof(big));
    if (rank == 0) {
        printf("size=%d argc=%d", size, argc);
        for (int i = 1; i < argc; i++)
            printf(" [%s]", argv[i]);
        printf(" stack %s\n", big[sizeof(big) - 1] == 0 ? "ok" : "bad");
    }
    MPI_Finalize();
    return 0;
}
