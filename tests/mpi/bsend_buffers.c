/*
 * MPI-4.1's buffers of buffered sends: the process's (MPI_Buffer_attach),
 * a communicator's (MPI_Comm_attach_buffer) and a session's
 * (MPI_Session_attach_buffer).  A buffered send uses its communicator's
 * buffer, else its session's, else the process's; each kind's flush waits
 * until the messages in it are sent (a nonblocking flush stays incomplete
 * while the receiver has not received the message) and frees their room;
 * detaching gives back what was attached, MPI_BUFFER_AUTOMATIC too; bad
 * arguments get their error classes.
 */
#include "mpitest.h"

#include <stdlib.h>

#define BIG (256 * 1024) /* ints: a rendezvous message, sent once received */

typedef struct pair {
    MPI_Comm comm;
    int peer;
    int *out, *in;
} pair_t;

/* Buffered send of BIG ints on p->comm, then a nonblocking flush through
 * iflush(arg): incomplete until the peer, told to go on after the test,
 * has received it. */
static void iflush_case(pair_t *p, int (*iflush)(void *, MPI_Request *),
                        void *arg, int seed)
{
    for (int i = 0; i < BIG; i++)
        p->out[i] = seed + i;
    MPI_Request req;
    int flag = 1, go = 0;
    MT_CHECK_MPI(MPI_Bsend(p->out, BIG, MPI_INT, p->peer, 1, p->comm));
    MT_CHECK_MPI(iflush(arg, &req));
    MT_CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(flag, 0); /* the peer waits for our go */
    MPI_Sendrecv(&go, 1, MPI_INT, p->peer, 2, &go, 1, MPI_INT, p->peer, 2,
                 p->comm, MPI_STATUS_IGNORE);
    MPI_Recv(p->in, BIG, MPI_INT, p->peer, 1, p->comm, MPI_STATUS_IGNORE);
    MT_CHECK_INT_EQ(p->in[BIG - 1], seed + BIG - 1);
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_CHECK(req == MPI_REQUEST_NULL);
}

/* Two messages through a buffer with room for one: the blocking flush
 * between them frees the first one's room. */
static void flush_case(pair_t *p, int (*flush)(void *), void *arg)
{
    for (int round = 0; round < 2; round++) {
        MT_CHECK_MPI(MPI_Bsend(p->out, BIG, MPI_INT, p->peer, 3, p->comm));
        MPI_Recv(p->in, BIG, MPI_INT, p->peer, 3, p->comm, MPI_STATUS_IGNORE);
        MT_CHECK_MPI(flush(arg));
    }
}

static int proc_iflush(void *arg, MPI_Request *r)
{
    (void)arg;
    return MPI_Buffer_iflush(r);
}
static int proc_flush(void *arg)
{
    (void)arg;
    return MPI_Buffer_flush();
}
static int comm_iflush(void *arg, MPI_Request *r)
{
    return MPI_Comm_iflush_buffer(*(MPI_Comm *)arg, r);
}
static int comm_flush(void *arg)
{
    return MPI_Comm_flush_buffer(*(MPI_Comm *)arg);
}
static int session_iflush(void *arg, MPI_Request *r)
{
    return MPI_Session_iflush_buffer(*(MPI_Session *)arg, r);
}
static int session_flush(void *arg)
{
    return MPI_Session_flush_buffer(*(MPI_Session *)arg);
}

static const int ROOM = BIG * (int)sizeof(int) + MPI_BSEND_OVERHEAD;

static void process_buffer(pair_t *p)
{
    char *buf = malloc(ROOM);
    void *back = NULL;
    int size = -1;
    MT_CHECK_MPI(MPI_Buffer_attach(buf, ROOM));
    MT_CHECK_ERR_CLASS(MPI_Buffer_attach(buf, ROOM), MPI_ERR_BUFFER);
    iflush_case(p, proc_iflush, NULL, 10);
    flush_case(p, proc_flush, NULL);
    MT_CHECK_MPI(MPI_Buffer_detach(&back, &size));
    MT_CHECK(back == buf);
    MT_CHECK_INT_EQ(size, ROOM);
    /* Nothing attached: a flush has nothing to wait for. */
    MPI_Request req;
    MT_CHECK_MPI(MPI_Buffer_flush());
    MT_CHECK_MPI(MPI_Buffer_iflush(&req));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    free(buf);
}

/* The communicator's buffer, while the process has none: the sends go
 * through it; then an automatic one. */
