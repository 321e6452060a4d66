/* Load-balancing strategies: loads in, a new rank -> PE map out. */
#include "lb/lb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const kind_names[] = {
    "none",     "GreedyLB",       "RefineLB", "DistributedLB", "GreedyCommLB",
    "HybridLB", "GreedyRefineLB", "RotateLB", "RandCentLB",    "RecBipartLB"};

/* Charm++'s balancers with no strategy of their own here: the closest. */
static const struct {
    const char *name;
    int kind;
    const char *why;
} charm_names[] = {
    {"TreeLB", AMP_LB_HYBRID, "processes, then PEs"},
    {"HierarchicalLB", AMP_LB_HYBRID, "processes, then PEs"},
    {"MetisLB", AMP_LB_GREEDY_COMM, "no graph partitioner: load and bytes"},
    {"ScotchLB", AMP_LB_GREEDY_COMM, "no graph partitioner: load and bytes"},
    {"RefineCommLB", AMP_LB_REFINE, "refinement by load only"},
    {"RefineKLB", AMP_LB_REFINE, "refinement by load only"},
    {"RefineSwapLB", AMP_LB_REFINE, "refinement by load only"},
    {"GreedyAgentLB", AMP_LB_GREEDY, "greedy by load only"},
    {"ComboCentLB", AMP_LB_GREEDY, "greedy by load only"},
    {"NeighborLB", AMP_LB_DISTRIBUTED, "decided PE by PE"},
    {"WSLB", AMP_LB_DISTRIBUTED, "decided PE by PE"},
    {"DummyLB", AMP_LB_NONE, "no moves"},
    {"NullLB", AMP_LB_NONE, "no moves"},
};

int amp_lb_kind_mapped(const char *name, const char **mapped)
{
    if (mapped)
        *mapped = NULL;
    for (int k = 0; k < (int)(sizeof(kind_names) / sizeof(*kind_names)); k++)
        if (strcasecmp(name, kind_names[k]) == 0)
            return k;
    for (size_t k = 0; k < sizeof(charm_names) / sizeof(*charm_names); k++)
        if (strcasecmp(name, charm_names[k].name) == 0) {
            if (mapped)
                *mapped = charm_names[k].why;
            return charm_names[k].kind;
        }
    return -1;
}

int amp_lb_kind_of(const char *name)
{
    return amp_lb_kind_mapped(name, NULL);
}

const char *amp_lb_kind_name(int kind)
{
    if (kind < 0 || kind >= AMP_LB_NKINDS)
        return "?";
    return kind_names[kind];
}

/* A small generator for the random draws (splitmix64). */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Whether rank a goes before rank b: heavier first, equal loads by rank. */
static int before(const double *loads, int a, int b)
{
    return loads[a] > loads[b] || (loads[a] == loads[b] && a < b);
}

/* One pass of a bottom-up merge sort: the sorted runs of width w in from,
 * merged in pairs into to. */
static void merge_runs(int n, const double *loads, const int *from, int *to,
                       int w)
{
    for (int lo = 0; lo < n; lo += 2 * w) {
        int mid = lo + w < n ? lo + w : n;
        int hi = lo + 2 * w < n ? lo + 2 * w : n;
        int i = lo, j = mid, k = lo;
        while (i < mid && j < hi)
            to[k++] = before(loads, from[j], from[i]) ? from[j++] : from[i++];
        while (i < mid)
            to[k++] = from[i++];
        while (j < hi)
            to[k++] = from[j++];
    }
}

/* The ranks by load, heaviest first, equal loads by rank: a merge sort,
 * O(n log n) (qsort would need the loads in a global; an insertion sort
 * took 2.2 s at 100,000 ranks and minutes at a million).  Without memory
 * for the merges, an insertion sort. */
static void order_by_load(int n, const double *loads, int *order)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    if (n < 2)
        return;
    int *tmp = malloc((size_t)n * sizeof(int));
    if (!tmp) {
        for (int i = 1; i < n; i++)
            for (int k = i; k > 0 && before(loads, order[k], order[k - 1]);
                 k--) {
                int t = order[k];
                order[k] = order[k - 1];
                order[k - 1] = t;
            }
        return;
    }
    int *from = order, *to = tmp;
    for (int w = 1; w < n; w *= 2) {
        merge_runs(n, loads, from, to, w);
        int *t = from;
        from = to;
        to = t;
    }
    if (from != order)
        memcpy(order, from, (size_t)n * sizeof(int));
    free(tmp);
}

static double *pe_loads(int n, const double *loads, const int *map, int npes)
{
    double *pl = calloc((size_t)npes, sizeof(double));
    if (!pl)
        return NULL;
    for (int r = 0; r < n; r++)
        pl[map[r]] += loads[r];
    return pl;
}

/* The PEs in a binary heap by load, the least loaded on top (equal loads:
 * the lower PE first), so that the greedy strategies find it in O(1) and
 * pay O(log PEs) for each rank they place instead of a look at every PE. */
typedef struct pe_heap {
    int npes;
    int *heap; /* PEs, heap[0] the least loaded */
    int *pos;  /* a PE's index in heap */
    double *pl;
} pe_heap_t;

