#include "dt/dt.h"

#include "mpi.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

uint32_t amp_dt_x32_kind(const amp_dt_t *dt)
{
    /* x87 long double: C's, not Fortran's REAL(16) (binary128 already). */
    int ld = (dt->base_id == AMPI_DTID_MPI_LONG_DOUBLE ||
              dt->base_id == AMPI_DTID_MPI_C_LONG_DOUBLE_COMPLEX ||
              dt->base_id == AMPI_DTID_MPI_CXX_LONG_DOUBLE_COMPLEX) &&
             sizeof(long double) != sizeof(double);
    if (dt->base_id == AMPI_DTID_MPI_LONG && sizeof(long) != 4)
        return AMP_DT_X32_LONG;
    if (dt->base_id == AMPI_DTID_MPI_UNSIGNED_LONG && sizeof(long) != 4)
        return AMP_DT_X32_ULONG;
    if (dt->base_id == AMPI_DTID_MPI_WCHAR && sizeof(wchar_t) != 2)
        return AMP_DT_X32_WCHAR;
    if (dt->flags & AMP_DT_COMPLEX)
        return ld ? AMP_DT_X32_LDCOMPLEX : AMP_DT_X32_COMPLEX;
    if ((dt->flags & AMP_DT_FLOAT) && ld)
        return AMP_DT_X32_LDOUBLE;
    return AMP_DT_X32_PLAIN;
}

const amp_dt_block_t *amp_dt_blocks(const amp_dt_t *dt, int *n,
                                    amp_dt_block_t *one)
{
    if (dt->nblocks > 0) {
        *n = dt->nblocks;
        return dt->blocks;
    }
    one->off = dt->true_lb;
    one->len = dt->size;
    one->elem = (uint32_t)(dt->basic_size ? dt->basic_size : 1);
    one->x32 = amp_dt_x32_kind(dt);
    *n = dt->size ? 1 : 0;
    return one;
}

/* The state of one constructor run.  Constructors run their layout twice:
 * once with blocks NULL to count the merged blocks (and stop at the
 * limit), once to fill an array of exactly that size. */
typedef struct build {
    amp_dt_block_t *blocks; /* NULL while counting */
    amp_dt_block_t last;    /* the block most recently added */
    size_t n;
    size_t limit;  /* the most blocks it may have */
    int over;      /* more than limit blocks */
    int no_blocks; /* bounds and kinds only (make_regular) */
    int overflow;  /* a size or bound that does not fit */
    size_t size;
    int has_data, has_nat, sticky;
    ptrdiff_t tlb, tub; /* first and past-last data byte */
    ptrdiff_t nlb, nub; /* bounds from the parts' own bounds */
    ptrdiff_t mlb, mub; /* sticky bounds */
    size_t align;
    size_t basic; /* common basic_size, 0: mixed; SIZE_MAX: none yet */
    int base_id;  /* common base_id, 0: mixed; -1: none yet */
    int flags;
    long long base_count;
} build_t;

static void build_init(build_t *b, amp_dt_block_t *blocks)
{
    memset(b, 0, sizeof(*b));
    b->blocks = blocks;
    b->limit = AMP_DT_MAX_BLOCKS;
    b->basic = SIZE_MAX;
    b->base_id = -1;
}

/* Appends a block, merging it into the previous one when they touch and
 * hold the same kind of values. */
static void put_block(build_t *b, amp_dt_block_t blk)
{
    if (b->n > 0 && b->last.off + (ptrdiff_t)b->last.len == blk.off &&
        b->last.elem == blk.elem && b->last.x32 == blk.x32) {
        b->last.len += blk.len;
        if (b->blocks)
            b->blocks[b->n - 1] = b->last;
        return;
    }
    if (b->n == b->limit) {
        b->over = 1;
        return;
    }
    b->last = blk;
    if (b->blocks)
        b->blocks[b->n] = blk;
    b->n++;
}

static ptrdiff_t min_d(ptrdiff_t a, ptrdiff_t b)
{
    return a < b ? a : b;
}
static ptrdiff_t max_d(ptrdiff_t a, ptrdiff_t b)
{
    return a > b ? a : b;
}

/* Widens the bounds for blocklen copies of old at disp; span is how far
 * the last copy lies from the first (negative for a negative extent), and
 * disp + span fits.  A bound that does not fit sets overflow. */
