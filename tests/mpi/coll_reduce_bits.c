/*
 * Reductions give the same bits whatever the placement (MPI-3.1 §5.9.1's
 * advice to implementors): the values below are chosen so that any other
 * association of the operands changes the result's bits (doubles and
 * floats of widely different magnitudes and signs, long doubles with bits
 * beyond a double's, complex numbers, products near 1, and user-defined
 * operations: a commutative sum and a non-commutative 2x2 matrix product).
 *
 * For every reduction call (MPI_Reduce to two roots, MPI_Allreduce, in
 * place too, MPI_Reduce_scatter, MPI_Reduce_scatter_block, MPI_Scan,
 * MPI_Exscan, their nonblocking forms, and MPI_Reduce / MPI_Allreduce on a
 * sub-communicator whose order is not MPI_COMM_WORLD's), on a short vector
 * (the shared-memory small path), a long one and one long enough for the
 * leaders of several processes to share it out by segments, rank 0 prints one
 * line per call and value kind: a hash of every rank's result bytes.  Runs with
 * the same +vp must print the same lines under any +p, +mapping and number
 * of processes (lit/runtime/reduction-bits-*.test compare them).
 *
 * Within a run it checks, before printing: that the blocking and
 * nonblocking forms, the two roots, in place, and the reduce-scatter
 * slices all agree bit for bit with MPI_Allreduce (one combining order for
 * every path); and that after the ranks moved (AMPI_Migrate_to_pe to a
 * scrambled placement, then AMPI_Migrate with the balancer given by
 * +balancer, the ranks of process 0 reporting four times the load, so that
 * ranks change process) every hash is the same as before.
 */
#include "mpitest.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define SHORT_COUNT 5
#define LONG_COUNT 300
/* 36 KiB of doubles and more: across processes, the leaders share an
 * allreduce of 32 KiB or more out by segments (coll/segments.c). */
#define BIG_COUNT 4501

enum kind_id {
    K_DOUBLE,
    K_PROD,
    K_FLOAT,
    K_LDOUBLE,
    K_COMPLEX,
    K_USER_SUM,
    K_MATRIX,
    NKINDS
};

/* A kind of value: its type and operation, its element size, and which
 * bytes of each basic value carry data (a long double's 10 of 16). */
typedef struct kind {
    const char *name;
    MPI_Datatype type;
    MPI_Op op;
    size_t size;  /* bytes per element */
    size_t basic; /* bytes per basic value */
    size_t sig;   /* of which significant */
} kind_t;

enum call_id {
    C_REDUCE0,
    C_REDUCE_LAST,
    C_ALLREDUCE,
    C_ALLREDUCE_IN_PLACE,
    C_REDUCE_SCATTER,
    C_REDUCE_SCATTER_BLOCK,
    C_SCAN,
    C_EXSCAN,
    C_IREDUCE,
    C_IALLREDUCE,
    C_IREDUCE_SCATTER,
    C_IREDUCE_SCATTER_BLOCK,
    C_ISCAN,
    C_IEXSCAN,
    C_SUB_REDUCE,
    C_SUB_ALLREDUCE,
    NCALLS
};

static const char *const call_names[NCALLS] = {"MPI_Reduce(root=0)",
                                               "MPI_Reduce(root=last)",
                                               "MPI_Allreduce",
                                               "MPI_Allreduce(in_place)",
                                               "MPI_Reduce_scatter",
                                               "MPI_Reduce_scatter_block",
                                               "MPI_Scan",
                                               "MPI_Exscan",
                                               "MPI_Ireduce",
                                               "MPI_Iallreduce",
                                               "MPI_Ireduce_scatter",
                                               "MPI_Ireduce_scatter_block",
                                               "MPI_Iscan",
                                               "MPI_Iexscan",
                                               "MPI_Reduce(subcomm)",
                                               "MPI_Allreduce(subcomm)"};

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const double *a = in;
    double *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = a[i] + b[i];
}

