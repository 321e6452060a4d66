// A program written for Charm++'s AMPI, where one rank alone calls
// AMPI_Migrate_to_pe to go to another PE: it runs there from the call on
// (AMPI_MY_WTH says so, its callbacks ran once), while the others keep
// sending to it; every message arrives, in order from each sender, and a
// receive it posted before the call completes after.  The balancing step
// of AMPI_Migrate makes the PE its home without moving it again.  Run in
// one process, with stealing off, with +pinmap, and in two processes of
// two PEs each (a PE number names a PE of the caller's process).
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: %t +vp 4 +p 2 2>&1 | FileCheck %s
// RUN: %t +vp 7 +p 3 +nosteal 2>&1 | FileCheck %s
// RUN: %t +vp 5 +p 2 +pinmap 2>&1 | FileCheck %s
// RUN: %t +vp 6 +p 2 +balancer GreedyLB +lbdebug > %t.out 2>&1
// RUN: FileCheck %s < %t.out && FileCheck %s --check-prefix=HOME < %t.out
// RUN: %mpirun -np 2 %t +vp 6 +p 2 2>&1 | FileCheck %s
// RUN: %mpirun -np 2 %t +vp 8 +p 2 +balancer GreedyLB +lbdebug > %t.out 2>&1
// RUN: FileCheck %s < %t.out && FileCheck %s --check-prefix=HOME < %t.out

// CHECK: rank 0 runs on the PE it asked for: yes
// CHECK: messages in order: 100 from each of the other ranks
// CHECK: after the balancing step, still there: yes
// CHECK: callbacks: 1 and 1
// CHECK: sum ok

// The step that makes PE 1 rank 0's home:
// HOME: ampi: lb:   rank 0 load {{.*}}: PE 0 -> 1{{$}}

#include <mpi.h>
#include <stdio.h>

#define MSGS 100

static int about, just;
static void about_to_migrate(void) { about++; }
static void just_migrated(void) { just++; }

static int wth(int key)
{
    int *v, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, key, &v, &flag);
    return flag ? *v : -1;
}

/* Work between two messages, long enough for the others to send more. */
static double work(int n)
{
    double x = 1;
    for (int i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

int main(int argc, char **argv)
{
    int rank, size, pes = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#ifdef AMPI
    pes = wth(AMPI_NUM_WTHS); /* of the process */
#endif
    int early = -1;
    MPI_Request early_req;
    if (rank == 0)
        MPI_Irecv(&early, 1, MPI_INT, size - 1, 99, MPI_COMM_WORLD,
                  &early_req);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int target = 0, ok = 0;
#ifdef AMPI
        AMPI_Register_about_to_migrate(about_to_migrate);
        AMPI_Register_just_migrated(just_migrated);
        target = (wth(AMPI_MY_WTH) + 1) % pes;
        if (AMPI_Migrate_to_pe(target) == MPI_SUCCESS)
            ok = wth(AMPI_MY_WTH) == target;
#endif
        printf("rank 0 runs on the PE it asked for: %s\n", ok ? "yes" : "no");
        int next[64] = {0}, bad = 0;
        for (int i = 0; i < MSGS * (size - 1); i++) {
            int v;
            MPI_Status st;
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st);
            bad |= v != next[st.MPI_SOURCE]++;
            work(2000);
#ifdef AMPI
            bad |= wth(AMPI_MY_WTH) != target;
#endif
        }
        for (int r = 1; r < size; r++)
            bad |= next[r] != MSGS;
        if (!bad)
            printf("messages in order: %d from each of the other ranks\n",
                   MSGS);
        MPI_Wait(&early_req, MPI_STATUS_IGNORE);
        if (early != 1234)
            printf("early receive got %d\n", early);
#ifdef AMPI
        AMPI_Migrate(AMPI_INFO_LB_SYNC);
        ok = wth(AMPI_MY_WTH) == target;
#endif
        printf("after the balancing step, still there: %s\n",
               ok ? "yes" : "no");
        printf("callbacks: %d and %d\n", about, just);
    } else {
        if (rank == size - 1) {
            int v = 1234;
            MPI_Send(&v, 1, MPI_INT, 0, 99, MPI_COMM_WORLD);
        }
        for (int i = 0; i < MSGS; i++)
            MPI_Send(&i, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
#ifdef AMPI
        AMPI_Migrate(AMPI_INFO_LB_SYNC);
#endif
    }
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && sum == size * (size - 1) / 2)
        printf("sum ok\n");
    MPI_Finalize();
    return 0;
}
