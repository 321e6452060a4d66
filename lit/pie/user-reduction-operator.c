// A user-defined reduction operator (MPI_Op_create) in a program built
// with -privatize=pie: the runtime calls the function through the pointer
// the rank handed it, which points into that rank's copy of the program,
// and the function reads and counts in the rank's own globals.  The
// operator is not commutative (2x2 matrix product), so the result also
// shows that the ranks' data are combined in rank order.
// REQUIRES: ampi-runtime
// RUN: %ampicc -privatize=pie -O2 %s -o %t
// RUN: %t +vp 4 +p 1 | FileCheck %s
// RUN: %t +vp 4 +p 2 | FileCheck %s
// RUN: %t +vp 16 +p 2 | FileCheck %s

// CHECK: [[N:[0-9]+]] of [[N]] ranks got the product; 0 saw another rank's globals

#include <mpi.h>
#include <stdio.h>

static int my_rank = -1; /* per rank: the operator checks it */
static int op_calls;     /* per rank: calls of the operator in this rank */
static int foreign;      /* per rank: calls that saw another rank's globals */

/* inout = in * inout for 2x2 matrices stored row-major. */
static void matmul(void *invec, void *inoutvec, int *len, MPI_Datatype *dt)
{
    const long *a = invec;
    long *b = inoutvec;
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    op_calls++;
    if (me != my_rank)
        foreign++;
    (void)dt;
    for (int k = 0; k < *len / 4; k++, a += 4, b += 4) {
        long c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                     a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        for (int i = 0; i < 4; i++)
            b[i] = c[i];
    }
}

int main(int argc, char **argv)
{
    int size, ok, counts[2], totals[2];
    long m[4], result[4], want[4] = {1, 0, 0, 1};
    MPI_Op op;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Op_create(matmul, 0, &op);
    /* Rank r holds [[1, r], [r % 2, 1]]; these matrices do not commute,
     * so only the product in rank order matches want. */
    m[0] = 1;
    m[1] = my_rank;
    m[2] = my_rank % 2;
    m[3] = 1;
    for (int r = 0; r < size; r++) {
        long a[4] = {want[0], want[1], want[2], want[3]};
        long b[4] = {1, r, r % 2, 1};
        want[0] = a[0] * b[0] + a[1] * b[2];
        want[1] = a[0] * b[1] + a[1] * b[3];
        want[2] = a[2] * b[0] + a[3] * b[2];
        want[3] = a[2] * b[1] + a[3] * b[3];
    }
    MPI_Allreduce(m, result, 4, MPI_LONG, op, MPI_COMM_WORLD);
    ok = result[0] == want[0] && result[1] == want[1] && result[2] == want[2] &&
         result[3] == want[3];
    counts[0] = ok;
    counts[1] = foreign;
    MPI_Reduce(counts, totals, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (my_rank == 0)
        printf("%d of %d ranks got the product; %d saw another rank's "
               "globals\n",
               totals[0], size, totals[1]);
    MPI_Op_free(&op);
    MPI_Finalize();
    return 0;
}