/* inout = in x inout, 2x2 row-major matrices: not commutative. */
static void matrix_mul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int k = 0; k < *len; k++) {
        const double *a = (const double *)in + 4 * k;
        double *b = (double *)inout + 4 * k;
        double c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                       a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof(c));
    }
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* In [0.5, 1), from 53 bits of h. */
static double unit(uint64_t h)
{
    return 0.5 + (double)(h >> 11) * 0x1p-54;
}

/* A double of magnitude 2^-30 .. 2^30 and either sign. */
static double wide(uint64_t h, int range)
{
    double v = ldexp(unit(h), (int)((h >> 3) % (2 * range + 1)) - range);
    return (h & 1) ? -v : v;
}

/* Element i of rank r's contribution. */
static void value(int k, int r, long i, void *out)
{
    uint64_t h = mix(((uint64_t)r << 40) ^ ((uint64_t)i << 8) ^ (uint64_t)k);
    uint64_t h2 = mix(h);
    switch (k) {
    case K_DOUBLE:
    case K_USER_SUM: *(double *)out = wide(h, 30); break;
    case K_PROD: *(double *)out = 1.0 + (unit(h) - 0.75) * 0x1p-6; break;
    case K_FLOAT: *(float *)out = (float)wide(h, 20); break;
    case K_LDOUBLE: {
        long double v = (long double)wide(h, 30);
        v *= 1.0L + (long double)unit(h2) * 0x1p-58L;
        memset(out, 0, sizeof(long double));
        *(long double *)out = v;
        break;
    }
    case K_COMPLEX:
        *(double _Complex *)out = wide(h, 30) + wide(h2, 30) * I;
        break;
    case K_MATRIX: {
        double *m = out;
        for (int j = 0; j < 4; j++)
            m[j] = unit(mix(h + (uint64_t)j));
        break;
    }
    }
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static const uint64_t FNV0 = 0xcbf29ce484222325ull;

/* The significant bytes of n elements. */
static uint64_t hash_elems(const kind_t *k, const void *buf, long n)
{
    uint64_t h = FNV0;
    const char *p = buf;
    for (size_t off = 0; off < (size_t)n * k->size; off += k->basic)
        h = fnv(h, p + off, k->sig);
    return h;
}

static int same_elems(const kind_t *k, const void *a, const void *b, long n)
{
    const char *p = a, *q = b;
    for (size_t off = 0; off < (size_t)n * k->size; off += k->basic)
        if (memcmp(p + off, q + off, k->sig) != 0)
            return 0;
    return 1;
}

/* One run of every call on one kind and count. */
typedef struct bufs {
    char *in;    /* this rank's values: total elements */
    char *out;   /* a result: total elements */
    char *all;   /* MPI_Allreduce of count elements, the reference */
    char *whole; /* MPI_Allreduce of total elements */
    int *rcounts;
    long total; /* max(count, size * block) */
    int block;  /* reduce_scatter_block's count */
} bufs_t;

typedef struct ctx {
    int rank, size;
    MPI_Comm sub;
    int sub_rank, sub_size;
    kind_t kinds[NKINDS];
} ctx_t;

static void wait1(MPI_Request *req)
{
    MT_CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
}

/* Runs call c; returns how many elements of b->out are this rank's result
 * (0: none, as at a non-root or rank 0 of an exscan). */
static long run_call(const ctx_t *x, const kind_t *k, int c, int count,
                     bufs_t *b)
{
    MPI_Request req;
    int last = x->size - 1, me = b->rcounts[x->rank];
    memset(b->out, 0, (size_t)b->total * k->size);
    switch (c) {
    case C_REDUCE0:
        MT_CHECK_MPI(MPI_Reduce(b->in, b->out, count, k->type, k->op, 0,
                                MPI_COMM_WORLD));
        return x->rank == 0 ? count : 0;
    case C_REDUCE_LAST:
        MT_CHECK_MPI(MPI_Reduce(b->in, b->out, count, k->type, k->op, last,
                                MPI_COMM_WORLD));
        return x->rank == last ? count : 0;
    case C_ALLREDUCE:
        MT_CHECK_MPI(MPI_Allreduce(b->in, b->out, count, k->type, k->op,
                                   MPI_COMM_WORLD));
        return count;
    case C_ALLREDUCE_IN_PLACE:
        memcpy(b->out, b->in, (size_t)count * k->size);
        MT_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, b->out, count, k->type, k->op,
                                   MPI_COMM_WORLD));
        return count;
    case C_REDUCE_SCATTER:
        MT_CHECK_MPI(MPI_Reduce_scatter(b->in, b->out, b->rcounts, k->type,
                                        k->op, MPI_COMM_WORLD));
        return me;
    case C_REDUCE_SCATTER_BLOCK:
        MT_CHECK_MPI(MPI_Reduce_scatter_block(b->in, b->out, b->block, k->type,
                                              k->op, MPI_COMM_WORLD));
        return b->block;
    case C_SCAN:
        MT_CHECK_MPI(
            MPI_Scan(b->in, b->out, count, k->type, k->op, MPI_COMM_WORLD));
        return count;
    case C_EXSCAN:
        MT_CHECK_MPI(
            MPI_Exscan(b->in, b->out, count, k->type, k->op, MPI_COMM_WORLD));
        return x->rank > 0 ? count : 0;
    case C_IREDUCE:
        MT_CHECK_MPI(MPI_Ireduce(b->in, b->out, count, k->type, k->op, 0,
                                 MPI_COMM_WORLD, &req));
        wait1(&req);
        return x->rank == 0 ? count : 0;
    case C_IALLREDUCE:
        MT_CHECK_MPI(MPI_Iallreduce(b->in, b->out, count, k->type, k->op,
                                    MPI_COMM_WORLD, &req));
        wait1(&req);
        return count;
    case C_IREDUCE_SCATTER:
        MT_CHECK_MPI(MPI_Ireduce_scatter(b->in, b->out, b->rcounts, k->type,
                                         k->op, MPI_COMM_WORLD, &req));
        wait1(&req);
        return me;
    case C_IREDUCE_SCATTER_BLOCK:
        MT_CHECK_MPI(MPI_Ireduce_scatter_block(b->in, b->out, b->block, k->type,
                                               k->op, MPI_COMM_WORLD, &req));
        wait1(&req);
        return b->block;
    case C_ISCAN:
        MT_CHECK_MPI(MPI_Iscan(b->in, b->out, count, k->type, k->op,
                               MPI_COMM_WORLD, &req));
        wait1(&req);
        return count;
    case C_IEXSCAN:
        MT_CHECK_MPI(MPI_Iexscan(b->in, b->out, count, k->type, k->op,
                                 MPI_COMM_WORLD, &req));
        wait1(&req);
        return x->rank > 0 ? count : 0;
    case C_SUB_REDUCE:
        MT_CHECK_MPI(
            MPI_Reduce(b->in, b->out, count, k->type, k->op, 0, x->sub));
        return x->sub_rank == 0 ? count : 0;
    case C_SUB_ALLREDUCE:
        MT_CHECK_MPI(
            MPI_Allreduce(b->in, b->out, count, k->type, k->op, x->sub));
        return count;
    }
    return 0;
}

