/*
 * p2p_typed: point-to-point between any two layouts of the same type
 * signature.  Every pair of send and receive layouts (contiguous,
 * strided vector, indexed, resized vector, padded struct) moves eager and
 * rendezvous sizes, with the receive posted first (the sender copies
 * straight into the receive layout) or late (the receiver copies from the
 * sender's layout or out of an envelope), and as MPI_Issend.  The data
 * lands in type-map order and the gaps of the receive buffer keep their
 * contents.  Types freed while their Isend/Irecv is pending still work,
 * and a receive layout too small reports MPI_ERR_TRUNCATE after filling
 * what fits.
 */
#include "mpitest.h"

#include <stdlib.h>

#define HOLE (-1)
#define NLAYOUTS 5
#define BIG 8192 /* ints: over any eager limit */

typedef struct layout {
    MPI_Datatype type;
    int per;  /* ints of data in one element */
    int span; /* ints one element's extent covers */
} layout_t;

static MPI_Datatype commit(MPI_Datatype t)
{
    MT_CHECK_MPI(MPI_Type_commit(&t));
    return t;
}

static layout_t make_layout(int which)
{
    MPI_Datatype t, v;
    switch (which) {
    case 0: return (layout_t){MPI_INT, 1, 1};
    case 1: /* 2 ints every 5, 4 times */
        MT_CHECK_MPI(MPI_Type_vector(4, 2, 5, MPI_INT, &t));
        return (layout_t){commit(t), 8, 17};
    case 2: { /* 1 int, then 3 ints after a gap */
        int bl[2] = {1, 3}, disp[2] = {0, 4};
        MT_CHECK_MPI(MPI_Type_indexed(2, bl, disp, MPI_INT, &t));
        return (layout_t){commit(t), 4, 7};
    }
    case 3: /* 2+2 ints of 6 */
        MT_CHECK_MPI(MPI_Type_vector(2, 2, 3, MPI_INT, &v));
        MT_CHECK_MPI(MPI_Type_create_resized(v, 0, 6 * sizeof(int), &t));
        MT_CHECK_MPI(MPI_Type_free(&v));
        return (layout_t){commit(t), 4, 6};
    default: { /* ints at 12 and 0..: out of order displacements */
        int bl[2] = {3, 1};
        MPI_Aint disp[2] = {3 * sizeof(int), 0};
        MPI_Datatype types[2] = {MPI_INT, MPI_INT};
        MT_CHECK_MPI(MPI_Type_create_struct(2, bl, disp, types, &v));
        MT_CHECK_MPI(MPI_Type_create_resized(v, 0, 8 * sizeof(int), &t));
        MT_CHECK_MPI(MPI_Type_free(&v));
        return (layout_t){commit(t), 4, 8};
    }
    }
}

/* The int offsets of the data of count elements, in type-map order. */
static int *offsets(const layout_t *l, int count)
{
    int n = l->per * count, span = l->span * count;
    int *idx = malloc((size_t)span * sizeof(int));
    int *pos = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < span; i++)
        idx[i] = i;
    int p = 0;
    MT_CHECK_MPI(MPI_Pack(idx, count, l->type, pos, n * (int)sizeof(int), &p,
                          MPI_COMM_WORLD));
    free(idx);
    return pos;
}

typedef struct side {
    const layout_t *l;
    int count;
    int *buf, *pos;
} side_t;

static void side_init(side_t *s, const layout_t *l, int n, int seed, int send)
{
    s->l = l;
    s->count = n / l->per;
    s->buf = malloc((size_t)(l->span * s->count) * sizeof(int));
    s->pos = offsets(l, s->count);
    for (int i = 0; i < l->span * s->count; i++)
        s->buf[i] = HOLE;
    if (send)
        for (int k = 0; k < n; k++)
            s->buf[s->pos[k]] = seed + k;
}

static void side_check(const side_t *s, int n, int got, int seed,
                       const char *what)
{
    int span = s->l->span * s->count, bad = 0;
    int *want = malloc((size_t)span * sizeof(int));
    for (int i = 0; i < span; i++)
        want[i] = HOLE;
    for (int k = 0; k < got; k++)
        want[s->pos[k]] = seed + k;
    for (int i = 0; i < span && bad < 3; i++)
        if (s->buf[i] != want[i]) {
            MT_FAIL("%s n=%d: int %d is %d, expected %d", what, n, i, s->buf[i],
                    want[i]);
            bad++;
        }
    free(want);
}

