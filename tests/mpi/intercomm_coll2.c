/*
 * intercomm_coll2: the gathers, scatters, all-to-alls and reduce-scatters
 * on an inter-communicator between groups of unequal sizes (world ranks
 * below size / 3, at least one, and the rest).  Rooted calls run with the
 * root in either group (MPI_ROOT at the root, MPI_PROC_NULL beside it);
 * every block carries its sender's world rank.  Also: MPI_Igather and
 * MPI_Ialltoall; MPI_Iscan and MPI_Exscan are MPI_ERR_COMM, MPI_IN_PLACE
 * is MPI_ERR_BUFFER, a bad root MPI_ERR_ROOT.  Needs two ranks.
 */
#include "mpitest.h"

#include <stdlib.h>

typedef struct side {
    MPI_Comm ic;
    int low; /* in the low group */
    int w, lrank, lsize;
    int rsize, rbase; /* the remote group: size, first world rank */
} side_t;

/* root argument of a rooted call whose root is local rank r of the group
 * low == root_low. */
static int root_arg(const side_t *s, int root_low, int r)
{
    if (s->low != root_low)
        return r;
    return s->lrank == r ? MPI_ROOT : MPI_PROC_NULL;
}

static void check_gathers(const side_t *s, int root_low)
{
    int n = s->rsize, root = root_arg(s, root_low, 0);
    int *buf = malloc(sizeof(int) * 4 * (size_t)n * n + 16);
    int *counts = malloc(sizeof(int) * n), *displs = malloc(sizeof(int) * n);
    int mine[2] = {s->w, 100 + s->w};
    for (int i = 0; i < 2 * n; i++)
        buf[i] = -1;
    MT_CHECK_MPI(MPI_Gather(mine, 2, MPI_INT, buf, 2, MPI_INT, root, s->ic));
    for (int i = 0; i < n && root == MPI_ROOT; i++) {
        MT_CHECK_INT_EQ(buf[2 * i], s->rbase + i);
        MT_CHECK_INT_EQ(buf[2 * i + 1], 100 + s->rbase + i);
    }
    if (root == MPI_PROC_NULL)
        MT_CHECK_INT_EQ(buf[0], -1);
    for (int i = 0, at = 1; i < n; at += i + 2, i++) {
        counts[i] = i + 1;
        displs[i] = at; /* one int of gap before each block */
    }
    int *many = malloc(sizeof(int) * (size_t)(s->lrank + 1));
    for (int k = 0; k <= s->lrank; k++)
        many[k] = s->w;
    MT_CHECK_MPI(MPI_Gatherv(many, s->lrank + 1, MPI_INT, buf, counts, displs,
                             MPI_INT, root, s->ic));
    for (int i = 0; i < n && root == MPI_ROOT; i++)
        for (int k = 0; k <= i; k++)
            MT_CHECK_INT_EQ(buf[displs[i] + k], s->rbase + i);
    free(many);
    free(displs);
    free(counts);
    free(buf);
}

static void check_scatters(const side_t *s, int root_low)
{
    int n = s->rsize, root = root_arg(s, root_low, 0);
    int *buf = malloc(sizeof(int) * 3 * (size_t)n + 4);
    int *counts = malloc(sizeof(int) * n), *displs = malloc(sizeof(int) * n);
    for (int i = 0; i < 3 * n; i++)
        buf[i] = 7000 + i;
    int got[3] = {-1, -1, -1};
    MT_CHECK_MPI(MPI_Scatter(buf, 2, MPI_INT, got, 2, MPI_INT, root, s->ic));
    if (root >= 0) {
        MT_CHECK_INT_EQ(got[0], 7000 + 2 * s->lrank);
        MT_CHECK_INT_EQ(got[1], 7001 + 2 * s->lrank);
    } else {
        MT_CHECK_INT_EQ(got[0], -1);
    }
    for (int i = 0; i < n; i++) {
        counts[i] = i % 3;
        displs[i] = 3 * (n - 1 - i); /* blocks in reverse order */
    }
    got[0] = got[1] = -1;
    MT_CHECK_MPI(MPI_Scatterv(buf, counts, displs, MPI_INT, got, s->lrank % 3,
                              MPI_INT, root, s->ic));
    for (int k = 0; root >= 0 && k < s->lrank % 3; k++)
        MT_CHECK_INT_EQ(got[k], 7000 + 3 * (s->lsize - 1 - s->lrank) + k);
    free(displs);
    free(counts);
    free(buf);
}

