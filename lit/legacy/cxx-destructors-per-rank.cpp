// A privatized global object with a destructor is destroyed once per rank,
// when the rank ends, with that rank's globals in place (so the destructor
// sees the rank's own data) — not later on the worker thread.
// REQUIRES: ampi-runtime, clang-plugin
// RUN: %ampicxx -O2 %s -o %t
// RUN: %t +vp 4 +p 1 | FileCheck %s --check-prefix=FOUR
// RUN: %t +vp 16 +p 2 | FileCheck %s --check-prefix=SIXTEEN

// FOUR: 4 destructors ran, 4 with their own rank's globals
// SIXTEEN: 16 destructors ran, 16 with their own rank's globals

#include <mpi.h>

#include <atomic>
#include <cstdio>

// Shared on purpose: the tally every rank's destructor adds to.
static std::atomic<int> destroyed __attribute__((annotate("ampi_shared")));
static std::atomic<int> own_data __attribute__((annotate("ampi_shared")));

int my_rank = -1;

struct Tracker {
    int owner = -1;
    ~Tracker()
    {
        destroyed++;
        if (owner >= 0 && owner == my_rank)
            own_data++;
    }
};
Tracker tracker;

struct Summary {
    ~Summary()
    {
        std::printf("%d destructors ran, %d with their own rank's globals\n",
                    destroyed.load(), own_data.load());
    }
};
static Summary summary __attribute__((annotate("ampi_shared")));

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    my_rank = rank;
    tracker.owner = rank;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