static void add_bounds(build_t *b, ptrdiff_t disp, ptrdiff_t span,
                       const amp_dt_t *old)
{
    ptrdiff_t lo = disp + min_d(0, span), hi = disp + max_d(0, span);
    ptrdiff_t lb, ub, tlb, tub;
    if (__builtin_add_overflow(lo, old->lb, &lb) ||
        __builtin_add_overflow(old->lb, old->extent, &ub) ||
        __builtin_add_overflow(hi, ub, &ub) ||
        __builtin_add_overflow(lo, old->true_lb, &tlb) ||
        __builtin_add_overflow(old->true_lb, old->true_extent, &tub) ||
        __builtin_add_overflow(hi, tub, &tub)) {
        b->overflow = 1;
        return;
    }
    if (old->sticky & AMP_DT_STICKY_LB) {
        b->mlb = (b->sticky & AMP_DT_STICKY_LB) ? min_d(b->mlb, lb) : lb;
        b->sticky |= AMP_DT_STICKY_LB;
    }
    if (old->sticky & AMP_DT_STICKY_UB) {
        b->mub = (b->sticky & AMP_DT_STICKY_UB) ? max_d(b->mub, ub) : ub;
        b->sticky |= AMP_DT_STICKY_UB;
    }
    if (old->size == 0)
        return;
    b->nlb = b->has_nat ? min_d(b->nlb, lb) : lb;
    b->nub = b->has_nat ? max_d(b->nub, ub) : ub;
    b->has_nat = 1;
    b->tlb = b->has_data ? min_d(b->tlb, tlb) : tlb;
    b->tub = b->has_data ? max_d(b->tub, tub) : tub;
    b->has_data = 1;
}

/* What kind of values the type holds, for reductions and element counts. */
static void add_kind(build_t *b, size_t blocklen, const amp_dt_t *old)
{
    if (old->align > b->align)
        b->align = old->align;
    if (old->size == 0)
        return;
    if (b->basic == SIZE_MAX)
        b->basic = old->basic_size;
    else if (b->basic != old->basic_size)
        b->basic = 0;
    if (b->base_id == -1) {
        b->base_id = old->base_id;
        b->flags = old->flags;
    } else if (b->base_id != old->base_id) {
        b->base_id = 0;
        b->flags = 0;
    }
    b->base_count += (long long)blocklen * old->base_count;
}

/* Adds blocklen copies of old, back to back, starting at byte disp. */
static void add_part(build_t *b, ptrdiff_t disp, size_t blocklen,
                     const amp_dt_t *old)
{
    ptrdiff_t span, bytes;
    size_t size;
    if (blocklen == 0 || b->over || b->overflow)
        return;
    if (blocklen > PTRDIFF_MAX ||
        __builtin_mul_overflow((ptrdiff_t)(blocklen - 1), old->extent, &span) ||
        __builtin_mul_overflow(blocklen, old->size, &size) ||
        __builtin_add_overflow(b->size, size, &b->size) ||
        __builtin_add_overflow(disp, span, &bytes)) {
        b->overflow = 1;
        return;
    }
    add_bounds(b, disp, span, old);
    if (b->overflow)
        return;
    add_kind(b, blocklen, old);
    if (old->size == 0 || b->no_blocks)
        return;
    amp_dt_block_t one;
    int nold;
    const amp_dt_block_t *ob = amp_dt_blocks(old, &nold, &one);
    long long reps = amp_dt_reps(old);
    if (reps == 1 && nold == 1 && (ptrdiff_t)ob[0].len == old->extent) {
        /* dense: the copies make one block */
        amp_dt_block_t blk = ob[0];
        blk.off += disp;
        blk.len *= blocklen;
        put_block(b, blk);
        return;
    }
    long long idx[AMP_DT_MAX_DIMS] = {0};
    for (size_t k = 0; k < blocklen && !b->over; k++) {
        ptrdiff_t at = disp + (ptrdiff_t)k * old->extent;
        for (long long r = 0; r < reps && !b->over;
             r++, at += amp_dt_rep_next(old, idx)) {
            for (int j = 0; j < nold; j++) {
                amp_dt_block_t blk = ob[j];
                blk.off += at;
                put_block(b, blk);
            }
        }
    }
}

/* A layout: either count entries of blocklen copies of old, stride bytes
 * apart, or count parts. */
typedef struct layout {
    int count;
    size_t blocklen;
    ptrdiff_t stride;
    const amp_dt_t *old;
    const amp_dt_part_t *parts;
    size_t limit; /* the most blocks, 0: AMP_DT_MAX_BLOCKS */
} layout_t;
static amp_status_t build(amp_dt_t *newdt, const layout_t *l, int pad,
                          int check);

/* Whether dt's data is laid out as count values of the predefined type
 * base_id, back to back from offset 0 (what the reduction functions walk). */
static int is_array_of_base(const amp_dt_t *dt)
{
    const amp_dt_t *base = amp_dt_predefined(dt->base_id);
    if (!base || base->size == 0 || dt->size % base->size ||
        amp_dt_reps(dt) > 1)
        return 0;
    size_t k = dt->size / base->size;
    if (dt->extent != (ptrdiff_t)k * base->extent)
        return 0;
    amp_dt_t want;
    memset(&want, 0, sizeof(want));
    layout_t l = {.count = 1, .blocklen = k, .old = base};
    if (build(&want, &l, 0, 0) != AMP_OK)
        return 0;
    int same = want.nblocks == dt->nblocks &&
               !memcmp(want.blocks, dt->blocks,
                       (size_t)dt->nblocks * sizeof(*dt->blocks));
    amp_dt_destroy(&want);
    return same;
}

