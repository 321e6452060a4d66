/* The reduction tree of coll/tree.h. */
#include "coll/tree.h"

#include <stdlib.h>
#include <string.h>

static int cover(int lo, int hi, int a, int b, int *los, int *his, int k)
{
    if (hi <= a || lo >= b)
        return k;
    if (a <= lo && hi <= b) {
        los[k] = lo;
        his[k] = hi;
        return k + 1;
    }
    int mid = amp_coll_tree_mid(lo, hi);
    k = cover(lo, mid, a, b, los, his, k);
    return cover(mid, hi, a, b, los, his, k);
}

int amp_coll_tree_cover(int n, int a, int b, int *lo, int *hi)
{
    return a < b ? cover(0, n, a, b, lo, hi, 0) : 0;
}

amp_status_t amp_coll_covers_make(amp_coll_covers_t *cv, int n, int nblocks,
                                  const int *first)
{
    int los[2 * AMP_COLL_TREE_MAX_HEIGHT], his[2 * AMP_COLL_TREE_MAX_HEIGHT];
    cv->at = malloc(((size_t)nblocks + 1) * sizeof(int));
    cv->lo = malloc((size_t)nblocks * sizeof(los));
    if (!cv->at || !cv->lo) {
        amp_coll_covers_free(cv);
        return AMP_ERR_NOMEM;
    }
    cv->at[0] = 0;
    for (int b = 0; b < nblocks; b++) {
        int nc = amp_coll_tree_cover(n, first[b], first[b + 1], los, his);
        memcpy(cv->lo + cv->at[b], los, (size_t)nc * sizeof(int));
        cv->at[b + 1] = cv->at[b] + nc;
    }
    return AMP_OK;
}

void amp_coll_covers_free(amp_coll_covers_t *cv)
{
    free(cv->at);
    free(cv->lo);
    cv->at = cv->lo = NULL;
}

int amp_coll_covers_find(const amp_coll_covers_t *cv, const int *first,
                         int nblocks, int lo, int hi, int *block)
{
    int b = amp_coll_block_of(first, nblocks, lo);
    if (hi > first[b + 1])
        return -1;
    const int *los = cv->lo + cv->at[b];
    int nc = cv->at[b + 1] - cv->at[b], k = 0;
    while (k < nc - 1 && los[k] != lo)
        k++;
    *block = b;
    return k;
}

/* The value of node [lo, hi): where leaf() has it, or computed into dest
 * (the right child into dest, the left one where it is or into this
 * level's work buffer, then dest = left op dest). */
static const char *value(const amp_coll_tree_eval_t *e, int lo, int hi,
                         int depth, char *dest)
{
    const char *v = e->leaf(e, lo, hi);
    if (v)
        return v;
    int mid = amp_coll_tree_mid(lo, hi);
    const char *right = value(e, mid, hi, depth, dest);
    if (right != dest)
        memcpy(dest, right, e->bytes);
    const char *left = value(e, lo, mid, depth + 1, e->tmp[depth]);
    amp_coll_apply(e->op, e->unit, e->units, left - e->lb, dest - e->lb);
    return dest;
}

void amp_coll_tree_eval(const amp_coll_tree_eval_t *e, int lo, int hi,
                        char *dest)
{
    const char *v = value(e, lo, hi, 0, dest);
    if (v != dest)
        memcpy(dest, v, e->bytes);
}
