/*
 * comm_create: MPI_Comm_create (collective over the parent: members of
 * the group get a communicator in the group's order, the others
 * MPI_COMM_NULL; disjoint groups at once, MPI-2.2) against
 * MPI_Comm_create_group (collective over the group only: the ranks
 * outside it do not call, or make their own at the same time with the
 * same tag); compare results against WORLD; dup and free of the results;
 * MPI_Comm_dup_with_info takes the hints given and not the parent's.
 */
#include "mpitest.h"

#include <stdlib.h>

/* world rank of every rank of comm equals want[rank], checked through a
 * sum over comm and a ring. */
static void check_comm(MPI_Comm comm, const int *want, int n, int line)
{
    int size = -1, rank = -1, me;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (!mt_check_int_eq(size, n, "size", "n", __FILE__, line))
        return;
    mt_check_int_eq(want[rank], me, "want[rank]", "me", __FILE__, line);
    int got = -1, left = (rank + n - 1) % n;
    MPI_Sendrecv(&me, 1, MPI_INT, (rank + 1) % n, 0, &got, 1, MPI_INT, left, 0,
                 comm, MPI_STATUS_IGNORE);
    mt_check_int_eq(got, want[left], "got", "want[left]", __FILE__, line);
    int sum = 0, expect = 0;
    for (int i = 0; i < n; i++)
        expect += want[i];
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, comm);
    mt_check_int_eq(sum, expect, "sum", "expect", __FILE__, line);
}

/* The even world ranks in descending order (the group's order wins). */
static void check_create(MPI_Group world, int rank, int size, int *buf)
{
    int n = 0;
    for (int r = size - 1; r >= 0; r--)
        if (r % 2 == 0)
            buf[n++] = r;
    MPI_Group evens;
    MPI_Group_incl(world, n, buf, &evens);
    MPI_Comm c = MPI_COMM_WORLD;
    MT_CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, evens, &c));
    if (rank % 2) {
        MT_CHECK(c == MPI_COMM_NULL);
    } else {
        check_comm(c, buf, n, __LINE__);
        MPI_Comm dup;
        int result = -1;
        MT_CHECK_MPI(MPI_Comm_dup(c, &dup));
        MT_CHECK_MPI(MPI_Comm_compare(c, dup, &result));
        MT_CHECK_INT_EQ(result, MPI_CONGRUENT);
        check_comm(dup, buf, n, __LINE__);
        MPI_Comm_free(&dup);
        MPI_Comm_free(&c);
    }
    MPI_Group_free(&evens);

    /* The whole group: congruent with WORLD. */
    int result = -1;
    MT_CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, world, &c));
    MT_CHECK_MPI(MPI_Comm_compare(c, MPI_COMM_WORLD, &result));
    MT_CHECK_INT_EQ(result, MPI_CONGRUENT);
    MPI_Comm_free(&c);

    /* The empty group: nobody gets one. */
    c = MPI_COMM_WORLD;
    MT_CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c));
    MT_CHECK(c == MPI_COMM_NULL);
}

/* Each rank passes its own parity's group: everyone gets a communicator. */
static void check_disjoint(MPI_Group world, int rank, int size, int *buf)
{
    int n = 0;
    for (int r = rank % 2; r < size; r += 2)
        buf[n++] = r;
    MPI_Group mine;
    MPI_Group_incl(world, n, buf, &mine);
    MPI_Comm c = MPI_COMM_NULL;
    MT_CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, mine, &c));
    MT_CHECK(c != MPI_COMM_NULL);
    if (c != MPI_COMM_NULL) {
        check_comm(c, buf, n, __LINE__);
        MPI_Comm_free(&c);
    }
    MPI_Group_free(&mine);
}

/* Only the members call: the low half makes one of itself (reversed)
 * while the high half makes its own with the same tag; the last rank,
 * alone, then makes one of itself with another tag. */
static void check_create_group(MPI_Group world, int rank, int size, int *buf)
{
    int half = size / 2, low = rank < half;
    int n = 0;
    if (low)
        for (int r = half - 1; r >= 0; r--)
            buf[n++] = r;
    else
        for (int r = half; r < size; r++)
            buf[n++] = r;
    MPI_Group g;
    MPI_Group_incl(world, n, buf, &g);
    MPI_Comm c = MPI_COMM_NULL;
    MT_CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, g, 11, &c));
    MT_CHECK(c != MPI_COMM_NULL);
    if (c != MPI_COMM_NULL) {
        check_comm(c, buf, n, __LINE__);
        MPI_Comm_free(&c);
    }
    MPI_Group_free(&g);

    if (rank == size - 1) {
        int me = rank;
        MPI_Group_incl(world, 1, &me, &g);
        MT_CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, g, 12, &c));
        check_comm(c, &me, 1, __LINE__);
        MPI_Comm_free(&c);
        MPI_Group_free(&g);
    }
    /* Not a member: a local call that returns MPI_COMM_NULL. */
    c = MPI_COMM_WORLD;
    MT_CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_EMPTY, 3, &c));
    MT_CHECK(c == MPI_COMM_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* MPI_Comm_dup_with_info: the hints given, not the parent's. */
static void check_dup_with_info(void)
{
    MPI_Info info, used;
    MPI_Comm c, d;
    char value[MPI_MAX_INFO_VAL + 1] = "";
    int flag = 0;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    MT_CHECK_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c));
    MT_CHECK_MPI(MPI_Comm_get_info(c, &used));
    MPI_Info_get(used, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL, value, &flag);
    MT_CHECK(flag && strcmp(value, "true") == 0);
    MPI_Info_free(&used);
    MT_CHECK_MPI(MPI_Comm_dup_with_info(c, MPI_INFO_NULL, &d));
    MT_CHECK_MPI(MPI_Comm_get_info(d, &used));
    /* Absent, or reported at its default. */
    flag = 1;
    value[0] = '\0';
    MPI_Info_get(used, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL, value, &flag);
    MT_CHECK(!flag || strcmp(value, "false") == 0);
    MPI_Info_free(&used);
    int result = -1;
    MPI_Comm_compare(c, d, &result);
    MT_CHECK_INT_EQ(result, MPI_CONGRUENT);
    MPI_Barrier(d);
    MPI_Comm_free(&d);
    MPI_Comm_free(&c);
    MPI_Info_free(&info);
}

/* Many create/free rounds do not exhaust anything. */
static void check_cycles(MPI_Group world)
{
    for (int i = 0; i < 50; i++) {
        MPI_Comm c;
        if (!MT_CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, world, i, &c)))
            return;
        MPI_Barrier(c);
        MPI_Comm_free(&c);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *buf = malloc((size_t)size * sizeof(int));
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    check_create(world, rank, size, buf);
    check_disjoint(world, rank, size, buf);
    check_create_group(world, rank, size, buf);
    check_dup_with_info();
    check_cycles(world);
    MPI_Group_free(&world);
    free(buf);
    return mt_finish_and_finalize();
}
