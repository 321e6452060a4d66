// A legacy C++ program with global objects that have constructors
// (std::string, std::vector, a class of its own), namespace-scope and
// anonymous-namespace variables, class static data members (also of a
// template) and function-local statics.  Built with ampicxx each rank gets
// its own objects, constructed for that rank; with -privatize=none they are
// shared.
// REQUIRES: ampi-runtime, clang-plugin
// RUN: %ampicxx -O2 %s -o %t
// RUN: %t +vp 4 +p 1 | FileCheck %s --check-prefix=PRIVATE
// RUN: %t +vp 4 +p 2 | FileCheck %s --check-prefix=PRIVATE
// RUN: %t +vp 16 +p 2 | FileCheck %s --check-prefix=PRIVATE
// RUN: %ampicxx -privatize=none -O2 %s -o %t.shared
// RUN: %t.shared +vp 4 +p 1 | FileCheck %s --check-prefix=SHARED

// PRIVATE: constructed once per rank; 0 rank(s) saw another rank's values
// SHARED: {{[1-9][0-9]*}} rank(s) saw another rank's values

#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

struct Counter {
    int value;
    Counter() : value(10) { constructions++; }
    static int constructions;
};
int Counter::constructions = 0;

template <typename T> struct Registry {
    static T last;
};
template <typename T> T Registry<T>::last = T();

std::string label = "initial";
std::vector<int> history(3, 7);
Counter counter;

namespace physics {
double dt = 0.1;
}

namespace {
int hidden = -1;
}

static int calls()
{
    static int n = 0;
    return ++n;
}

int main(int argc, char **argv)
{
    int rank, bad, all_bad, fresh, all_fresh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fresh = label == "initial" && history.size() == 3 && counter.value == 10;
    MPI_Barrier(MPI_COMM_WORLD);
    label = "rank " + std::to_string(rank);
    history.assign(rank + 1, rank);
    counter.value = rank;
    physics::dt = rank;
    hidden = rank;
    Registry<int>::last = rank;
    for (int i = 0; i <= rank; i++)
        calls();
    MPI_Barrier(MPI_COMM_WORLD);
    bad = !(label == "rank " + std::to_string(rank) &&
            history.size() == (size_t)rank + 1 && history[0] == rank &&
            counter.value == rank && physics::dt == rank && hidden == rank &&
            Registry<int>::last == rank && calls() == rank + 2 &&
            Counter::constructions == 1);
    MPI_Allreduce(&fresh, &all_fresh, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        std::printf("%s; %d rank(s) saw another rank's values\n",
                    all_fresh ? "constructed once per rank"
                              : "not constructed per rank",
                    all_bad);
    MPI_Finalize();
    return 0;
}