/* Whether count elements are count * size bytes at true_lb. */
static int is_contig(const amp_dt_t *dt)
{
    if (dt->size == 0)
        return 1;
    if (dt->extent != (ptrdiff_t)dt->size || amp_dt_reps(dt) > 1)
        return 0;
    ptrdiff_t at = dt->true_lb;
    for (int j = 0; j < dt->nblocks; j++) {
        if (dt->blocks[j].off != at)
            return 0;
        at += (ptrdiff_t)dt->blocks[j].len;
    }
    return 1;
}

/* Fills the layout fields of newdt from a finished run. */
static void build_finish(build_t *b, amp_dt_t *newdt, int pad, int check)
{
    ptrdiff_t lb = b->has_nat ? b->nlb : 0, ub = b->has_nat ? b->nub : 0;
    if (b->sticky & AMP_DT_STICKY_LB)
        lb = b->mlb;
    if (b->sticky & AMP_DT_STICKY_UB)
        ub = b->mub;
    ptrdiff_t extent = ub - lb;
    if (pad && !b->sticky && b->align > 1 && extent > 0 &&
        extent % (ptrdiff_t)b->align)
        extent += (ptrdiff_t)b->align - extent % (ptrdiff_t)b->align;
    newdt->size = b->size;
    newdt->lb = lb;
    newdt->extent = extent;
    newdt->true_lb = b->has_data ? b->tlb : 0;
    newdt->true_extent = b->has_data ? b->tub - b->tlb : 0;
    newdt->basic_size = b->basic == SIZE_MAX ? 0 : b->basic;
    newdt->align = b->align;
    newdt->sticky = b->sticky;
    newdt->nblocks = (int)b->n;
    newdt->blocks = b->blocks;
    newdt->owned_blocks = b->blocks;
    newdt->contig = is_contig(newdt);
    newdt->base_id = b->base_id > 0 ? b->base_id : 0;
    newdt->flags = newdt->base_id ? b->flags : 0;
    newdt->base_count = b->base_count;
    newdt->base_holes = 0;
    if (newdt->base_id && check && !is_array_of_base(newdt))
        newdt->base_holes = 1;
}

static void run(build_t *b, const layout_t *l)
{
    ptrdiff_t disp;
    for (int i = 0; i < l->count && !b->over && !b->overflow; i++) {
        if (l->parts)
            add_part(b, l->parts[i].disp, l->parts[i].blocklen,
                     l->parts[i].type);
        else if (__builtin_mul_overflow((ptrdiff_t)i, l->stride, &disp))
            b->overflow = 1;
        else
            add_part(b, disp, l->blocklen, l->old);
    }
}

/* Runs layout l into newdt; check: verify that a common base type is
 * really laid out as an array of it (see is_array_of_base). */
static amp_status_t build(amp_dt_t *newdt, const layout_t *l, int pad,
                          int check)
{
    build_t b;
    build_init(&b, NULL);
    if (l->limit)
        b.limit = l->limit;
    run(&b, l);
    if (b.over)
        return AMP_ERR_NOMEM;
    if (b.overflow)
        return AMP_ERR_ARG;
    amp_dt_block_t *blocks = malloc((b.n ? b.n : 1) * sizeof(*blocks));
    if (!blocks)
        return AMP_ERR_NOMEM;
    build_init(&b, blocks);
    b.limit = SIZE_MAX; /* counted already */
    run(&b, l);
    build_finish(&b, newdt, pad, check);
    return AMP_OK;
}

static amp_status_t copy_layout(amp_dt_t *newdt, const amp_dt_t *old);

void amp_dt_rep_init(amp_dt_t *dt)
{
    long long reps = 1;
    ptrdiff_t inner = 0; /* how far the levels inside k reach */
    for (int k = dt->ndims - 1; k >= 0; k--) {
        reps *= dt->dims[k];
        dt->steps[k] = dt->strides[k] - inner;
        inner += (ptrdiff_t)(dt->dims[k] - 1) * dt->strides[k];
    }
    dt->reps = dt->ndims ? reps : 0;
}

/* Bounds and kinds of parts (n of them) into newdt, without blocks. */
static amp_status_t bounds_of(amp_dt_t *newdt, const amp_dt_part_t *parts,
                              int n, int pad)
{
    build_t b;
    build_init(&b, NULL);
    b.no_blocks = 1;
    for (int i = 0; i < n; i++)
        add_part(&b, parts[i].disp, parts[i].blocklen, parts[i].type);
    if (b.overflow)
        return AMP_ERR_ARG;
    build_finish(&b, newdt, pad, 0);
    return AMP_OK;
}

