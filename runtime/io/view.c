/*
 * File views as maps from the data stream to the file (io.h).
 *
 * The stream's byte pos lies in tile pos / fsize, at data byte
 * pos % fsize of it: in the block j whose data starts at before[j] in the
 * tile, at file offset disp + tile * extent + blocks[j].off + (the rest).
 * Cursors walk that map block by block and join blocks that touch in the
 * file, so that a dense view yields one piece.  A regular filetype (dt.h)
 * lists the blocks of one repetition only: the tile's data byte in lies in
 * repetition in / esize, which lies at rep_at of it in the tile, and at
 * data byte in % esize of that repetition's blocks.
 */
#include "io/io.h"

#include <stdlib.h>

static const amp_dt_block_t *blocks_of(const amp_io_view_t *v)
{
    return v->blocks ? v->blocks : &v->one;
}

/* Where repetition r of dt's blocks lies from its first (dt.h). */
static int64_t rep_at(const amp_dt_t *dt, long long r)
{
    int64_t at = 0;
    for (int k = dt->ndims - 1; k >= 0 && amp_dt_reps(dt) > 1; k--) {
        at += (int64_t)(r % dt->dims[k]) * dt->strides[k];
        r /= dt->dims[k];
    }
    return at;
}

/* The repetitions of a regular type's blocks go forwards: each one's
 * first block lies at or after the one before's last block (or its end,
 * when the file may be written). */
static const char *reps_problem(const amp_dt_t *dt, const amp_dt_block_t *b,
                                int n, int writable)
{
    for (int k = 0; n > 0 && k < dt->ndims; k++) {
        if (dt->dims[k] < 2)
            continue;
        ptrdiff_t last =
            b[n - 1].off + (writable ? (ptrdiff_t)b[n - 1].len : 0);
        if (dt->steps[k] + b[0].off < b[n - 1].off)
            return "has decreasing displacements";
        if (dt->steps[k] + b[0].off < last)
            return "has overlapping data (allowed only on files opened "
                   "MPI_MODE_RDONLY)";
    }
    return NULL;
}

const char *amp_io_view_problem(const amp_dt_t *dt, int writable)
{
    amp_dt_block_t one;
    int n;
    const amp_dt_block_t *b = amp_dt_blocks(dt, &n, &one);
    for (int j = 0; j < n; j++) {
        if (b[j].off < 0)
            return "has a negative displacement";
        if (j > 0 && b[j].off < b[j - 1].off)
            return "has decreasing displacements";
        if (writable && j > 0 &&
            b[j].off < b[j - 1].off + (ptrdiff_t)b[j - 1].len)
            return "has overlapping data (allowed only on files opened "
                   "MPI_MODE_RDONLY)";
    }
    const char *why = reps_problem(dt, b, n, writable);
    if (why)
        return why;
    if (n > 0 && dt->size > 0) {
        /* Copies of the type follow each other at its extent. */
        ptrdiff_t next = b[0].off + dt->extent;
        ptrdiff_t last = b[n - 1].off + rep_at(dt, amp_dt_reps(dt) - 1);
        if (last > next)
            return "has an extent smaller than its data, so that its copies "
                   "go backwards";
        if (writable && last + (ptrdiff_t)b[n - 1].len > next)
            return "has an extent smaller than its data, so that its copies "
                   "overlap (allowed only on files opened MPI_MODE_RDONLY)";
    }
    return NULL;
}

amp_status_t amp_io_view_init(amp_io_view_t *v, int64_t disp,
                              const amp_dt_t *etype, const amp_dt_t *filetype)
{
    int n;
    v->disp = disp;
    v->etype = etype;
    v->filetype = filetype;
    v->fsize = filetype->size;
    v->fextent = filetype->extent;
    const amp_dt_block_t *b = amp_dt_blocks(filetype, &n, &v->one);
    v->blocks = b == &v->one ? NULL : b;
    v->nblocks = n;
    v->before = malloc(((size_t)n + 1) * sizeof(*v->before));
    if (!v->before)
        return AMP_ERR_NOMEM;
    size_t sum = 0;
    for (int j = 0; j < n; j++) {
        v->before[j] = sum;
        sum += b[j].len;
    }
    v->before[n] = sum;
    v->reps = amp_dt_reps(filetype);
    v->esize = sum;
    v->dense = n == 1 && v->reps == 1 && (ptrdiff_t)b[0].len == v->fextent;
    return AMP_OK;
}

void amp_io_view_cleanup(amp_io_view_t *v)
{
    free(v->before);
    v->before = NULL;
}