static void comm_buffer(pair_t *p)
{
    char *buf = malloc(ROOM);
    void *back = NULL;
    int size = -1;
    MT_CHECK_MPI(MPI_Comm_attach_buffer(p->comm, buf, ROOM));
    MT_CHECK_ERR_CLASS(MPI_Comm_attach_buffer(p->comm, buf, ROOM),
                       MPI_ERR_BUFFER);
    iflush_case(p, comm_iflush, &p->comm, 20);
    flush_case(p, comm_flush, &p->comm);
    MT_CHECK_MPI(MPI_Comm_detach_buffer(p->comm, &back, &size));
    MT_CHECK(back == buf);
    MT_CHECK_INT_EQ(size, ROOM);
    /* No buffer anywhere now: a buffered send fails. */
    MT_CHECK_ERR_CLASS(MPI_Bsend(p->out, 1, MPI_INT, p->peer, 4, p->comm),
                       MPI_ERR_BUFFER);

    MT_CHECK_MPI(MPI_Comm_attach_buffer(p->comm, MPI_BUFFER_AUTOMATIC, 0));
    for (int i = 0; i < 3; i++) /* more than ROOM at once */
        MT_CHECK_MPI(MPI_Bsend(p->out, BIG, MPI_INT, p->peer, 5, p->comm));
    for (int i = 0; i < 3; i++)
        MPI_Recv(p->in, BIG, MPI_INT, p->peer, 5, p->comm, MPI_STATUS_IGNORE);
    iflush_case(p, comm_iflush, &p->comm, 30);
    MT_CHECK_MPI(MPI_Comm_detach_buffer(p->comm, &back, &size));
    MT_CHECK(back == MPI_BUFFER_AUTOMATIC);

    /* The large-count forms. */
    MPI_Count csize = -1;
    MT_CHECK_MPI(MPI_Comm_attach_buffer_c(p->comm, buf, (MPI_Count)ROOM));
    MT_CHECK_MPI(MPI_Comm_detach_buffer_c(p->comm, &back, &csize));
    MT_CHECK(back == buf);
    MT_CHECK_INT_EQ(csize, ROOM);
    free(buf);
}

/* A communicator from a session's process set uses the session's buffer,
 * unless it has its own. */
static void session_buffer(pair_t *world)
{
    MPI_Session s;
    MPI_Group g;
    pair_t p = *world;
    char *buf = malloc(ROOM), *own = malloc(ROOM);
    void *back = NULL;
    int size = -1;
    MT_CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MT_CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    MT_CHECK_MPI(MPI_Comm_create_from_group(g, "bsend_buffers", MPI_INFO_NULL,
                                            MPI_ERRORS_RETURN, &p.comm));
    MT_CHECK_MPI(MPI_Session_attach_buffer(s, buf, ROOM));
    MT_CHECK_ERR_CLASS(MPI_Session_attach_buffer(s, buf, ROOM), MPI_ERR_BUFFER);
    iflush_case(&p, session_iflush, &s, 40);
    flush_case(&p, session_flush, &s);

    /* Its own buffer first: the session's, full, is not used. */
    MT_CHECK_MPI(MPI_Bsend(p.out, BIG, MPI_INT, p.peer, 6, p.comm));
    MT_CHECK_MPI(MPI_Comm_attach_buffer(p.comm, own, ROOM));
    MT_CHECK_MPI(MPI_Bsend(p.out, BIG, MPI_INT, p.peer, 7, p.comm));
    MPI_Recv(p.in, BIG, MPI_INT, p.peer, 6, p.comm, MPI_STATUS_IGNORE);
    MPI_Recv(p.in, BIG, MPI_INT, p.peer, 7, p.comm, MPI_STATUS_IGNORE);
    MT_CHECK_MPI(MPI_Comm_detach_buffer(p.comm, &back, &size));
    MT_CHECK(back == own);

    MT_CHECK_MPI(MPI_Session_detach_buffer(s, &back, &size));
    MT_CHECK(back == buf);
    MT_CHECK_INT_EQ(size, ROOM);
    MT_CHECK_MPI(MPI_Comm_free(&p.comm));
    MT_CHECK_MPI(MPI_Group_free(&g));
    MT_CHECK_MPI(MPI_Session_finalize(&s));
    free(buf);
    free(own);
}

static void errors(pair_t *p)
{
    char b[64];
    MT_CHECK_ERR_CLASS(MPI_Comm_attach_buffer(MPI_COMM_NULL, b, 64),
                       MPI_ERR_COMM);
    MT_CHECK_ERR_CLASS(MPI_Comm_attach_buffer(p->comm, b, -1), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Comm_flush_buffer(MPI_COMM_NULL), MPI_ERR_COMM);
    MT_CHECK_ERR_CLASS(MPI_Comm_iflush_buffer(p->comm, NULL), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Comm_detach_buffer(p->comm, NULL, NULL),
                       MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Session_attach_buffer(MPI_SESSION_NULL, b, 64),
                       MPI_ERR_SESSION);
    MT_CHECK_ERR_CLASS(MPI_Session_flush_buffer(MPI_SESSION_NULL),
                       MPI_ERR_SESSION);
    MT_CHECK_ERR_CLASS(MPI_Buffer_iflush(NULL), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Buffer_attach(b, -1), MPI_ERR_ARG);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    pair_t p = {MPI_COMM_NULL, (rank ^ 1) < size ? rank ^ 1 : rank,
                malloc(BIG * sizeof(int)), malloc(BIG * sizeof(int))};
    MPI_Comm_dup(MPI_COMM_WORLD, &p.comm);
    process_buffer(&p);
    comm_buffer(&p);
    session_buffer(&p);
    errors(&p);
    MPI_Comm_free(&p.comm);
    free(p.out);
    free(p.in);
    return mt_finish_and_finalize();
}