/* Adds level (count, stride) outside those of newdt; 0 when too many. */
static int add_level(amp_dt_t *newdt, long long count, ptrdiff_t stride)
{
    if (count <= 1)
        return 1;
    if (newdt->ndims == AMP_DT_MAX_DIMS)
        return 0;
    memmove(newdt->dims + 1, newdt->dims,
            (size_t)newdt->ndims * sizeof(long long));
    memmove(newdt->strides + 1, newdt->strides,
            (size_t)newdt->ndims * sizeof(ptrdiff_t));
    newdt->dims[0] = count;
    newdt->strides[0] = stride;
    newdt->ndims++;
    return 1;
}

/* count entries of blocklen copies of old, stride bytes apart from disp,
 * whose blocks are too many to list, kept regular (amp_dt.reps): the
 * blocks of one entry when they fit, else those of one copy of old,
 * repeated over the levels count, blocklen (then) and old's own.  The
 * bounds and kinds are those of the first and the last entry together. */
static amp_status_t make_regular(amp_dt_t *newdt, int count, size_t blocklen,
                                 ptrdiff_t stride, ptrdiff_t disp,
                                 const amp_dt_t *old, int pad)
{
    ptrdiff_t last;
    size_t size;
    if (count < 1 || blocklen < 1 || blocklen > PTRDIFF_MAX)
        return AMP_ERR_NOMEM;
    if (__builtin_mul_overflow((ptrdiff_t)(count - 1), stride, &last) ||
        __builtin_add_overflow(last, disp, &last) ||
        __builtin_mul_overflow(old->size, blocklen, &size) ||
        __builtin_mul_overflow(size, (size_t)count, &size))
        return AMP_ERR_ARG;
    amp_dt_part_t ends[2] = {{disp, blocklen, old}, {last, blocklen, old}};
    amp_dt_t entry;
    memset(&entry, 0, sizeof(entry));
    amp_status_t st = bounds_of(newdt, ends, count > 1 ? 2 : 1, pad);
    if (st != AMP_OK)
        return st;
    layout_t l1 = {.count = 1, .parts = ends};
    int flat = count > 1 && amp_dt_reps(old) == 1 &&
               build(&entry, &l1, 0, 0) == AMP_OK;
    if (!flat) { /* one copy of old, at disp */
        st = copy_layout(&entry, old);
        for (int j = 0; st == AMP_OK && j < entry.nblocks; j++)
            entry.owned_blocks[j].off += disp;
        if (st != AMP_OK)
            return st;
    }
    newdt->nblocks = entry.nblocks;
    newdt->blocks = entry.owned_blocks;
    newdt->owned_blocks = entry.owned_blocks;
    newdt->ndims = entry.ndims;
    memcpy(newdt->dims, entry.dims, sizeof(entry.dims));
    memcpy(newdt->strides, entry.strides, sizeof(entry.strides));
    if (!(flat || add_level(newdt, (long long)blocklen, old->extent)) ||
        !add_level(newdt, count, stride) || newdt->ndims == 0) {
        amp_dt_destroy(newdt);
        return AMP_ERR_NOMEM;
    }
    amp_dt_rep_init(newdt);
    newdt->size = size;
    newdt->contig = 0;
    newdt->base_count = (long long)blocklen * old->base_count * count;
    newdt->base_holes = newdt->base_id != 0;
    return AMP_OK;
}

amp_status_t amp_dt_make_hvector(amp_dt_t *newdt, int count, size_t blocklen,
                                 ptrdiff_t stride, const amp_dt_t *old)
{
    layout_t l = {
        .count = count, .blocklen = blocklen, .stride = stride, .old = old};
    amp_status_t st = build(newdt, &l, 0, 1);
    if (st == AMP_ERR_NOMEM)
        st = make_regular(newdt, count, blocklen, stride, 0, old, 0);
    return st;
}

/* Whether the count parts, those of length 0 left out (they hold nothing
 * and bound nothing), are alike and evenly spaced: the same type and
 * length, displacements in steps of one stride (a struct or an indexed
 * type that is a vector in disguise, as generated ones often are).  Then
 * *first is the first of them, *n how many and *stride the step. */
static int parts_regular(const amp_dt_part_t *parts, int count, int *first,
                         int *n, ptrdiff_t *stride)
{
    int k = 0, prev = -1;
    *n = 0;
    *stride = 0;
    for (int i = 0; i < count; i++) {
        if (parts[i].blocklen == 0)
            continue;
        ptrdiff_t step;
        if (prev < 0) {
            *first = i;
        } else if (parts[i].type != parts[*first].type ||
                   parts[i].blocklen != parts[*first].blocklen ||
                   __builtin_sub_overflow(parts[i].disp, parts[prev].disp,
                                          &step) ||
                   (k > 1 && step != *stride)) {
            return 0;
        } else {
            *stride = step;
        }
        prev = i;
        k++;
    }
    *n = k;
    return k > 0;
}

