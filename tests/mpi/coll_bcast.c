/*
 * coll_bcast: MPI_Bcast from every root with sizes from 1 byte to 1 MiB
 * (sizes of 64 KiB and up from three roots only, to keep the run short),
 * of MPI_BYTE and MPI_INT, of a contiguous derived type, and of count 0.
 * Every rank checks every byte; non-roots start with a different pattern.
 */
#include "mpitest.h"

#include <stdlib.h>

static const int sizes[] = {1, 2, 7, 100, 4095, 4096, 4097, 1 << 16, 1 << 20};
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

static int is_big_root(int root, int size)
{
    return root == 0 || root == size - 1 || root == size / 2;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *buf = malloc(1 << 20);

    for (int k = 0; k < NSIZES; k++) {
        int n = sizes[k];
        for (int root = 0; root < size; root++) {
            if (n >= (1 << 16) && !is_big_root(root, size))
                continue;
            unsigned seed = (unsigned)(root * 7 + k);
            mt_fill(buf, (size_t)n, rank == root ? seed : seed + 1);
            MT_CHECK_MPI(MPI_Bcast(buf, n, MPI_BYTE, root, MPI_COMM_WORLD));
            if (!MT_CHECK_PATTERN(buf, (size_t)n, seed))
                MT_FAIL("MPI_Bcast of %d bytes from root %d", n, root);
        }
    }

    /* Ints, and the same data as a contiguous type of 10 ints. */
    int *ints = (int *)buf;
    MPI_Datatype ten;
    MPI_Type_contiguous(10, MPI_INT, &ten);
    MPI_Type_commit(&ten);
    for (int root = 0; root < size; root++) {
        for (int i = 0; i < 1000; i++)
            ints[i] = rank == root ? root * 100000 + i : -1;
        if (root % 2)
            MT_CHECK_MPI(MPI_Bcast(ints, 1000, MPI_INT, root, MPI_COMM_WORLD));
        else
            MT_CHECK_MPI(MPI_Bcast(ints, 100, ten, root, MPI_COMM_WORLD));
        for (int i = 0; i < 1000; i++)
            if (!MT_CHECK_INT_EQ(ints[i], root * 100000 + i))
                break;
    }
    MPI_Type_free(&ten);

    /* Count 0 leaves the buffer alone. */
    ints[0] = rank;
    MT_CHECK_MPI(MPI_Bcast(ints, 0, MPI_INT, 0, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(ints[0], rank);

    free(buf);
    return mt_finish_and_finalize();
}
