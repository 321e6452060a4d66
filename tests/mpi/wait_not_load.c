/*
 * Waiting in a collective is not load: rank 0 computes for a millisecond
 * before each of N allreduces, every other rank computes nothing.  The
 * PEs that do not hold rank 0 spend the run waiting for it, in the
 * collective's spin, yield and poll phases (across processes the
 * node-level collective's, within one the shared-memory one's), and the
 * scheduler must not count that as their threads running: a balancer
 * that read it as load would see the idle PEs as busy.  Each rank reads
 * its own PE's busy time (MPI_T's sched_busy_time) over the loop: the PE
 * of rank 0 ran about N milliseconds, every other PE under a tenth of
 * that (before waits were left out, a fifth: the spin, yield and poll
 * phases of each wait for the other process, about 200 us of its 1 ms).
 * Run with +nosteal, so that rank 0 stays on its PE.
 */
#include "mpitest.h"

#include <stdlib.h>

#define N 100
#define WORK_S 0.001

/* The index of sched_busy_time, started in session s. */
static MPI_T_pvar_handle busy_handle(MPI_T_pvar_session s, int npes)
{
    int idx = -1, count = -1;
    MT_CHECK_MPI(
        MPI_T_pvar_get_index("sched_busy_time", MPI_T_PVAR_CLASS_TIMER, &idx));
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    MT_CHECK_MPI(MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count));
    MT_CHECK_INT_EQ(count, npes);
    return h;
}

static int attr_int(int keyval)
{
    int *v = NULL, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &v, &flag);
    MT_CHECK(flag);
    return flag ? *v : -1;
}

/* Rank 0's part: WORK_S seconds of computation. */
static long compute(void)
{
    long n = 0;
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < WORK_S)
        n++;
    return n > 0;
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    int npes = attr_int(AMPI_NUM_WTHS);
    /* Where rank 0 runs: its process and PE. */
    int where[2] = {attr_int(AMPI_MY_PROCESS), attr_int(AMPI_MY_WTH)};
    int zero[2] = {where[0], where[1]};
    MT_CHECK_MPI(MPI_Bcast(zero, 2, MPI_INT, 0, MPI_COMM_WORLD));
    MPI_T_pvar_session s;
    MT_CHECK_MPI(MPI_T_pvar_session_create(&s));
    MPI_T_pvar_handle h = busy_handle(s, npes);
    double *before = calloc((size_t)npes, sizeof *before);
    double *after = calloc((size_t)npes, sizeof *after);
    MT_CHECK(before && after);
    MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MT_CHECK_MPI(MPI_T_pvar_start(s, h));
    MT_CHECK_MPI(MPI_T_pvar_read(s, h, before));
    long mine = 0, total = 0;
    for (int i = 0; i < N; i++) {
        if (rank == 0)
            mine += compute();
        MT_CHECK_MPI(
            MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    }
    MT_CHECK_MPI(MPI_T_pvar_read(s, h, after));
    MT_CHECK_INT_EQ(total, N);
    int pe = attr_int(AMPI_MY_WTH);
    MT_CHECK_INT_EQ(pe, where[1]); /* +nosteal: nobody moved */
    double ran = after[pe] - before[pe], work = N * WORK_S;
    if (where[0] == zero[0] && pe == zero[1]) {
        MT_CHECK(ran >= 0.9 * work);
    } else if (!MT_CHECK(ran < 0.1 * work)) {
        fprintf(stderr,
                "rank %d: its PE %d ran threads %.6f s while rank 0 "
                "computed %.3f s\n",
                rank, pe, ran, work);
    }
    MT_CHECK_MPI(MPI_T_pvar_stop(s, h));
    MT_CHECK_MPI(MPI_T_pvar_handle_free(s, &h));
    MT_CHECK_MPI(MPI_T_pvar_session_free(&s));
    free(before);
    free(after);
    MT_CHECK_MPI(MPI_T_finalize());
    return mt_finish_and_finalize();
}