amp_status_t amp_dt_make_struct(amp_dt_t *newdt, int count,
                                const amp_dt_part_t *parts, int pad)
{
    layout_t l = {.count = count, .parts = parts};
    amp_status_t st = build(newdt, &l, pad, 1);
    int first, n;
    ptrdiff_t stride;
    if (st == AMP_ERR_NOMEM && parts_regular(parts, count, &first, &n, &stride))
        return make_regular(newdt, n, parts[first].blocklen, stride,
                            parts[first].disp, parts[first].type, pad);
    if (st == AMP_ERR_NOMEM && count > AMP_DT_MAX_BLOCKS) {
        /* Irregular, but no more blocks than the entries the program
         * listed itself: as much memory as its own arrays. */
        l.limit = (size_t)count;
        st = build(newdt, &l, pad, 1);
    }
    return st;
}

amp_status_t amp_dt_make_contiguous(amp_dt_t *newdt, int count,
                                    const amp_dt_t *old)
{
    amp_status_t st =
        amp_dt_make_hvector(newdt, 1, count > 0 ? (size_t)count : 0, 0, old);
    if (st == AMP_OK && count == 0) {
        newdt->lb = old->lb; /* MPI: an empty contiguous type keeps lb */
        newdt->extent = 0;
    }
    if (st == AMP_OK)
        newdt->count = count;
    return st;
}

/* Copies old's layout fields and blocks into newdt. */
static amp_status_t copy_layout(amp_dt_t *newdt, const amp_dt_t *old)
{
    amp_dt_block_t *blocks = NULL;
    if (old->nblocks > 0) {
        blocks = malloc((size_t)old->nblocks * sizeof(*blocks));
        if (!blocks)
            return AMP_ERR_NOMEM;
        memcpy(blocks, old->blocks, (size_t)old->nblocks * sizeof(*blocks));
    }
    newdt->size = old->size;
    newdt->lb = old->lb;
    newdt->extent = old->extent;
    newdt->true_lb = old->true_lb;
    newdt->true_extent = old->true_extent;
    newdt->basic_size = old->basic_size;
    newdt->contig = old->contig;
    newdt->nblocks = old->nblocks;
    newdt->blocks = blocks;
    newdt->owned_blocks = blocks;
    newdt->flags = old->flags;
    newdt->base_id = old->base_id;
    newdt->base_count = old->base_count;
    newdt->base_holes = old->base_holes;
    newdt->align = old->align;
    newdt->sticky = old->sticky;
    newdt->reps = old->reps;
    newdt->ndims = old->ndims;
    memcpy(newdt->dims, old->dims, sizeof(old->dims));
    memcpy(newdt->strides, old->strides, sizeof(old->strides));
    memcpy(newdt->steps, old->steps, sizeof(old->steps));
    return AMP_OK;
}

amp_status_t amp_dt_make_dup(amp_dt_t *newdt, const amp_dt_t *old)
{
    return copy_layout(newdt, old);
}

amp_status_t amp_dt_make_resized(amp_dt_t *newdt, const amp_dt_t *old,
                                 ptrdiff_t lb, ptrdiff_t extent)
{
    amp_status_t st = copy_layout(newdt, old);
    if (st != AMP_OK)
        return st;
    newdt->lb = lb;
    newdt->extent = extent;
    newdt->sticky = AMP_DT_STICKY_LB | AMP_DT_STICKY_UB;
    newdt->contig = is_contig(newdt);
    newdt->base_holes = newdt->base_id && !is_array_of_base(newdt);
    return AMP_OK;
}

amp_status_t amp_dt_make_subarray(amp_dt_t *newdt, int ndims, const int *sizes,
                                  const int *subsizes, const int *starts,
                                  int c_order, const amp_dt_t *old)
{
    /* From the fastest-varying dimension out: each level is subsizes[d]
     * copies of the level inside, one row of the full array apart. */
    amp_dt_t level[2];
    const amp_dt_t *inner = old;
    ptrdiff_t stride = old->extent, disp = 0;
    amp_status_t st = AMP_OK;
    for (int k = 0; k < ndims && st == AMP_OK; k++) {
        int d = c_order ? ndims - 1 - k : k;
        amp_dt_t *cur = &level[k % 2];
        memset(cur, 0, sizeof(*cur));
        st = amp_dt_make_hvector(cur, subsizes[d], 1, stride, inner);
        if (inner != old)
            amp_dt_destroy((amp_dt_t *)inner);
        if (st != AMP_OK)
            return st;
        inner = cur;
        disp += (ptrdiff_t)starts[d] * stride;
        if (__builtin_mul_overflow(stride, (ptrdiff_t)sizes[d], &stride))
            st = AMP_ERR_ARG;
    }
    if (st == AMP_OK) {
        amp_dt_part_t part = {.disp = disp, .blocklen = 1, .type = inner};
        amp_dt_t placed;
        memset(&placed, 0, sizeof(placed));
        st = amp_dt_make_struct(&placed, 1, &part, 0);
        if (st == AMP_OK)
            st = amp_dt_make_resized(newdt, &placed, 0, stride);
        amp_dt_destroy(&placed);
    }
    if (inner != old)
        amp_dt_destroy((amp_dt_t *)inner);
    return st;
}

