/*
 * p2p_nonblocking: MPI_Isend, MPI_Issend, MPI_Irsend and MPI_Ibsend to the
 * partner (rank ^ 1, or self), received with MPI_Irecv posted before a
 * barrier (so MPI_Irsend is legal) and matched by tag in the opposite order;
 * small and large messages. An MPI_Issend cannot complete before the
 * partner posts the matching receive, which here happens only after a
 * barrier the sender has not entered yet.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { NMODES = 4 };
static const char *const mode_names[NMODES] = {"MPI_Isend", "MPI_Issend",
                                               "MPI_Irsend", "MPI_Ibsend"};

static int start_send(int mode, const int *buf, int n, int dest, int tag,
                      MPI_Request *req)
{
    switch (mode) {
    case 0: return MPI_Isend(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD, req);
    case 1: return MPI_Issend(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD, req);
    case 2: return MPI_Irsend(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD, req);
    default: return MPI_Ibsend(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD, req);
    }
}

static int value(int sender, int mode, int i)
{
    return sender * 1000003 + mode * 100000 + i;
}

static void all_modes(int rank, int partner, int n)
{
    int *sbuf[NMODES], *rbuf[NMODES];
    MPI_Request reqs[2 * NMODES];
    MPI_Status st[2 * NMODES];

    int bufsize = (int)(n * sizeof(int)) + MPI_BSEND_OVERHEAD;
    void *attached = malloc((size_t)bufsize);
    MPI_Buffer_attach(attached, bufsize);

    /* Receives for tags 3, 2, 1, 0: the reverse of the sending order. */
    for (int m = 0; m < NMODES; m++) {
        int tag = NMODES - 1 - m;
        rbuf[tag] = calloc((size_t)n, sizeof(int));
        MT_CHECK_MPI(MPI_Irecv(rbuf[tag], n, MPI_INT, partner, tag,
                               MPI_COMM_WORLD, &reqs[NMODES + m]));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int m = 0; m < NMODES; m++) {
        sbuf[m] = malloc((size_t)n * sizeof(int));
        for (int i = 0; i < n; i++)
            sbuf[m][i] = value(rank, m, i);
        if (!MT_CHECK_MPI(start_send(m, sbuf[m], n, partner, m, &reqs[m])))
            reqs[m] = MPI_REQUEST_NULL;
    }
    MT_CHECK_MPI(MPI_Waitall(2 * NMODES, reqs, st));

    for (int m = 0; m < NMODES; m++) {
        const MPI_Status *rst = &st[NMODES + NMODES - 1 - m];
        int count = -1;
        MPI_Get_count(rst, MPI_INT, &count);
        MT_CHECK_INT_EQ(count, n);
        MT_CHECK_INT_EQ(rst->MPI_SOURCE, partner);
        MT_CHECK_INT_EQ(rst->MPI_TAG, m);
        for (int i = 0; i < n; i++) {
            if (!MT_CHECK_INT_EQ(rbuf[m][i], value(partner, m, i))) {
                MT_FAIL("%s of %d ints, element %d", mode_names[m], n, i);
                break;
            }
        }
        free(sbuf[m]);
        free(rbuf[m]);
    }

    void *detached;
    MPI_Buffer_detach(&detached, &bufsize);
    free(detached);
}

/* MPI_Issend is not complete while no matching receive is posted. */
static void issend_waits_for_receive(int rank, int partner)
{
    int out = rank, in = -1, flag = 1;
    MPI_Request req;
    MPI_Issend(&out, 1, MPI_INT, partner, 99, MPI_COMM_WORLD, &req);
    /* The partner posts its receive after the barrier, which cannot end
     * before this rank enters it. */
    MT_CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(flag, 0);
    MT_CHECK(req != MPI_REQUEST_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    MT_CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, partner, 99, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_CHECK(req == MPI_REQUEST_NULL);
    MT_CHECK_INT_EQ(in, partner);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int partner = mt_partner(MPI_COMM_WORLD);

    all_modes(rank, partner, 1);
    all_modes(rank, partner, 1000);
    all_modes(rank, partner, 50000);
    issend_waits_for_receive(rank, partner);

    return mt_finish_and_finalize();
}
