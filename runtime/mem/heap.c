#include "mem/heap.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define HDR 16 /* sizeof(blk_t): user pointers keep its alignment */
#define NCLASSES 32
#define SMALL_MAX 8192
#define SMALL_SPAN ((size_t)256 << 10)
#define COMMIT_STEP ((size_t)1 << 20)
/* Free pages kept for reuse (not given back to the system): at least
 * KEEP_MIN bytes, twice the largest span freed so far, at most KEEP_MAX
 * (glibc's trim threshold follows its largest freed mapping the same way,
 * up to 64 MiB). */
#define KEEP_MIN ((size_t)1 << 20)
#define KEEP_MAX ((size_t)64 << 20)
#define HEAP_MAGIC 0x616d702d68656170ULL /* "amp-heap" */

/* What a block header describes; odd values, so that stray data is seldom
 * taken for a header. */
enum {
    KIND_SMALL = 0x5a110c01,
    KIND_SMALL_FREE = 0x5a110c03,
    KIND_SMALL_REMOTE = 0x5a110c05, /* on the remote list */
    KIND_SPAN = 0x5a110c07,
    KIND_SPAN_FREE = 0x5a110c09,
    KIND_SPAN_REMOTE = 0x5a110c0b,
    KIND_ALIGNED = 0x5a110c0d,
};

/* In a span's flags: the span before it is free (its last word holds its
 * size).  Free spans never touch: freeing merges them. */
#define PREV_FREE 1u
/* In a free span's flags: its pages may be touched (counted in dirty). */
#define DIRTY 2u

typedef struct blk {
    /* small: its class's bytes; span: the span's bytes with this header;
     * aligned: how far before the pointer the real block's pointer is */
    size_t size;
    uint32_t kind;
    uint32_t flags; /* small: its class; span: PREV_FREE */
} blk_t;

_Static_assert(sizeof(blk_t) == HDR, "block headers are 16 bytes");

/* A free span: on the heap's list, its size in its last word too. */
typedef struct free_span {
    blk_t hdr;
    struct free_span *prev, *next;
} free_span_t;

struct amp_heap {
    uint64_t magic;
    char *lo;     /* the lowest block: small blocks fill the rest of the
                     header's page before the first span's */
    char *first;  /* first span */
    char *top;    /* end of the spans */
    char *commit; /* end of the accessible pages */
    char *end;    /* end of the region */
    size_t page;
    char *small_cur, *small_end; /* the span small blocks are carved from */
    free_span_t *spans;          /* free spans, newest first */
    void *classes[NCLASSES];     /* free small blocks, per class */
    /* Free pages kept for reuse: the DIRTY spans' bytes, and [top, high)
     * above the top; given back once they pass keep (amp_heap_trim). */
    size_t dirty, keep;
    char *high;
    /* Blocks given back by other threads, linked through their first word:
     * pushed by any thread, taken all at once by the owner. */
    _Alignas(64) _Atomic(void *) remote;
};

static blk_t *hdr_of(const void *p)
{
    return (blk_t *)p - 1;
}

/* Small classes: 16..128 by 16, then four per power of two up to 8 KiB. */
static int class_of(size_t n)
{
    if (n <= 128)
        return n ? (int)((n - 1) >> 4) : 0;
    int lg = 63 - __builtin_clzll((unsigned long long)(n - 1));
    int sub = (int)((n - 1) >> (lg - 2)) & 3;
    return 8 + (lg - 7) * 4 + sub;
}

static size_t class_size(int c)
{
    if (c < 8)
        return (size_t)(c + 1) * 16;
    int g = (c - 8) / 4, sub = (c - 8) % 4;
    return ((size_t)1 << (7 + g)) + ((size_t)(sub + 1) << (5 + g));
}

/* Makes the region accessible up to at least want (at most the end). */
static int commit_to(amp_heap_t *h, char *want)
{
    if (want <= h->commit)
        return 1;
    size_t off = AMP_ROUND_UP((size_t)(want - (char *)h), COMMIT_STEP);
    char *to = (char *)h + off;
    if (to > h->end)
        to = h->end;
    if (mprotect(h->commit, (size_t)(to - h->commit), PROT_READ | PROT_WRITE))
        return 0;
    h->commit = to;
    return 1;
}

/* The pages of [start, end) go back to the system; they read as zero
 * when next touched. */
static void release(char *start, char *end)
{
    if (end > start)
        madvise(start, (size_t)(end - start), MADV_DONTNEED);
}

static blk_t *span_after(const amp_heap_t *h, const blk_t *s)
{
    char *next = (char *)s + s->size;
    return next < h->top ? (blk_t *)next : NULL;
}

