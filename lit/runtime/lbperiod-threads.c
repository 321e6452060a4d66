// +lbperiod with MPI_THREAD_MULTIPLE: rank 0 makes its allreduces over
// MPI_COMM_WORLD from a thread it creates, the other ranks from their own
// thread.  Every rank counts those collectives alike, so the job agrees on
// where to balance; rank 0, with a thread bound to its PE, stays there
// (one rank that cannot move, each step), in one process and across two.
// REQUIRES: ampi-runtime, openmpi-mpirun
// RUN: %ampicc -O1 %s -o %t -lpthread
// RUN: %t +vp 8 +p 2 +balancer GreedyLB +lbperiod 0.005 +lbdebug 2>&1 | FileCheck %s
// RUN: %mpirun -np 2 %t +vp 8 +p 1 +balancer HybridLB +lbperiod 0.005 2>&1 | FileCheck %s --check-prefix=TWO

// CHECK: ampi: lb: step 1, GreedyLB, {{[0-9]+}} of 8 ranks move, 1 cannot move now
// CHECK: result ok
// TWO: result ok

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static long work(long n) {
  volatile long x = 0;
  for (long i = 0; i < n * 10; i++)
    x += i % 3 == 0;
  return n;
}
static void *body(void *arg) {
  long *v = arg;
  long s;
  MPI_Allreduce(v, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  *v = s;
  return NULL;
}
int main(int argc, char **argv) {
  int prov, rank, size;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long total = 0;
  for (int it = 0; it < 40; it++) {
    long v = work(rank < size / 2 ? 16000 : 4000);
    if (rank == 0) {
      pthread_t t;
      pthread_create(&t, NULL, body, &v);
      pthread_join(t, NULL);
      total = v;
    } else {
      long s;
      MPI_Allreduce(&v, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
      total = s;
    }
  }
  long want = (size / 2) * 16000L + (size - size / 2) * 4000L;
  if (total != want) {
    printf("bad %ld %ld\n", total, want);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0)
    printf("result ok\n");
  MPI_Finalize();
  return 0;
}