/* Where call c's result should equal a slice of an allreduce: the
 * reference and the first element, or NULL. */
static const char *reference(const ctx_t *x, const kind_t *k, int c,
                             const bufs_t *b, const char *sub_all)
{
    size_t off = 0;
    switch (c) {
    case C_REDUCE0:
    case C_REDUCE_LAST:
    case C_ALLREDUCE:
    case C_ALLREDUCE_IN_PLACE:
    case C_IREDUCE:
    case C_IALLREDUCE: return b->all;
    case C_SUB_REDUCE: return sub_all;
    case C_REDUCE_SCATTER:
    case C_IREDUCE_SCATTER:
        for (int i = 0; i < x->rank; i++)
            off += (size_t)b->rcounts[i];
        return b->whole + off * k->size;
    case C_REDUCE_SCATTER_BLOCK:
    case C_IREDUCE_SCATTER_BLOCK:
        return b->whole + (size_t)x->rank * (size_t)b->block * k->size;
    default: return NULL;
    }
}

/* Every call on kind k and count elements: hashes[c] folds in this
 * rank's result (every rank's, at rank 0). */
static void run_kind(const ctx_t *x, const kind_t *k, int kid, int count,
                     uint64_t *hashes)
{
    bufs_t b = {.block = count / x->size + 1};
    b.total = (long)x->size * b.block;
    if (b.total < count)
        b.total = count;
    b.rcounts = malloc((size_t)x->size * sizeof(int));
    long given = 0;
    for (int i = 0; i < x->size; i++) {
        b.rcounts[i] = (int)(b.total / x->size) + (i < b.total % x->size);
        given += b.rcounts[i];
    }
    MT_CHECK_INT_EQ(given, b.total);
    size_t bytes = (size_t)b.total * k->size;
    b.in = malloc(bytes);
    b.out = malloc(bytes);
    b.all = malloc(bytes);
    b.whole = malloc(bytes);
    char *sub_all = malloc(bytes);
    uint64_t *got = malloc((size_t)x->size * sizeof(uint64_t));
    for (long i = 0; i < b.total; i++)
        value(kid, x->rank, i, b.in + (size_t)i * k->size);
    MT_CHECK_MPI(
        MPI_Allreduce(b.in, b.all, count, k->type, k->op, MPI_COMM_WORLD));
    MT_CHECK_MPI(MPI_Allreduce(b.in, b.whole, (int)b.total, k->type, k->op,
                               MPI_COMM_WORLD));
    MT_CHECK_MPI(MPI_Allreduce(b.in, sub_all, count, k->type, k->op, x->sub));
    for (int c = 0; c < NCALLS; c++) {
        long n = run_call(x, k, c, count, &b);
        const char *ref = reference(x, k, c, &b, sub_all);
        if (n > 0 && ref && !same_elems(k, b.out, ref, n))
            MT_FAIL("%s on %s, count %d: not the bits of MPI_Allreduce",
                    call_names[c], k->name, count);
        uint64_t h = n > 0 ? hash_elems(k, b.out, n) : 0;
        MT_CHECK_MPI(MPI_Gather(&h, 1, MPI_UINT64_T, got, 1, MPI_UINT64_T, 0,
                                MPI_COMM_WORLD));
        if (x->rank == 0)
            hashes[c] = fnv(hashes[c], got, (size_t)x->size * sizeof(h));
    }
    free(got);
    free(sub_all);
    free(b.whole);
    free(b.all);
    free(b.out);
    free(b.in);
    free(b.rcounts);
}

