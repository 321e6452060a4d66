/*
 * info_comm: hints on communicators.
 *   - MPI_Comm_get_info of a fresh communicator reports the four MPI-4
 *     assertions (mpi_assert_no_any_tag, _no_any_source, _exact_length,
 *     _allow_overtaking) as "false";
 *   - MPI_Comm_set_info with "true" turns one on, "false" off again;
 *     unknown keys are accepted and not reported;
 *   - MPI_Comm_dup inherits the hints; the communicator still works;
 *   - MPI_INFO_NULL or a freed info is MPI_ERR_INFO.
 */
#include "mpitest.h"

static const char *const keys[] = {
    "mpi_assert_no_any_tag",
    "mpi_assert_no_any_source",
    "mpi_assert_exact_length",
    "mpi_assert_allow_overtaking",
};

/* want[i]: whether keys[i] is "true" in comm's hints. */
static void check_hints(MPI_Comm comm, const int want[4])
{
    MPI_Info used;
    char value[16];
    int flag;
    if (!MT_CHECK_MPI(MPI_Comm_get_info(comm, &used)))
        return;
    for (int i = 0; i < 4; i++) {
        flag = 0;
        MT_CHECK_MPI(MPI_Info_get(used, keys[i], 15, value, &flag));
        if (!MT_CHECK_INT_EQ(flag, 1))
            continue;
        if (!MT_CHECK(strcmp(value, want[i] ? "true" : "false") == 0))
            MT_FAIL("%s is \"%s\"", keys[i], value);
    }
    MT_CHECK_MPI(MPI_Info_get(used, "my_own_hint", 15, value, &flag));
    MT_CHECK_INT_EQ(flag, 0);
    MT_CHECK_MPI(MPI_Info_free(&used));
}

int main(int argc, char **argv)
{
    MPI_Comm comm, dup;
    MPI_Info info;
    int rank, size, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    check_hints(comm, (const int[]){0, 0, 0, 0});

    MT_CHECK_MPI(MPI_Info_create(&info));
    MT_CHECK_MPI(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    MT_CHECK_MPI(MPI_Info_set(info, "mpi_assert_exact_length", "true"));
    MT_CHECK_MPI(MPI_Info_set(info, "my_own_hint", "yes"));
    MT_CHECK_MPI(MPI_Comm_set_info(comm, info));
    MT_CHECK_MPI(MPI_Info_free(&info));
    check_hints(comm, (const int[]){1, 0, 1, 0});

    MT_CHECK_MPI(MPI_Info_create(&info));
    MT_CHECK_MPI(MPI_Info_set(info, "mpi_assert_exact_length", "false"));
    MT_CHECK_MPI(MPI_Info_set(info, "mpi_assert_allow_overtaking", "true"));
    MT_CHECK_MPI(MPI_Comm_set_info(comm, info));
    check_hints(comm, (const int[]){1, 0, 0, 1});
    check_hints(MPI_COMM_WORLD, (const int[]){0, 0, 0, 0});

    MT_CHECK_MPI(MPI_Comm_dup(comm, &dup));
    check_hints(dup, (const int[]){1, 0, 0, 1});
    MT_CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup));
    MT_CHECK_INT_EQ(sum, size * (size - 1) / 2);

    MT_CHECK_ERR_CLASS(MPI_Comm_set_info(comm, MPI_INFO_NULL), MPI_ERR_INFO);
    MPI_Info freed = info;
    MT_CHECK_MPI(MPI_Info_free(&info));
    MT_CHECK_ERR_CLASS(MPI_Comm_set_info(comm, freed), MPI_ERR_INFO);
    MT_CHECK_ERR_CLASS(MPI_Comm_get_info(comm, NULL), MPI_ERR_ARG);
    MT_CHECK_MPI(MPI_Comm_free(&dup));
    MT_CHECK_MPI(MPI_Comm_free(&comm));
    return mt_finish_and_finalize();
}
