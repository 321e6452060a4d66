/*
 * MPI_Bcast and MPI_Barrier on the shared-memory path: sizes on both sides
 * of the staging size, every kind of root, a root type with holes against
 * contiguous receivers (the same type signature), and a barrier that must
 * really hold everyone: the ranks of a process share one counter (they
 * live in one address space) and each checks, after every barrier, that
 * all of them incremented it before.
 */
#include "mpitest.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

static void bcast_sizes(int rank, int size)
{
    size_t sizes[] = {1, 8, 1000, 1024, 1025, 4096, 100000, 1u << 20};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(*sizes); k++) {
        size_t n = sizes[k];
        unsigned char *buf = malloc(n + 1);
        int roots[3] = {0, size - 1, size / 3};
        for (int j = 0; j < 3; j++) {
            int root = roots[j];
            unsigned seed = (unsigned)(k * 10 + (size_t)j);
            if (rank == root)
                mt_fill(buf, n, seed);
            else
                memset(buf, 0, n);
            buf[n] = 0x5a;
            MT_CHECK_MPI(
                MPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD));
            MT_CHECK_PATTERN(buf, n, seed);
            MT_CHECK_INT_EQ(buf[n], 0x5a);
        }
        free(buf);
    }
}

/* The root sends every other int of 2n (a vector type); the others
 * receive n contiguous ints. */
static void bcast_holes(int rank, int size)
{
    int counts[2] = {10, 50000};
    for (int k = 0; k < 2; k++) {
        int n = counts[k], root = size - 1;
        int *buf = malloc(2 * (size_t)n * sizeof(int));
        if (rank == root) {
            MPI_Datatype every_other;
            MT_CHECK_MPI(MPI_Type_vector(n, 1, 2, MPI_INT, &every_other));
            MT_CHECK_MPI(MPI_Type_commit(&every_other));
            for (int i = 0; i < 2 * n; i++)
                buf[i] = i % 2 ? -1 : i / 2 * 3 + k;
            MT_CHECK_MPI(MPI_Bcast(buf, 1, every_other, root, MPI_COMM_WORLD));
            MT_CHECK_MPI(MPI_Type_free(&every_other));
        } else {
            MT_CHECK_MPI(MPI_Bcast(buf, n, MPI_INT, root, MPI_COMM_WORLD));
            for (int i = 0; i < n; i++)
                if (!MT_CHECK_INT_EQ(buf[i], i * 3 + k))
                    break;
        }
        free(buf);
    }
}

/* Among the ranks of one process (they share its address space). */
static void barrier_holds(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    atomic_int *counter = NULL;
    if (rank == 0) {
        counter = malloc(sizeof(*counter));
        atomic_init(counter, 0);
    }
    uintptr_t addr = (uintptr_t)counter;
    MT_CHECK_MPI(MPI_Bcast(&addr, sizeof(addr), MPI_BYTE, 0, comm));
    counter = (atomic_int *)addr;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int it = 0; it < 500; it++) {
        atomic_fetch_add(counter, 1);
        MT_CHECK_MPI(MPI_Barrier(comm));
        if (!MT_CHECK_INT_EQ(atomic_load(counter), size * (it + 1)))
            break;
        /* Nobody may increment for the next round before all have read. */
        MT_CHECK_MPI(MPI_Barrier(comm));
        if (it % 7 == 0) {
            int token = it + rank, from = -1;
            MT_CHECK_MPI(MPI_Sendrecv(&token, 1, MPI_INT, right, 1, &from, 1,
                                      MPI_INT, left, 1, comm,
                                      MPI_STATUS_IGNORE));
            MT_CHECK_INT_EQ(from, it + left);
        }
        int b = rank == it % size ? it : -1;
        MT_CHECK_MPI(MPI_Bcast(&b, 1, MPI_INT, it % size, comm));
        if (!MT_CHECK_INT_EQ(b, it))
            break;
    }
    MT_CHECK_MPI(MPI_Barrier(comm));
    if (rank == 0)
        free(counter);
}

static void self_and_dup(int rank)
{
    int v = rank;
    MT_CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_SELF));
    MT_CHECK_MPI(MPI_Barrier(MPI_COMM_SELF));
    MT_CHECK_INT_EQ(v, rank);
    MPI_Comm dup;
    MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int w = rank == 0 ? 42 : 0;
    MT_CHECK_MPI(MPI_Bcast(&w, 1, MPI_INT, 0, dup));
    MT_CHECK_INT_EQ(w, 42);
    MT_CHECK_MPI(MPI_Barrier(dup));
    MT_CHECK_MPI(MPI_Comm_free(&dup));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bcast_sizes(rank, size);
    bcast_holes(rank, size);
    MPI_Comm shared;
    MPI_Comm_split_type(MPI_COMM_WORLD, AMPI_COMM_TYPE_PROCESS, 0,
                        MPI_INFO_NULL, &shared);
    barrier_holds(shared);
    MPI_Comm_free(&shared);
    self_and_dup(rank);
    return mt_finish_and_finalize();
}
