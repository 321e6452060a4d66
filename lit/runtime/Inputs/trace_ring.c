/* What the +trace tests run: every rank sends ROUNDS messages (argv[1],
 * default 5) of BYTES bytes with tag 7 to the next rank (a ring) and
 * receives as many from the previous one; rank 0 then works about WORK units
 * alone (the others wait in MPI_Allreduce meanwhile); one MPI_Allreduce; " No
 * Errors" on rank 0. So a trace of it holds exactly, per rank, ROUNDS MPI_Send
 * and MPI_Recv calls and one MPI_Allreduce, and ROUNDS sends of BYTES bytes
 * from each rank to the next. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BYTES 100

static volatile unsigned long sink;

static void work(long units)
{
    unsigned long x = 1;
    for (long i = 0; i < units; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    sink = x;
}

int main(int argc, char **argv)
{
    int rank, size, errs = 0;
    char out[BYTES], in[BYTES];
    MPI_Init(&argc, &argv);
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int k = 0; k < rounds; k++) {
        memset(out, rank + k, sizeof(out));
        if (rank % 2 == 0) {
            MPI_Send(out, BYTES, MPI_CHAR, next, 7, MPI_COMM_WORLD);
            MPI_Recv(in, BYTES, MPI_CHAR, prev, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, BYTES, MPI_CHAR, prev, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(out, BYTES, MPI_CHAR, next, 7, MPI_COMM_WORLD);
        }
        errs += in[0] != (char)(prev + k);
    }
    if (rank == 0)
        work(20000000);
    int sum = 0;
    MPI_Allreduce(&errs, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && sum == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return sum != 0;
}
