// The C library hands out addresses of its thread-local variables
// (errno through __errno_location, the ctype tables through
// __ctype_b_loc and friends) computed from %fs:0, which the runtime
// switches per rank.  In a rank they must still be the kernel thread's:
// errno holds what the library's last failing call stored, and toupper()
// and isalpha() work (their tables are set per kernel thread).
// REQUIRES: ampi-runtime
// RUN: %ampicc -O2 -privatize=none %s -o %t
// RUN: %t +vp 4 +p 2 | FileCheck %s
// RUN: %ampicc -O2 -privatize=pie %s -o %t.pie
// RUN: %t.pie +vp 4 +p 2 | FileCheck %s

// CHECK: 4 of 4 ranks: errno EBADF, toupper A, isalpha 1

#include <mpi.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, ok, total;
    volatile int c = 'a';
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    errno = 0;
    ok = close(-1) == -1 && errno == EBADF;
    ok = ok && toupper(c) == 'A' && isalpha(c) && !isdigit(c);
    MPI_Allreduce(&ok, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d of %d ranks: errno EBADF, toupper A, isalpha 1\n", total,
               size);
    MPI_Finalize();
    return 0;
}
