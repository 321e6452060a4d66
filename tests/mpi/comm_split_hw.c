/*
 * comm_split_hw: MPI-4.0's hardware split types.  MPI_COMM_TYPE_HW_GUIDED
 * with "mpi_hw_resource_type" = "mpi_shared_memory" gives what
 * MPI_COMM_TYPE_SHARED gives, with "core" the ranks of one PE (the same
 * AMPI_MY_WTH), with another value or no info MPI_COMM_NULL;
 * MPI_COMM_TYPE_HW_UNGUIDED gives a strict subset of the communicator (the
 * members of the widest level that divides it), or MPI_COMM_NULL when
 * nothing smaller is known (all on one PE); its info names that level
 * ("mpi_hw_resource_type"), which HW_GUIDED takes.  MPI-4.1's
 * MPI_Get_hw_resource_info names the levels (its keys), among them
 * "mpi_shared_memory" and "core": HW_GUIDED at each gives a communicator
 * of the caller, and those levels nest from the widest (the order of the
 * keys).
 */
#include "mpitest.h"

static int size_of(MPI_Comm c)
{
    int n = -1;
    if (c != MPI_COMM_NULL)
        MPI_Comm_size(c, &n);
    return n;
}

/* The levels of MPI_Get_hw_resource_info, widest first, into names
 * (at most max); their number. */
static int hw_levels(char names[][MPI_MAX_INFO_KEY + 1], int max)
{
    MPI_Info hw = MPI_INFO_NULL;
    int n = 0;
    MT_CHECK_MPI(MPI_Get_hw_resource_info(&hw));
    MT_CHECK(hw != MPI_INFO_NULL);
    MT_CHECK_MPI(MPI_Info_get_nkeys(hw, &n));
    MT_CHECK(n >= 2 && n <= max);
    for (int i = 0; i < n && i < max; i++) {
        char value[16];
        int len = sizeof(value), flag = 0;
        MT_CHECK_MPI(MPI_Info_get_nthkey(hw, i, names[i]));
        MT_CHECK_MPI(MPI_Info_get_string(hw, names[i], &len, value, &flag));
        MT_CHECK(flag && strcmp(value, "true") == 0);
    }
    MT_CHECK_MPI(MPI_Info_free(&hw));
    /* An error of no object goes to MPI_COMM_SELF's handler. */
    MT_CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MT_CHECK_ERR_CLASS(MPI_Get_hw_resource_info(NULL), MPI_ERR_ARG);
    MT_CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    return n < max ? n : max;
}

/* HW_GUIDED at every level MPI_Get_hw_resource_info names: a
 * communicator of the caller, no larger than the wider level's. */
static void check_hw_levels(void)
{
    char names[8][MPI_MAX_INFO_KEY + 1];
    int n = hw_levels(names, 8), wider = -1, shm = 0, core = 0;
    for (int i = 0; i < n; i++) {
        MPI_Info info;
        MPI_Comm c;
        shm |= strcmp(names[i], "mpi_shared_memory") == 0;
        core |= strcmp(names[i], "core") == 0;
        MT_CHECK_MPI(MPI_Info_create(&info));
        MT_CHECK_MPI(MPI_Info_set(info, "mpi_hw_resource_type", names[i]));
        MT_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD,
                                         MPI_COMM_TYPE_HW_GUIDED, 0, info, &c));
        MT_CHECK(c != MPI_COMM_NULL);
        int sz = size_of(c);
        MT_CHECK(sz >= 1 && (wider < 0 || sz <= wider));
        wider = sz;
        if (c != MPI_COMM_NULL)
            MT_CHECK_MPI(MPI_Comm_free(&c));
        MT_CHECK_MPI(MPI_Info_free(&info));
    }
    MT_CHECK(shm && core);
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
    check_hw_levels();
    return mt_finish_and_finalize();
}