static void span_link(amp_heap_t *h, free_span_t *f, size_t size)
{
    f->hdr.size = size;
    f->hdr.kind = KIND_SPAN_FREE;
    f->hdr.flags = 0;
    f->prev = NULL;
    f->next = h->spans;
    if (h->spans)
        h->spans->prev = f;
    h->spans = f;
    memcpy((char *)f + size - sizeof(size), &size, sizeof(size));
}

/* span_link for a span whose pages may be touched. */
static void span_link_dirty(amp_heap_t *h, free_span_t *f, size_t size)
{
    span_link(h, f, size);
    f->hdr.flags = DIRTY;
    h->dirty += size;
}

static void span_unlink(amp_heap_t *h, free_span_t *f)
{
    if (f->hdr.flags & DIRTY)
        h->dirty -= f->hdr.size;
    if (f->prev)
        f->prev->next = f->next;
    else
        h->spans = f->next;
    if (f->next)
        f->next->prev = f->prev;
}

/* The top goes up to to: kept pages above it are in use again. */
static void raise_top(amp_heap_t *h, char *to)
{
    h->dirty -= (size_t)(h->high - h->top);
    h->top = to;
    if (h->high < to)
        h->high = to;
    h->dirty += (size_t)(h->high - h->top);
}

static blk_t *span_from_top(amp_heap_t *h, size_t need)
{
    if (need > (size_t)(h->end - h->top) || !commit_to(h, h->top + need))
        return NULL;
    blk_t *s = (blk_t *)h->top;
    s->size = need;
    s->kind = KIND_SPAN;
    s->flags = 0;
    raise_top(h, h->top + need);
    return s;
}

/* A span of need bytes (a multiple of the page): the first free one large
 * enough, split when the rest is a page or more, else from the top. */
static blk_t *span_take(amp_heap_t *h, size_t need)
{
    for (free_span_t *f = h->spans; f; f = f->next) {
        if (f->hdr.size < need)
            continue;
        int dirty = f->hdr.flags & DIRTY;
        span_unlink(h, f);
        blk_t *s = &f->hdr;
        size_t rest = s->size - need;
        if (rest >= h->page) {
            free_span_t *r = (free_span_t *)((char *)s + need);
            if (dirty)
                span_link_dirty(h, r, rest);
            else
                span_link(h, r, rest);
        } else {
            blk_t *next = span_after(h, s);
            if (next)
                next->flags &= ~PREV_FREE;
            need = s->size;
        }
        s->size = need;
        s->kind = KIND_SPAN;
        s->flags = 0;
        return s;
    }
    return span_from_top(h, need);
}

/* A span of size bytes was freed: keep up to twice the largest. */
static void keep_more(amp_heap_t *h, size_t size)
{
    size_t want = size < KEEP_MAX / 2 ? 2 * size : KEEP_MAX;
    if (h->keep < want)
        h->keep = want;
}

void amp_heap_trim(amp_heap_t *h)
{
    for (free_span_t *f = h->spans; f; f = f->next)
        if (f->hdr.flags & DIRTY) {
            /* The first page holds the links, the last word the size. */
            release((char *)f + h->page, (char *)f + f->hdr.size - h->page);
            f->hdr.flags &= ~DIRTY;
        }
    release((char *)AMP_ROUND_UP((uintptr_t)h->top, h->page), h->high);
    h->high = h->top;
    h->dirty = 0;
}

/* Gives span s back, merged with its free neighbours; at the top, it lowers
 * the top instead. */
static void span_free(amp_heap_t *h, blk_t *s)
{
    char *start = (char *)s;
    size_t size = s->size;
    blk_t *next = span_after(h, s);
    if (s->flags & PREV_FREE) {
        size_t prev_size;
        memcpy(&prev_size, start - sizeof(prev_size), sizeof(prev_size));
        start -= prev_size;
        size += prev_size;
        span_unlink(h, (free_span_t *)start);
    }
    if (next && next->kind == KIND_SPAN_FREE) {
        span_unlink(h, (free_span_t *)next);
        size += next->size;
    }
    char *end = start + size;
    keep_more(h, size);
    if (end == h->top) {
        h->top = start; /* high >= the old top: [start, high) is kept */
        h->dirty += size;
    } else {
        span_link_dirty(h, (free_span_t *)start, size);
        ((blk_t *)end)->flags |= PREV_FREE;
    }
    if (h->dirty > h->keep)
        amp_heap_trim(h);
}

