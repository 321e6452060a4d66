/*
 * intercomm_nbc: MPI_Ibarrier, MPI_Ibcast, MPI_Ireduce, MPI_Iallreduce,
 * MPI_Ireduce_scatter_block and MPI_Ireduce_scatter on an
 * inter-communicator between groups of unequal sizes (world ranks below
 * size / 3, at least one, and the rest), all outstanding at once and
 * completed by one MPI_Waitall over the requests in reverse order.  Roots
 * sit in either group; the reductions use a non-commutative operation
 * (products of 2x2 matrices modulo a prime, which must come out in rank
 * order) beside MPI_SUM.  Then the blocking forms with the same
 * operation, and the errors: a bad root is MPI_ERR_ROOT, MPI_IN_PLACE
 * MPI_ERR_BUFFER, a NULL request MPI_ERR_ARG.  Needs two ranks.
 */
#include "mpitest.h"

#include <stdlib.h>
#include <string.h>

#define P 1009

typedef struct side {
    MPI_Comm ic;
    int low; /* in the low group */
    int w, lrank, lsize;
    int rsize, rbase; /* the remote group: size, first world rank */
    MPI_Datatype mat; /* four ints: a 2x2 matrix, row by row */
    MPI_Op mul;       /* their product modulo P: not commutative */
} side_t;

/* inout = in x inout for each matrix. */
static void mat_mul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const int *a = in;
    int *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        int c[4] = {
            (a[0] * b[0] + a[1] * b[2]) % P, (a[0] * b[1] + a[1] * b[3]) % P,
            (a[2] * b[0] + a[3] * b[2]) % P, (a[2] * b[1] + a[3] * b[3]) % P};
        memcpy(b, c, sizeof(c));
    }
}

/* The matrix world rank w contributes as element e. */
static void mat_of(int w, int e, int *m)
{
    m[0] = w % 7 + 1 + e;
    m[1] = 1;
    m[2] = (w + e) % 3;
    m[3] = 2 * w + 1;
}

/* Element e of the product of the matrices of world ranks base ..
 * base + n - 1, in that order. */
static void mat_expect(int base, int n, int e, int *m)
{
    mat_of(base, e, m);
    for (int i = 1; i < n; i++) {
        int next[4], len = 1;
        mat_of(base + i, e, next);
        /* m = m x next: mat_mul(in = m, inout = next) */
        mat_mul(m, next, &len, NULL);
        memcpy(m, next, sizeof(next));
    }
}

static void check_mat(const int *got, int base, int n, int e)
{
    int m[4];
    mat_expect(base, n, e, m);
    for (int k = 0; k < 4; k++)
        MT_CHECK_INT_EQ(got[k], m[k]);
}

/* root argument of a rooted call whose root is local rank r of the group
 * low == root_low. */
static int root_arg(const side_t *s, int root_low, int r)
{
    if (s->low != root_low)
        return r;
    return s->lrank == r ? MPI_ROOT : MPI_PROC_NULL;
}

/* Elements of the reduce_scatter vector that local rank i of a group of
 * n gets, of total. */
static int share(int total, int n, int i)
{
    return total / n + (i < total % n);
}

typedef struct bufs {
    int bc_low[4], bc_high[4];   /* bcasts from each group */
    int red_low[8], red_high[8]; /* two matrices to each group's root */
    int all_sum[3], all_mat[8];
    int send_mat[8]; /* this rank's two matrices */
    int sum_in[3];
    int *rsb_in, *rsb_out; /* reduce_scatter_block */
    int *rs_in, *rs_out;   /* reduce_scatter */
    int *rs_counts;
} bufs_t;

