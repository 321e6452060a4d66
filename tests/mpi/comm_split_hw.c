/*
 * comm_split_hw: MPI-4.0's hardware split types.  MPI_COMM_TYPE_HW_GUIDED
 * with "mpi_hw_resource_type" = "mpi_shared_memory" gives what
 * MPI_COMM_TYPE_SHARED gives, with "core" the ranks of one PE (the same
 * AMPI_MY_WTH), with another value or no info MPI_COMM_NULL;
 * MPI_COMM_TYPE_HW_UNGUIDED gives a strict subset of the communicator (the
 * members of the widest level that divides it), or MPI_COMM_NULL when
 * nothing smaller is known (all on one PE); its info names that level
 * ("mpi_hw_resource_type"), which HW_GUIDED takes.
 */
#include "mpitest.h"

static int size_of(MPI_Comm c)
{
    int n = -1;
    if (c != MPI_COMM_NULL)
        MPI_Comm_size(c, &n);
    return n;
}

static int my_pe(void)
{
    int *v, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_MY_WTH, &v, &flag);
    return flag ? *v : -1;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm shared, guided, core, none, unguided;
    MPI_Info info;
    MT_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                                     MPI_INFO_NULL, &shared));
    MT_CHECK_MPI(MPI_Info_create(&info));
    MT_CHECK_MPI(
        MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory"));
    MT_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0,
                                     info, &guided));
    MT_CHECK_INT_EQ(size_of(guided), size_of(shared));
    MT_CHECK_MPI(MPI_Info_set(info, "mpi_hw_resource_type", "core"));
    MT_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0,
                                     info, &core));
    int pe = my_pe(), lo = -1, hi = -1;
    MT_CHECK(core != MPI_COMM_NULL);
    MPI_Allreduce(&pe, &lo, 1, MPI_INT, MPI_MIN, core);
    MPI_Allreduce(&pe, &hi, 1, MPI_INT, MPI_MAX, core);
    MT_CHECK_INT_EQ(lo, pe);
    MT_CHECK_INT_EQ(hi, pe);
    MT_CHECK_MPI(MPI_Info_set(info, "mpi_hw_resource_type", "socket9"));
    MT_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0,
                                     info, &none));
    MT_CHECK(none == MPI_COMM_NULL);
    MT_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0,
                                     MPI_INFO_NULL, &none));
    MT_CHECK(none == MPI_COMM_NULL);
    MT_CHECK_MPI(MPI_Info_free(&info));
    /* Unguided: strictly smaller, or nothing when all share one PE. */
    MPI_Info given;
    MT_CHECK_MPI(MPI_Info_create(&given));
    MT_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED,
                                     0, given, &unguided));
    int n = size_of(unguided);
    MT_CHECK(unguided == MPI_COMM_NULL ? size_of(core) == size
                                       : n >= 1 && n < size);
    /* Its info names the level (MPI-4.0 7.4.2), which guided takes back. */
    MPI_Comm again = MPI_COMM_NULL;
    if (unguided != MPI_COMM_NULL) {
        MPI_Info used;
        char level[MPI_MAX_INFO_VAL];
        int len = sizeof(level), flag = 0;
        MT_CHECK_MPI(MPI_Comm_get_info(unguided, &used));
        MT_CHECK_MPI(MPI_Info_get_string(used, "mpi_hw_resource_type", &len,
                                         level, &flag));
        MT_CHECK(flag);
        if (flag)
            MT_CHECK_MPI(MPI_Comm_split_type(
                MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, used, &again));
        MT_CHECK_INT_EQ(size_of(again), n);
        MT_CHECK_MPI(MPI_Info_free(&used));
        char level2[MPI_MAX_INFO_VAL];
        len = sizeof(level2);
        flag = 0;
        MT_CHECK_MPI(MPI_Info_get_string(given, "mpi_hw_resource_type", &len,
                                         level2, &flag));
        MT_CHECK(flag && strcmp(level, level2) == 0);
    }
    MT_CHECK_MPI(MPI_Info_free(&given));
    MPI_Comm *all[] = {&shared, &guided, &core, &unguided, &again};
    for (int i = 0; i < 5; i++)
        if (*all[i] != MPI_COMM_NULL)
            MT_CHECK_MPI(MPI_Comm_free(all[i]));
    return mt_finish_and_finalize();
}
