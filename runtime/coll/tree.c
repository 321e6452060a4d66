/* The reduction tree of coll/tree.h. */
#include "coll/tree.h"

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

static void eval(const amp_coll_tree_eval_t *e, int lo, int hi, int depth,
                 char *dest)
{
    const char *v = e->leaf(e, lo, hi);
    if (v) {
        memcpy(dest, v, e->bytes);
        return;
    }
    /* The right child into dest, the left one where it is (or into this
     * level's work buffer), then dest = left op dest. */
    int mid = amp_coll_tree_mid(lo, hi);
    eval(e, mid, hi, depth, dest);
    const char *left = e->leaf(e, lo, mid);
    if (!left) {
        eval(e, lo, mid, depth + 1, e->tmp[depth]);
        left = e->tmp[depth];
    }
    amp_coll_apply(e->op, e->unit, e->units, left - e->lb, dest - e->lb);
}

void amp_coll_tree_eval(const amp_coll_tree_eval_t *e, int lo, int hi,
                        char *dest)
{
    eval(e, lo, hi, 0, dest);
}