/* The block of a tile holding its data byte in (< fsize). */
static int block_at(const amp_io_view_t *v, size_t in)
{
    int lo = 0, hi = v->nblocks - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (v->before[mid] <= in)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

int64_t amp_io_view_offset(const amp_io_view_t *v, int64_t pos)
{
    const amp_dt_block_t *b = blocks_of(v);
    if (v->fsize == 0)
        return v->disp;
    int64_t tile = pos / (int64_t)v->fsize;
    size_t in = (size_t)(pos % (int64_t)v->fsize);
    long long r = (long long)(in / v->esize);
    in %= v->esize;
    int j = block_at(v, in);
    return v->disp + tile * v->fextent + rep_at(v->filetype, r) + b[j].off +
           (int64_t)(in - v->before[j]);
}

/* The repetition of the tile's blocks that begins last below in_tile
 * (the repetitions go forwards: amp_io_view_problem). */
static long long rep_below(const amp_io_view_t *v, int64_t in_tile)
{
    const amp_dt_block_t *b = blocks_of(v);
    long long lo = 0, hi = v->reps - 1;
    while (lo < hi) {
        long long mid = lo + (hi - lo + 1) / 2;
        if (rep_at(v->filetype, mid) + b[0].off < in_tile)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

int64_t amp_io_view_stream_below(const amp_io_view_t *v, int64_t off)
{
    const amp_dt_block_t *b = blocks_of(v);
    if (v->nblocks == 0 || v->fsize == 0)
        return 0;
    int64_t rel = off - v->disp - b[0].off;
    if (rel <= 0)
        return 0;
    int64_t tile = v->fextent > 0 ? rel / v->fextent : 0;
    int64_t in_tile = off - v->disp - tile * v->fextent;
    long long r = v->reps > 1 ? rep_below(v, in_tile) : 0;
    int64_t sum = tile * (int64_t)v->fsize + r * (int64_t)v->esize;
    in_tile -= rep_at(v->filetype, r);
    for (int j = 0; j < v->nblocks && b[j].off < in_tile; j++) {
        int64_t part = in_tile - b[j].off;
        sum += part < (int64_t)b[j].len ? part : (int64_t)b[j].len;
    }
    return sum;
}

void amp_io_cursor_init(amp_io_cursor_t *c, const amp_io_view_t *v,
                        int64_t start, size_t bytes, char *mem, int src)
{
    c->v = v;
    c->left = v->fsize ? bytes : 0;
    c->mem = mem;
    c->src = src;
    c->tile = 0;
    c->rep = 0;
    c->rep_at = 0;
    c->blk = 0;
    c->in_blk = 0;
    if (!c->left)
        return;
    c->tile = start / (int64_t)v->fsize;
    size_t in = (size_t)(start % (int64_t)v->fsize);
    c->rep = (long long)(in / v->esize);
    c->rep_at = rep_at(v->filetype, c->rep);
    in %= v->esize;
    c->blk = block_at(v, in);
    c->in_blk = in - v->before[c->blk];
}

/* The cursor on to the next block: of the repetition, of the tile, or of
 * the next tile. */
static void cursor_step(amp_io_cursor_t *c)
{
    const amp_io_view_t *v = c->v;
    c->in_blk = 0;
    if (++c->blk < v->nblocks)
        return;
    c->blk = 0;
    if (++c->rep < v->reps) {
        c->rep_at = rep_at(v->filetype, c->rep);
        return;
    }
    c->rep = 0;
    c->rep_at = 0;
    c->tile++;
}

/* File offset of the cursor's next byte. */
static int64_t cursor_off(const amp_io_cursor_t *c)
{
    const amp_io_view_t *v = c->v;
    return v->disp + c->tile * v->fextent + c->rep_at +
           blocks_of(v)[c->blk].off + (int64_t)c->in_blk;
}

int amp_io_cursor_next(amp_io_cursor_t *c, amp_io_seg_t *seg)
{
    const amp_io_view_t *v = c->v;
    const amp_dt_block_t *b = blocks_of(v);
    if (!c->left)
        return 0;
    seg->off = cursor_off(c);
    seg->mem = c->mem;
    seg->src = c->src;
    if (v->dense) {
        seg->len = c->left;
        c->mem += c->left;
        c->left = 0;
        return 1;
    }
    size_t len = 0;
    do {
        size_t take = b[c->blk].len - c->in_blk;
        take = take < c->left ? take : c->left;
        len += take;
        c->left -= take;
        c->in_blk += take;
        if (c->in_blk == b[c->blk].len)
            cursor_step(c);
    } while (c->left && cursor_off(c) == seg->off + (int64_t)len);
    seg->len = len;
    c->mem += len;
    return 1;
}
