/* The reduction tree (coll/tree.h): its shape, covers, and that computing
 * it in pieces gives the same operands in the same order. */
#include "unit.h"

#include "coll/hier.h"
#include "coll/shm.h"
#include "coll/tree.h"
#include "mpi.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_N 200

/* A combination that records its operands and their order exactly: not
 * associative, not commutative. */
static uint64_t combine(uint64_t a, uint64_t b)
{
    uint64_t x = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull);
    x = (x ^ (x >> 31)) * 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 29);
}

/* inout = in op inout, as amp_coll_apply calls user functions. */
static void op_fn(void *in, void *inout, int *len, int *dt)
{
    (void)dt;
    const uint64_t *a = in;
    uint64_t *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = combine(a[i], b[i]);
}

static const amp_coll_op_t op = {.op_id = 0, .user = op_fn};

static uint64_t leaf_value(int r)
{
    return 1000 + (uint64_t)r;
}

/* Leaves: one rank each; or, with covers set, the cover values given. */
typedef struct given {
    uint64_t ranks[MAX_N];
    int ncover, cover_lo[MAX_N], cover_hi[MAX_N];
    uint64_t cover[MAX_N];
} given_t;

static const char *leaf(const amp_coll_tree_eval_t *e, int lo, int hi)
{
    const given_t *g = e->arg;
    for (int k = 0; k < g->ncover; k++)
        if (g->cover_lo[k] == lo && g->cover_hi[k] == hi)
            return (const char *)&g->cover[k];
    return hi - lo == 1 && !g->ncover ? (const char *)&g->ranks[lo] : NULL;
}

static uint64_t eval(const given_t *g, int lo, int hi)
{
    static uint64_t work[AMP_COLL_TREE_MAX_HEIGHT];
    char *tmp[AMP_COLL_TREE_MAX_HEIGHT];
    for (int i = 0; i < AMP_COLL_TREE_MAX_HEIGHT; i++)
        tmp[i] = (char *)&work[i];
    amp_coll_tree_eval_t e = {.leaf = leaf,
                              .arg = g,
                              .op = &op,
                              .unit = amp_dt_predefined(AMPI_DTID_MPI_BYTE),
                              .units = 1,
                              .bytes = sizeof(uint64_t),
                              .tmp = tmp};
    uint64_t v = 0;
    amp_coll_tree_eval(&e, lo, hi, (char *)&v);
    return v;
}

static void ranks_init(given_t *g)
{
    memset(g, 0, sizeof(*g));
    for (int r = 0; r < MAX_N; r++)
        g->ranks[r] = leaf_value(r);
}

/* What the binomial reduction to rank 0 computes (coll.c, sched.c): in
 * round mask, rank r (a multiple of 2 mask) combines its value with rank
 * r + mask's. */
static uint64_t binomial(int n)
{
    uint64_t acc[MAX_N];
    for (int r = 0; r < n; r++)
        acc[r] = leaf_value(r);
    for (int mask = 1; mask < n; mask <<= 1)
        for (int r = 0; r + mask < n; r += 2 * mask)
            acc[r] = combine(acc[r], acc[r + mask]);
    return acc[0];
}

UNIT_TEST(tree_shape)
{
    UNIT_EQ(amp_coll_tree_height(1), 0);
    UNIT_EQ(amp_coll_tree_height(2), 1);
    UNIT_EQ(amp_coll_tree_height(3), 2);
    UNIT_EQ(amp_coll_tree_height(64), 6);
    UNIT_EQ(amp_coll_tree_height(65), 7);
    UNIT_EQ(amp_coll_tree_mid(0, 2), 1);
    UNIT_EQ(amp_coll_tree_mid(0, 6), 4);
    UNIT_EQ(amp_coll_tree_mid(4, 6), 5);
    UNIT_EQ(amp_coll_tree_mid(4, 7), 6);
    UNIT_EQ(amp_coll_tree_mid(0, 8), 4);
    UNIT_EQ(amp_coll_tree_mid(8, 13), 12);
}

/* The tree is the binomial reduction's, for every size. */
UNIT_TEST(tree_is_binomial)
{
    given_t *g = malloc(sizeof(*g));
    ranks_init(g);
    for (int n = 1; n <= MAX_N; n++)
        UNIT_EQ(eval(g, 0, n), binomial(n));
    free(g);
}

