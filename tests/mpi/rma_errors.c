/* Misuse of windows answers the right error classes. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int me, np, buf[4] = {0}, v = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Win win;
    MT_CHECK_ERR_CLASS(
        MPI_Win_create(buf, -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win),
        MPI_ERR_SIZE);
    MT_CHECK_ERR_CLASS(
        MPI_Win_create(buf, 16, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win),
        MPI_ERR_DISP);
    MT_CHECK_ERR_CLASS(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);
    MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                   &win);
    MPI_Errhandler eh;
    MPI_Win_get_errhandler(win, &eh);
    MT_CHECK(eh == MPI_ERRORS_ARE_FATAL);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_set_name(win, "buf");
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Win_get_name(win, name, &len);
    MT_CHECK(len == 3 && strcmp(name, "buf") == 0);
    MT_CHECK_ERR_CLASS(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win),
                       MPI_ERR_RMA_SYNC);
    MT_CHECK_ERR_CLASS(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC);
    MT_CHECK_ERR_CLASS(MPI_Win_flush_all(win), MPI_ERR_RMA_SYNC);
    MT_CHECK_ERR_CLASS(MPI_Win_lock(3, 0, 0, win), MPI_ERR_LOCKTYPE);
    MT_CHECK_ERR_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOPUT, win),
                       MPI_ERR_ASSERT);
    MT_CHECK_ERR_CLASS(MPI_Win_fence(12345678, win), MPI_ERR_ASSERT);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MT_CHECK_ERR_CLASS(MPI_Put(&v, 1, MPI_INT, 0, 4, 1, MPI_INT, win),
                       MPI_ERR_RMA_RANGE);
    MT_CHECK_ERR_CLASS(MPI_Put(&v, 1, MPI_INT, 0, -1, 1, MPI_INT, win),
                       MPI_ERR_DISP);
    MT_CHECK_ERR_CLASS(MPI_Put(&v, 1, MPI_INT, np, 0, 1, MPI_INT, win),
                       MPI_ERR_RANK);
    /* The edges of the common put and get (a flat type, a target whose
     * memory this process reaches): the last element is in range, two
     * elements from there are not, nor is a displacement whose byte
     * offset overflows; sizes must match, counts must not be negative. */
    int two[2] = {1, 1}, got = 0;
    MT_CHECK(MPI_Put(&v, 1, MPI_INT, 0, 3, 1, MPI_INT, win) == MPI_SUCCESS);
    MT_CHECK_ERR_CLASS(MPI_Put(two, 2, MPI_INT, 0, 3, 2, MPI_INT, win),
                       MPI_ERR_RMA_RANGE);
    MT_CHECK_ERR_CLASS(MPI_Get(two, 2, MPI_INT, 0, 3, 2, MPI_INT, win),
                       MPI_ERR_RMA_RANGE);
    MT_CHECK_ERR_CLASS(
        MPI_Put(&v, 1, MPI_INT, 0, (MPI_Aint)1 << 62, 1, MPI_INT, win),
        MPI_ERR_RMA_RANGE);
    MT_CHECK_ERR_CLASS(MPI_Put(&v, 1, MPI_SHORT, 0, 0, 1, MPI_INT, win),
                       MPI_ERR_TYPE);
    MT_CHECK_ERR_CLASS(MPI_Get(&got, -1, MPI_INT, 0, 0, 1, MPI_INT, win),
                       MPI_ERR_COUNT);
    MT_CHECK(MPI_Put(two, 4, MPI_SHORT, 0, 2, 2, MPI_INT, win) == MPI_SUCCESS);
    MPI_Win_flush(0, win);
    MT_CHECK(MPI_Get(&got, 1, MPI_INT, 0, 3, 1, MPI_INT, win) == MPI_SUCCESS);
    MPI_Win_flush(0, win);
    MT_CHECK(got == 1);
    MT_CHECK_ERR_CLASS(
        MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_MAXLOC, win),
        MPI_ERR_OP);
    MT_CHECK_ERR_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win),
                       MPI_ERR_RMA_SYNC);
    MT_CHECK_ERR_CLASS(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);
    MPI_Win_unlock(0, win);
    MPI_Win_free(&win);
    return mt_finish_and_finalize();
}