static void post_all(const side_t *s, bufs_t *b, int rsb_count,
                     MPI_Request *reqs)
{
    int bc_root_low = root_arg(s, 1, s->low ? s->lsize - 1 : s->rsize - 1);
    int bc_root_high = root_arg(s, 0, s->low ? 1 % s->rsize : 1 % s->lsize);
    int red_root_low = root_arg(s, 1, 0);
    int red_root_high = root_arg(s, 0, s->low ? s->rsize - 1 : s->lsize - 1);
    for (int i = 0; i < 4; i++) {
        b->bc_low[i] = bc_root_low == MPI_ROOT ? 500 + i : -1;
        b->bc_high[i] = bc_root_high == MPI_ROOT ? 600 + i : -1;
    }
    MT_CHECK_MPI(MPI_Ibarrier(s->ic, &reqs[0]));
    MT_CHECK_MPI(
        MPI_Ibcast(b->bc_low, 4, MPI_INT, bc_root_low, s->ic, &reqs[1]));
    MT_CHECK_MPI(
        MPI_Ibcast(b->bc_high, 4, MPI_INT, bc_root_high, s->ic, &reqs[2]));
    MT_CHECK_MPI(MPI_Ireduce(b->send_mat, b->red_low, 2, s->mat, s->mul,
                             red_root_low, s->ic, &reqs[3]));
    MT_CHECK_MPI(MPI_Ireduce(b->send_mat, b->red_high, 2, s->mat, s->mul,
                             red_root_high, s->ic, &reqs[4]));
    MT_CHECK_MPI(MPI_Iallreduce(b->sum_in, b->all_sum, 3, MPI_INT, MPI_SUM,
                                s->ic, &reqs[5]));
    MT_CHECK_MPI(MPI_Iallreduce(b->send_mat, b->all_mat, 2, s->mat, s->mul,
                                s->ic, &reqs[6]));
    MT_CHECK_MPI(MPI_Ireduce_scatter_block(b->rsb_in, b->rsb_out, rsb_count,
                                           MPI_INT, MPI_SUM, s->ic, &reqs[7]));
    MT_CHECK_MPI(MPI_Ireduce_scatter(b->rs_in, b->rs_out, b->rs_counts, s->mat,
                                     s->mul, s->ic, &reqs[8]));
}

static void check_results(const side_t *s, const bufs_t *b, int rsb_count)
{
    /* bcasts: the receiving group has the data, the sending one kept its */
    for (int i = 0; i < 4; i++) {
        int rl = s->low ? (s->lrank == s->lsize - 1 ? 500 + i : -1) : 500 + i;
        int rh = s->low ? 600 + i : (s->lrank == 1 % s->lsize ? 600 + i : -1);
        MT_CHECK_INT_EQ(b->bc_low[i], rl);
        MT_CHECK_INT_EQ(b->bc_high[i], rh);
    }
    /* reduce: the root got the remote group's product, in rank order */
    if (s->low && s->lrank == 0)
        for (int e = 0; e < 2; e++)
            check_mat(b->red_low + 4 * e, s->rbase, s->rsize, e);
    if (!s->low && s->lrank == s->lsize - 1)
        for (int e = 0; e < 2; e++)
            check_mat(b->red_high + 4 * e, s->rbase, s->rsize, e);
    /* allreduce: everyone has the remote group's */
    long long wsum = 0;
    for (int i = 0; i < s->rsize; i++)
        wsum += s->rbase + i;
    MT_CHECK_INT_EQ(b->all_sum[0], wsum);
    MT_CHECK_INT_EQ(b->all_sum[1], s->rsize);
    MT_CHECK_INT_EQ(b->all_sum[2], -wsum);
    for (int e = 0; e < 2; e++)
        check_mat(b->all_mat + 4 * e, s->rbase, s->rsize, e);
    /* reduce_scatter_block: element j of the vector is sum of w * (j+1) */
    for (int k = 0; k < rsb_count; k++)
        MT_CHECK_INT_EQ(b->rsb_out[k], wsum * (s->lrank * rsb_count + k + 1));
    /* reduce_scatter: this rank's share of the matrix vector */
    int first = 0;
    for (int i = 0; i < s->lrank; i++)
        first += b->rs_counts[i];
    for (int k = 0; k < b->rs_counts[s->lrank]; k++)
        check_mat(b->rs_out + 4 * k, s->rbase, s->rsize, first + k);
}