static void *small_alloc(amp_heap_t *h, size_t n)
{
    int c = class_of(n);
    void *p = h->classes[c];
    if (p) {
        h->classes[c] = *(void **)p;
        hdr_of(p)->kind = KIND_SMALL;
        return p;
    }
    size_t size = class_size(c);
    if ((size_t)(h->small_end - h->small_cur) < HDR + size) {
        /* A fresh span; the end of the old one stays unused. */
        blk_t *s = span_take(h, SMALL_SPAN);
        if (!s)
            s = span_take(h, AMP_ROUND_UP(2 * HDR + size, h->page));
        if (!s)
            return NULL;
        h->small_cur = (char *)(s + 1);
        h->small_end = (char *)s + s->size;
    }
    blk_t *b = (blk_t *)h->small_cur;
    b->size = size;
    b->kind = KIND_SMALL;
    b->flags = (uint32_t)c;
    h->small_cur += HDR + size;
    return b + 1;
}

static void *plain_alloc(amp_heap_t *h, size_t n)
{
    if (n <= SMALL_MAX)
        return small_alloc(h, n);
    if (n > (size_t)(h->end - h->first))
        return NULL;
    blk_t *s = span_take(h, AMP_ROUND_UP(n + HDR, h->page));
    return s ? s + 1 : NULL;
}

/* Usable bytes of a block that is not an aligned one, or 0. */
static size_t plain_usable_size(const blk_t *b)
{
    if (b->kind == KIND_SMALL)
        return b->size;
    if (b->kind == KIND_SPAN)
        return b->size - HDR;
    return 0;
}

/* Whether p may be a block: it lies among the spans. */
static int below_top(const amp_heap_t *h, const void *p)
{
    const char *c = p;
    return c >= h->lo + HDR && c < h->top;
}

static amp_status_t free_block(amp_heap_t *h, void *p)
{
    if (!below_top(h, p))
        return AMP_ERR_ARG;
    blk_t *b = hdr_of(p);
    if (b->kind == KIND_ALIGNED) {
        p = (char *)p - b->size;
        if (!below_top(h, p) || hdr_of(p)->kind == KIND_ALIGNED)
            return AMP_ERR_ARG;
        b = hdr_of(p);
    }
    if (b->kind == KIND_SMALL && b->flags < NCLASSES) {
        b->kind = KIND_SMALL_FREE;
        *(void **)p = h->classes[b->flags];
        h->classes[b->flags] = p;
        return AMP_OK;
    }
    if (b->kind == KIND_SPAN) {
        span_free(h, b);
        return AMP_OK;
    }
    return AMP_ERR_ARG;
}

/* Frees what other threads gave back. */
static void drain(amp_heap_t *h)
{
    void *p = atomic_exchange_explicit(&h->remote, NULL, memory_order_acquire);
    while (p) {
        void *next = *(void **)p;
        blk_t *b = hdr_of(p);
        b->kind = b->kind == KIND_SMALL_REMOTE ? KIND_SMALL : KIND_SPAN;
        amp_status_t st = free_block(h, p); /* amp_heap_free_remote checked p */
        amp_assert(st == AMP_OK);
        p = next;
    }
}

static void drain_if_any(amp_heap_t *h)
{
    if (atomic_load_explicit(&h->remote, memory_order_relaxed))
        drain(h);
}

amp_heap_t *amp_heap_create(void *base, size_t size, size_t page_size)
{
    size_t hdr = AMP_ROUND_UP(sizeof(amp_heap_t), page_size);
    if (size < hdr + page_size ||
        mprotect(base, hdr, PROT_READ | PROT_WRITE) != 0)
        return NULL;
#ifdef MADV_POPULATE_WRITE
    /* Backed in one call rather than a fault (mem.h, amp_mem_slot_populate). */
    (void)madvise(base, hdr, MADV_POPULATE_WRITE);
#endif
    amp_heap_t *h = base;
    memset(h, 0, sizeof(*h));
    h->magic = HEAP_MAGIC;
    h->first = (char *)base + hdr;
    /* A rank that allocates a little touches one page, not two. */
    h->lo = (char *)base + AMP_ROUND_UP(sizeof(*h), 64);
    h->small_cur = h->lo;
    h->small_end = h->first;
    h->top = h->first;
    h->commit = h->first;
    h->end = (char *)base + size;
    h->page = page_size;
    h->keep = KEEP_MIN;
    h->high = h->top;
    atomic_init(&h->remote, NULL);
    return h;
}

void *amp_heap_alloc(amp_heap_t *h, size_t n, size_t align)
{
    drain_if_any(h);
    if (align <= HDR)
        return plain_alloc(h, n);
    size_t room = (size_t)(h->end - h->first);
    if (n > room || align > room)
        return NULL;
    /* p below lies within align - HDR of raw + HDR: n + align bytes hold
     * both its header and its n bytes. */
    char *raw = plain_alloc(h, n + align);
    if (!raw || (uintptr_t)raw % align == 0)
        return raw;
    char *p = (char *)AMP_ROUND_UP((uintptr_t)raw + HDR, align);
    blk_t *b = hdr_of(p);
    b->size = (size_t)(p - raw);
    b->kind = KIND_ALIGNED;
    b->flags = 0;
    return p;
}

