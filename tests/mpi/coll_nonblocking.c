/*
 * coll_nonblocking: nonblocking collectives as requests.
 *  - six collectives outstanding on one communicator at once, completed
 *    by MPI_Waitall on the reversed array, then by MPI_Waitany,
 *    MPI_Testall and MPI_Waitsome, mixed with point-to-point requests;
 *    a completed one has an empty status;
 *  - progress without the owner waiting on the request: after an Ibcast
 *    (large, so rendezvous) each rank first blocks in MPI_Recv for a token
 *    that its right neighbour sends only after its own Ibcast completed,
 *    so every forwarding step runs while its rank waits for something
 *    else;
 *  - a root that computes (no MPI calls) after MPI_Ibcast: a receiver
 *    that runs at the same time (on another PE) completes meanwhile.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { N = 4, BIG = 50000 };

static void outstanding(int rank, int size)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request rq[8];
    MPI_Status st[8];
    int bc[N], sum[N], ag[N * 64], *a2a_s = malloc((size_t)size * 2 * 4);
    int *a2a_r = a2a_s + size, scan = 0, one = rank + 1, p2p_in = -1;
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    for (int i = 0; i < N; i++) {
        bc[i] = rank == 0 ? 100 + i : -1;
        sum[i] = rank * i;
    }
    for (int i = 0; i < size; i++)
        a2a_s[i] = rank * 100 + i;
    MT_CHECK_MPI(MPI_Irecv(&p2p_in, 1, MPI_INT, left, 5, w, &rq[0]));
    MT_CHECK_MPI(MPI_Ibcast(bc, N, MPI_INT, 0, w, &rq[1]));
    MT_CHECK_MPI(
        MPI_Iallreduce(MPI_IN_PLACE, sum, N, MPI_INT, MPI_SUM, w, &rq[2]));
    MT_CHECK_MPI(MPI_Ibarrier(w, &rq[3]));
    MT_CHECK_MPI(MPI_Iallgather(&rank, 1, MPI_INT, ag, 1, MPI_INT, w, &rq[4]));
    MT_CHECK_MPI(
        MPI_Ialltoall(a2a_s, 1, MPI_INT, a2a_r, 1, MPI_INT, w, &rq[5]));
    MT_CHECK_MPI(MPI_Iscan(&one, &scan, 1, MPI_INT, MPI_SUM, w, &rq[6]));
    MT_CHECK_MPI(MPI_Isend(&rank, 1, MPI_INT, right, 5, w, &rq[7]));
    MPI_Request rev[8];
    for (int i = 0; i < 8; i++)
        rev[i] = rq[7 - i];
    MT_CHECK_MPI(MPI_Waitall(8, rev, st));
    for (int i = 0; i < 8; i++)
        MT_CHECK(rev[i] == MPI_REQUEST_NULL);
    for (int i = 1; i < 7; i++)
        MT_CHECK_EMPTY_STATUS(st[7 - i], MPI_ANY_SOURCE);
    MT_CHECK_INT_EQ(p2p_in, left);
    for (int i = 0; i < N; i++) {
        MT_CHECK_INT_EQ(bc[i], 100 + i);
        MT_CHECK_INT_EQ(sum[i], i * size * (size - 1) / 2);
    }
    for (int i = 0; i < size; i++) {
        MT_CHECK_INT_EQ(ag[i], i);
        MT_CHECK_INT_EQ(a2a_r[i], i * 100 + rank);
    }
    MT_CHECK_INT_EQ(scan, (rank + 1) * (rank + 2) / 2);
    free(a2a_s);
}

/* The same collectives finished one at a time, in the order they end. */
static void completion_calls(int rank, int size)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request rq[3];
    int a = rank, b = 0, c = 0, flag = 0, idx = -1, done = 0;
    MT_CHECK_MPI(MPI_Iallreduce(&a, &b, 1, MPI_INT, MPI_MAX, w, &rq[0]));
    MT_CHECK_MPI(MPI_Ibarrier(w, &rq[1]));
    MT_CHECK_MPI(MPI_Iexscan(&a, &c, 1, MPI_INT, MPI_SUM, w, &rq[2]));
    while (done < 2) {
        MT_CHECK_MPI(MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE));
        MT_CHECK(idx == 0 || idx == 1);
        done++;
    }
    MT_CHECK_MPI(MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(idx, MPI_UNDEFINED);
    while (!flag) {
        MT_CHECK_MPI(MPI_Request_get_status(rq[2], &flag, MPI_STATUS_IGNORE));
        if (!flag)
            MT_CHECK_MPI(MPI_Testall(1, &rq[2], &flag, MPI_STATUSES_IGNORE));
    }
    if (rq[2] != MPI_REQUEST_NULL)
        MT_CHECK_MPI(MPI_Wait(&rq[2], MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(b, size - 1);
    if (rank > 0)
        MT_CHECK_INT_EQ(c, rank * (rank - 1) / 2);
    /* Waitsome and Testsome. */
    int out = 0, ind[2];
    MT_CHECK_MPI(MPI_Ibarrier(w, &rq[0]));
    MT_CHECK_MPI(MPI_Ibcast(&a, 1, MPI_INT, size - 1, w, &rq[1]));
    for (done = 0; done < 2; done += out) {
        MT_CHECK_MPI(MPI_Testsome(2, rq, &out, ind, MPI_STATUSES_IGNORE));
        if (out == 0)
            MT_CHECK_MPI(MPI_Waitsome(2, rq, &out, ind, MPI_STATUSES_IGNORE));
    }
    MT_CHECK_INT_EQ(a, size - 1);
}

/* Each rank waits for its right neighbour before it waits for its own
 * Ibcast; the last rank goes first. */
static void progress_chain(int rank, int size)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request rq;
    unsigned char *buf = malloc(BIG);
    int token = 0;
    if (rank == 0)
        mt_fill(buf, BIG, 3);
    else
        memset(buf, 0, BIG);
    MT_CHECK_MPI(MPI_Ibcast(buf, BIG, MPI_BYTE, 0, w, &rq));
    if (rank < size - 1)
        MT_CHECK_MPI(
            MPI_Recv(&token, 1, MPI_INT, rank + 1, 9, w, MPI_STATUS_IGNORE));
    MT_CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    MT_CHECK_PATTERN(buf, BIG, 3);
    if (rank > 0)
        MT_CHECK_MPI(MPI_Send(&token, 1, MPI_INT, rank - 1, 9, w));
    free(buf);
}

static double spin(double seconds)
{
    double t = MPI_Wtime();
    while (MPI_Wtime() - t < seconds) {
    }
    return MPI_Wtime();
}

/* Whether ranks 0 and 1 run at the same time: both spin for a while
 * right after a barrier and compare when. */
static int concurrent(int rank)
{
    double mine[2], theirs[2] = {0, 0};
    MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank > 1)
        return 0;
    mine[0] = MPI_Wtime();
    mine[1] = spin(0.03);
    MT_CHECK_MPI(MPI_Sendrecv(mine, 2, MPI_DOUBLE, 1 - rank, 11, theirs, 2,
                              MPI_DOUBLE, 1 - rank, 11, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
    double start = mine[0] > theirs[0] ? mine[0] : theirs[0];
    double end = mine[1] < theirs[1] ? mine[1] : theirs[1];
    return end - start > 0.01;
}

/* Rank 0 starts an Ibcast and computes; rank 1 must get the data before
 * rank 0 stops computing, when the two run at the same time.  Tries a few
 * times, since the OS may take a PE's core away for a while. */
static void computing_root(int rank, int size)
{
    if (size < 2)
        return;
    int ok = 0, tries = 0, conc = 0;
    char *buf = malloc(BIG);
    while (!ok && tries++ < 5) {
        conc = concurrent(rank);
        MT_CHECK_MPI(MPI_Bcast(&conc, 1, MPI_INT, 0, MPI_COMM_WORLD));
        if (!conc) {
            ok = 1; /* the same PE: nothing to show */
            break;
        }
        MPI_Request rq;
        double end = 0, got = 0;
        if (rank == 0)
            mt_fill(buf, BIG, (unsigned)tries);
        MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        MT_CHECK_MPI(MPI_Ibcast(buf, BIG, MPI_CHAR, 0, MPI_COMM_WORLD, &rq));
        if (rank == 0)
            end = spin(0.1);
        MT_CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        got = MPI_Wtime();
        MT_CHECK_PATTERN(buf, BIG, (unsigned)tries);
        MT_CHECK_MPI(MPI_Bcast(&end, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
        ok = rank != 1 || got < end;
        MT_CHECK_MPI(MPI_Bcast(&ok, 1, MPI_INT, 1, MPI_COMM_WORLD));
    }
    if (!ok)
        MT_FAIL("rank 1's MPI_Ibcast waited for the computing root in every "
                "try");
    free(buf);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 3; i++) {
        outstanding(rank, size);
        completion_calls(rank, size);
        progress_chain(rank, size);
    }
    computing_root(rank, size);
    return mt_finish_and_finalize();
}
