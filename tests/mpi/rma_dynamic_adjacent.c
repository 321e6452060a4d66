/*
 * A dynamic window whose target memory is attached as two adjacent
 * regions: one put, get or accumulate may span both (the standard asks
 * only that every byte be attached), in one process and across processes.
 * Memory that is not attached is still refused (MPI_ERR_RMA_RANGE), by the
 * call or, for a target in another process, by the unlock, which releases
 * the lock all the same.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { HALF = 64 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int target = (rank + 1) % size, from = (rank + size - 1) % size;
    /* Three halves; the first two attached, the third not. */
    int *mem = calloc(3 * HALF, sizeof(int));
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MT_CHECK_MPI(MPI_Win_attach(win, mem, HALF * sizeof(int)));
    MT_CHECK_MPI(MPI_Win_attach(win, mem + HALF, HALF * sizeof(int)));
    MPI_Aint mine, *bases = malloc((size_t)size * sizeof(MPI_Aint));
    MPI_Get_address(mem, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD);
    MPI_Aint tbase = bases[target];

    /* 32 ints across the boundary of the target's two regions. */
    int out[32], in[32], one = 1;
    for (int i = 0; i < 32; i++)
        out[i] = rank * 1000 + i;
    MPI_Aint mid = MPI_Aint_add(tbase, (HALF - 16) * (MPI_Aint)sizeof(int));
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
    MT_CHECK_MPI(MPI_Put(out, 32, MPI_INT, target, mid, 32, MPI_INT, win));
    MPI_Win_flush(target, win);
    MT_CHECK_MPI(MPI_Get(in, 32, MPI_INT, target, mid, 32, MPI_INT, win));
    MPI_Win_flush(target, win);
    for (int i = 0; i < 32; i++)
        if (!MT_CHECK_INT_EQ(in[i], rank * 1000 + i))
            break;
    /* Every int of both regions, plus one. */
    int *ones = malloc(2 * HALF * sizeof(int));
    for (int i = 0; i < 2 * HALF; i++)
        ones[i] = one;
    MT_CHECK_MPI(MPI_Accumulate(ones, 2 * HALF, MPI_INT, target, tbase,
                                2 * HALF, MPI_INT, MPI_SUM, win));
    MPI_Win_flush(target, win);
    /* Into the unattached third half: refused. */
    MPI_Aint end = MPI_Aint_add(tbase, (2 * HALF - 4) * (MPI_Aint)sizeof(int));
    int cls = MPI_SUCCESS;
    MPI_Error_class(MPI_Put(out, 8, MPI_INT, target, end, 8, MPI_INT, win),
                    &cls);
    /* A target in another process checks at its end: the unlock reports
     * it, and still releases the lock. */
    int ucls = MPI_SUCCESS;
    MPI_Error_class(MPI_Win_unlock(target, win), &ucls);
    if (mt_process_of(target) == mt_process_of(rank))
        MT_CHECK_INT_EQ(cls, MPI_ERR_RMA_RANGE);
    else
        MT_CHECK_INT_EQ(ucls, MPI_ERR_RMA_RANGE);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    for (int i = 0; i < 2 * HALF; i++) {
        int lo = i >= HALF - 16 && i < HALF + 16;
        int want = (lo ? from * 1000 + i - (HALF - 16) : 0) + 1;
        if (!MT_CHECK_INT_EQ(mem[i], want))
            break;
    }
    MT_CHECK_INT_EQ(mem[2 * HALF], 0);
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_detach(win, mem);
    MPI_Win_detach(win, mem + HALF);
    MPI_Win_free(&win);
    free(ones);
    free(bases);
    free(mem);
    return mt_finish_and_finalize();
}
