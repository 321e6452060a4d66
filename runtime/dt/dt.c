#include "dt/dt.h"

#include <stdlib.h>
#include <string.h>

/* The blocks of one element; a type without a block list is one block. */
static const amp_dt_block_t *blocks_of(const amp_dt_t *dt, int *n,
                                       amp_dt_block_t *one)
{
    if (dt->nblocks > 0) {
        *n = dt->nblocks;
        return dt->blocks;
    }
    one->off = dt->true_lb;
    one->len = dt->size;
    one->elem = dt->basic_size ? dt->basic_size : 1;
    *n = dt->size ? 1 : 0;
    return one;
}

/* Appends a block, merging it into the previous one when they touch and
 * hold the same kind of values. */
static void add_block(amp_dt_block_t *blocks, int *n, amp_dt_block_t b)
{
    if (*n > 0) {
        amp_dt_block_t *last = &blocks[*n - 1];
        if (last->off + (ptrdiff_t)last->len == b.off && last->elem == b.elem) {
            last->len += b.len;
            return;
        }
    }
    blocks[(*n)++] = b;
}

amp_status_t amp_dt_make_contiguous(amp_dt_t *newdt, int count,
                                    const amp_dt_t *old)
{
    amp_dt_block_t one;
    int nold;
    const amp_dt_block_t *ob = blocks_of(old, &nold, &one);
    size_t cap = (size_t)nold * (size_t)(count > 0 ? count : 1);
    amp_dt_block_t *blocks = malloc((cap ? cap : 1) * sizeof(*blocks));
    if (!blocks)
        return AMP_ERR_NOMEM;
    int n = 0;
    for (int i = 0; i < count; i++) {
        for (int j = 0; j < nold; j++) {
            amp_dt_block_t b = ob[j];
            b.off += (ptrdiff_t)i * old->extent;
            add_block(blocks, &n, b);
        }
    }
    newdt->size = old->size * (size_t)count;
    newdt->lb = old->lb;
    newdt->extent = old->extent * count;
    newdt->true_lb = old->true_lb;
    newdt->true_extent =
        count > 0 ? (count - 1) * old->extent + old->true_extent : 0;
    newdt->basic_size = old->basic_size;
    newdt->contig = old->contig;
    newdt->nblocks = n;
    newdt->blocks = blocks;
    newdt->owned_blocks = blocks;
    newdt->flags = old->flags;
    newdt->base_id = old->base_id;
    newdt->base_count = old->base_count * count;
    newdt->count = count;
    newdt->name = NULL;
    return AMP_OK;
}

void amp_dt_destroy(amp_dt_t *dt)
{
    free(dt->owned_blocks);
    dt->owned_blocks = NULL;
    dt->blocks = NULL;
    dt->nblocks = 0;
}

void amp_dt_pack(const amp_dt_t *dt, int count, const void *buf, void *out)
{
    if (dt->contig) {
        memcpy(out, (const char *)buf + dt->true_lb, dt->size * (size_t)count);
        return;
    }
    amp_dt_block_t one;
    int n;
    const amp_dt_block_t *b = blocks_of(dt, &n, &one);
    char *o = out;
    for (int i = 0; i < count; i++) {
        const char *elem = (const char *)buf + (ptrdiff_t)i * dt->extent;
        for (int j = 0; j < n; j++) {
            memcpy(o, elem + b[j].off, b[j].len);
            o += b[j].len;
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
        memcpy((char *)buf + dt->true_lb, in, bytes);
        return bytes;
    }
    amp_dt_block_t one;
    int n;
    const amp_dt_block_t *b = blocks_of(dt, &n, &one);
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
    const amp_dt_block_t *b = blocks_of(dt, &n, &one);
    long long per = 0;
    for (int j = 0; j < n; j++)
        per += (long long)(b[j].len / b[j].elem);
    long long elems = (long long)(bytes / dt->size) * per;
    size_t rem = bytes % dt->size;
    for (int j = 0; j < n && rem; j++) {
        size_t len = b[j].len < rem ? b[j].len : rem;
        if (len % b[j].elem)
            return -1;
        elems += (long long)(len / b[j].elem);
        rem -= len;
    }
    return elems;
}
