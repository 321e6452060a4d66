// C++ new and delete (plain, array, over-aligned) and the standard
// containers reach the interposed malloc through libstdc++: a rank's
// objects live in its own isomalloc slot.
// REQUIRES: ampi-runtime, clang-plugin
// RUN: %ampicxx -O2 %s -o %t
// RUN: %t +vp 4 +p 2 | FileCheck %s

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace {

struct alignas(128) Wide {
    double v[16];
};

int owner(const void *p)
{
    int r = -2;
    AMPI_Isomalloc_rank(p, &r);
    return r;
}

// Counts the objects that are not in rank me's slot or misaligned.
int misplaced(int me)
{
    int bad = 0;
    auto *one = new long(42);
    bad += owner(one) != me;
    delete one;
    auto *many = new int[10000];
    bad += owner(many) != me;
    delete[] many;
    auto *wide = new Wide[3];
    bad += owner(wide) != me || reinterpret_cast<std::uintptr_t>(wide) % 128;
    delete[] wide;
    std::vector<double> grow;
    for (int i = 0; i < 100000; i++)
        grow.push_back(i);
    bad += owner(grow.data()) != me || grow[99999] != 99999.0;
    std::string text(1000, 'x');
    bad += owner(text.data()) != me;
    auto shared = std::make_shared<std::vector<int>>(100, me);
    bad += owner(shared.get()) != me || (*shared)[99] != me;
    return bad;
}

} // namespace

int main(int argc, char **argv)
{
    int me, bad, total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    bad = misplaced(me);
    MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        std::printf("%d objects outside their rank's slot\n", total);
    MPI_Finalize();
    return 0;
}

// CHECK: 0 objects outside their rank's slot