static void check_nonblocking(const side_t *s)
{
    bufs_t b;
    memset(&b, 0, sizeof(b));
    /* reduce_scatter_block: lsize * count the same in both groups */
    int rsb_count = s->rsize, total = 7;
    b.rsb_in = malloc(sizeof(int) * (size_t)(s->lsize * rsb_count));
    b.rsb_out = malloc(sizeof(int) * (size_t)rsb_count);
    for (int j = 0; j < s->lsize * rsb_count; j++)
        b.rsb_in[j] = s->w * (j + 1);
    b.rs_counts = malloc(sizeof(int) * (size_t)s->lsize);
    for (int i = 0; i < s->lsize; i++)
        b.rs_counts[i] = share(total, s->lsize, i);
    b.rs_in = malloc(sizeof(int) * 4 * (size_t)total);
    b.rs_out = malloc(sizeof(int) * 4 * (size_t)total + 4);
    for (int e = 0; e < total; e++)
        mat_of(s->w, e, b.rs_in + 4 * e);
    for (int e = 0; e < 2; e++)
        mat_of(s->w, e, b.send_mat + 4 * e);
    b.sum_in[0] = s->w;
    b.sum_in[1] = 1;
    b.sum_in[2] = -s->w;
    MPI_Request reqs[9], rev[9];
    post_all(s, &b, rsb_count, reqs);
    for (int i = 0; i < 9; i++)
        rev[i] = reqs[8 - i];
    MT_CHECK_MPI(MPI_Waitall(9, rev, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 9; i++)
        MT_CHECK(rev[i] == MPI_REQUEST_NULL);
    check_results(s, &b, rsb_count);
    free(b.rs_out);
    free(b.rs_in);
    free(b.rs_counts);
    free(b.rsb_out);
    free(b.rsb_in);
}

/* The blocking forms, on the same schedules, with the matrix product. */
static void check_blocking(const side_t *s)
{
    int mine[8], got[8];
    for (int e = 0; e < 2; e++)
        mat_of(s->w, e, mine + 4 * e);
    MT_CHECK_MPI(MPI_Allreduce(mine, got, 2, s->mat, s->mul, s->ic));
    for (int e = 0; e < 2; e++)
        check_mat(got + 4 * e, s->rbase, s->rsize, e);
    for (int root_low = 0; root_low < 2; root_low++) {
        int root = root_arg(s, root_low, 0);
        memset(got, 0, sizeof(got));
        MT_CHECK_MPI(MPI_Reduce(mine, got, 2, s->mat, s->mul, root, s->ic));
        if (root == MPI_ROOT)
            for (int e = 0; e < 2; e++)
                check_mat(got + 4 * e, s->rbase, s->rsize, e);
    }
    MT_CHECK_MPI(MPI_Barrier(s->ic));
}

static void check_errors(const side_t *s)
{
    int x = s->w, y[4];
    MPI_Request req;
    MPI_Comm_set_errhandler(s->ic, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(MPI_Ibcast(y, 1, MPI_INT, s->rsize, s->ic, &req),
                       MPI_ERR_ROOT);
    MT_CHECK_ERR_CLASS(
        MPI_Ireduce(&x, y, 1, MPI_INT, MPI_SUM, s->rsize + 3, s->ic, &req),
        MPI_ERR_ROOT);
    MT_CHECK_ERR_CLASS(
        MPI_Iallreduce(MPI_IN_PLACE, y, 1, MPI_INT, MPI_SUM, s->ic, &req),
        MPI_ERR_BUFFER);
    MT_CHECK_ERR_CLASS(MPI_Ibarrier(s->ic, NULL), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Ireduce_scatter_block(MPI_IN_PLACE, y, 1, MPI_INT,
                                                 MPI_SUM, s->ic, &req),
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
        MPI_Type_contiguous(4, MPI_INT, &s.mat);
        MPI_Type_commit(&s.mat);
        MPI_Op_create(mat_mul, 0, &s.mul);
        check_nonblocking(&s);
        check_blocking(&s);
        check_errors(&s);
        MPI_Op_free(&s.mul);
        MPI_Type_free(&s.mat);
        MPI_Comm_free(&s.ic);
        MPI_Comm_free(&local);
    }
    return mt_finish_and_finalize();
}
