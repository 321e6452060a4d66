/*
 * Window hints: MPI_Win_get_info reports each of the standard's window
 * hints (no_locks, accumulate_ordering, accumulate_ops, same_size,
 * same_disp_unit, alloc_shared_noncontig), as given at creation or by
 * MPI_Win_set_info, else with its default; other keys are ignored.
 */
#include "mpitest.h"

/* The value of key in win's hints, or "(unset)". */
static const char *hint(MPI_Win win, const char *key, char *buf)
{
    MPI_Info info;
    int flag = 0;
    MT_CHECK_MPI(MPI_Win_get_info(win, &info));
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, buf, &flag);
    MPI_Info_free(&info);
    return flag ? buf : "(unset)";
}

#define CHECK_HINT(win, key, want)                                             \
    do {                                                                       \
        char buf_[MPI_MAX_INFO_VAL];                                           \
        const char *got_ = hint(win, key, buf_);                               \
        if (strcmp(got_, want) != 0)                                           \
            MT_FAIL("hint %s is %s, expected %s", key, got_, want);            \
    } while (0)

static void set_hint(MPI_Win win, const char *key, const char *value)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
    MT_CHECK_MPI(MPI_Win_set_info(win, info));
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, *base;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "true");
    MPI_Info_set(info, "mpi_assert_no_any_source", "true");
    MPI_Info_set(info, "unknown_key", "x");
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &base,
                     &win);
    MPI_Info_free(&info);
    CHECK_HINT(win, "no_locks", "true");
    CHECK_HINT(win, "accumulate_ordering", "rar,raw,war,waw");
    CHECK_HINT(win, "accumulate_ops", "same_op_no_op");
    CHECK_HINT(win, "same_size", "false");
    CHECK_HINT(win, "same_disp_unit", "false");
    CHECK_HINT(win, "unknown_key", "(unset)");
    CHECK_HINT(win, "mpi_assert_no_any_source", "(unset)");

    set_hint(win, "accumulate_ordering", "none");
    set_hint(win, "same_size", "true");
    CHECK_HINT(win, "accumulate_ordering", "none");
    CHECK_HINT(win, "same_size", "true");
    CHECK_HINT(win, "no_locks", "true");

    /* The window still works: each rank puts its rank into its right
     * neighbour. */
    int me = rank;
    MPI_Win_fence(0, win);
    MPI_Put(&me, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MT_CHECK_INT_EQ(*base, (rank + size - 1) % size);
    MPI_Win_free(&win);

    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank,
                        MPI_INFO_NULL, &node);
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    MPI_Win_allocate_shared(sizeof(int), sizeof(int), info, node, &base, &win);
    MPI_Info_free(&info);
    CHECK_HINT(win, "alloc_shared_noncontig", "true");
    CHECK_HINT(win, "no_locks", "false");
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
    return mt_finish_and_finalize();
}