/* hashes[kind][call], at rank 0. */
static void run_all(const ctx_t *x, uint64_t (*hashes)[NCALLS])
{
    for (int kid = 0; kid < NKINDS; kid++) {
        for (int c = 0; c < NCALLS; c++)
            hashes[kid][c] = FNV0;
        run_kind(x, &x->kinds[kid], kid, SHORT_COUNT, hashes[kid]);
        run_kind(x, &x->kinds[kid], kid, LONG_COUNT, hashes[kid]);
        run_kind(x, &x->kinds[kid], kid, BIG_COUNT, hashes[kid]);
    }
}

static int attr_int(int key)
{
    int *v, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, key, &v, &flag);
    return flag ? *v : -1;
}

static void kinds_init(kind_t *k, MPI_Datatype matrix, MPI_Op usum, MPI_Op mmul)
{
    size_t ld_sig = LDBL_MANT_DIG == 64 ? 10 : sizeof(long double);
    k[K_DOUBLE] = (kind_t){"double", MPI_DOUBLE, MPI_SUM, 8, 8, 8};
    k[K_PROD] = (kind_t){"double-prod", MPI_DOUBLE, MPI_PROD, 8, 8, 8};
    k[K_FLOAT] = (kind_t){"float", MPI_FLOAT, MPI_SUM, 4, 4, 4};
    k[K_LDOUBLE] = (kind_t){"long-double",       MPI_LONG_DOUBLE,     MPI_SUM,
                            sizeof(long double), sizeof(long double), ld_sig};
    k[K_COMPLEX] =
        (kind_t){"double-complex", MPI_C_DOUBLE_COMPLEX, MPI_SUM, 16, 8, 8};
    k[K_USER_SUM] = (kind_t){"user-commutative", MPI_DOUBLE, usum, 8, 8, 8};
    k[K_MATRIX] = (kind_t){"user-noncommutative", matrix, mmul, 32, 8, 8};
}