static int heap_less(const pe_heap_t *h, int a, int b)
{
    return h->pl[a] < h->pl[b] || (h->pl[a] == h->pl[b] && a < b);
}

static void heap_swap(pe_heap_t *h, int i, int j)
{
    int a = h->heap[i], b = h->heap[j];
    h->heap[i] = b;
    h->heap[j] = a;
    h->pos[b] = i;
    h->pos[a] = j;
}

/* PE p's load changed: back to its place. */
static void heap_fix(pe_heap_t *h, int p)
{
    int i = h->pos[p];
    while (i > 0 && heap_less(h, p, h->heap[(i - 1) / 2])) {
        heap_swap(h, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    for (;;) {
        int l = 2 * i + 1, m = i;
        if (l < h->npes && heap_less(h, h->heap[l], h->heap[m]))
            m = l;
        if (l + 1 < h->npes && heap_less(h, h->heap[l + 1], h->heap[m]))
            m = l + 1;
        if (m == i)
            return;
        heap_swap(h, i, m);
        i = m;
    }
}

/* Every PE at load 0, in order (already a heap). */
static amp_status_t heap_init(pe_heap_t *h, int npes)
{
    h->npes = npes;
    h->heap = malloc((size_t)npes * sizeof(int));
    h->pos = malloc((size_t)npes * sizeof(int));
    h->pl = calloc((size_t)npes, sizeof(double));
    if (!h->heap || !h->pos || !h->pl)
        return AMP_ERR_NOMEM;
    for (int p = 0; p < npes; p++)
        h->heap[p] = h->pos[p] = p;
    return AMP_OK;
}

static void heap_free(pe_heap_t *h)
{
    free(h->heap);
    free(h->pos);
    free(h->pl);
}

/* The least loaded PE, cur where it is one of them, else the lowest. */
static int least_loaded(const pe_heap_t *h, int cur)
{
    int p = h->heap[0];
    return h->pl[cur] <= h->pl[p] ? cur : p;
}

static void heap_add(pe_heap_t *h, int p, double load)
{
    h->pl[p] += load;
    heap_fix(h, p);
}

/* The ranks by load and the PEs in a heap, for the greedy strategies. */
static amp_status_t greedy_begin(int n, const double *loads, int npes,
                                 int **order, pe_heap_t *h)
{
    *order = malloc((size_t)(n ? n : 1) * sizeof(int));
    amp_status_t st = heap_init(h, npes);
    if (!*order || st != AMP_OK) {
        free(*order);
        heap_free(h);
        return AMP_ERR_NOMEM;
    }
    order_by_load(n, loads, *order);
    return AMP_OK;
}

amp_status_t amp_lb_greedy(int n, const double *loads, const int *cur, int npes,
                           int *out)
{
    int *order;
    pe_heap_t h;
    if (greedy_begin(n, loads, npes, &order, &h) != AMP_OK)
        return AMP_ERR_NOMEM;
    for (int i = 0; i < n; i++) {
        int r = order[i];
        out[r] = least_loaded(&h, cur[r]);
        heap_add(&h, out[r], loads[r]);
    }
    free(order);
    heap_free(&h);
    return AMP_OK;
}

amp_status_t amp_lb_greedy_refine(int n, const double *loads, const int *cur,
                                  int npes, double tol, int *out)
{
    int *order;
    pe_heap_t h;
    if (greedy_begin(n, loads, npes, &order, &h) != AMP_OK)
        return AMP_ERR_NOMEM;
    double total = 0;
    for (int r = 0; r < n; r++)
        total += loads[r];
    for (int i = 0; i < n; i++) {
        int r = order[i], best = least_loaded(&h, cur[r]);
        double bound = h.pl[best] + loads[r];
        if (bound < total / npes)
            bound = total / npes;
        out[r] = h.pl[cur[r]] + loads[r] <= bound * (1.0 + tol) ? cur[r] : best;
        heap_add(&h, out[r], loads[r]);
    }
    free(order);
    heap_free(&h);
    return AMP_OK;
}

void amp_lb_rotate(int n, const int *cur, int npes, int *out)
{
    for (int r = 0; r < n; r++)
        out[r] = (cur[r] + 1) % npes;
}

void amp_lb_random(int n, int npes, unsigned long seed, int *out)
{
    uint64_t rng = seed;
    for (int r = 0; r < n; r++)
        out[r] = (int)(next_random(&rng) % (uint64_t)npes);
}

/* The least loaded PE. */
static int lightest(const double *pl, int npes)
{
    int best = 0;
    for (int p = 1; p < npes; p++)
        if (pl[p] < pl[best])
            best = p;
    return best;
}

static void move_rank(int *map, double *pl, const double *loads, int r, int to)
{
    pl[map[r]] -= loads[r];
    pl[to] += loads[r];
    map[r] = to;
}

/* A placement being planned: n ranks with loads, in order (heaviest
 * first), rank r on PE out[r] of npes, PE p carrying pl[p], total the sum
 * of the loads. */
typedef struct placement {
    int n, npes;
    const double *loads;
    int *order;
    int *out;
    double *pl;
    double total;
} placement_t;

/* Starts m on the placement cur of n ranks with loads over npes PEs, out
 * (a copy of cur) the one to change. */
static amp_status_t placement_begin(placement_t *m, int n, const double *loads,
                                    const int *cur, int npes, int *out)
{
    memcpy(out, cur, (size_t)n * sizeof(int));
    *m = (placement_t){.n = n, .npes = npes, .loads = loads, .out = out};
    m->order = malloc((size_t)(n ? n : 1) * sizeof(int));
    m->pl = pe_loads(n, loads, cur, npes);
    if (!m->order || !m->pl) {
        free(m->order);
        free(m->pl);
        return AMP_ERR_NOMEM;
    }
    order_by_load(n, loads, m->order);
    for (int p = 0; p < npes; p++)
        m->total += m->pl[p];
    return AMP_OK;
}

static void placement_end(placement_t *m)
{
    free(m->order);
    free(m->pl);
}

/* RefineLB's view of a placement: besides m, the ranks of each PE at the
 * start in order (grp, from grp_first[p]; rank r at gpos[r]), each rank's
 * place in order (pos), and the ranks moved onto each PE since (a list of
 * entries from head[p]).  A rank is on PE p while out[r] is p.  One that
 * leaves the PE it started on is taken out of grp (skip[i]: a later
 * place to look, i itself while grp[i] is there; found in
 * near-constant time, path halving); one that left a PE it was moved to
 * stays in that PE's list and is passed over.  Finding a rank to move is
 * then a binary search in a PE's ranks rather than a pass over all of
 * them (the pass made a step O(n), and a swap O(n^2)). */
typedef struct refine {
    placement_t m;
    int *grp, *grp_first, *gpos, *pos, *skip;
    int *head, *ent_rank, *ent_next, nent, cap;
} refine_t;

/* The first place from i on whose rank is still where it started. */
static int alive(refine_t *f, int i)
{
    while (f->skip[i] != i) {
        f->skip[i] = f->skip[f->skip[i]];
        i = f->skip[i];
    }
    return i;
}

static void refine_free(refine_t *f)
{
    free(f->gpos);
    free(f->skip);
    free(f->grp);
    free(f->grp_first);
    free(f->pos);
    free(f->head);
    free(f->ent_rank);
    free(f->ent_next);
    placement_end(&f->m);
}

static amp_status_t refine_begin(refine_t *f, int n, const double *loads,
                                 const int *cur, int npes, int *out)
{
    memset(f, 0, sizeof(*f));
    if (placement_begin(&f->m, n, loads, cur, npes, out) != AMP_OK)
        return AMP_ERR_NOMEM;
    size_t nn = (size_t)(n ? n : 1);
    f->grp = malloc(nn * sizeof(int));
    f->grp_first = calloc((size_t)npes + 1, sizeof(int));
    f->pos = malloc(nn * sizeof(int));
    f->gpos = malloc(nn * sizeof(int));
    f->skip = malloc((nn + 1) * sizeof(int));
    f->head = malloc((size_t)npes * sizeof(int));
    if (!f->grp || !f->grp_first || !f->pos || !f->gpos || !f->skip ||
        !f->head) {
        refine_free(f);
        return AMP_ERR_NOMEM;
    }
    for (int r = 0; r < n; r++)
        f->grp_first[cur[r] + 1]++;
    for (int p = 0; p < npes; p++) {
        f->grp_first[p + 1] += f->grp_first[p];
        f->head[p] = -1;
    }
    int *fill = f->head; /* borrowed: each PE's next free place */
    for (int p = 0; p < npes; p++)
        fill[p] = f->grp_first[p];
    for (int i = 0; i < n; i++) {
        int r = f->m.order[i];
        f->pos[r] = i;
        f->gpos[r] = fill[cur[r]]++;
        f->grp[f->gpos[r]] = r;
    }
    for (int i = 0; i <= n; i++)
        f->skip[i] = i;
    for (int p = 0; p < npes; p++)
        f->head[p] = -1;
    return AMP_OK;
}

/* Moves rank r to PE to, noting it among to's arrivals. */
static int refine_move(refine_t *f, int r, int to)
{
    if (f->nent == f->cap) {
        int cap = f->cap ? 2 * f->cap : 64;
        int *a = realloc(f->ent_rank, (size_t)cap * sizeof(int));
        if (a)
            f->ent_rank = a;
        int *b = a ? realloc(f->ent_next, (size_t)cap * sizeof(int)) : NULL;
        if (!b)
            return 0;
        f->ent_next = b;
        f->cap = cap;
    }
    f->ent_rank[f->nent] = r;
    f->ent_next[f->nent] = f->head[to];
    f->head[to] = f->nent++;
    int i = f->gpos[r];
    if (f->skip[i] == i && f->grp_first[f->m.out[r]] <= i &&
        i < f->grp_first[f->m.out[r] + 1])
        f->skip[i] = i + 1; /* leaves the PE it started on */
    move_rank(f->m.out, f->m.pl, f->m.loads, r, to);
    return 1;
}

/* The first place in a[lo, hi) (heaviest first) whose load is at most x. */
static int first_at_most(const double *loads, const int *a, int lo, int hi,
                         double x)
{
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (loads[a[mid]] <= x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The heaviest rank on PE from with a load in (0, room] (the first such
 * in order), or -1. */
static int fitting_rank(refine_t *f, int from, double room)
{
    const double *loads = f->m.loads;
    const int *out = f->m.out;
    int best = -1, i = alive(f, first_at_most(loads, f->grp, f->grp_first[from],
                                              f->grp_first[from + 1], room));
    if (i < f->grp_first[from + 1] && loads[f->grp[i]] > 0 &&
        out[f->grp[i]] == from)
        best = f->grp[i];
    for (int e = f->head[from]; e >= 0; e = f->ent_next[e]) {
        int r = f->ent_rank[e];
        if (out[r] == from && loads[r] > 0 && loads[r] <= room &&
            (best < 0 || f->pos[r] < f->pos[best]))
            best = r;
    }
    return best;
}

/* Whether b, on light with a load below la by less than gap, is a better
 * partner than best (-1: none): lighter, or as light and of lower rank. */
static int better_partner(const double *loads, double la, double gap, int b,
                          int best)
{
    double d = la - loads[b];
    if (!(d > 0 && d < gap))
        return 0;
    return best < 0 || loads[b] < loads[best] ||
           (loads[b] == loads[best] && b < best);
}

static int by_value(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The ranks moved onto PE p that are there now, in order, into *a (their
 * count; -1 when out of memory). */
static int arrivals_now(const refine_t *f, int p, int **a)
{
    int n = 0;
    for (int e = f->head[p]; e >= 0; e = f->ent_next[e])
        n++;
    int *pos = malloc((size_t)(n ? n : 1) * sizeof(int));
    if (!pos)
        return -1;
    n = 0;
    for (int e = f->head[p]; e >= 0; e = f->ent_next[e])
        if (f->m.out[f->ent_rank[e]] == p)
            pos[n++] = f->pos[f->ent_rank[e]];
    qsort(pos, (size_t)n, sizeof(int), by_value);
    for (int i = 0; i < n; i++)
        pos[i] = f->m.order[pos[i]];
    *a = pos;
    return n;
}

/* In a[lo, hi) (heaviest first, equal loads by rank), the lightest rank
 * whose load is below la by less than gap, of lowest rank among equals;
 * or -1.  group: a is grp, where only the ranks still there count. */
static int partner_in(refine_t *f, const int *a, int lo, int hi, int group,
                      double la, double gap)
{
    const double *loads = f->m.loads;
    int k = first_at_most(loads, a, lo, hi, la - gap);
    while (k > lo) {
        double l = loads[a[k - 1]]; /* the lightest left: a run of them */
        if (l >= la)
            return -1;
        int s = first_at_most(loads, a, lo, hi, l);
        int i = group ? alive(f, s) : s;
        if (i < k && better_partner(loads, la, gap, a[i], -1))
            return a[i];
        k = s;
    }
    return -1;
}

/* A swap being chosen: PE light (its ranks from the start in f->grp,
 * those moved onto it since in arr), the gap between the two PEs, and the
 * best pair so far (a on the heavy PE, b on light; gain d = their
 * difference). */
typedef struct swap {
    int light, narr;
    const int *arr;
    double gap, d;
    int a, b;
} swap_t;

/* Considers rank a of the heavy PE for the swap s. */
static void swap_candidate(refine_t *f, int a, swap_t *s)
{
    const double *loads = f->m.loads;
    double la = loads[a];
    int b = partner_in(f, f->grp, f->grp_first[s->light],
                       f->grp_first[s->light + 1], 1, la, s->gap);
    int c = partner_in(f, s->arr, 0, s->narr, 0, la, s->gap);
    if (c >= 0 && better_partner(loads, la, s->gap, c, b))
        b = c;
    if (b < 0)
        return;
    double d = la - loads[b];
    if (d > s->d || (d == s->d && s->a >= 0 && a < s->a)) {
        s->d = d;
        s->a = a;
        s->b = b;
    }
}

/* The swap of a rank on PE heavy with a lighter one on PE light that
 * lowers heavy the most while leaving light below what heavy had (ties:
 * the lowest ranks); 0 if there is none (ranks in *a, *b). */
static int best_swap(refine_t *f, int heavy, int light, int *a, int *b)
{
    const double *pl = f->m.pl;
    int *arr;
    swap_t s = {.light = light,
                .narr = arrivals_now(f, light, &arr),
                .gap = pl[heavy] - pl[light],
                .a = -1,
                .b = -1};
    if (s.narr < 0)
        return 0;
    s.arr = arr;
    for (int i = alive(f, f->grp_first[heavy]); i < f->grp_first[heavy + 1];
         i = alive(f, i + 1))
        swap_candidate(f, f->grp[i], &s);
    for (int e = f->head[heavy]; e >= 0; e = f->ent_next[e])
        if (f->m.out[f->ent_rank[e]] == heavy)
            swap_candidate(f, f->ent_rank[e], &s);
    free(arr);
    *a = s.a;
    *b = s.b;
    return s.d > 0;
}
/* One step on the most loaded PE; 0 when it is within limit or nothing
 * helps. */
static int refine_step(refine_t *f, double limit)
{
    int npes = f->m.npes;
    double *pl = f->m.pl;
    int heavy = 0;
    for (int p = 1; p < npes; p++)
        if (pl[p] > pl[heavy])
            heavy = p;
    if (pl[heavy] <= limit)
        return 0;
    int light = lightest(pl, npes);
    /* A move may fill the receiver up to the limit, and must leave it
     * below what the sender had (else it only shifts the peak). */
    double room = limit - pl[light];
    if (pl[heavy] - pl[light] <= room)
        room = pl[heavy] - pl[light] - 1e-12;
    int r = fitting_rank(f, heavy, room);
    if (r >= 0)
        return refine_move(f, r, light);
    /* No rank fits: exchange a heavy one for a lighter one. */
    int a = -1, b = -1;
    if (!best_swap(f, heavy, light, &a, &b))
        return 0;
    return refine_move(f, a, light) && refine_move(f, b, heavy);
}

amp_status_t amp_lb_refine(int n, const double *loads, const int *cur, int npes,
                           double tol, int *out)
{
    refine_t f;
    if (refine_begin(&f, n, loads, cur, npes, out) != AMP_OK)
        return AMP_ERR_NOMEM;
    double limit = f.m.total / npes * (1.0 + tol);
    /* Every step lowers the sum of the squared PE loads, so this ends; n
     * steps bound it anyway. */
    for (int steps = 0; steps < n; steps++)
        if (!refine_step(&f, limit))
            break;
    refine_free(&f);
    return AMP_OK;
}

#define DIST_ROUNDS 4
#define DIST_SAMPLES 3

/* One overloaded PE's turn: sample a few PEs, give ranks to the least
 * loaded sample while that stays under the average. */
static void dist_turn(const placement_t *m, int p, double avg, uint64_t *rng)
{
    int n = m->n, npes = m->npes, *out = m->out;
    const double *loads = m->loads;
    const int *order = m->order;
    double *pl = m->pl;
    int sample[DIST_SAMPLES];
    int ns = npes - 1 < DIST_SAMPLES ? npes - 1 : DIST_SAMPLES;
    for (int k = 0; k < ns; k++) {
        int q = (int)(next_random(rng) % (uint64_t)(npes - 1));
        sample[k] = q >= p ? q + 1 : q;
    }
    for (int i = 0; i < n && pl[p] > avg; i++) {
        int r = order[i];
        if (out[r] != p)
            continue;
        int best = -1;
        for (int k = 0; k < ns; k++)
            if (best < 0 || pl[sample[k]] < pl[best])
                best = sample[k];
        /* Under the average, or at least below what p has. */
        if (best < 0 || loads[r] <= 0 || pl[best] + loads[r] >= pl[p])
            continue;
        move_rank(out, pl, loads, r, best);
    }
}

amp_status_t amp_lb_distributed(int n, const double *loads, const int *cur,
                                int npes, unsigned long seed, int *out)
{
    if (npes < 2) {
        memcpy(out, cur, (size_t)n * sizeof(int));
        return AMP_OK;
    }
    placement_t m;
    if (placement_begin(&m, n, loads, cur, npes, out) != AMP_OK)
        return AMP_ERR_NOMEM;
    /* A little slack over the average, as the peers' DistributedLB. */
    double avg = m.total / npes * 1.01;
    uint64_t rng = seed;
    for (int round = 0; round < DIST_ROUNDS; round++)
        for (int p = 0; p < npes; p++)
            if (m.pl[p] > avg)
                dist_turn(&m, p, avg, &rng);
    placement_end(&m);
    return AMP_OK;
}

double amp_lb_max_pe_load(const amp_lb_input_t *in, const int *map)
{
    double *pl = pe_loads(in->n, in->loads, map, in->npes);
    if (!pl)
        return 0;
    double max = 0;
    for (int p = 0; p < in->npes; p++)
        max = pl[p] > max ? pl[p] : max;
    free(pl);
    return max;
}

/* What the moves of map cost (in->move_cost): the most any one process
 * takes in, whose PE takes them in one after another.  0 when unknown or
 * out of memory. */
double amp_lb_moves_cost(const amp_lb_input_t *in, const int *map)
{
    if (!in->move_cost || !in->pe_proc || in->npes <= 0)
        return 0;
    int nprocs = in->pe_proc[in->npes - 1] + 1;
    double *in_cost = calloc((size_t)nprocs, sizeof(double)), most = 0;
    if (!in_cost)
        return 0;
    for (int r = 0; r < in->n; r++) {
        int to = in->pe_proc[map[r]];
        if (to != in->pe_proc[in->cur[r]])
            in_cost[to] += in->move_cost[r];
    }
    for (int q = 0; q < nprocs; q++)
        most = in_cost[q] > most ? in_cost[q] : most;
    free(in_cost);
    return most;
}

/* The strategies that place by load alone (not RotateLB, RandomLB, nor
 * GreedyCommLB, which also weighs bytes) keep the ranks where they are
 * unless the plan gains at least in->min_gain, and more over the horizon
 * than its moves between processes cost. */
static void keep_unless_gain(int kind, const amp_lb_input_t *in, int *out)
{
    if (in->min_gain <= 0 || kind == AMP_LB_ROTATE || kind == AMP_LB_RANDOM ||
        kind == AMP_LB_GREEDY_COMM || kind == AMP_LB_NONE)
        return;
    double now = amp_lb_max_pe_load(in, in->cur),
           then = amp_lb_max_pe_load(in, out);
    double horizon = in->horizon > 0 ? in->horizon : 1;
    /* RecBipartLB moves the ranks at its parts' edges only: a small gain
     * is worth its few moves, and what they cost is weighed below. */
    double need = kind == AMP_LB_RECBIPART ? 0 : in->min_gain;
    if (then > now * (1 - need) ||
        (now - then) * horizon < amp_lb_moves_cost(in, out))
        memcpy(out, in->cur, (size_t)in->n * sizeof(int));
}

void amp_lb_debug_spread(unsigned long step, const amp_lb_input_t *in,
                         const int *out, int proc)
{
    double sum = 0;
    for (int i = 0; i < in->n; i++)
        sum += in->loads[i];
    fprintf(stderr,
            "ampi: lb: step %lu%s: the busiest PE's load %.4g s before, "
            "%.4g s planned; the mean %.4g s\n",
            step, proc < 0 ? "" : " in this process",
            amp_lb_max_pe_load(in, in->cur), amp_lb_max_pe_load(in, out),
            in->npes > 0 ? sum / in->npes : 0.0);
}

static amp_status_t plan_input(int kind, const amp_lb_input_t *in, int *out)
{
    switch (kind) {
    case AMP_LB_GREEDY_COMM:
        if (in->graph)
            return amp_lb_greedy_comm(in->n, in->loads, in->cur, in->npes,
                                      in->graph, out);
        return amp_lb_greedy(in->n, in->loads, in->cur, in->npes, out);
    case AMP_LB_RECBIPART:
        return amp_lb_recbipart(in->n, in->loads, in->npes, in->graph, out);
    case AMP_LB_HYBRID:
        if (in->pe_proc)
            return amp_lb_hybrid(in->n, in->loads, in->cur, in->npes,
                                 in->pe_proc, out);
        return amp_lb_greedy(in->n, in->loads, in->cur, in->npes, out);
    default:
        return amp_lb_plan(kind, in->n, in->loads, in->cur, in->npes, in->seed,
                           out);
    }
}

amp_status_t amp_lb_plan_input(int kind, const amp_lb_input_t *in, int *out)
{
    amp_status_t st = plan_input(kind, in, out);
    if (st == AMP_OK)
        keep_unless_gain(kind, in, out);
    return st;
}

amp_status_t amp_lb_plan(int kind, int n, const double *loads, const int *cur,
                         int npes, unsigned long seed, int *out)
{
    switch (kind) {
    case AMP_LB_GREEDY_COMM:
    case AMP_LB_HYBRID: return amp_lb_greedy(n, loads, cur, npes, out);
    case AMP_LB_GREEDY: return amp_lb_greedy(n, loads, cur, npes, out);
    case AMP_LB_REFINE:
        return amp_lb_refine(n, loads, cur, npes, AMP_LB_REFINE_TOLERANCE, out);
    case AMP_LB_GREEDY_REFINE:
        return amp_lb_greedy_refine(n, loads, cur, npes,
                                    AMP_LB_REFINE_TOLERANCE, out);
    case AMP_LB_ROTATE: amp_lb_rotate(n, cur, npes, out); return AMP_OK;
    case AMP_LB_RANDOM: amp_lb_random(n, npes, seed, out); return AMP_OK;
    case AMP_LB_RECBIPART: return amp_lb_recbipart(n, loads, npes, NULL, out);
    case AMP_LB_DISTRIBUTED:
        return amp_lb_distributed(n, loads, cur, npes, seed, out);
    default: memcpy(out, cur, (size_t)n * sizeof(int)); return AMP_OK;
    }
}

/* ---- GreedyCommLB ---------------------------------------------------- */

/* g with every edge both ways: what a rank sent and what it received. */
typedef struct sym_graph {
    int *first, *peer;
    double *bytes;
} sym_graph_t;

static void sym_free(sym_graph_t *s)
{
    free(s->first);
    free(s->peer);
    free(s->bytes);
}

static amp_status_t sym_of(int n, const amp_lb_graph_t *g, sym_graph_t *s)
{
    int m = g->first[n];
    s->first = calloc((size_t)n + 2, sizeof(int));
    s->peer = malloc((size_t)(m ? 2 * m : 1) * sizeof(int));
    s->bytes = malloc((size_t)(m ? 2 * m : 1) * sizeof(double));
    if (!s->first || !s->peer || !s->bytes) {
        sym_free(s);
        return AMP_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++)
        for (int k = g->first[i]; k < g->first[i + 1]; k++) {
            s->first[i + 2]++;
            s->first[g->peer[k] + 2]++;
        }
    for (int i = 0; i < n; i++)
        s->first[i + 2] += s->first[i + 1];
    for (int i = 0; i < n; i++)
        for (int k = g->first[i]; k < g->first[i + 1]; k++) {
            int j = g->peer[k], a = s->first[i + 1]++, b = s->first[j + 1]++;
            s->peer[a] = j;
            s->bytes[a] = g->bytes[k];
            s->peer[b] = i;
            s->bytes[b] = g->bytes[k];
        }
    return AMP_OK;
}

/* The PE for rank r: least load plus cost of the bytes it would exchange
 * with ranks placed on other PEs (talk: scratch, one per PE). */
static int comm_best(const sym_graph_t *s, const double *pl, const int *out,
                     int r, int npes, int cur, double *talk)
{
    double total = 0;
    memset(talk, 0, (size_t)npes * sizeof(double));
    for (int k = s->first[r]; k < s->first[r + 1]; k++)
        if (out[s->peer[k]] >= 0) {
            talk[out[s->peer[k]]] += s->bytes[k];
            total += s->bytes[k];
        }
    int best = cur;
    double best_cost = pl[cur] + AMP_LB_BYTE_COST * (total - talk[cur]);
    for (int p = 0; p < npes; p++) {
        double cost = pl[p] + AMP_LB_BYTE_COST * (total - talk[p]);
        if (cost < best_cost) {
            best = p;
            best_cost = cost;
        }
    }
    return best;
}

amp_status_t amp_lb_greedy_comm(int n, const double *loads, const int *cur,
                                int npes, const amp_lb_graph_t *g, int *out)
{
    sym_graph_t s = {0};
    int *order = malloc((size_t)(n ? n : 1) * sizeof(int));
    double *pl = calloc((size_t)npes, sizeof(double));
    double *talk = malloc((size_t)npes * sizeof(double));
    amp_status_t st = order && pl && talk ? sym_of(n, g, &s) : AMP_ERR_NOMEM;
    if (st == AMP_OK) {
        order_by_load(n, loads, order);
        for (int r = 0; r < n; r++)
            out[r] = -1;
        for (int i = 0; i < n; i++) {
            int r = order[i];
            out[r] = comm_best(&s, pl, out, r, npes, cur[r], talk);
            pl[out[r]] += loads[r];
        }
        sym_free(&s);
    }
    free(order);
    free(pl);
    free(talk);
    return st;
}

/* ---- HybridLB -------------------------------------------------------- */

/* Level 2: the ranks that level 1 left in process q, over its PEs
 * first .. first + count - 1, as GreedyLB places them. */
static amp_status_t spread_in_process(int n, const double *loads,
                                      const int *cur, const int *proc, int q,
                                      int first, int count, int *out)
{
    int *idx = malloc((size_t)(n ? n : 1) * 3 * sizeof(int));
    double *ld = malloc((size_t)(n ? n : 1) * sizeof(double));
    if (!idx || !ld) {
        free(idx);
        free(ld);
        return AMP_ERR_NOMEM;
    }
    int *lcur = idx + n, *lout = lcur + n, m = 0;
    for (int r = 0; r < n; r++) {
        if (proc[r] != q)
            continue;
        idx[m] = r;
        ld[m] = loads[r];
        int here = cur[r] >= first && cur[r] < first + count;
        lcur[m++] = here ? cur[r] - first : 0;
    }
    amp_status_t st = amp_lb_greedy(m, ld, lcur, count, lout);
    for (int i = 0; st == AMP_OK && i < m; i++)
        out[idx[i]] = first + lout[i];
    free(idx);
    free(ld);
    return st;
}

amp_status_t amp_lb_hybrid(int n, const double *loads, const int *cur, int npes,
                           const int *pe_proc, int *out)
{
    int nprocs = pe_proc[npes - 1] + 1;
    int *first = calloc((size_t)nprocs + 1, sizeof(int));
    int *rq = malloc((size_t)(n ? n : 1) * 2 * sizeof(int));
    if (!first || !rq) {
        free(first);
        free(rq);
        return AMP_ERR_NOMEM;
    }
    for (int p = 0; p < npes; p++)
        first[pe_proc[p] + 1]++;
    for (int q = 0; q < nprocs; q++)
        first[q + 1] += first[q];
    int *nq = rq + n;
    for (int r = 0; r < n; r++)
        rq[r] = pe_proc[cur[r]];
    /* Level 1: processes as RefineLB's PEs (equal PEs per process). */
    amp_status_t st =
        amp_lb_refine(n, loads, rq, nprocs, AMP_LB_REFINE_TOLERANCE, nq);
    for (int q = 0; st == AMP_OK && q < nprocs; q++)
        st = spread_in_process(n, loads, cur, nq, q, first[q],
                               first[q + 1] - first[q], out);
    free(first);
    free(rq);
    return st;
}

double amp_lb_predict(double prev, double prev_len, double cur, double cur_len)
{
    if (prev_len <= 0 || cur_len <= 0)
        return cur;
    double rate = cur / cur_len, before = prev / prev_len;
    double next = 2 * rate - before;
    if (next < rate / 2)
        next = rate / 2;
    if (next > 2 * rate)
        next = 2 * rate;
    return next * cur_len;
}

/* ---- RecBipartLB ----------------------------------------------------- */

/* The scratch of a bisection: the symmetric graph (NULL: rank order), a
 * queue, which ranks the current split takes, and the ranks of each part
 * in place (parts are runs of ranks[]). */
typedef struct bipart {
    const sym_graph_t *s;
    const double *loads;
    int *ranks, *queue;
    char *in_part, *taken;
    int *out;
} bipart_t;

/* Puts ranks[lo .. hi) taken by a breadth-first walk first, in walk order,
 * until their load reaches want (the rank that crosses it joins when that
 * leaves the parts nearer the proportion); returns where the rest starts.
 * The walk starts at the lowest rank not taken, and again from there when
 * it runs dry. */
static int bfs_split(bipart_t *b, int lo, int hi, double want)
{
    int n = hi - lo, got = 0, head = 0, tail = 0, next_low = lo;
    double load = 0;
    for (int i = lo; i < hi; i++)
        b->in_part[b->ranks[i]] = 1;
    while (got < n - 1 && load < want) {
        if (head == tail) { /* a new start: the lowest rank left */
            while (b->taken[b->ranks[next_low]])
                next_low++;
            b->queue[tail++] = b->ranks[next_low];
            b->taken[b->ranks[next_low]] = 1;
        }
        int r = b->queue[head++];
        double l = b->loads[r];
        /* The part is nearer its share without it: stop. */
        if (got > 0 && load + l - want > want - load)
            break;
        b->queue[got++] = r; /* the queue's taken prefix is the part */
        load += l;
        if (b->s) {
            for (int k = b->s->first[r]; k < b->s->first[r + 1]; k++) {
                int p = b->s->peer[k];
                if (b->in_part[p] && !b->taken[p]) {
                    b->taken[p] = 1;
                    b->queue[tail++] = p;
                }
            }
        } else {
            for (int d = -1; d <= 1; d += 2) {
                int p = r + d;
                if (p >= 0 && b->in_part[p] && !b->taken[p]) {
                    b->taken[p] = 1;
                    b->queue[tail++] = p;
                }
            }
        }
    }
    /* ranks[lo ..) becomes the part, in rank order, then the rest. */
    for (int i = lo; i < hi; i++)
        b->taken[b->ranks[i]] = 0;
    for (int i = 0; i < got; i++)
        b->taken[b->queue[i]] = 1;
    int a = lo, k = 0;
    for (int i = lo; i < hi; i++)
        if (b->taken[b->ranks[i]])
            b->queue[k++] = b->ranks[i];
    for (int i = lo; i < hi; i++)
        if (!b->taken[b->ranks[i]])
            b->queue[k++] = b->ranks[i];
    for (int i = lo; i < hi; i++) {
        b->ranks[i] = b->queue[i - lo];
        b->in_part[b->ranks[i]] = 0;
        b->taken[b->ranks[i]] = 0;
    }
    return a + got;
}

/* ranks[lo .. hi) over PEs pe .. pe + npes - 1. */
static void bisect(bipart_t *b, int lo, int hi, int pe, int npes)
{
    if (npes == 1 || hi - lo <= 1) {
        for (int i = lo; i < hi; i++)
            b->out[b->ranks[i]] = pe;
        return;
    }
    double total = 0;
    for (int i = lo; i < hi; i++)
        total += b->loads[b->ranks[i]];
    int left = npes / 2;
    int mid = bfs_split(b, lo, hi, total * left / npes);
    bisect(b, lo, mid, pe, left);
    bisect(b, mid, hi, pe + left, npes - left);
}

amp_status_t amp_lb_recbipart(int n, const double *loads, int npes,
                              const amp_lb_graph_t *g, int *out)
{
    sym_graph_t s = {0};
    size_t m = (size_t)(n ? n : 1);
    bipart_t b = {.loads = loads, .out = out};
    b.ranks = malloc(m * sizeof(int));
    b.queue = malloc(m * sizeof(int));
    b.in_part = calloc(m, 1);
    b.taken = calloc(m, 1);
    amp_status_t st = b.ranks && b.queue && b.in_part && b.taken
                          ? (g ? sym_of(n, g, &s) : AMP_OK)
                          : AMP_ERR_NOMEM;
    if (st == AMP_OK) {
        b.s = g ? &s : NULL;
        for (int r = 0; r < n; r++)
            b.ranks[r] = r;
        bisect(&b, 0, n, 0, npes);
        if (g)
            sym_free(&s);
    }
    free(b.ranks);
    free(b.queue);
    free(b.in_part);
    free(b.taken);
    return st;
}
