// A C++ exception thrown and caught in a rank's copy of the program: the
// unwinder finds the copy's unwind tables (registered with libgcc for each
// copy), and the exception carries the rank's own data.
// REQUIRES: ampi-runtime
// RUN: %ampicxx -privatize=pie -O2 %s -o %t
// RUN: %t +vp 4 +p 2 | FileCheck %s
// RUN: %t +vp 16 +p 2 | FileCheck %s

// CHECK: caught [[N:[0-9]+]] of [[N]]

#include <mpi.h>

#include <cstdio>
#include <stdexcept>
#include <string>

static int where; // per rank

[[gnu::noinline]] static void fail(int rank)
{
    where = rank;
    throw std::runtime_error("rank " + std::to_string(rank));
}

int main(int argc, char **argv)
{
    int rank, size, ok = 0, total;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    try {
        fail(rank);
    } catch (const std::runtime_error &e) {
        MPI_Barrier(MPI_COMM_WORLD); // other ranks throw meanwhile
        ok = e.what() == "rank " + std::to_string(rank) && where == rank;
    }
    MPI_Allreduce(&ok, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        std::printf("caught %d of %d\n", total, size);
    MPI_Finalize();
    return 0;
}
