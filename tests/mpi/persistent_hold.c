/*
 * A persistent request holds its datatype and communicator from the _init
 * call on: both are freed (MPI_Type_free, MPI_Comm_free) before the first
 * MPI_Start, and the request still moves the data right, started several
 * times, for every _init form (Send, Ssend, Rsend, Bsend, Recv), small and
 * large (rendezvous).  The freed handles are invalid to the program, and
 * MPI_Request_free releases what the request held.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { NITER = 3, NFORMS = 4 };

/* A strided type: every other int, n of them. */
static MPI_Datatype strided(int n)
{
    MPI_Datatype t;
    MPI_Type_vector(n, 1, 2, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

static int init_send(int form, const int *buf, MPI_Datatype t, int dest,
                     MPI_Comm comm, MPI_Request *req)
{
    switch (form) {
    case 0: return MPI_Send_init(buf, 1, t, dest, 5, comm, req);
    case 1: return MPI_Ssend_init(buf, 1, t, dest, 5, comm, req);
    case 2: return MPI_Rsend_init(buf, 1, t, dest, 5, comm, req);
    default: return MPI_Bsend_init(buf, 1, t, dest, 5, comm, req);
    }
}

/* n ints each way between partners, in send form form. */
static void exchange(int form, int n, int partner, int rank)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int *out = calloc(2 * (size_t)n, sizeof(int));
    int *in = calloc(2 * (size_t)n, sizeof(int));
    MPI_Datatype st = strided(n), rt = strided(n);
    MPI_Request reqs[2];
    MT_CHECK_MPI(MPI_Recv_init(in, 1, rt, partner, 5, comm, &reqs[0]));
    MT_CHECK_MPI(init_send(form, out, st, partner, comm, &reqs[1]));
    MPI_Type_free(&st);
    MPI_Type_free(&rt);
    MPI_Comm_free(&comm);
    MT_CHECK(st == MPI_DATATYPE_NULL && comm == MPI_COMM_NULL);
    for (int it = 0; it < NITER; it++) {
        for (int i = 0; i < n; i++) {
            out[2 * i] = rank * 100000 + it * 1000 + i % 1000;
            in[2 * i] = -1;
        }
        MT_CHECK_MPI(MPI_Start(&reqs[0]));
        /* Ready mode: the partner's receive is posted before this send. */
        MPI_Sendrecv(NULL, 0, MPI_INT, partner, 6, NULL, 0, MPI_INT, partner, 6,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MT_CHECK_MPI(MPI_Start(&reqs[1]));
        MT_CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
        for (int i = 0; i < n; i++)
            if (!MT_CHECK_INT_EQ(in[2 * i],
                                 partner * 100000 + it * 1000 + i % 1000))
                break;
    }
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    MT_CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL);
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int partner = mt_partner(MPI_COMM_WORLD);
    int bsize = 2 * (100000 * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    void *bbuf = malloc((size_t)bsize);
    MPI_Buffer_attach(bbuf, bsize);
    for (int form = 0; form < NFORMS; form++) {
        exchange(form, 10, partner, rank);
        exchange(form, 100000, partner, rank);
    }
    MPI_Buffer_detach(&bbuf, &bsize);
    free(bbuf);

    /* The freed communicator's handle is invalid to the program. */
    MPI_Comm comm, saved;
    MPI_Request req;
    int x = 0;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    saved = comm;
    MPI_Recv_init(&x, 1, MPI_INT, MPI_PROC_NULL, 0, comm, &req);
    MPI_Comm_free(&comm);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int size = -1;
    MT_CHECK_ERR_CLASS(MPI_Comm_size(saved, &size), MPI_ERR_COMM);
    MT_CHECK_MPI(MPI_Start(&req));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MPI_Request_free(&req);
    return mt_finish_and_finalize();
}
