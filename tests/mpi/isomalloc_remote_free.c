/* A block allocated by one rank may be read, resized and freed by another
 * rank of the process (on another PE or the same one): each rank sends
 * pointers to its blocks to the next rank, which checks their contents and
 * usable size, frees most of them and reallocs one (which moves it into its
 * own slot, data intact).  The owner gets the memory back: the rounds pass
 * far more bytes through each heap than its small slot holds (run with
 * +isomalloc_slot 16M).  Ranks share an address space: one process only. */
#define _GNU_SOURCE 1
#include "mpitest.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>

#define NBLOCKS 8
#define ROUNDS 24
#define BIG (256u << 10)

static int owner(const void *p)
{
    int r = -2;
    MT_CHECK_MPI(AMPI_Isomalloc_rank(p, &r));
    return r;
}

/* Block i of a round: small ones and big ones. */
static size_t block_size(int i)
{
    return i % 2 ? BIG + (size_t)i * 1000 : 24 + (size_t)i * 40;
}

static void one_round(int me, int size, int round)
{
    int next = (me + 1) % size, prev = (me + size - 1) % size;
    uint64_t mine[NBLOCKS], theirs[NBLOCKS];
    for (int i = 0; i < NBLOCKS; i++) {
        unsigned char *p = malloc(block_size(i));
        if (!MT_CHECK(p != NULL))
            MPI_Abort(MPI_COMM_WORLD, 1);
        mt_fill(p, block_size(i), (unsigned)(me * 100 + i + round));
        mine[i] = (uint64_t)(uintptr_t)p;
    }
    MPI_Sendrecv(mine, NBLOCKS, MPI_UINT64_T, next, round, theirs, NBLOCKS,
                 MPI_UINT64_T, prev, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < NBLOCKS; i++) {
        unsigned char *p = (unsigned char *)(uintptr_t)theirs[i];
        unsigned seed = (unsigned)(prev * 100 + i + round);
        MT_CHECK_INT_EQ(owner(p), prev);
        MT_CHECK(malloc_usable_size(p) >= block_size(i));
        MT_CHECK_PATTERN(p, block_size(i), seed);
        if (i == 3) {
            size_t n = block_size(i);
            unsigned char *q = realloc(p, 2 * n);
            if (MT_CHECK(q != NULL)) {
                MT_CHECK_INT_EQ(owner(q), me);
                MT_CHECK_PATTERN(q, n, seed);
                free(q);
            }
        } else {
            free(p);
        }
    }
}

int main(int argc, char **argv)
{
    int me, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* 24 rounds of 4 big blocks: 25 MiB through a 16 MiB slot. */
    for (int round = 0; round < ROUNDS; round++) {
        one_round(me, size, round);
        /* The blocks are freed before their owner allocates again. */
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return mt_finish_and_finalize();
}