/* A cover partitions its range into nodes of the tree, each maximal. */
UNIT_TEST(tree_cover)
{
    int lo[2 * AMP_COLL_TREE_MAX_HEIGHT], hi[2 * AMP_COLL_TREE_MAX_HEIGHT];
    for (int n = 1; n <= 70; n++) {
        for (int a = 0; a < n; a++) {
            for (int b = a + 1; b <= n; b++) {
                int k = amp_coll_tree_cover(n, a, b, lo, hi);
                UNIT_TRUE(k >= 1 && k <= 2 * amp_coll_tree_height(n) + 1);
                int at = a;
                for (int i = 0; i < k; i++) {
                    UNIT_EQ(lo[i], at);
                    at = hi[i];
                    /* A node: hi - lo is at most the largest power of two
                     * lo is a multiple of. */
                    int size = hi[i] - lo[i];
                    UNIT_TRUE(lo[i] == 0 || (lo[i] & -lo[i]) >= size);
                }
                UNIT_EQ(at, b);
            }
        }
    }
    UNIT_EQ(amp_coll_tree_cover(8, 0, 8, lo, hi), 1);
    UNIT_EQ(amp_coll_tree_cover(8, 4, 8, lo, hi), 1);
    UNIT_EQ(amp_coll_tree_cover(13, 3, 9, lo, hi), 3); /* 3, [4,8), 8 */
}

/* Blocks of consecutive ranks (processes) that each compute their cover,
 * then the nodes above computed from those values: the same result as the
 * whole tree at once, for any split. */
UNIT_TEST(tree_in_pieces)
{
    given_t *whole = malloc(sizeof(*whole)), *top = malloc(sizeof(*top));
    ranks_init(whole);
    unsigned seed = 12345;
    for (int trial = 0; trial < 2000; trial++) {
        seed = seed * 1103515245u + 12345u;
        int n = 1 + (int)(seed >> 8) % MAX_N;
        memset(top, 0, sizeof(*top));
        int a = 0;
        while (a < n) {
            seed = seed * 1103515245u + 12345u;
            int b = a + 1 + (int)((seed >> 8) % (unsigned)(n - a));
            int lo[2 * AMP_COLL_TREE_MAX_HEIGHT];
            int hi[2 * AMP_COLL_TREE_MAX_HEIGHT];
            int k = amp_coll_tree_cover(n, a, b, lo, hi);
            for (int i = 0; i < k; i++) {
                int c = top->ncover++;
                top->cover_lo[c] = lo[i];
                top->cover_hi[c] = hi[i];
                top->cover[c] = eval(whole, lo[i], hi[i]);
            }
            a = b;
        }
        UNIT_EQ(eval(top, 0, n), eval(whole, 0, n));
    }
    free(top);
    free(whole);
}

/* The layout of a communicator over several processes with the identity
 * map (MPI_COMM_WORLD) is made once per process and placement and shared
 * by the members there; one with a member list is each member's own. */
UNIT_TEST(tree_hier_layout_of_the_identity_map_is_shared_in_a_process)
{
    static const int rank_proc[6] = {0, 0, 0, 1, 1, 1};
    static const int rank_pe[6] = {0, 0, 0, 0, 0, 0};
    static const int listed[6] = {0, 1, 2, 3, 4, 5};
    amp_coll_shm_registry_t reg;
    memset(&reg, 0, sizeof(reg));
    amp_coll_where_t w = {6, NULL, rank_proc, 0, 5, &reg, rank_pe, 1, NULL, 0};
    amp_coll_hier_t *a = NULL, *b = NULL, *moved = NULL, *own = NULL;
    UNIT_EQ(amp_coll_hier_new(&w, &a), AMP_OK);
    UNIT_EQ(amp_coll_hier_new(&w, &b), AMP_OK);
    UNIT_TRUE(a != NULL && a == b);
    w.placed = 1; /* ranks changed process since: a new layout */
    UNIT_EQ(amp_coll_hier_new(&w, &moved), AMP_OK);
    UNIT_TRUE(moved != NULL && moved != a);
    w.world = listed;
    UNIT_EQ(amp_coll_hier_new(&w, &own), AMP_OK);
    UNIT_TRUE(own != NULL && own != a && own != moved);
    amp_coll_hier_free(a);
    UNIT_TRUE(reg.hiers != NULL); /* b still holds it */
    amp_coll_hier_free(b);
    amp_coll_hier_free(moved);
    amp_coll_hier_free(own);
    UNIT_TRUE(reg.hiers == NULL);
}
