// C++ globals under -privatize=pie: objects with constructors (run in each
// rank, on the rank's copy, before its main), polymorphic objects reached
// through virtual functions, a static std::string and a std::vector (their
// heap storage is the rank's own) and a pointer initialized with new.
// Each rank writes its rank into all of them, lets the others run and
// reads its own back.  -privatize=none shares them, which the test shows.
// REQUIRES: ampi-runtime
// RUN: %ampicxx -privatize=pie -O2 %s -o %t
// RUN: %t +vp 4 +p 1 | FileCheck %s --check-prefix=PRIVATE
// RUN: %t +vp 4 +p 2 | FileCheck %s --check-prefix=PRIVATE
// RUN: %t +vp 16 +p 2 | FileCheck %s --check-prefix=PRIVATE
// RUN: %ampicxx -privatize=none -O2 %s -o %t.shared
// RUN: %t.shared +vp 4 +p 1 | FileCheck %s --check-prefix=SHARED

// PRIVATE: [[N:[0-9]+]] of [[N]] ranks saw the initial values; 0 saw another rank's
// SHARED: 4 of 4 ranks saw the initial values; 3 saw another rank's

#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

struct Shape {
    virtual ~Shape() = default;
    virtual int id() const = 0;
};

struct Square : Shape {
    explicit Square(int v) : v(v)
    {
    }
    int id() const override
    {
        return v;
    }
    int v;
};

static int constructed; // constructors run in this copy so far

struct Tracker {
    Tracker() : value(42)
    {
        ++constructed;
    }
    int value;
};

Tracker tracker;
static std::string label = "initial";
std::vector<int> values(8, 7);
Shape *shape = new Square(-1);

static bool fresh()
{
    return constructed == 1 && tracker.value == 42 && label == "initial" &&
           values.size() == 8 && values[7] == 7 && shape->id() == -1;
}

static void set_all(int rank)
{
    tracker.value = rank;
    label = "rank-" + std::to_string(rank) + " with a long heap string";
    values.assign(rank + 1, rank);
    delete shape;
    shape = new Square(rank);
}

static bool mine(int rank)
{
    return tracker.value == rank &&
           label ==
               "rank-" + std::to_string(rank) + " with a long heap string" &&
           values.size() == size_t(rank) + 1 && values[rank] == rank &&
           shape->id() == rank;
}

int main(int argc, char **argv)
{
    int rank, size, counts[2], totals[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    counts[0] = fresh();
    MPI_Barrier(MPI_COMM_WORLD);
    set_all(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    counts[1] = !mine(rank);
    MPI_Allreduce(counts, totals, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        std::printf("%d of %d ranks saw the initial values; %d saw another "
                    "rank's\n",
                    totals[0], size, totals[1]);
    MPI_Finalize();
    return 0;
}