/* The local blocks of one dimension of a distributed array: (start, len)
 * pairs in elements of that dimension, into parts (at most *n). */
static int darray_blocks(const amp_dt_darray_dim_t *d, int coord,
                         ptrdiff_t stride, const amp_dt_t *inner,
                         amp_dt_part_t *parts)
{
    int n = 0;
    if (d->distrib == AMP_DT_DIST_NONE) {
        parts[n++] = (amp_dt_part_t){0, (size_t)d->gsize, inner};
        return n;
    }
    int k = d->darg;
    if (d->distrib == AMP_DT_DIST_BLOCK) {
        long long start = (long long)coord * k;
        long long len = d->gsize - start < k ? d->gsize - start : k;
        if (len > 0)
            parts[n++] =
                (amp_dt_part_t){(ptrdiff_t)start * stride, (size_t)len, inner};
        return n;
    }
    /* cyclic(k): blocks of k, dealt round the processes */
    for (long long start = (long long)coord * k; start < d->gsize;
         start += (long long)k * d->psize) {
        long long len = d->gsize - start < k ? d->gsize - start : k;
        parts[n++] =
            (amp_dt_part_t){(ptrdiff_t)start * stride, (size_t)len, inner};
    }
    return n;
}

/* The most parts one dimension can have. */
static size_t darray_max_parts(const amp_dt_darray_dim_t *d)
{
    if (d->distrib != AMP_DT_DIST_CYCLIC)
        return 1;
    long long per = (long long)d->darg * d->psize;
    return (size_t)((d->gsize + per - 1) / per);
}

amp_status_t amp_dt_make_darray(amp_dt_t *newdt, int ndims,
                                const amp_dt_darray_dim_t *dims,
                                const int *coords, int c_order,
                                const amp_dt_t *old)
{
    /* From the fastest-varying dimension out: each level is the local
     * blocks of that dimension, each block a run of whole rows of the
     * level inside (resized to one full row of the global array). */
    amp_dt_t level[2], row;
    const amp_dt_t *inner = old;
    ptrdiff_t stride = old->extent;
    amp_status_t st = AMP_OK;
    for (int k = 0; k < ndims && st == AMP_OK; k++) {
        int d = c_order ? ndims - 1 - k : k;
        size_t max = darray_max_parts(&dims[d]);
        amp_dt_part_t *parts = malloc(max * sizeof(*parts));
        memset(&row, 0, sizeof(row));
        st =
            parts ? amp_dt_make_resized(&row, inner, 0, stride) : AMP_ERR_NOMEM;
        amp_dt_t *cur = &level[k % 2];
        memset(cur, 0, sizeof(*cur));
        if (st == AMP_OK) {
            int n = darray_blocks(&dims[d], coords[d], stride, &row, parts);
            st = amp_dt_make_struct(cur, n, parts, 0);
        }
        free(parts);
        amp_dt_destroy(&row);
        if (inner != old)
            amp_dt_destroy((amp_dt_t *)inner);
        inner = st == AMP_OK ? cur : old;
        if (st == AMP_OK &&
            __builtin_mul_overflow(stride, (ptrdiff_t)dims[d].gsize, &stride))
            st = AMP_ERR_ARG;
    }
    if (st == AMP_OK)
        st = amp_dt_make_resized(newdt, inner, 0, stride);
    if (inner != old)
        amp_dt_destroy((amp_dt_t *)inner);
    return st;
}

void amp_dt_destroy(amp_dt_t *dt)
{
    free(dt->owned_blocks);
    free(dt->ints);
    free(dt->addrs);
    free(dt->types);
    free(dt->owned_name);
    dt->owned_blocks = NULL;
    dt->blocks = NULL;
    dt->nblocks = 0;
    dt->reps = 0;
    dt->ndims = 0;
    dt->ints = NULL;
    dt->addrs = NULL;
    dt->types = NULL;
    dt->owned_name = NULL;
}