static void check_allgathers(const side_t *s)
{
    int n = s->rsize;
    int *buf = malloc(sizeof(int) * (size_t)n * (n + 1) + 4);
    int *counts = malloc(sizeof(int) * n), *displs = malloc(sizeof(int) * n);
    MT_CHECK_MPI(MPI_Allgather(&s->w, 1, MPI_INT, buf, 1, MPI_INT, s->ic));
    for (int i = 0; i < n; i++)
        MT_CHECK_INT_EQ(buf[i], s->rbase + i);
    int *many = malloc(sizeof(int) * (size_t)(s->lrank + 1));
    for (int k = 0; k <= s->lrank; k++)
        many[k] = s->w * 10 + k;
    for (int i = 0, at = 0; i < n; at += i + 1, i++) {
        counts[i] = i + 1;
        displs[i] = at;
    }
    MT_CHECK_MPI(MPI_Allgatherv(many, s->lrank + 1, MPI_INT, buf, counts,
                                displs, MPI_INT, s->ic));
    for (int i = 0; i < n; i++)
        for (int k = 0; k <= i; k++)
            MT_CHECK_INT_EQ(buf[displs[i] + k], (s->rbase + i) * 10 + k);
    free(many);
    free(displs);
    free(counts);
    free(buf);
}

/* Block from world rank a (local rank sa) to local rank rb: (sa + rb) % 3
 * ints a * 1000 + rb * 10 + k. */
static void check_alltoalls(const side_t *s)
{
    int n = s->rsize;
    int *out = malloc(sizeof(int) * 3 * (size_t)n);
    int *in = malloc(sizeof(int) * 3 * (size_t)n);
    int *sc = malloc(sizeof(int) * 4 * (size_t)n);
    int *sd = sc + n, *rc = sd + n, *rd = rc + n;
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * n);
    for (int j = 0; j < n; j++) {
        out[j] = s->w * 100 + j;
        types[j] = MPI_INT;
    }
    MT_CHECK_MPI(MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, s->ic));
    for (int i = 0; i < n; i++)
        MT_CHECK_INT_EQ(in[i], (s->rbase + i) * 100 + s->lrank);
    for (int j = 0; j < n; j++) {
        sc[j] = rc[j] = (s->lrank + j) % 3;
        sd[j] = rd[j] = 3 * j;
        for (int k = 0; k < sc[j]; k++)
            out[3 * j + k] = s->w * 1000 + j * 10 + k;
    }
    MT_CHECK_MPI(
        MPI_Alltoallv(out, sc, sd, MPI_INT, in, rc, rd, MPI_INT, s->ic));
    for (int i = 0; i < n; i++)
        for (int k = 0; k < rc[i]; k++)
            MT_CHECK_INT_EQ(in[3 * i + k],
                            (s->rbase + i) * 1000 + s->lrank * 10 + k);
    for (int j = 0; j < n; j++)
        sd[j] = rd[j] = 3 * j * (int)sizeof(int); /* bytes */
    MT_CHECK_MPI(MPI_Alltoallw(out, sc, sd, types, in, rc, rd, types, s->ic));
    for (int i = 0; i < n; i++)
        for (int k = 0; k < rc[i]; k++)
            MT_CHECK_INT_EQ(in[3 * i + k],
                            (s->rbase + i) * 1000 + s->lrank * 10 + k);
    free(types);
    free(sc);
    free(in);
    free(out);
}

/* Each group's total is lsize * rsize elements; element e of world rank
 * w's sendbuf is w + e.  Sum of the remote group's world ranks: rsum. */
