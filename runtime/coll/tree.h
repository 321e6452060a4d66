/*
 * coll/tree: the one order in which every reduction combines its operands
 * (docs/collectives.md).
 *
 * A reduction over a communicator of n ranks combines the contributions
 * along a fixed binary tree over the comm ranks 0 .. n-1.  A node is a
 * range [lo, hi) of ranks; a leaf is one rank; any other node is
 *
 *     value(lo, hi) = value(lo, mid) op value(mid, hi),
 *     mid = lo + the largest power of two below hi - lo,
 *
 * the lower ranks on the left of op (so non-commutative operations keep
 * rank order).  The tree depends on n alone: not on the operation, the
 * datatype, which PE or process holds which rank, or the algorithm.  It is
 * the tree of the binomial reduction to rank 0 (round k combines the
 * blocks of 2^k ranks that start at multiples of 2^(k+1) with the next
 * block) and of recursive doubling when n is a power of two, so the
 * point-to-point algorithms (coll.c, sched.c) follow it by construction;
 * the shared-memory ones (shm.c) and the two-level one across processes
 * (coll/hier.c) evaluate it from the values their PE or process holds.
 * With the same values the result is the same bits under any placement, as
 * MPI-3.1 §5.9.1 advises.
 *
 * Whoever holds a range of consecutive ranks computes the values of the
 * maximal nodes inside it (its cover, amp_coll_tree_cover) and hands them
 * up; the nodes above are computed where their lowest rank is held, from
 * the values of their two children.
 */
#ifndef AMP_COLL_TREE_H
#define AMP_COLL_TREE_H

#include "coll/coll.h"

/* The most levels a tree over an int's worth of ranks has. */
#define AMP_COLL_TREE_MAX_HEIGHT 32

/* Where node [lo, hi) splits; hi - lo >= 2. */
static inline int amp_coll_tree_mid(int lo, int hi)
{
    unsigned below = (unsigned)(hi - lo - 1);
    return lo + (int)(1u << (31 - __builtin_clz(below)));
}

/* The levels above the leaves of the tree over n ranks: ceil(log2 n). */
static inline int amp_coll_tree_height(int n)
{
    return n <= 1 ? 0 : 32 - __builtin_clz((unsigned)(n - 1));
}

/* The maximal nodes of the tree over n ranks inside [a, b), in rank order,
 * into lo[] and hi[] (room for 2 * AMP_COLL_TREE_MAX_HEIGHT); returns how
 * many.  They partition [a, b). */
int amp_coll_tree_cover(int n, int a, int b, int *lo, int *hi);

/* Every block's cover, for evaluating the tree from the values of all of
 * them: block b (ranks first[b] .. first[b + 1] - 1) has the nodes that
 * start at ranks lo[at[b]] .. lo[at[b + 1] - 1]. */
typedef struct amp_coll_covers {
    int *at, *lo;
} amp_coll_covers_t;

/* Makes cv for nblocks blocks of the tree over n; AMP_ERR_NOMEM. */
AMP_MUST_USE amp_status_t amp_coll_covers_make(amp_coll_covers_t *cv, int n,
                                               int nblocks, const int *first);
void amp_coll_covers_free(amp_coll_covers_t *cv);

/* For an evaluation's leaf(): if node [lo, hi) lies inside one block, that
 * block in *block and the node's index among its cover nodes (the
 * evaluation descends from the root, so the first such node it meets is
 * one of them); else -1. */
int amp_coll_covers_find(const amp_coll_covers_t *cv, const int *first,
                         int nblocks, int lo, int hi, int *block);

/* One evaluation of part of the tree: the values it takes as given come
 * from leaf(), which returns the value of node [lo, hi) if the evaluation
 * has it, or NULL if the node is to be combined from its children.
 * Values are the data of units units of type unit (bytes bytes, given by
 * their first data byte; lb is what amp_coll_apply's buffers start
 * before it).  tmp[0 .. height of the evaluated node) are work buffers of
 * bytes each. */
typedef struct amp_coll_tree_eval amp_coll_tree_eval_t;
typedef const char *(*amp_coll_tree_leaf_fn_t)(const amp_coll_tree_eval_t *e,
                                               int lo, int hi);
struct amp_coll_tree_eval {
    amp_coll_tree_leaf_fn_t leaf;
    const void *arg; /* for leaf */
    const amp_coll_op_t *op;
    const amp_dt_t *unit;
    int units;
    ptrdiff_t lb;
    size_t bytes;
    char *const *tmp;
};

/* dest = the value of node [lo, hi). */
void amp_coll_tree_eval(const amp_coll_tree_eval_t *e, int lo, int hi,
                        char *dest);

/* The block of rank r among nblocks blocks of consecutive ranks, block b
 * being ranks first[b] .. first[b + 1] - 1 (a binary search). */
static inline int amp_coll_block_of(const int *first, int nblocks, int r)
{
    int a = 0, b = nblocks; /* first[a] <= r < first[b] */
    while (b - a > 1) {
        int m = (a + b) / 2;
        if (first[m] <= r)
            a = m;
        else
            b = m;
    }
    return a;
}

/* The level above the processes in a two-level reduction (coll.c; used by
 * coll/hier.c) over a communicator of n ranks whose processes hold
 * blocks of consecutive ranks: block b is ranks first[b] .. first[b + 1]
 * - 1 (first[nblocks] = n), and c is the view of the blocks' leaders
 * (rank b: block b's).  Each leader brings the values of the nodes that
 * cover its block (amp_coll_tree_cover's order), one after another in
 * parts, count elements of the contiguous type dt each; block 0's leader
 * gets the root's value in result (data pointers: dt's true_lb is not
 * added).  Every node above the blocks is computed at the leader of its
 * lowest rank, which receives its right child from the leader of that
 * child's lowest rank: nodes, messages and their order depend on n and
 * the blocks only.  AMP_ERR_NOMEM before any message when the work
 * buffers cannot be had. */
AMP_MUST_USE amp_status_t amp_coll_tree_reduce_blocks(
    const amp_coll_comm_t *c, int n, const int *first, const char *parts,
    char *result, int count, const amp_dt_t *dt, const amp_coll_op_t *op);

/* The same tree for an allreduce (coll/segments.c): every leader gets the
 * root's value in result, without a broadcast.  Values of
 * AMP_COLL_SEGMENTS_MIN bytes or more: leader s evaluates the tree for its
 * segment s of the elements, from every leader's cover values of it, and
 * sends it to the others.  Smaller ones: every leader sends its cover
 * values to every other and evaluates the whole tree itself.  Either way
 * the same combinations as amp_coll_tree_reduce_blocks, element by
 * element, so the same bits.  AMP_ERR_NOMEM before any message when its
 * buffers cannot be had. */
#define AMP_COLL_SEGMENTS_MIN (64u << 10)
AMP_MUST_USE amp_status_t amp_coll_tree_allreduce_blocks(
    const amp_coll_comm_t *c, int n, const int *first, const char *parts,
    char *result, int count, const amp_dt_t *dt, const amp_coll_op_t *op);

#endif
