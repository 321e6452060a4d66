// GreedyCommLB weighs the bytes ranks send each other: ranks r and r + 4
// (of 8, block mapping on 2 PEs: each pair split over the PEs) exchange
// 4 MiB per iteration and give equal loads (AMPI_Load_set_value: measured
// ones differ by more than the bytes' cost here); after AMPI_Migrate every
// pair shares a PE, and the loads stay even (4 ranks a PE).  RecBipartLB
// (halves grown breadth-first over the same graph) does the same.  Across
// two processes of one PE (block mapping: every pair split over the
// processes) both bring every pair into one process, each process
// exchanging its ranks' send tables with the other.  HybridLB across two
// processes (levels: processes, then PEs) balances the same program.
// REQUIRES: ampi-runtime, openmpi-mpirun
// RUN: %ampicc -O1 %s -o %t
// RUN: %t +vp 8 +p 2 +nosteal +balancer GreedyCommLB | FileCheck %s --check-prefix=COMM
// RUN: %t +vp 8 +p 2 +nosteal +balancer RecBipartLB | FileCheck %s --check-prefix=COMM
// RUN: %mpirun -np 2 %t +vp 8 +p 1 +balancer GreedyCommLB | FileCheck %s --check-prefix=PROCS
// RUN: %mpirun -np 2 %t +vp 8 +p 1 +balancer RecBipartLB | FileCheck %s --check-prefix=PROCS
// RUN: %mpirun -np 2 %t +vp 8 +p 2 +balancer HybridLB +lbdebug 2>&1 | FileCheck %s --check-prefix=HYBRID

// COMM: pairs sharing a PE: 4 of 4; ranks per PE: 4 4
// PROCS: pairs sharing a process: 4 of 4; ranks per process: 4 4
// HYBRID: ampi: lb: step 1, HybridLB
// HYBRID: result ok

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { WORDS = 1 << 19 }; /* 4 MiB of doubles */

static double work(void)
{
    volatile double x = 0;
    for (long i = 0; i < 200000; i++)
        x += (double)(i % 5);
    return x;
}

int main(int argc, char **argv)
{
    int rank, size, flag, *pe;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int half = size / 2, partner = rank < half ? rank + half : rank - half;
    double *out = malloc(WORDS * sizeof(double));
    double *in = malloc(WORDS * sizeof(double));
    double sum = 0;
    for (int it = 0; it < 20; it++) {
        for (int i = 0; i < WORDS; i++)
            out[i] = rank + it;
        MPI_Sendrecv(out, WORDS, MPI_DOUBLE, partner, 0, in, WORDS,
                     MPI_DOUBLE, partner, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        sum += in[WORDS - 1] + work() * 0;
        double all;
        MPI_Allreduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (it == 9) {
            AMPI_Load_set_value(0.001);
            AMPI_Migrate(AMPI_INFO_LB_SYNC);
        }
    }
    /* sum over it of (partner + it) */
    if (sum != 20.0 * partner + 190.0) {
        fprintf(stderr, "rank %d: sum %g\n", rank, sum);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_MY_WTH, &pe, &flag);
    int mine = *pe, theirs, per_pe[2] = {0, 0}, all_pe[64];
    MPI_Sendrecv(&mine, 1, MPI_INT, partner, 1, &theirs, 1, MPI_INT, partner,
                 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Gather(&mine, 1, MPI_INT, all_pe, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int together = mine == theirs && rank < half, pairs = 0;
    MPI_Reduce(&together, &pairs, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    /* The same of processes. */
    int *np, *proc, mine_proc, theirs_proc, all_proc[64], pairs_proc = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_NUM_PROCESSES, &np, &flag);
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_MY_PROCESS, &proc, &flag);
    mine_proc = *proc;
    MPI_Sendrecv(&mine_proc, 1, MPI_INT, partner, 2, &theirs_proc, 1, MPI_INT,
                 partner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Gather(&mine_proc, 1, MPI_INT, all_proc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    together = mine_proc == theirs_proc && rank < half;
    MPI_Reduce(&together, &pairs_proc, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_NUM_WTHS, &pe, &flag);
    if (rank == 0 && *np == 2) {
        int per_proc[2] = {0, 0};
        for (int r = 0; r < size; r++)
            per_proc[all_proc[r] & 1]++;
        printf("pairs sharing a process: %d of %d; ranks per process: %d %d\n",
               pairs_proc, half, per_proc[0], per_proc[1]);
    }
    if (rank == 0) {
        if (*pe == 2 && *np == 1) { /* one process of 2 PEs */
            for (int r = 0; r < size; r++)
                per_pe[all_pe[r] & 1]++;
            printf("pairs sharing a PE: %d of %d; ranks per PE: %d %d\n",
                   pairs, half, per_pe[0], per_pe[1]);
        }
        printf("result ok\n");
    }
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
