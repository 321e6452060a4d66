/*
 * charm_status_fields: a program written the way programs for Charm++'s
 * AMPI are: its entry is MPI_Main, not main, and under #ifdef AMPI it reads
 * the status fields MPI_COMM (the message's communicator) and MPI_LENGTH
 * (its size in bytes).  Every call that fills a status sets them: MPI_Recv,
 * MPI_Sendrecv, MPI_Wait, MPI_Test, MPI_Waitall, MPI_Waitany, MPI_Probe,
 * MPI_Iprobe, MPI_Mprobe with MPI_Mrecv and MPI_Imrecv, a receive from
 * MPI_PROC_NULL, MPI_Status_set_elements, and file reads and writes
 * (MPI_COMM_NULL: no message); an empty status has MPI_COMM_NULL and 0.
 */
#include "iotest.h"

#include <stdlib.h>

#ifndef AMPI
#error "mpi.h defines AMPI"
#endif

#define N 37 /* doubles per message */

static void check_msg(const MPI_Status *st, MPI_Comm comm, int source, int tag)
{
    MT_CHECK_INT_EQ(st->MPI_SOURCE, source);
    MT_CHECK_INT_EQ(st->MPI_TAG, tag);
    MT_CHECK(st->MPI_COMM == comm);
    MT_CHECK_INT_EQ(st->MPI_LENGTH, N * (int)sizeof(double));
}

/* A status full of garbage, so that each check sees what the call wrote. */
static void scribble(MPI_Status *st, int n)
{
    memset(st, 0x5a, (size_t)n * sizeof(*st));
}

static void blocking(MPI_Comm comm, int left, int right, double *buf)
{
    MPI_Status st;
    scribble(&st, 1);
    MT_CHECK_MPI(MPI_Sendrecv(buf, N, MPI_DOUBLE, right, 1, buf + N, N,
                              MPI_DOUBLE, left, 1, comm, &st));
    check_msg(&st, comm, left, 1);
    MT_CHECK_MPI(MPI_Send(buf, N, MPI_DOUBLE, right, 2, comm));
    scribble(&st, 1);
    MT_CHECK_MPI(MPI_Probe(left, 2, comm, &st));
    check_msg(&st, comm, left, 2);
    scribble(&st, 1);
    MT_CHECK_MPI(
        MPI_Recv(buf + N, N, MPI_DOUBLE, MPI_ANY_SOURCE, 2, comm, &st));
    check_msg(&st, comm, left, 2);
    scribble(&st, 1);
    MT_CHECK_MPI(MPI_Recv(buf, N, MPI_DOUBLE, MPI_PROC_NULL, 3, comm, &st));
    MT_CHECK(st.MPI_COMM == comm);
    MT_CHECK_INT_EQ(st.MPI_LENGTH, 0);
}

static void nonblocking(MPI_Comm comm, int left, int right, double *buf)
{
    MPI_Request req[2];
    MPI_Status st[2];
    MT_CHECK_MPI(MPI_Irecv(buf + N, N, MPI_DOUBLE, left, 4, comm, &req[0]));
    MT_CHECK_MPI(MPI_Isend(buf, N, MPI_DOUBLE, right, 4, comm, &req[1]));
    scribble(st, 2);
    MT_CHECK_MPI(MPI_Waitall(2, req, st));
    check_msg(&st[0], comm, left, 4);
    MT_CHECK_MPI(MPI_Irecv(buf + N, N, MPI_DOUBLE, left, 5, comm, &req[0]));
    MT_CHECK_MPI(MPI_Send(buf, N, MPI_DOUBLE, right, 5, comm));
    scribble(st, 1);
    MT_CHECK_MPI(MPI_Wait(&req[0], &st[0]));
    check_msg(&st[0], comm, left, 5);
    MT_CHECK_MPI(MPI_Irecv(buf + N, N, MPI_DOUBLE, left, 6, comm, &req[0]));
    MT_CHECK_MPI(MPI_Send(buf, N, MPI_DOUBLE, right, 6, comm));
    int flag = 0;
    scribble(st, 1);
    while (!flag)
        MT_CHECK_MPI(MPI_Test(&req[0], &flag, &st[0]));
    check_msg(&st[0], comm, left, 6);
    MT_CHECK_MPI(MPI_Irecv(buf + N, N, MPI_DOUBLE, left, 7, comm, &req[0]));
    MT_CHECK_MPI(MPI_Send(buf, N, MPI_DOUBLE, right, 7, comm));
    int index = -1;
    scribble(st, 1);
    MT_CHECK_MPI(MPI_Waitany(1, req, &index, &st[0]));
    check_msg(&st[0], comm, left, 7);
    /* An empty status: a null request. */
    scribble(st, 1);
    MT_CHECK_MPI(MPI_Wait(&req[0], &st[0]));
    MT_CHECK(st[0].MPI_COMM == MPI_COMM_NULL);
    MT_CHECK_INT_EQ(st[0].MPI_LENGTH, 0);
}