static void side_free(side_t *s)
{
    free(s->buf);
    free(s->pos);
}

enum { POSTED, LATE, SYNC, NMODES };

/* One exchange with the partner: send in layout a, receive in layout b. */
static void exchange(const layout_t *a, const layout_t *b, int n, int mode,
                     int rank, int partner)
{
    side_t s, r;
    side_init(&s, a, n, rank * 100000, 1);
    side_init(&r, b, n, 0, 0);
    MPI_Request req;
    MPI_Status st;
    if (mode == POSTED)
        MT_CHECK_MPI(MPI_Irecv(r.buf, r.count, b->type, partner, mode,
                               MPI_COMM_WORLD, &req));
    MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Request sreq;
    if (mode == SYNC)
        MT_CHECK_MPI(MPI_Issend(s.buf, s.count, a->type, partner, mode,
                                MPI_COMM_WORLD, &sreq));
    else
        MT_CHECK_MPI(MPI_Isend(s.buf, s.count, a->type, partner, mode,
                               MPI_COMM_WORLD, &sreq));
    if (mode == POSTED) {
        MT_CHECK_MPI(MPI_Wait(&req, &st));
    } else {
        if (mode == LATE) /* the message waits as unexpected */
            MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        MT_CHECK_MPI(MPI_Recv(r.buf, r.count, b->type, partner, mode,
                              MPI_COMM_WORLD, &st));
    }
    MT_CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    int count;
    MT_CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    MT_CHECK_INT_EQ(count, n);
    side_check(&r, n, n, partner * 100000, "exchange");
    side_free(&s);
    side_free(&r);
}

/* Both sides free their types before the transfer completes. */
static void freed_while_pending(int rank, int partner)
{
    layout_t a = make_layout(1), b = make_layout(2);
    side_t s, r;
    int n = BIG;
    side_init(&s, &a, n, rank * 100000, 1);
    side_init(&r, &b, n, 0, 0);
    MPI_Request reqs[2];
    MT_CHECK_MPI(MPI_Irecv(r.buf, r.count, b.type, partner, 9, MPI_COMM_WORLD,
                           &reqs[0]));
    MT_CHECK_MPI(MPI_Isend(s.buf, s.count, a.type, partner, 9, MPI_COMM_WORLD,
                           &reqs[1]));
    MT_CHECK_MPI(MPI_Type_free(&a.type));
    MT_CHECK_MPI(MPI_Type_free(&b.type));
    MT_CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    side_check(&r, n, n, partner * 100000, "freed while pending");
    side_free(&s);
    side_free(&r);
}

/* A receive layout with room for half the data: truncation, and the half
 * that fits is there. */
static void truncated(int rank, int partner)
{
    layout_t a = make_layout(3), b = make_layout(1);
    side_t s, r;
    side_init(&s, &a, BIG, rank * 100000, 1);
    side_init(&r, &b, BIG / 2, 0, 0);
    MPI_Request sreq;
    MPI_Status st;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MT_CHECK_MPI(
        MPI_Isend(s.buf, s.count, a.type, partner, 11, MPI_COMM_WORLD, &sreq));
    MT_CHECK_ERR_CLASS(
        MPI_Recv(r.buf, r.count, b.type, partner, 11, MPI_COMM_WORLD, &st),
        MPI_ERR_TRUNCATE);
    MT_CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    side_check(&r, BIG / 2, BIG / 2, partner * 100000, "truncated");
    MT_CHECK_MPI(MPI_Type_free(&a.type));
    MT_CHECK_MPI(MPI_Type_free(&b.type));
    side_free(&s);
    side_free(&r);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int partner = mt_partner(MPI_COMM_WORLD);
    layout_t l[NLAYOUTS];
    for (int i = 0; i < NLAYOUTS; i++)
        l[i] = make_layout(i);
    const int sizes[2] = {8, BIG};
    for (int i = 0; i < NLAYOUTS; i++)
        for (int j = 0; j < NLAYOUTS; j++)
            for (int s = 0; s < 2; s++)
                for (int mode = 0; mode < NMODES; mode++)
                    exchange(&l[i], &l[j], sizes[s], mode, rank, partner);
    freed_while_pending(rank, partner);
    truncated(rank, partner);
    for (int i = 1; i < NLAYOUTS; i++)
        MT_CHECK_MPI(MPI_Type_free(&l[i].type));
    return mt_finish_and_finalize();
}
