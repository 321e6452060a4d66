/*
 * completion_wait: MPI_Wait, MPI_Waitall, MPI_Waitany and MPI_Waitsome on
 * arrays mixing receives and sends with MPI_REQUEST_NULL entries: every
 * real request completes exactly once and becomes MPI_REQUEST_NULL,
 * statuses describe the receives, null entries get an empty status, and
 * MPI_STATUSES_IGNORE works. With no active request, MPI_Wait returns an
 * empty status and MPI_Waitany/MPI_Waitsome return MPI_UNDEFINED.
 */
#include "mpitest.h"

enum { NPAIRS = 3, NREQ = 3 * NPAIRS }; /* per pair: recv, NULL, send */

typedef struct {
    int out[NPAIRS], in[NPAIRS];
    MPI_Request reqs[NREQ];
} exchange_t;

/* reqs[3k] receives tag base+k from the partner, reqs[3k+1] is null,
 * reqs[3k+2] sends tag base+k to the partner. */
static void start(exchange_t *x, int rank, int partner, int base)
{
    for (int k = 0; k < NPAIRS; k++) {
        x->out[k] = rank * 100 + k;
        x->in[k] = -1;
        MPI_Irecv(&x->in[k], 1, MPI_INT, partner, base + k, MPI_COMM_WORLD,
                  &x->reqs[3 * k]);
        x->reqs[3 * k + 1] = MPI_REQUEST_NULL;
        MPI_Isend(&x->out[k], 1, MPI_INT, partner, base + k, MPI_COMM_WORLD,
                  &x->reqs[3 * k + 2]);
    }
}

/* Checks entry i once it completed with status st (NULL: ignored). */
static void check_done(const exchange_t *x, int i, const MPI_Status *st,
                       int partner, int base)
{
    int k = i / 3;
    MT_CHECK(x->reqs[i] == MPI_REQUEST_NULL);
    if (i % 3 == 0) {
        MT_CHECK_INT_EQ(x->in[k], partner * 100 + k);
        if (st) {
            MT_CHECK_INT_EQ(st->MPI_SOURCE, partner);
            MT_CHECK_INT_EQ(st->MPI_TAG, base + k);
        }
    } else if (i % 3 == 1 && st) {
        MT_CHECK_EMPTY_STATUS(*st, MPI_ANY_SOURCE);
    }
}

static void no_active_requests(void)
{
    MPI_Request reqs[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                           MPI_REQUEST_NULL};
    MPI_Status st, sts[3];
    int index = 0, outcount = 0, indices[3];

    MT_CHECK_MPI(MPI_Wait(&reqs[0], &st));
    MT_CHECK_EMPTY_STATUS(st, MPI_ANY_SOURCE);
    MT_CHECK_MPI(MPI_Waitall(3, reqs, sts));
    for (int i = 0; i < 3; i++)
        MT_CHECK_EMPTY_STATUS(sts[i], MPI_ANY_SOURCE);
    MT_CHECK_MPI(MPI_Waitall(0, reqs, MPI_STATUSES_IGNORE));

    MT_CHECK_MPI(MPI_Waitany(3, reqs, &index, &st));
    MT_CHECK_INT_EQ(index, MPI_UNDEFINED);
    MT_CHECK_EMPTY_STATUS(st, MPI_ANY_SOURCE);
    index = 0;
    MT_CHECK_MPI(MPI_Waitany(0, reqs, &index, MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(index, MPI_UNDEFINED);

    MT_CHECK_MPI(MPI_Waitsome(3, reqs, &outcount, indices, sts));
    MT_CHECK_INT_EQ(outcount, MPI_UNDEFINED);
    outcount = 0;
    MT_CHECK_MPI(
        MPI_Waitsome(0, reqs, &outcount, indices, MPI_STATUSES_IGNORE));
    MT_CHECK_INT_EQ(outcount, MPI_UNDEFINED);
}

static void wait_each(exchange_t *x, int rank, int partner)
{
    start(x, rank, partner, 10);
    for (int i = 0; i < NREQ; i++) {
        MPI_Status st;
        MT_CHECK_MPI(MPI_Wait(&x->reqs[i], &st));
        check_done(x, i, i % 3 == 2 ? NULL : &st, partner, 10);
    }
}

static void wait_all(exchange_t *x, int rank, int partner)
{
    MPI_Status sts[NREQ];
    start(x, rank, partner, 20);
    MT_CHECK_MPI(MPI_Waitall(NREQ, x->reqs, sts));
    for (int i = 0; i < NREQ; i++)
        check_done(x, i, i % 3 == 2 ? NULL : &sts[i], partner, 20);

    start(x, rank, partner, 30);
    MT_CHECK_MPI(MPI_Waitall(NREQ, x->reqs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NREQ; i++)
        check_done(x, i, NULL, partner, 30);
}

static void wait_any(exchange_t *x, int rank, int partner)
{
    int seen[NREQ] = {0}, ndone = 0;
    start(x, rank, partner, 40);
    for (;;) {
        int index = -5;
        MPI_Status st;
        MT_CHECK_MPI(MPI_Waitany(NREQ, x->reqs, &index, &st));
        if (index == MPI_UNDEFINED)
            break;
        if (!MT_CHECK(index >= 0 && index < NREQ && index % 3 != 1 &&
                      !seen[index]))
            break;
        seen[index] = 1;
        ndone++;
        check_done(x, index, index % 3 == 0 ? &st : NULL, partner, 40);
    }
    MT_CHECK_INT_EQ(ndone, 2 * NPAIRS);
}

static void wait_some(exchange_t *x, int rank, int partner)
{
    int seen[NREQ] = {0}, ndone = 0;
    start(x, rank, partner, 50);
    for (;;) {
        int outcount = -5, indices[NREQ];
        MPI_Status sts[NREQ];
        MT_CHECK_MPI(MPI_Waitsome(NREQ, x->reqs, &outcount, indices, sts));
        if (outcount == MPI_UNDEFINED)
            break;
        if (!MT_CHECK(outcount > 0 && outcount <= NREQ))
            break;
        for (int j = 0; j < outcount; j++) {
            int i = indices[j];
            if (!MT_CHECK(i >= 0 && i < NREQ && i % 3 != 1 && !seen[i]))
                return;
            seen[i] = 1;
            ndone++;
            check_done(x, i, i % 3 == 0 ? &sts[j] : NULL, partner, 50);
        }
    }
    MT_CHECK_INT_EQ(ndone, 2 * NPAIRS);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int partner = mt_partner(MPI_COMM_WORLD);
    exchange_t x;

    no_active_requests();
    wait_each(&x, rank, partner);
    wait_all(&x, rank, partner);
    wait_any(&x, rank, partner);
    wait_some(&x, rank, partner);

    return mt_finish_and_finalize();
}
