/*
 * MPI-4 info objects before MPI_Init and after MPI_Finalize:
 * MPI_Info_create, set, get_string, get_valuelen, get_nkeys, get_nthkey,
 * delete, dup, free and MPI_Info_create_env work outside MPI as inside,
 * and an info object made before MPI_Init is still valid inside (hints
 * for MPI_Comm_dup_with_info) and after MPI_Finalize.
 */
#include "mpitest.h"

/* The info calls on a fresh object; it ends holding "kept" = "yes". */
static void exercise(MPI_Info *keep)
{
    MPI_Info info, dup;
    char buf[64], key[MPI_MAX_INFO_KEY];
    int flag = 0, len = sizeof(buf), nkeys = -1, vlen = -1;
    MT_CHECK_MPI(MPI_Info_create(&info));
    MT_CHECK_MPI(MPI_Info_set(info, "color", "blue"));
    MT_CHECK_MPI(MPI_Info_set(info, "kept", "yes"));
    MT_CHECK_MPI(MPI_Info_get_string(info, "color", &len, buf, &flag));
    MT_CHECK(flag && strcmp(buf, "blue") == 0 && len == 5);
    MT_CHECK_MPI(MPI_Info_get_valuelen(info, "kept", &vlen, &flag));
    MT_CHECK(flag && vlen == 3);
    MT_CHECK_MPI(MPI_Info_get_nkeys(info, &nkeys));
    MT_CHECK_INT_EQ(nkeys, 2);
    MT_CHECK_MPI(MPI_Info_get_nthkey(info, 1, key));
    MT_CHECK(strcmp(key, "kept") == 0);
    MT_CHECK_MPI(MPI_Info_dup(info, &dup));
    MT_CHECK_MPI(MPI_Info_delete(info, "color"));
    MT_CHECK_MPI(MPI_Info_get_nkeys(info, &nkeys));
    MT_CHECK_INT_EQ(nkeys, 1);
    MT_CHECK_MPI(MPI_Info_get_nkeys(dup, &nkeys));
    MT_CHECK_INT_EQ(nkeys, 2);
    MT_CHECK_MPI(MPI_Info_free(&dup));
    MT_CHECK(dup == MPI_INFO_NULL);
    MPI_Info env;
    MT_CHECK_MPI(MPI_Info_create_env(0, NULL, &env));
    MT_CHECK_MPI(MPI_Info_free(&env));
    *keep = info;
}

/* The kept object still holds its key. */
static void check_kept(MPI_Info info)
{
    char buf[16];
    int flag = 0, len = sizeof(buf);
    MT_CHECK_MPI(MPI_Info_get_string(info, "kept", &len, buf, &flag));
    MT_CHECK(flag && strcmp(buf, "yes") == 0);
}

int main(int argc, char **argv)
{
    MPI_Info before, after;
    exercise(&before);
    check_kept(before);

    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    check_kept(before);
    MPI_Comm c;
    MT_CHECK_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, before, &c));
    MPI_Comm_free(&c);
    int total = 0, local = atomic_load(mt_error_count());
    MPI_Allreduce(&local, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();

    check_kept(before);
    exercise(&after);
    check_kept(after);
    MT_CHECK_MPI(MPI_Info_free(&before));
    MT_CHECK_MPI(MPI_Info_free(&after));
    int mine = atomic_load(mt_error_count()) - local;
    if (rank == 0)
        printf(total + mine ? " Found %d errors\n" : " No Errors\n",
               total + mine);
    return total + mine ? 1 : 0;
}
