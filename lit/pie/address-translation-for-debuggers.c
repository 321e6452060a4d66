// amp_pie_to_original() and amp_pie_rank_base(), exported by libampi for
// debuggers, map a rank's copy of the program back to the loaded original:
// the same function is at a different address in every rank's copy, inside
// that rank's copy (so the addresses differ), and at one address in the
// original.  An address outside the copies (the stack) stays as it is.
// REQUIRES: ampi-runtime
// RUN: %ampicc -privatize=pie -O2 %s -o %t
// RUN: %t +vp 4 +p 2 | FileCheck %s

// CHECK: inside their rank's copy 4, one original 1

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

void *amp_pie_to_original(const void *addr);
uintptr_t amp_pie_rank_base(int world_rank);

__attribute__((noinline)) int probe(int x)
{
    return x + 1;
}

int main(int argc, char **argv)
{
    int rank, size, inside, n_inside;
    long here, orig, lo[2], hi[2], mine[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int (*volatile fn)(int) = probe;
    here = (long)(uintptr_t)fn;
    orig = (long)(uintptr_t)amp_pie_to_original((const void *)(uintptr_t)fn);
    /* Copies are in rank order, each below the next rank's base. */
    inside = amp_pie_rank_base(rank) != 0 &&
             (uintptr_t)here > amp_pie_rank_base(rank) &&
             (rank == size - 1 ||
              (uintptr_t)here < amp_pie_rank_base(rank + 1)) &&
             amp_pie_to_original((void *)&orig) == (void *)&orig;
    mine[0] = here;
    mine[1] = orig;
    MPI_Allreduce(mine, lo, 2, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(mine, hi, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&inside, &n_inside, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("inside their rank's copy %d, one original %d\n", n_inside,
               lo[1] == hi[1] && lo[1] != lo[0] && lo[1] != hi[0]);
    MPI_Finalize();
    return fn(0) - 1;
}
