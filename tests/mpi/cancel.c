/*
 * cancel: MPI_Cancel.
 *  - A receive that can never match (a tag nobody sends), cancelled, then
 *    completed with MPI_Wait or an MPI_Test loop: MPI_Test_cancelled is
 *    true and the handle is MPI_REQUEST_NULL. The same for a started
 *    persistent receive, which stays allocated until MPI_Request_free.
 *  - A send whose message has been received, cancelled: MPI_Wait returns and
 *    MPI_Test_cancelled is false.
 *  - A send cancelled at once: either outcome is allowed, but it must be
 *    consistent: the receiver is told the outcome and receives the message
 *    exactly when the cancel failed; a cancelled message never shows up.
 *  - A completed receive's status is not cancelled.
 */
#include "mpitest.h"

enum { TAG_NEVER = 1000, TAG_DATA = 1, TAG_OUTCOME = 2 };

static void cancel_unmatched_recv(int partner)
{
    int buf = 0, flag = 0;
    MPI_Request req;
    MPI_Status st;

    MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, TAG_NEVER, MPI_COMM_WORLD,
              &req);
    MT_CHECK_MPI(MPI_Cancel(&req));
    MT_CHECK_MPI(MPI_Wait(&req, &st));
    MT_CHECK(req == MPI_REQUEST_NULL);
    MT_CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    MT_CHECK_INT_EQ(flag, 1);

    /* Completed by polling instead. */
    MPI_Irecv(&buf, 1, MPI_INT, partner, TAG_NEVER, MPI_COMM_WORLD, &req);
    MT_CHECK_MPI(MPI_Cancel(&req));
    for (flag = 0; !flag;)
        MT_CHECK_MPI(MPI_Test(&req, &flag, &st));
    MT_CHECK(req == MPI_REQUEST_NULL);
    flag = 0;
    MT_CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    MT_CHECK_INT_EQ(flag, 1);

    /* A persistent receive: cancelling ends this activation only. */
    MPI_Recv_init(&buf, 1, MPI_INT, partner, TAG_NEVER, MPI_COMM_WORLD, &req);
    for (int it = 0; it < 3; it++) {
        MT_CHECK_MPI(MPI_Start(&req));
        MT_CHECK_MPI(MPI_Cancel(&req));
        MT_CHECK_MPI(MPI_Wait(&req, &st));
        MT_CHECK(req != MPI_REQUEST_NULL);
        flag = 0;
        MT_CHECK_MPI(MPI_Test_cancelled(&st, &flag));
        MT_CHECK_INT_EQ(flag, 1);
    }
    MT_CHECK_MPI(MPI_Request_free(&req));
    MT_CHECK(buf == 0);
}

/* The partner has received the message before the sender cancels. */
static void cancel_received_send(int rank, int partner)
{
    int out = rank, in = -1, flag = 1;
    MPI_Request req;
    MPI_Status st;

    MPI_Isend(&out, 1, MPI_INT, partner, TAG_DATA, MPI_COMM_WORLD, &req);
    MT_CHECK_MPI(
        MPI_Recv(&in, 1, MPI_INT, partner, TAG_DATA, MPI_COMM_WORLD, &st));
    MT_CHECK_INT_EQ(in, partner);
    MT_CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    MT_CHECK_INT_EQ(flag, 0);
    /* After the barrier the partner has received this rank's message. */
    MPI_Barrier(MPI_COMM_WORLD);
    MT_CHECK_MPI(MPI_Cancel(&req));
    MT_CHECK_MPI(MPI_Wait(&req, &st));
    flag = 1;
    MT_CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    MT_CHECK_INT_EQ(flag, 0);
}

/* Cancel right away; the partner learns the outcome by a second message. */
static void cancel_fresh_send(int rank, int partner, int n)
{
    int out[64], in[64], cancelled = 0, told = -1;
    MPI_Request req;
    MPI_Status st;
    for (int i = 0; i < n; i++)
        out[i] = rank * 100 + i;

    MPI_Isend(out, n, MPI_INT, partner, TAG_DATA, MPI_COMM_WORLD, &req);
    MT_CHECK_MPI(MPI_Cancel(&req));
    MT_CHECK_MPI(MPI_Wait(&req, &st));
    MT_CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));

    MPI_Sendrecv(&cancelled, 1, MPI_INT, partner, TAG_OUTCOME, &told, 1,
                 MPI_INT, partner, TAG_OUTCOME, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (!told) {
        MT_CHECK_MPI(
            MPI_Recv(in, n, MPI_INT, partner, TAG_DATA, MPI_COMM_WORLD, &st));
        for (int i = 0; i < n; i++)
            MT_CHECK_INT_EQ(in[i], partner * 100 + i);
    }
    /* Everyone is done receiving: a cancelled message must not be found. */
    MPI_Barrier(MPI_COMM_WORLD);
    int flag = 1;
    MT_CHECK_MPI(MPI_Iprobe(partner, TAG_DATA, MPI_COMM_WORLD, &flag,
                            MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(flag, 0);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int partner = mt_partner(MPI_COMM_WORLD);

    cancel_unmatched_recv(partner);
    cancel_received_send(rank, partner);
    cancel_fresh_send(rank, partner, 1);
    cancel_fresh_send(rank, partner, 64);

    return mt_finish_and_finalize();
}
