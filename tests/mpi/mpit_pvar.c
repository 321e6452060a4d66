/*
 * Performance variables count what the program did: rank 0 sends N
 * messages of B bytes between a start and a stop of its handles, while
 * every other rank of the job only receives, and reads exactly N messages
 * and N * B bytes (summed over the routes too); its own sends to itself
 * before the receives are posted wait in its unexpected queue, which the
 * level variable shows, and the matching compares at least one entry for
 * each.  The per-PE timers have one element per PE.  Host buffers make
 * no device copies.
 */
#include "mpitest.h"

#include <stdlib.h>

#define N 10
#define B 100
#define K 5

static int pvar(const char *name, int cls)
{
    int i = -1;
    MT_CHECK_MPI(MPI_T_pvar_get_index(name, cls, &i));
    return i;
}

static MPI_T_pvar_handle handle(MPI_T_pvar_session s, const char *name, int cls,
                                int want_count)
{
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    int count = -1;
    MT_CHECK_MPI(MPI_T_pvar_handle_alloc(s, pvar(name, cls), NULL, &h, &count));
    MT_CHECK_INT_EQ(count, want_count);
    return h;
}

static unsigned long long read1(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    MT_CHECK_MPI(MPI_T_pvar_read(s, h, &v));
    return v;
}

/* Rank 0: N sends to dst between start and stop. */
static void count_sends(MPI_T_pvar_session s, int dst)
{
    MPI_T_pvar_handle msgs =
        handle(s, "p2p_messages_sent", MPI_T_PVAR_CLASS_COUNTER, 1);
    MPI_T_pvar_handle bytes =
        handle(s, "p2p_bytes_sent", MPI_T_PVAR_CLASS_COUNTER, 1);
    MPI_T_pvar_handle routes =
        handle(s, "p2p_messages_sent_by_route", MPI_T_PVAR_CLASS_COUNTER, 3);
    /* Host buffers: the GPUs copy nothing (tests/gpu/gpu_pvar.c: device
     * buffers). */
    MPI_T_pvar_handle dev =
        handle(s, "gpu_device_copies", MPI_T_PVAR_CLASS_COUNTER, 1);
    char buf[B] = {0};
    MT_CHECK_INT_EQ(read1(s, msgs), 0); /* stopped, at zero */
    MT_CHECK_MPI(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    for (int i = 0; i < N; i++)
        MT_CHECK_MPI(MPI_Send(buf, B, MPI_BYTE, dst, 1, MPI_COMM_WORLD));
    MT_CHECK_MPI(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
    MT_CHECK_INT_EQ(read1(s, msgs), N);
    MT_CHECK_INT_EQ(read1(s, bytes), N * B);
    MT_CHECK_INT_EQ(read1(s, dev), 0);
    unsigned long long r[3] = {0, 0, 0};
    MT_CHECK_MPI(MPI_T_pvar_read(s, routes, r));
    MT_CHECK_INT_EQ(r[0] + r[1] + r[2], N);
    /* Stopped: what it counted stays. */
    MT_CHECK_MPI(MPI_Send(buf, B, MPI_BYTE, dst, 1, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(read1(s, msgs), N);
}

/* Rank 0: K messages to itself before their receives. */
static void count_unexpected(MPI_T_pvar_session s)
{
    MPI_T_pvar_handle len =
        handle(s, "p2p_unexpected_queue_length", MPI_T_PVAR_CLASS_LEVEL, 1);
    MPI_T_pvar_handle unexp =
        handle(s, "p2p_unexpected_messages", MPI_T_PVAR_CLASS_COUNTER, 1);
    MPI_T_pvar_handle tries =
        handle(s, "p2p_match_attempts", MPI_T_PVAR_CLASS_COUNTER, 1);
    MT_CHECK_MPI(MPI_T_pvar_start(s, unexp));
    MT_CHECK_MPI(MPI_T_pvar_start(s, tries));
    unsigned long long len0 = read1(s, len);
    MPI_Request req[K];
    int v[K];
    for (int i = 0; i < K; i++) {
        v[i] = i;
        MT_CHECK_MPI(
            MPI_Isend(&v[i], 1, MPI_INT, 0, 7, MPI_COMM_SELF, &req[i]));
    }
    MT_CHECK_INT_EQ(read1(s, len), len0 + K);
    MT_CHECK_INT_EQ(read1(s, unexp), K);
    for (int i = 0; i < K; i++) {
        int got = -1;
        MT_CHECK_MPI(
            MPI_Recv(&got, 1, MPI_INT, 0, 7, MPI_COMM_SELF, MPI_STATUS_IGNORE));
        MT_CHECK_INT_EQ(got, i);
    }
    MT_CHECK_MPI(MPI_Waitall(K, req, MPI_STATUSES_IGNORE));
    MT_CHECK_INT_EQ(read1(s, len), len0);
    MT_CHECK(read1(s, tries) >= K);
}

static void check_timers(MPI_T_pvar_session s)
{
    int *npes, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_NUM_WTHS, &npes, &flag);
    MT_CHECK(flag);
    MPI_T_pvar_handle busy =
        handle(s, "sched_busy_time", MPI_T_PVAR_CLASS_TIMER, *npes);
    MPI_T_pvar_handle idle =
        handle(s, "sched_idle_time", MPI_T_PVAR_CLASS_TIMER, *npes);
    double *b = calloc((size_t)*npes, sizeof(double));
    double *d = calloc((size_t)*npes, sizeof(double));
    MT_CHECK_MPI(MPI_T_pvar_start(s, busy));
    MT_CHECK_MPI(MPI_T_pvar_start(s, idle));
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < 0.01)
        ; /* busy on this PE */
    MT_CHECK_MPI(MPI_T_pvar_read(s, busy, b));
    MT_CHECK_MPI(MPI_T_pvar_read(s, idle, d));
    for (int i = 0; i < *npes; i++)
        MT_CHECK(b[i] >= 0.0 && d[i] >= 0.0);
    free(b);
    free(d);
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    int dst = size > 1 ? 1 : 0;
    char buf[B];
    if (rank == 0) {
        /* Every other rank has sent all it sends before receiving. */
        for (int i = 1; i < size; i++)
            MT_CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, 9,
                                  MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_T_pvar_session s;
        MT_CHECK_MPI(MPI_T_pvar_session_create(&s));
        /* First, while nothing is on its way to anybody. */
        count_unexpected(s);
        MPI_Request self[N + 1];
        if (dst == 0) /* alone: to itself, received below */
            for (int i = 0; i < N + 1; i++)
                MT_CHECK_MPI(MPI_Irecv(buf, B, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
                                       &self[i]));
        count_sends(s, dst);
        if (dst == 0)
            MT_CHECK_MPI(MPI_Waitall(N + 1, self, MPI_STATUSES_IGNORE));
        check_timers(s);
        MT_CHECK_MPI(MPI_T_pvar_session_free(&s));
        for (int i = 1; i < size; i++)
            MT_CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, i, 2, MPI_COMM_WORLD));
    } else {
        MT_CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, 0, 9, MPI_COMM_WORLD));
        for (int i = 0; rank == 1 && i < N + 1; i++)
            MT_CHECK_MPI(MPI_Recv(buf, B, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE));
        MT_CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
    }
    MT_CHECK_MPI(MPI_T_finalize());
    return mt_finish_and_finalize();
}