/* Grows span s (the last before the top) in place to hold n bytes. */
static int grow_at_top(amp_heap_t *h, blk_t *s, size_t n)
{
    if ((char *)s + s->size != h->top || n > (size_t)(h->end - h->first))
        return 0;
    size_t more = AMP_ROUND_UP(n + HDR, h->page) - s->size;
    if (more > (size_t)(h->end - h->top) || !commit_to(h, h->top + more))
        return 0;
    raise_top(h, h->top + more);
    s->size += more;
    return 1;
}

void *amp_heap_realloc(amp_heap_t *h, void *p, size_t n)
{
    drain_if_any(h);
    size_t have = amp_heap_usable_size(p);
    if (n <= have && (n >= have / 2 || have <= 128))
        return p;
    blk_t *b = hdr_of(p);
    if (n > have && b->kind == KIND_SPAN && grow_at_top(h, b, n))
        return p;
    void *q = amp_heap_alloc(h, n, HDR);
    if (!q)
        return NULL;
    memcpy(q, p, n < have ? n : have);
    amp_status_t st = free_block(h, p); /* a live block: its size was read */
    amp_assert(st == AMP_OK);
    return q;
}

amp_status_t amp_heap_free(amp_heap_t *h, void *p)
{
    drain_if_any(h);
    return free_block(h, p);
}

/* Marks b as on the remote list, if it is live: from expect to kind. */
static int claim(blk_t *b, uint32_t expect, uint32_t kind)
{
    return __atomic_compare_exchange_n(&b->kind, &expect, kind, 0,
                                       __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

amp_status_t amp_heap_free_remote(amp_heap_t *h, void *p)
{
    /* Only the fields that never change after amp_heap_create are read. */
    if (!amp_heap_contains(h, p))
        return AMP_ERR_ARG;
    blk_t *b = hdr_of(p);
    if (b->kind == KIND_ALIGNED) {
        p = (char *)p - b->size;
        if (!amp_heap_contains(h, p))
            return AMP_ERR_ARG;
        b = hdr_of(p);
    }
    if (!claim(b, KIND_SMALL, KIND_SMALL_REMOTE) &&
        !claim(b, KIND_SPAN, KIND_SPAN_REMOTE))
        return AMP_ERR_ARG;
    void *head = atomic_load_explicit(&h->remote, memory_order_relaxed);
    do {
        *(void **)p = head;
    } while (!atomic_compare_exchange_weak_explicit(
        &h->remote, &head, p, memory_order_release, memory_order_relaxed));
    return AMP_OK;
}

size_t amp_heap_usable_size(const void *p)
{
    const blk_t *b = hdr_of(p);
    if (b->kind != KIND_ALIGNED)
        return plain_usable_size(b);
    size_t raw = plain_usable_size(hdr_of((const char *)p - b->size));
    return raw > b->size ? raw - b->size : 0;
}

int amp_heap_contains(const amp_heap_t *h, const void *p)
{
    const char *c = p;
    return c >= h->lo + HDR && c < h->end;
}

size_t amp_heap_extent(const amp_heap_t *h)
{
    return (size_t)(h->top - (const char *)h);
}

void amp_heap_unused(const amp_heap_t *h, size_t *from, size_t *to)
{
    char *a = (char *)AMP_ROUND_UP((uintptr_t)h->small_cur, h->page);
    char *b = h->small_end; /* a span's end: on a page boundary */
    *from = *to = 0;
    if (h->small_cur >= h->first && b <= h->top && b > a) {
        *from = (size_t)(a - (const char *)h);
        *to = (size_t)(b - (const char *)h);
    }
}

size_t amp_heap_committed(const amp_heap_t *h)
{
    return (size_t)(h->commit - (const char *)h);
}

amp_status_t amp_heap_restore_commit(void *base, size_t committed)
{
    if (committed && mprotect(base, committed, PROT_READ | PROT_WRITE) != 0)
        return AMP_ERR_NOMEM;
    return AMP_OK;
}

amp_heap_t *amp_heap_restore_check(void *base, size_t size, size_t extent,
                                   size_t committed)
{
    amp_heap_t *h = base;
    char *b = base;
    if (extent < sizeof(*h) || h->magic != HEAP_MAGIC || h->end != b + size ||
        h->top != b + extent || h->commit != b + committed ||
        h->lo < b + sizeof(*h) || h->lo > h->first || h->first > h->top ||
        h->top > h->commit ||
        h->high < h->top || h->high > h->commit)
        return NULL;
    return h;
}