/* amp_dt_pack of a regular type (amp_dt.reps > 1). */
static __attribute__((noinline)) void
pack_regular(const amp_dt_t *dt, int count, const void *buf, char *o)
{
    amp_dt_block_t one;
    int n;
    const amp_dt_block_t *b = amp_dt_blocks(dt, &n, &one);
    /* back at zero after each element's last repetition */
    long long idx[AMP_DT_MAX_DIMS] = {0};
    for (int i = 0; i < count; i++) {
        const char *elem = (const char *)buf + (ptrdiff_t)i * dt->extent;
        for (long long r = 0; r < dt->reps;
             r++, elem += amp_dt_rep_next(dt, idx))
            for (int j = 0; j < n; j++) {
                memcpy(o, elem + b[j].off, b[j].len);
                o += b[j].len;
            }
    }
}

void amp_dt_pack(const amp_dt_t *dt, int count, const void *buf, void *out)
{
    if (dt->contig) {
        memcpy(out, amp_dt_data(buf, dt), dt->size * (size_t)count);
        return;
    }
    if (amp_dt_reps(dt) > 1) {
        pack_regular(dt, count, buf, out);
        return;
    }
    amp_dt_block_t one;
    int n;
    const amp_dt_block_t *b = amp_dt_blocks(dt, &n, &one);
    char *o = out;
    for (int i = 0; i < count; i++) {
        const char *elem = (const char *)buf + (ptrdiff_t)i * dt->extent;
        for (int j = 0; j < n; j++) {
            memcpy(o, elem + b[j].off, b[j].len);
            o += b[j].len;
        }
    }
}

/* amp_dt_unpack of bytes (at most the data of count elements) into a
 * regular type (amp_dt.reps > 1). */
static __attribute__((noinline)) void unpack_regular(const amp_dt_t *dt,
                                                     int count, char *buf,
                                                     const char *p, size_t left)
{
    amp_dt_block_t one;
    int n;
    const amp_dt_block_t *b = amp_dt_blocks(dt, &n, &one);
    long long idx[AMP_DT_MAX_DIMS] = {0};
    for (int i = 0; i < count && left; i++) {
        char *elem = buf + (ptrdiff_t)i * dt->extent;
        for (long long r = 0; r < dt->reps && left;
             r++, elem += amp_dt_rep_next(dt, idx))
            for (int j = 0; j < n && left; j++) {
                size_t len = b[j].len < left ? b[j].len : left;
                memcpy(elem + b[j].off, p, len);
                p += len;
                left -= len;
            }
    }
}

size_t amp_dt_unpack(const amp_dt_t *dt, int count, void *buf, const void *in,
                     size_t bytes)
{
    size_t total = dt->size * (size_t)count;
    if (bytes > total)
        bytes = total;
    if (dt->contig) {
        memcpy(amp_dt_data(buf, dt), in, bytes);
        return bytes;
    }
    if (amp_dt_reps(dt) > 1) {
        unpack_regular(dt, count, buf, in, bytes);
        return bytes;
    }
    amp_dt_block_t one;
    int n;
    const amp_dt_block_t *b = amp_dt_blocks(dt, &n, &one);
    const char *p = in;
    size_t left = bytes;
    for (int i = 0; i < count && left; i++) {
        char *elem = (char *)buf + (ptrdiff_t)i * dt->extent;
        for (int j = 0; j < n && left; j++) {
            size_t len = b[j].len < left ? b[j].len : left;
            memcpy(elem + b[j].off, p, len);
            p += len;
            left -= len;
        }
    }
    return bytes;
}

long long amp_dt_elements(const amp_dt_t *dt, size_t bytes)
{
    if (dt->size == 0)
        return 0;
    if (dt->basic_size)
        return bytes % dt->basic_size ? -1
                                      : (long long)(bytes / dt->basic_size);
    amp_dt_block_t one;
    int n;
    const amp_dt_block_t *b = amp_dt_blocks(dt, &n, &one);
    long long per = 0;
    size_t period = dt->size / (size_t)amp_dt_reps(dt);
    for (int j = 0; j < n; j++)
        per += (long long)(b[j].len / b[j].elem);
    /* whole periods (an element has reps of them), then what is left */
    long long elems = (long long)(bytes / period) * per;
    size_t rem = bytes % period;
    for (int j = 0; j < n && rem; j++) {
        size_t len = b[j].len < rem ? b[j].len : rem;
        if (len % b[j].elem)
            return -1;
        elems += (long long)(len / b[j].elem);
        rem -= len;
    }
    return elems;
}

long long amp_dt_elements_bytes(const amp_dt_t *dt, long long elements)
{
    if (dt->size == 0 || elements <= 0)
        return 0;
    if (dt->basic_size)
        return elements * (long long)dt->basic_size;
    amp_dt_block_t one;
    int n;
    const amp_dt_block_t *b = amp_dt_blocks(dt, &n, &one);
    long long per = 0;
    size_t period = dt->size / (size_t)amp_dt_reps(dt);
    for (int j = 0; j < n; j++)
        per += (long long)(b[j].len / b[j].elem);
    long long bytes = elements / per * (long long)period;
    long long rem = elements % per;
    for (int j = 0; j < n && rem; j++) {
        long long k = (long long)(b[j].len / b[j].elem);
        if (k > rem)
            k = rem;
        bytes += k * (long long)b[j].elem;
        rem -= k;
    }
    return bytes;
}