static void matched(MPI_Comm comm, int left, int right, double *buf)
{
    MPI_Message msg;
    MPI_Status st;
    MPI_Request req;
    MT_CHECK_MPI(MPI_Send(buf, N, MPI_DOUBLE, right, 8, comm));
    int flag = 0;
    while (!flag) {
        scribble(&st, 1);
        MT_CHECK_MPI(MPI_Iprobe(left, 8, comm, &flag, &st));
    }
    check_msg(&st, comm, left, 8);
    scribble(&st, 1);
    MT_CHECK_MPI(MPI_Mprobe(left, 8, comm, &msg, &st));
    check_msg(&st, comm, left, 8);
    scribble(&st, 1);
    MT_CHECK_MPI(MPI_Mrecv(buf + N, N, MPI_DOUBLE, &msg, &st));
    check_msg(&st, comm, left, 8);
    MT_CHECK_MPI(MPI_Send(buf, N, MPI_DOUBLE, right, 9, comm));
    MT_CHECK_MPI(MPI_Mprobe(left, 9, comm, &msg, MPI_STATUS_IGNORE));
    MT_CHECK_MPI(MPI_Imrecv(buf + N, N, MPI_DOUBLE, &msg, &req));
    scribble(&st, 1);
    MT_CHECK_MPI(MPI_Wait(&req, &st));
    check_msg(&st, comm, left, 9);
    scribble(&st, 1);
    MT_CHECK_MPI(MPI_Status_set_elements(&st, MPI_DOUBLE, 3));
    MT_CHECK_INT_EQ(st.MPI_LENGTH, 3 * (int)sizeof(double));
}

static void file_io(int me, const double *buf)
{
    char name[128];
    MPI_File fh;
    MPI_Status st;
    io_name(MPI_COMM_WORLD, "charm_status", name, sizeof(name));
    MT_CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name,
                               MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                               &fh));
    MPI_Offset at = (MPI_Offset)me * N * (MPI_Offset)sizeof(double);
    scribble(&st, 1);
    MT_CHECK_MPI(MPI_File_write_at(fh, at, buf, N, MPI_DOUBLE, &st));
    MT_CHECK(st.MPI_COMM == MPI_COMM_NULL);
    MT_CHECK_INT_EQ(st.MPI_LENGTH, N * (int)sizeof(double));
    double *in = malloc(N * sizeof(double));
    scribble(&st, 1);
    MT_CHECK_MPI(MPI_File_read_at(fh, at, in, N, MPI_DOUBLE, &st));
    MT_CHECK_INT_EQ(st.MPI_LENGTH, N * (int)sizeof(double));
    MT_CHECK(memcmp(in, buf, N * sizeof(double)) == 0);
    free(in);
    MT_CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        MT_CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
}

int MPI_Main(int argc, char **argv)
{
    int me, size;
    MPI_Comm dup;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    double *buf = malloc(2 * N * sizeof(double));
    for (int i = 0; i < 2 * N; i++)
        buf[i] = me + i;
    int left = (me + size - 1) % size, right = (me + 1) % size;
    MPI_Comm comms[2] = {MPI_COMM_WORLD, dup};
    for (int c = 0; c < 2; c++) {
        blocking(comms[c], left, right, buf);
        nonblocking(comms[c], left, right, buf);
        matched(comms[c], left, right, buf);
    }
    file_io(me, buf);
    free(buf);
    MPI_Comm_free(&dup);
    return mt_finish_and_finalize();
}
