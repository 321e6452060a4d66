/*
 * MPI_Cancel of sends that have not matched: every rank sends to the next
 * rank (itself with one rank; the same PE, another PE or another process
 * otherwise), cancels, and completes the request; MPI_Test_cancelled must
 * be true, and the receiver, told the outcome afterwards, must never find
 * the message.  Modes: standard (MPI_Isend: inline, eager and rendezvous
 * sizes), synchronous (MPI_Issend), buffered (MPI_Ibsend, whose data has
 * already gone to the attached buffer) and persistent (MPI_Send_init,
 * MPI_Ssend_init, MPI_Bsend_init), completed by MPI_Wait or an MPI_Test
 * loop.  A persistent request still works after its cancelled activations,
 * and the attached buffer detaches once every cancelled buffered send has
 * given its space back.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { TAG_DATA = 7, TAG_OUTCOME = 8, TAG_LAST = 9 };
enum { ISEND, ISSEND, IBSEND, SEND_INIT, SSEND_INIT, BSEND_INIT, NMODES };
static const char *const mode_name[NMODES] = {
    "MPI_Isend",     "MPI_Issend",     "MPI_Ibsend",
    "MPI_Send_init", "MPI_Ssend_init", "MPI_Bsend_init"};

/* Bytes: inline in a ring slot, eager, just above eager, rendezvous. */
static const int sizes[] = {4, 400, 40000, 1 << 20};
#define NSIZES (int)(sizeof(sizes) / sizeof(sizes[0]))

static void start_send(int mode, const void *buf, int n, int to,
                       MPI_Request *req)
{
    switch (mode) {
    case ISEND:
        MT_CHECK_MPI(
            MPI_Isend(buf, n, MPI_BYTE, to, TAG_DATA, MPI_COMM_WORLD, req));
        break;
    case ISSEND:
        MT_CHECK_MPI(
            MPI_Issend(buf, n, MPI_BYTE, to, TAG_DATA, MPI_COMM_WORLD, req));
        break;
    case IBSEND:
        MT_CHECK_MPI(
            MPI_Ibsend(buf, n, MPI_BYTE, to, TAG_DATA, MPI_COMM_WORLD, req));
        break;
    default: MT_CHECK_MPI(MPI_Start(req));
    }
}

static void make_persistent(int mode, const void *buf, int n, int to,
                            MPI_Request *req)
{
    if (mode == SEND_INIT)
        MPI_Send_init(buf, n, MPI_BYTE, to, TAG_DATA, MPI_COMM_WORLD, req);
    else if (mode == SSEND_INIT)
        MPI_Ssend_init(buf, n, MPI_BYTE, to, TAG_DATA, MPI_COMM_WORLD, req);
    else if (mode == BSEND_INIT)
        MPI_Bsend_init(buf, n, MPI_BYTE, to, TAG_DATA, MPI_COMM_WORLD, req);
}

/* Sends, cancels and completes (by MPI_Test when poll); returns whether
 * the send was cancelled. */
static int send_and_cancel(int mode, const void *buf, int n, int to,
                           MPI_Request *req, int poll)
{
    MPI_Status st;
    int flag = 0;
    start_send(mode, buf, n, to, req);
    MT_CHECK_MPI(MPI_Cancel(req));
    if (poll)
        while (!flag)
            MT_CHECK_MPI(MPI_Test(req, &flag, &st));
    else
        MT_CHECK_MPI(MPI_Wait(req, &st));
    int cancelled = 0;
    MT_CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
    return cancelled;
}

/* One mode and size: three rounds of send-cancel-complete, then the
 * receiver takes what was not cancelled and checks that nothing else of
 * this rank's is there. */
static void one_case(int mode, int n, int rank, int size, int round)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    unsigned char *out = malloc((size_t)n), *in = malloc((size_t)n);
    mt_fill(out, (size_t)n, (unsigned)(rank + round));
    MPI_Request req = MPI_REQUEST_NULL;
    int persistent = mode >= SEND_INIT;
    if (persistent)
        make_persistent(mode, out, n, to, &req);
    int outcome[3], told[3];
    for (int i = 0; i < 3; i++) {
        outcome[i] = send_and_cancel(mode, out, n, to, &req, i == 1);
        if (!outcome[i])
            MT_FAIL("%s of %d bytes to rank %d (round %d) was not cancelled",
                    mode_name[mode], n, to, i);
        MT_CHECK(persistent ? req != MPI_REQUEST_NULL
                            : req == MPI_REQUEST_NULL);
    }
    MPI_Sendrecv(outcome, 3, MPI_INT, to, TAG_OUTCOME, told, 3, MPI_INT, from,
                 TAG_OUTCOME, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 3; i++)
        if (!told[i]) /* take what was not cancelled */
            MPI_Recv(in, n, MPI_BYTE, from, TAG_DATA, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    int flag = 1;
    MT_CHECK_MPI(
        MPI_Iprobe(from, TAG_DATA, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    if (flag)
        MT_FAIL("a cancelled %s of %d bytes from rank %d arrived",
                mode_name[mode], n, from);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank has looked */
    if (persistent) { /* one more activation, which is received */
        MPI_Request r;
        MPI_Irecv(in, n, MPI_BYTE, from, TAG_DATA, MPI_COMM_WORLD, &r);
        MT_CHECK_MPI(MPI_Start(&req));
        MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        MT_CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        MT_CHECK_PATTERN(in, (size_t)n, (unsigned)(from + round));
        MT_CHECK_MPI(MPI_Request_free(&req));
    }
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int bsize = 4 * ((1 << 20) + MPI_BSEND_OVERHEAD);
    char *battach = malloc((size_t)bsize);
    MPI_Buffer_attach(battach, bsize);

    int round = 0;
    for (int mode = 0; mode < NMODES; mode++)
        for (int s = 0; s < NSIZES; s++)
            one_case(mode, sizes[s], rank, size, round++);

    void *back;
    int bback;
    MT_CHECK_MPI(MPI_Buffer_detach(&back, &bback));
    MT_CHECK(back == battach && bback == bsize);
    free(battach);
    return mt_finish_and_finalize();
}
