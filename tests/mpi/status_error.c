/*
 * The MPI_ERROR field of a status is left alone by the calls that
 * complete one operation (MPI_Recv, MPI_Sendrecv, MPI_Probe, MPI_Iprobe,
 * MPI_Mprobe, MPI_Mrecv, MPI_Wait, MPI_Test, MPI_Waitany, MPI_Testany,
 * MPI_Request_get_status), for a real partner and for MPI_PROC_NULL: the
 * standard sets it only in the calls that return several statuses.  The
 * empty status of MPI_REQUEST_NULL and inactive persistent requests is
 * the exception: the standard defines it with error MPI_SUCCESS (MPI-3.1
 * 3.7.3), as other implementations give it.
 */
#include "mpitest.h"

#define MARK 0x5eed

static void mark(MPI_Status *st)
{
    st->MPI_ERROR = MARK;
}

static void check(const MPI_Status *st, const char *call, int line)
{
    if (st->MPI_ERROR != MARK)
        mt_fail(__FILE__, line, "%s wrote MPI_ERROR: %d", call, st->MPI_ERROR);
}

#define CHECK(st, call) check(&(st), call, __LINE__)

static void check_empty(const MPI_Status *st, const char *call, int line)
{
    if (st->MPI_ERROR != MPI_SUCCESS || st->MPI_SOURCE != MPI_ANY_SOURCE ||
        st->MPI_TAG != MPI_ANY_TAG)
        mt_fail(__FILE__, line, "%s: not the empty status (error %d)", call,
                st->MPI_ERROR);
}

#define CHECK_EMPTY(st, call) check_empty(&(st), call, __LINE__)

/* One operation of each kind with peer (a partner or MPI_PROC_NULL). */
static void with_peer(int peer)
{
    MPI_Status st;
    MPI_Request r, rs[2];
    int in = 0, out = 1, flag = 0, index = -1;
    MPI_Message msg;

    mark(&st);
    MPI_Sendrecv(&out, 1, MPI_INT, peer, 1, &in, 1, MPI_INT, peer, 1,
                 MPI_COMM_WORLD, &st);
    CHECK(st, "MPI_Sendrecv");

    MPI_Send(&out, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
    mark(&st);
    MPI_Probe(peer, 2, MPI_COMM_WORLD, &st);
    CHECK(st, "MPI_Probe");
    mark(&st);
    do
        MPI_Iprobe(peer, 2, MPI_COMM_WORLD, &flag, &st);
    while (!flag);
    CHECK(st, "MPI_Iprobe");
    mark(&st);
    MPI_Recv(&in, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &st);
    CHECK(st, "MPI_Recv");

    MPI_Send(&out, 1, MPI_INT, peer, 3, MPI_COMM_WORLD);
    mark(&st);
    MPI_Mprobe(peer, 3, MPI_COMM_WORLD, &msg, &st);
    CHECK(st, "MPI_Mprobe");
    mark(&st);
    MPI_Mrecv(&in, 1, MPI_INT, &msg, &st);
    CHECK(st, "MPI_Mrecv");

    MPI_Irecv(&in, 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &r);
    MPI_Send(&out, 1, MPI_INT, peer, 4, MPI_COMM_WORLD);
    mark(&st);
    MPI_Wait(&r, &st);
    CHECK(st, "MPI_Wait");

    MPI_Irecv(&in, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &r);
    MPI_Send(&out, 1, MPI_INT, peer, 5, MPI_COMM_WORLD);
    flag = 0;
    while (!flag) {
        mark(&st);
        MPI_Request_get_status(r, &flag, &st);
        CHECK(st, "MPI_Request_get_status");
    }
    flag = 0;
    while (!flag) {
        mark(&st);
        MPI_Test(&r, &flag, &st);
        CHECK(st, "MPI_Test");
    }

    MPI_Irecv(&in, 1, MPI_INT, peer, 6, MPI_COMM_WORLD, &rs[0]);
    MPI_Irecv(&in, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &rs[1]);
    MPI_Send(&out, 1, MPI_INT, peer, 6, MPI_COMM_WORLD);
    MPI_Send(&out, 1, MPI_INT, peer, 7, MPI_COMM_WORLD);
    mark(&st);
    MPI_Waitany(2, rs, &index, &st);
    CHECK(st, "MPI_Waitany");
    flag = 0;
    while (!flag) {
        mark(&st);
        MPI_Testany(2, rs, &index, &flag, &st);
        CHECK(st, "MPI_Testany");
    }
}

/* Requests that complete with an empty status: MPI_ERROR is MPI_SUCCESS. */
static void empty(void)
{
    MPI_Status st;
    MPI_Request r = MPI_REQUEST_NULL, p;
    int flag = 0, index = 0, x = 0;
    mark(&st);
    MPI_Wait(&r, &st);
    CHECK_EMPTY(st, "MPI_Wait of MPI_REQUEST_NULL");
    mark(&st);
    MPI_Test(&r, &flag, &st);
    CHECK_EMPTY(st, "MPI_Test of MPI_REQUEST_NULL");
    mark(&st);
    MPI_Waitany(1, &r, &index, &st);
    CHECK_EMPTY(st, "MPI_Waitany of MPI_REQUEST_NULL");
    mark(&st);
    MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st);
    CHECK_EMPTY(st, "MPI_Request_get_status of MPI_REQUEST_NULL");
    if (!flag)
        mt_fail(__FILE__, __LINE__, "MPI_Request_get_status of "
                "MPI_REQUEST_NULL: flag false");
    MPI_Recv_init(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &p);
    mark(&st);
    MPI_Wait(&p, &st);
    CHECK_EMPTY(st, "MPI_Wait of an inactive persistent request");
    MPI_Request_free(&p);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    with_peer(mt_partner(MPI_COMM_WORLD));
    with_peer(MPI_PROC_NULL);
    empty();
    return mt_finish_and_finalize();
}