void amp_dt_copy(const amp_dt_t *dt, int count, void *dst, const void *src)
{
    if (dt->contig) {
        memcpy(amp_dt_data(dst, dt), amp_dt_data(src, dt),
               dt->size * (size_t)count);
        return;
    }
    amp_dt_block_t one;
    int n;
    const amp_dt_block_t *b = amp_dt_blocks(dt, &n, &one);
    /* a regular type: each element is reps units (back at zero after
     * each element's last) */
    long long reps = amp_dt_reps(dt), idx[AMP_DT_MAX_DIMS] = {0};
    for (int i = 0; i < count; i++) {
        ptrdiff_t at = (ptrdiff_t)i * dt->extent;
        for (long long r = 0; r < reps; r++, at += amp_dt_rep_next(dt, idx))
            for (int j = 0; j < n; j++)
                memcpy((char *)dst + at + b[j].off,
                       (const char *)src + at + b[j].off, b[j].len);
    }
}

/* A position in the data of count elements of a type, walked in
 * type-map order; a NULL type, and a contiguous one (its elements back to
 * back), is one endless run of bytes. */
typedef struct cursor {
    char *base;
    const amp_dt_block_t *b;
    int n, i, j;
    long long r, reps; /* the repetition of the blocks (amp_dt.reps) */
    long long *idx;    /* its counters (the caller's; the cursor stays
                          small enough to live in registers) */
    const amp_dt_t *dt;
    ptrdiff_t extent, roff; /* roff: the repetition's offset */
    size_t off;             /* bytes of block j already passed */
    amp_dt_block_t one;
} cursor_t;

static void cursor_init(cursor_t *c, const amp_dt_t *dt, const void *buf,
                        long long *idx)
{
    memset(c, 0, sizeof(*c));
    c->idx = idx;
    c->base = (char *)buf;
    if (dt && dt->contig) { /* plain bytes from true_lb: one run */
        c->base += dt->true_lb;
        dt = NULL;
    }
    if (!dt) {
        c->one.len = SIZE_MAX;
        c->b = &c->one;
        c->n = 1;
        c->reps = 1;
        return;
    }
    c->b = amp_dt_blocks(dt, &c->n, &c->one);
    c->extent = dt->extent;
    c->reps = amp_dt_reps(dt);
    c->dt = dt;
}

/* The contiguous bytes at the cursor: their address and (return) length. */
static size_t cursor_run(const cursor_t *c, char **at)
{
    *at = c->base + (ptrdiff_t)c->i * c->extent + c->roff + c->b[c->j].off +
          (ptrdiff_t)c->off;
    return c->b[c->j].len - c->off;
}

/* The next repetition of a regular type's blocks, or its next element
 * after the last (out of line: rare). */
static __attribute__((noinline)) void cursor_wrap(cursor_t *c)
{
    c->roff += amp_dt_rep_next(c->dt, c->idx);
    if (++c->r < c->reps)
        return;
    c->r = 0;
    c->roff = 0;
    c->i++;
}

static inline __attribute__((always_inline)) void cursor_advance(cursor_t *c,
                                                                 size_t k)
{
    c->off += k;
    if (c->off < c->b[c->j].len)
        return;
    c->off = 0;
    if (++c->j < c->n)
        return;
    c->j = 0;
    if (__builtin_expect(c->reps == 1, 1))
        c->i++;
    else
        cursor_wrap(c);
}

size_t amp_dt_copy_typed(const amp_dt_t *sdt, const void *sbuf,
                         const amp_dt_t *rdt, void *rbuf, size_t bytes)
{
    if ((!sdt || sdt->contig) && (!rdt || rdt->contig)) { /* one run each */
        if (bytes)
            memcpy((char *)rbuf + (rdt ? rdt->true_lb : 0),
                   (const char *)sbuf + (sdt ? sdt->true_lb : 0), bytes);
        return bytes != 0;
    }
    size_t pieces = 0;
    cursor_t s, r;
    long long sidx[AMP_DT_MAX_DIMS] = {0}, ridx[AMP_DT_MAX_DIMS] = {0};
    cursor_init(&s, sdt, sbuf, sidx);
    cursor_init(&r, rdt, rbuf, ridx);
    while (bytes > 0) {
        char *from, *to;
        size_t k = cursor_run(&s, &from), kr = cursor_run(&r, &to);
        if (kr < k)
            k = kr;
        if (bytes < k)
            k = bytes;
        memcpy(to, from, k);
        cursor_advance(&s, k);
        cursor_advance(&r, k);
        bytes -= k;
        pieces++;
    }
    return pieces;
}