static void check_reduce_scatters(const side_t *s)
{
    int total = s->lsize * s->rsize, n = s->lsize;
    int rsum = s->rsize * s->rbase + s->rsize * (s->rsize - 1) / 2;
    int *sendbuf = malloc(sizeof(int) * (size_t)total);
    int *got = malloc(sizeof(int) * (size_t)total);
    int *counts = malloc(sizeof(int) * (size_t)n);
    for (int e = 0; e < total; e++)
        sendbuf[e] = s->w + e;
    MT_CHECK_MPI(MPI_Reduce_scatter_block(sendbuf, got, s->rsize, MPI_INT,
                                          MPI_SUM, s->ic));
    for (int k = 0; k < s->rsize; k++)
        MT_CHECK_INT_EQ(got[k], rsum + s->rsize * (s->lrank * s->rsize + k));
    for (int i = 0; i < n; i++)
        counts[i] = s->rsize;
    if (n > 1) { /* the first gets two shares, the last none */
        counts[0] += s->rsize;
        counts[n - 1] = 0;
    }
    int first = 0;
    for (int i = 0; i < s->lrank; i++)
        first += counts[i];
    MT_CHECK_MPI(
        MPI_Reduce_scatter(sendbuf, got, counts, MPI_INT, MPI_SUM, s->ic));
    for (int k = 0; k < counts[s->lrank]; k++)
        MT_CHECK_INT_EQ(got[k], rsum + s->rsize * (first + k));
    free(counts);
    free(got);
    free(sendbuf);
}

static void check_nonblocking(const side_t *s)
{
    int n = s->rsize, root = root_arg(s, 0, 0);
    int *buf = malloc(sizeof(int) * 2 * (size_t)n);
    MPI_Request req;
    MT_CHECK_MPI(
        MPI_Igather(&s->w, 1, MPI_INT, buf, 1, MPI_INT, root, s->ic, &req));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; root == MPI_ROOT && i < n; i++)
        MT_CHECK_INT_EQ(buf[i], s->rbase + i);
    int *out = buf + n;
    for (int j = 0; j < n; j++)
        out[j] = s->w * 100 + j;
    MT_CHECK_MPI(MPI_Ialltoall(out, 1, MPI_INT, buf, 1, MPI_INT, s->ic, &req));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++)
        MT_CHECK_INT_EQ(buf[i], (s->rbase + i) * 100 + s->lrank);
    free(buf);
}

static void check_errors(const side_t *s)
{
    int x = s->w, y[64];
    MPI_Request req;
    MPI_Comm_set_errhandler(s->ic, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(MPI_Iscan(&x, y, 1, MPI_INT, MPI_SUM, s->ic, &req),
                       MPI_ERR_COMM);
    MT_CHECK_ERR_CLASS(MPI_Exscan(&x, y, 1, MPI_INT, MPI_SUM, s->ic),
                       MPI_ERR_COMM);
    MT_CHECK_ERR_CLASS(
        MPI_Gather(&x, 1, MPI_INT, y, 1, MPI_INT, s->rsize, s->ic),
        MPI_ERR_ROOT);
    MT_CHECK_ERR_CLASS(
        MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, s->ic),
        MPI_ERR_BUFFER);
    MT_CHECK_ERR_CLASS(
        MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, s->ic),
        MPI_ERR_BUFFER);
    MT_CHECK_ERR_CLASS(
        MPI_Reduce_scatter_block(MPI_IN_PLACE, y, 1, MPI_INT, MPI_SUM, s->ic),
        MPI_ERR_BUFFER);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK(size >= 2);
    if (size >= 2) {
        int nlow = size / 3 > 0 ? size / 3 : 1;
        side_t s = {.low = rank < nlow, .w = rank};
        s.lsize = s.low ? nlow : size - nlow;
        s.rsize = size - s.lsize;
        s.rbase = s.low ? nlow : 0;
        MPI_Comm local;
        MPI_Comm_split(MPI_COMM_WORLD, s.low, rank, &local);
        MPI_Comm_rank(local, &s.lrank);
        MT_CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD,
                                          s.low ? nlow : 0, 7, &s.ic));
        for (int root_low = 0; root_low < 2; root_low++) {
            check_gathers(&s, root_low);
            check_scatters(&s, root_low);
        }
        check_allgathers(&s);
        check_alltoalls(&s);
        check_reduce_scatters(&s);
        check_nonblocking(&s);
        check_errors(&s);
        MPI_Comm_free(&s.ic);
        MPI_Comm_free(&local);
    }
    return mt_finish_and_finalize();
}
