/*
 * get_count: MPI_Get_count and MPI_Get_elements on received statuses.
 *  - 5 bytes received as MPI_BYTE: count 5 bytes, MPI_UNDEFINED in
 *    MPI_INT (5 is not a multiple of sizeof(int)), for elements too;
 *  - 8 ints: 8 in MPI_INT, 32 in MPI_BYTE;
 *  - 0 bytes: 0 for any type;
 *  - a contiguous type of 3 ints, receiving 6 ints: count 2, elements 6;
 *    receiving 7 ints: count MPI_UNDEFINED, elements 7.
 */
#include "mpitest.h"

/* Sends n ints (or n bytes if bytes) to self and returns the status. */
static MPI_Status self_message(int n, int bytes, void *rbuf, int rcount,
                               MPI_Datatype rtype)
{
    int out[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    MPI_Request req;
    MPI_Status st;
    MPI_Isend(out, n, bytes ? MPI_BYTE : MPI_INT, 0, 1, MPI_COMM_SELF, &req);
    MT_CHECK_MPI(MPI_Recv(rbuf, rcount, rtype, 0, 1, MPI_COMM_SELF, &st));
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    return st;
}

static void check_counts(const MPI_Status *st, MPI_Datatype dt, int count,
                         int elements, const char *what)
{
    int c = -5, e = -5;
    MT_CHECK_MPI(MPI_Get_count(st, dt, &c));
    MT_CHECK_MPI(MPI_Get_elements(st, dt, &e));
    if (!MT_CHECK_INT_EQ(c, count) || !MT_CHECK_INT_EQ(e, elements))
        MT_FAIL("in %s", what);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);

    int in[12];
    MPI_Status st;

    st = self_message(5, 1, in, (int)sizeof(in), MPI_BYTE);
    check_counts(&st, MPI_BYTE, 5, 5, "5 bytes as MPI_BYTE");
    check_counts(&st, MPI_CHAR, 5, 5, "5 bytes as MPI_CHAR");
    check_counts(&st, MPI_INT, MPI_UNDEFINED, MPI_UNDEFINED,
                 "5 bytes as MPI_INT");

    st = self_message(8, 0, in, 8, MPI_INT);
    check_counts(&st, MPI_INT, 8, 8, "8 ints as MPI_INT");
    check_counts(&st, MPI_BYTE, 8 * (int)sizeof(int), 8 * (int)sizeof(int),
                 "8 ints as MPI_BYTE");

    st = self_message(0, 0, in, 8, MPI_INT);
    check_counts(&st, MPI_INT, 0, 0, "0 ints as MPI_INT");
    check_counts(&st, MPI_DOUBLE, 0, 0, "0 ints as MPI_DOUBLE");

    MPI_Datatype triple;
    MPI_Type_contiguous(3, MPI_INT, &triple);
    MPI_Type_commit(&triple);

    st = self_message(6, 0, in, 2, triple);
    check_counts(&st, triple, 2, 6, "6 ints as 3-int type");
    check_counts(&st, MPI_INT, 6, 6, "6 ints as MPI_INT");
    for (int i = 0; i < 6; i++)
        MT_CHECK_INT_EQ(in[i], i);

    st = self_message(7, 0, in, 4, triple);
    check_counts(&st, triple, MPI_UNDEFINED, 7, "7 ints as 3-int type");

    MPI_Type_free(&triple);
    return mt_finish_and_finalize();
}
