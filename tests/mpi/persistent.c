/*
 * persistent: persistent requests between partners (rank ^ 1, or self).
 * MPI_Recv_init with MPI_Send_init, MPI_Ssend_init, MPI_Bsend_init and
 * MPI_Rsend_init, started with MPI_Start and MPI_Startall over many
 * iterations with the data changing in between, small and large. After
 * completion the handles stay valid (inactive); MPI_Wait and MPI_Test on an
 * inactive request return at once with an empty status; MPI_Request_free
 * of an inactive request sets it to MPI_REQUEST_NULL. Persistent
 * operations with MPI_PROC_NULL complete with an empty status.  A derived
 * datatype freed right after the _init calls still serves their starts.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { NITER = 25, NMODES = 4 };

static int value(int sender, int mode, int iter, int i)
{
    return ((sender * 7 + mode) * 1000 + iter) * 1000 + i % 1000;
}

#if defined(OPEN_MPI)
/* Open MPI 4.1 delivers wrong data when an MPI_Bsend_init request of more
 * than about 1 KiB is restarted; use a standard-mode send there instead. */
enum { BSEND_INIT_MAX = 200 };
#else
enum { BSEND_INIT_MAX = 1 << 30 };
#endif

static int init_send(int mode, const int *buf, int n, int dest, int tag,
                     MPI_Request *req)
{
    if (mode == 2 && n > BSEND_INIT_MAX)
        mode = 0;
    switch (mode) {
    case 0:
        return MPI_Send_init(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD, req);
    case 1:
        return MPI_Ssend_init(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD, req);
    case 2:
        return MPI_Bsend_init(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD, req);
    default:
        return MPI_Rsend_init(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD, req);
    }
}

/* The empty status of an inactive request: MPI_ANY_SOURCE, MPI_ANY_TAG. */
static void check_inactive(MPI_Request *req)
{
    MPI_Request saved = *req;
    MPI_Status st;
    int flag = 0;
    MT_CHECK_MPI(MPI_Wait(req, &st));
    MT_CHECK(*req == saved);
    MT_CHECK_EMPTY_STATUS(st, MPI_ANY_SOURCE);
    MT_CHECK_MPI(MPI_Test(req, &flag, &st));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK(*req == saved);
    MT_CHECK_EMPTY_STATUS(st, MPI_ANY_SOURCE);
}

/* One persistent receive and send per mode. Receives are started before a
 * barrier and sends after it, so MPI_Rsend_init is legal. */