static void print_hashes(const ctx_t *x, uint64_t (*hashes)[NCALLS])
{
    for (int c = 0; c < NCALLS; c++)
        for (int kid = 0; kid < NKINDS; kid++)
            printf("%s %s %016llx\n", call_names[c], x->kinds[kid].name,
                   (unsigned long long)hashes[kid][c]);
    fflush(stdout);
}

/* The same hashes as the first run, after the ranks moved. */
static void check_again(const ctx_t *x, uint64_t (*first)[NCALLS],
                        const char *after)
{
    uint64_t again[NKINDS][NCALLS];
    run_all(x, again);
    if (x->rank != 0)
        return;
    for (int kid = 0; kid < NKINDS; kid++)
        for (int c = 0; c < NCALLS; c++)
            if (again[kid][c] != first[kid][c])
                MT_FAIL("%s on %s: other bits after %s", call_names[c],
                        x->kinds[kid].name, after);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ctx_t x;
    MPI_Comm_rank(MPI_COMM_WORLD, &x.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &x.size);
    MPI_Datatype matrix;
    MPI_Op usum, mmul;
    MT_CHECK_MPI(MPI_Type_contiguous(4, MPI_DOUBLE, &matrix));
    MT_CHECK_MPI(MPI_Type_commit(&matrix));
    MT_CHECK_MPI(MPI_Op_create(user_sum, 1, &usum));
    MT_CHECK_MPI(MPI_Op_create(matrix_mul, 0, &mmul));
    kinds_init(x.kinds, matrix, usum, mmul);
    /* Thirds of the ranks, each in reverse order. */
    MT_CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, x.rank % 3, -x.rank, &x.sub));
    MPI_Comm_rank(x.sub, &x.sub_rank);
    MPI_Comm_size(x.sub, &x.sub_size);

    uint64_t first[NKINDS][NCALLS];
    run_all(&x, first);
    /* Elsewhere in the process: a scrambled placement. */
    int pes = attr_int(AMPI_NUM_WTHS);
    MT_CHECK_MPI(AMPI_Migrate_to_pe((x.rank * 5 + 3) % (pes > 0 ? pes : 1)));
    check_again(&x, first, "AMPI_Migrate_to_pe");
    /* The balancer (+balancer) moves ranks off the loaded process. */
    MT_CHECK_MPI(
        AMPI_Load_set_value(attr_int(AMPI_MY_PROCESS) == 0 ? 4.0 : 1.0));
    MT_CHECK_MPI(AMPI_Migrate(AMPI_INFO_LB_SYNC));
    check_again(&x, first, "AMPI_Migrate");
    if (x.rank == 0)
        print_hashes(&x, first);

    MPI_Comm_free(&x.sub);
    MPI_Op_free(&usum);
    MPI_Op_free(&mmul);
    MPI_Type_free(&matrix);
    return mt_finish_and_finalize();
}
