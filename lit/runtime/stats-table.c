// +stats: one table of the process's PEs at the end of a run.  Each of 4
// ranks sends 10 messages of 4 bytes, so each PE's 2 ranks started 20
// sends of 80 bytes in all; ranks 0-1 spin twice as long as 2-3, so PE 0
// was busy longer than PE 1 (+nosteal: nobody else ran them).  With
// RotateLB at AMPI_Migrate every rank moves to the next PE: each PE had
// 2 ranks move in and 2 out.  Across 2 processes each prints its own table.
// REQUIRES: ampi-runtime, openmpi-mpirun
// RUN: %ampicc -O1 %s -o %t
// RUN: %t +vp 4 +p 2 +nosteal +stats 2>&1 | FileCheck %s --implicit-check-not=got
// RUN: %t +vp 4 +p 2 +nosteal +stats 2>&1 | awk '/stats: +0 /{a=$4} /stats: +1 /{b=$4} END{exit !(a+0 > b+0)}'
// RUN: %t -move +vp 4 +p 2 +nosteal +stats +balancer RotateLB 2>&1 | FileCheck %s --check-prefix=MOVE --implicit-check-not=got
// RUN: env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
// RUN:   %ampirun -n 2 %t +vp 4 +nosteal +stats 2>&1 | FileCheck %s --check-prefix=NP

// CHECK: ampi: stats: process 0 of 1, 2 PE(s)
// CHECK-NEXT: ampi: stats:   PE   busy  ranks      sends   bytes sent  moved in  moved out      lent    guests
// CHECK-NEXT: ampi: stats:    0 {{ *}}[[B0:[0-9.]+]]% {{ *}}2 {{ *}}20 {{ *}}80 {{ *}}0 {{ *}}0 {{ *}}0 {{ *}}0
// CHECK-NEXT: ampi: stats:    1 {{ *}}{{[0-9.]+}}% {{ *}}2 {{ *}}20 {{ *}}80 {{ *}}0 {{ *}}0 {{ *}}0 {{ *}}0
// CHECK: ampi: stats: rank 0 on PE 0 resumed {{[0-9]+}} times

// MOVE: ampi: stats:    0 {{ *}}{{[0-9.]+}}% {{ *}}2 {{ *}}20 {{ *}}80 {{ *}}2 {{ *}}2
// MOVE-NEXT: ampi: stats:    1 {{ *}}{{[0-9.]+}}% {{ *}}2 {{ *}}20 {{ *}}80 {{ *}}2 {{ *}}2

// NP-DAG: ampi: stats: process 0 of 2, 1 PE(s)
// NP-DAG: ampi: stats: process 1 of 2, 1 PE(s)
// NP-DAG: ampi: stats:    0 {{ *}}{{[0-9.]+}}% {{ *}}2 {{ *}}20 {{ *}}80

#include <ampi.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static double spin(long n)
{
    volatile double s = 0;
    for (long i = 0; i < n; i++)
        s += (double)i;
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n, x = -1, move = argc > 1 && strcmp(argv[1], "-move") == 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    for (int i = 0; i < 10; i++)
        MPI_Sendrecv(&r, 1, MPI_INT, (r + 1) % n, 0, &x, 1, MPI_INT,
                     (r + n - 1) % n, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (x != (r + n - 1) % n)
        printf("rank %d got %d\n", r, x);
    spin(r < n / 2 ? 40000000L : 20000000L);
    if (move)
        AMPI_Migrate(AMPI_INFO_LB_SYNC);
    MPI_Finalize();
    return 0;
}