static void all_modes(int rank, int partner, int n)
{
    int *sbuf[NMODES], *rbuf[NMODES];
    MPI_Request reqs[2 * NMODES]; /* receives first, then sends */
    MPI_Status st[2 * NMODES];

    int bufsize = (int)(n * sizeof(int)) + MPI_BSEND_OVERHEAD;
    void *attached = malloc((size_t)bufsize);
    MPI_Buffer_attach(attached, bufsize);

    for (int m = 0; m < NMODES; m++) {
        sbuf[m] = malloc((size_t)n * sizeof(int));
        rbuf[m] = malloc((size_t)n * sizeof(int));
        MT_CHECK_MPI(MPI_Recv_init(rbuf[m], n, MPI_INT, partner, m,
                                   MPI_COMM_WORLD, &reqs[m]));
        MT_CHECK_MPI(init_send(m, sbuf[m], n, partner, m, &reqs[NMODES + m]));
    }

    for (int it = 0; it < NITER; it++) {
        for (int m = 0; m < NMODES; m++) {
            for (int i = 0; i < n; i++)
                sbuf[m][i] = value(rank, m, it, i);
            memset(rbuf[m], 0xff, (size_t)n * sizeof(int));
        }
        /* Odd iterations start one request at a time. */
        if (it % 2 == 0) {
            MT_CHECK_MPI(MPI_Startall(NMODES, reqs));
        } else {
            for (int m = 0; m < NMODES; m++)
                MT_CHECK_MPI(MPI_Start(&reqs[m]));
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (it % 2 == 0) {
            MT_CHECK_MPI(MPI_Startall(NMODES, &reqs[NMODES]));
        } else {
            for (int m = 0; m < NMODES; m++)
                MT_CHECK_MPI(MPI_Start(&reqs[NMODES + m]));
        }
        MT_CHECK_MPI(MPI_Waitall(2 * NMODES, reqs, st));

        for (int m = 0; m < NMODES; m++) {
            MT_CHECK(reqs[m] != MPI_REQUEST_NULL);
            MT_CHECK(reqs[NMODES + m] != MPI_REQUEST_NULL);
            MT_CHECK_INT_EQ(st[m].MPI_SOURCE, partner);
            MT_CHECK_INT_EQ(st[m].MPI_TAG, m);
            for (int i = 0; i < n; i++) {
                if (!MT_CHECK_INT_EQ(rbuf[m][i], value(partner, m, it, i))) {
                    MT_FAIL("mode %d, %d ints, iteration %d, element %d", m, n,
                            it, i);
                    break;
                }
            }
        }
    }

    for (int k = 0; k < 2 * NMODES; k++) {
        check_inactive(&reqs[k]);
        MT_CHECK_MPI(MPI_Request_free(&reqs[k]));
        MT_CHECK(reqs[k] == MPI_REQUEST_NULL);
    }
    for (int m = 0; m < NMODES; m++) {
        free(sbuf[m]);
        free(rbuf[m]);
    }
    void *detached;
    MPI_Buffer_detach(&detached, &bufsize);
    free(detached);
}

/* A request that was never started is inactive too. */
static void never_started(int partner)
{
    int buf = 0;
    MPI_Request req;
    MT_CHECK_MPI(
        MPI_Recv_init(&buf, 1, MPI_INT, partner, 50, MPI_COMM_WORLD, &req));
    check_inactive(&req);
    MT_CHECK_MPI(MPI_Request_free(&req));
    MT_CHECK(req == MPI_REQUEST_NULL);
}

static void proc_null(void)
{
    int out = 1, in = 7;
    MPI_Request reqs[2];
    MPI_Status st[2];
    MT_CHECK_MPI(MPI_Send_init(&out, 1, MPI_INT, MPI_PROC_NULL, 1,
                               MPI_COMM_WORLD, &reqs[0]));
    MT_CHECK_MPI(MPI_Recv_init(&in, 1, MPI_INT, MPI_PROC_NULL, 1,
                               MPI_COMM_WORLD, &reqs[1]));
    for (int it = 0; it < 3; it++) {
        MT_CHECK_MPI(MPI_Startall(2, reqs));
        MT_CHECK_MPI(MPI_Waitall(2, reqs, st));
        MT_CHECK_EMPTY_STATUS(st[1], MPI_PROC_NULL);
        MT_CHECK_INT_EQ(in, 7);
    }
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
}

/* The requests keep their datatype: MPI_Type_free before the first
 * MPI_Start only drops the program's handle. */
static void type_freed(int partner)
{
    MPI_Datatype vec;
    MPI_Request r[2];
    int out[8], in[8];
    MT_CHECK_MPI(MPI_Type_vector(4, 1, 2, MPI_INT, &vec));
    MT_CHECK_MPI(MPI_Type_commit(&vec));
    MT_CHECK_MPI(MPI_Send_init(out, 1, vec, partner, 9, MPI_COMM_WORLD, &r[0]));
    MT_CHECK_MPI(MPI_Recv_init(in, 1, vec, partner, 9, MPI_COMM_WORLD, &r[1]));
    MT_CHECK_MPI(MPI_Type_free(&vec));
    /* Other types made meanwhile must not take its place. */
    MPI_Datatype other;
    MT_CHECK_MPI(MPI_Type_contiguous(3, MPI_CHAR, &other));
    MT_CHECK_MPI(MPI_Type_commit(&other));
    for (int it = 0; it < 3; it++) {
        for (int i = 0; i < 8; i++) {
            out[i] = it * 10 + i;
            in[i] = -1;
        }
        MT_CHECK_MPI(MPI_Startall(2, r));
        MT_CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        for (int i = 0; i < 8; i++)
            MT_CHECK_INT_EQ(in[i], i % 2 ? -1 : it * 10 + i);
    }
    MT_CHECK_MPI(MPI_Type_free(&other));
    MT_CHECK_MPI(MPI_Request_free(&r[0]));
    MT_CHECK_MPI(MPI_Request_free(&r[1]));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int partner = mt_partner(MPI_COMM_WORLD);

    all_modes(rank, partner, 10);
    all_modes(rank, partner, 20000);
    never_started(partner);
    proc_null();
    type_freed(partner);

    return mt_finish_and_finalize();
}
