/*
 * errors: with MPI_ERRORS_RETURN on MPI_COMM_WORLD, erroneous arguments are
 * answered with the right error class instead of a crash:
 *   MPI_ERR_RANK     destination / source out of range
 *   MPI_ERR_TAG      negative tag (other than MPI_ANY_TAG on receives)
 *   MPI_ERR_COUNT    negative count
 *   MPI_ERR_TYPE     MPI_DATATYPE_NULL
 *   MPI_ERR_COMM     MPI_COMM_NULL (reported through MPI_COMM_WORLD's
 *                    handler in MPI 3.1, MPI_COMM_SELF's in MPI 4)
 *   MPI_ERR_BUFFER   NULL buffer with a positive count
 *   MPI_ERR_REQUEST  MPI_Request_free of MPI_REQUEST_NULL
 *   MPI_ERR_ROOT     MPI_Bcast root out of range
 *   MPI_ERR_OP       MPI_Allreduce with MPI_OP_NULL
 *   MPI_ERR_TRUNCATE receiving 8 ints into room for 4 (MPI_Recv, and
 *                    MPI_Irecv + MPI_Wait), without writing past the 4;
 *                    MPI_Waitall reports it as MPI_ERR_IN_STATUS with the
 *                    class in the failed request's status.
 * Communication still works afterwards. With our implementation (AMPI
 * defined) the error string also names the function that failed.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { GUARD = 0x5a5a5a5a };

/* Under AMPI, the message for code must mention the function. */
static void check_names(int code, const char *function)
{
#ifdef AMPI
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(code, msg, &len);
    if (!MT_CHECK(strstr(msg, function) != NULL))
        MT_FAIL("error string \"%s\" does not name %s", msg, function);
#else
    (void)code;
    (void)function;
#endif
}

static void argument_errors(int size)
{
    int buf[4] = {0, 0, 0, 0}, rc;
    MPI_Request req;
    /* A tag that is negative but not a wildcard. */
    int bad_tag = MPI_ANY_TAG == -5 ? -6 : -5;

    rc = MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    MT_CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    check_names(rc, "MPI_Send");
    MT_CHECK_ERR_CLASS(MPI_Send(buf, 1, MPI_INT, size + 100, 0, MPI_COMM_WORLD),
                       MPI_ERR_RANK);
    rc = MPI_Recv(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MT_CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    check_names(rc, "MPI_Recv");
    rc = MPI_Isend(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &req);
    MT_CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    check_names(rc, "MPI_Isend");

    MT_CHECK_ERR_CLASS(MPI_Send(buf, 1, MPI_INT, 0, -1, MPI_COMM_WORLD),
                       MPI_ERR_TAG);
    MT_CHECK_ERR_CLASS(MPI_Send(buf, 1, MPI_INT, 0, bad_tag, MPI_COMM_WORLD),
                       MPI_ERR_TAG);
    rc = MPI_Irecv(buf, 1, MPI_INT, 0, bad_tag, MPI_COMM_WORLD, &req);
    MT_CHECK_ERR_CLASS(rc, MPI_ERR_TAG);
    check_names(rc, "MPI_Irecv");

    MT_CHECK_ERR_CLASS(MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD),
                       MPI_ERR_COUNT);
    MT_CHECK_ERR_CLASS(
        MPI_Recv(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        MPI_ERR_COUNT);

    MT_CHECK_ERR_CLASS(
        MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD),
        MPI_ERR_TYPE);
    MT_CHECK_ERR_CLASS(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL),
                       MPI_ERR_COMM);
    MT_CHECK_ERR_CLASS(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    rc = MPI_Send(NULL, 4, MPI_INT, 0, 0, MPI_COMM_WORLD);
    MT_CHECK_ERR_CLASS(rc, MPI_ERR_BUFFER);
    check_names(rc, "MPI_Send");

    req = MPI_REQUEST_NULL;
    rc = MPI_Request_free(&req);
    MT_CHECK_ERR_CLASS(rc, MPI_ERR_REQUEST);
    check_names(rc, "MPI_Request_free");

    rc = MPI_Bcast(buf, 1, MPI_INT, size, MPI_COMM_WORLD);
    MT_CHECK_ERR_CLASS(rc, MPI_ERR_ROOT);
    check_names(rc, "MPI_Bcast");
    rc = MPI_Allreduce(buf, buf + 1, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
    MT_CHECK_ERR_CLASS(rc, MPI_ERR_OP);
    check_names(rc, "MPI_Allreduce");
}

static void check_guard(const int *in)
{
    for (int i = 4; i < 8; i++)
        if (!MT_CHECK_INT_EQ(in[i], GUARD))
            MT_FAIL("truncated receive wrote element %d", i);
}

/* The partner sends 8 ints; the receives have room for 4 (the buffer has
 * 8, the rest must stay untouched). */
static void truncation(int rank, int partner)
{
    int out[8], in[8], rc;
    MPI_Request sreq, reqs[2];
    MPI_Status sts[2];
    for (int i = 0; i < 8; i++)
        out[i] = rank * 10 + i;

    for (int i = 0; i < 8; i++)
        in[i] = GUARD;
    MPI_Isend(out, 8, MPI_INT, partner, 1, MPI_COMM_WORLD, &sreq);
    rc = MPI_Recv(in, 4, MPI_INT, partner, 1, MPI_COMM_WORLD, &sts[0]);
    MT_CHECK_ERR_CLASS(rc, MPI_ERR_TRUNCATE);
    check_names(rc, "MPI_Recv");
    check_guard(in);
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);

    for (int i = 0; i < 8; i++)
        in[i] = GUARD;
    MPI_Isend(out, 8, MPI_INT, partner, 2, MPI_COMM_WORLD, &sreq);
    MT_CHECK_MPI(
        MPI_Irecv(in, 4, MPI_INT, partner, 2, MPI_COMM_WORLD, &reqs[0]));
    MT_CHECK_ERR_CLASS(MPI_Wait(&reqs[0], &sts[0]), MPI_ERR_TRUNCATE);
    check_guard(in);
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);

    /* Waitall: one good receive, one truncated. */
    int good = -1;
    for (int i = 0; i < 8; i++)
        in[i] = GUARD;
    MPI_Isend(out, 8, MPI_INT, partner, 3, MPI_COMM_WORLD, &sreq);
    MPI_Irecv(&good, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(in, 4, MPI_INT, partner, 3, MPI_COMM_WORLD, &reqs[1]);
    MT_CHECK_ERR_CLASS(MPI_Waitall(2, reqs, sts), MPI_ERR_IN_STATUS);
    MT_CHECK_ERR_CLASS(sts[0].MPI_ERROR, MPI_SUCCESS);
    MT_CHECK_ERR_CLASS(sts[1].MPI_ERROR, MPI_ERR_TRUNCATE);
    check_guard(in);
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
}

/* After all that, ordinary traffic still works. */
static void still_works(int rank, int partner, int size)
{
    int out = rank, in = -1, sum = 0;
    MT_CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, partner, 9, &in, 1, MPI_INT,
                              partner, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(in, partner);
    MT_CHECK_MPI(
        MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(sum, size * (size - 1) / 2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int partner = mt_partner(MPI_COMM_WORLD);

    /* MPI 3.1 reports errors without a communicator (MPI_COMM_NULL) on
     * MPI_COMM_WORLD, MPI 4 on MPI_COMM_SELF: make both return. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    argument_errors(size);
    truncation(rank, partner);
    still_works(rank, partner, size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);

    return mt_finish_and_finalize();
}
