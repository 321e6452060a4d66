/*
 * Ranks of a large start-up keep the first chunks of their tables of
 * communicators, groups and infos beside their slots, made ready before
 * they are created (rank/slot.c, amp_slot_create_ahead; base/table.h,
 * amp_table_init_in).  Each rank here makes more objects of each kind than
 * those chunks hold, moves (RotateLB: to another PE, or to the other
 * process, which frees what its tables held in the process it left but
 * none of the lent chunks), comes back, and finds every object working;
 * then frees them all.  Run with 1,024 ranks or more in a process.
 */
#include "mpitest.h"

#include <string.h>

enum { NDUP = 6, NGROUP = 5, NINFO = 3, STEPS = 2 };

typedef struct objects {
    MPI_Comm dup[NDUP];
    MPI_Group group[NGROUP];
    MPI_Info info[NINFO];
} objects_t;

static void make(objects_t *o, int rank)
{
    for (int i = 0; i < NDUP; i++)
        MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &o->dup[i]));
    for (int i = 0; i < NGROUP; i++)
        MT_CHECK_MPI(MPI_Comm_group(o->dup[i % NDUP], &o->group[i]));
    for (int i = 0; i < NINFO; i++) {
        char value[16];
        snprintf(value, sizeof(value), "%d", rank * NINFO + i);
        MT_CHECK_MPI(MPI_Info_create(&o->info[i]));
        MT_CHECK_MPI(MPI_Info_set(o->info[i], "who", value));
    }
}

static void check(const objects_t *o, int rank, int size)
{
    int n = -1;
    for (int i = 0; i < NDUP; i++) {
        MT_CHECK_MPI(MPI_Comm_rank(o->dup[i], &n));
        MT_CHECK_INT_EQ(n, rank);
    }
    long sum = 0, mine = rank;
    MT_CHECK_MPI(
        MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, o->dup[NDUP - 1]));
    MT_CHECK(sum == (long)size * (size - 1) / 2);
    for (int i = 0; i < NGROUP; i++) {
        MT_CHECK_MPI(MPI_Group_rank(o->group[i], &n));
        MT_CHECK_INT_EQ(n, rank);
    }
    for (int i = 0; i < NINFO; i++) {
        char value[16], want[16];
        int flag = 0;
        snprintf(want, sizeof(want), "%d", rank * NINFO + i);
        MT_CHECK_MPI(MPI_Info_get(o->info[i], "who", (int)sizeof(value) - 1,
                                  value, &flag));
        MT_CHECK(flag && strcmp(value, want) == 0);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    objects_t o;
    make(&o, rank);
    check(&o, rank, size);
    for (int step = 0; step < STEPS; step++) {
        MT_CHECK_MPI(AMPI_Migrate(AMPI_INFO_LB_SYNC));
        check(&o, rank, size);
    }
    for (int i = 0; i < NDUP; i++)
        MT_CHECK_MPI(MPI_Comm_free(&o.dup[i]));
    for (int i = 0; i < NGROUP; i++)
        MT_CHECK_MPI(MPI_Group_free(&o.group[i]));
    for (int i = 0; i < NINFO; i++)
        MT_CHECK_MPI(MPI_Info_free(&o.info[i]));
    return mt_finish_and_finalize();
}
