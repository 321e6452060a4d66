/*
 * Transfers: a stream of pieces read or written with few system calls
 * (io.h).  Runs on a helper thread.
 *
 * Pieces gather into a window of the file, [lo, hi):
 *  - a piece that starts where the window ends joins it;
 *  - on reads, a piece after a small gap joins too while the window fits
 *    the bounce buffer (data sieving: the gaps are read and dropped);
 *  - anything else (a gap on a write, a piece behind the window's end)
 *    first flushes the window.
 * A window without gaps is one preadv/pwritev per IOV_MAX pieces straight
 * from and to memory, or, for a write of many small pieces, one pwrite
 * from the bounce buffer they are copied into; a window with gaps is one
 * pread into the bounce buffer, copied out piece by piece.
 */
#define _GNU_SOURCE 1
#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

/* Pieces one window holds. */
#define WINDOW_PIECES 8192
/* Largest gap a read window skips over. */
#define SIEVE_GAP ((int64_t)64 * 1024)
/* Pieces below this size are written through the bounce buffer. */
#define SMALL_PIECE 256
/* Largest single system call (Linux moves at most 0x7ffff000 bytes). */
#define MAX_CALL ((size_t)1 << 30)

typedef struct window {
    amp_io_xfer_t *x;
    amp_io_seg_t *p; /* WINDOW_PIECES */
    int n;
    int64_t lo, hi;
    size_t data; /* bytes of the pieces */
    char *bounce;
    struct iovec *iov; /* IOV_MAX */
    amp_status_t st;
    int err;
    int64_t eof; /* a read found the file's end here (-1: not yet) */
} window_t;

/* ---- system calls, retried on EINTR and short counts ---- */

/* Reads or writes len bytes of iov (cnt entries, consumed) at off; a
 * short read ends the file.  Returns the bytes moved, -1 with errno. */
static ssize_t move_iov(window_t *w, struct iovec *iov, int cnt, int64_t off,
                        size_t len)
{
    int fd = w->x->file->fd, seq = w->x->file->sequential;
    size_t done = 0;
    while (done < len && cnt > 0) {
        ssize_t r;
        if (w->x->write)
            r = seq ? writev(fd, iov, cnt)
                    : pwritev(fd, iov, cnt, (off_t)(off + (int64_t)done));
        else
            r = seq ? readv(fd, iov, cnt)
                    : preadv(fd, iov, cnt, (off_t)(off + (int64_t)done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0) /* the end of the file (reads), or nothing written */
            break;
        done += (size_t)r;
        while (cnt > 0 && (size_t)r >= iov->iov_len) {
            r -= (ssize_t)iov->iov_len;
            iov++;
            cnt--;
        }
        if (cnt > 0) {
            iov->iov_base = (char *)iov->iov_base + r;
            iov->iov_len -= (size_t)r;
        }
    }
    if (done < len && w->x->write) {
        errno = ENOSPC;
        return -1;
    }
    return (ssize_t)done;
}

static ssize_t move_buf(window_t *w, char *buf, int64_t off, size_t len)
{
    struct iovec one = {buf, len};
    return move_iov(w, &one, 1, off, len);
}

static void fail(window_t *w, int err)
{
    if (w->st == AMP_OK) {
        w->err = err;
        w->st = amp_io_status_of_errno(err);
    }
}

/* Counts bytes of piece p as moved when the file holds them (a read that
 * ended at w->eof moved nothing beyond it). */
static void count_piece(window_t *w, const amp_io_seg_t *p)
{
    size_t len = p->len;
    if (w->eof >= 0 && p->off + (int64_t)len > w->eof)
        len = p->off >= w->eof ? 0 : (size_t)(w->eof - p->off);
    if (w->x->done && p->src >= 0 && p->src < w->x->nsrc)
        w->x->done[p->src] += len;
}

static char *bounce_of(window_t *w)
{
    if (!w->bounce)
        w->bounce = malloc(w->x->bounce);
    return w->bounce;
}

/* Pieces [first, last) of a window without gaps, from p[first].off on. */
static void flush_dense_iov(window_t *w, int first, int last)
{
    while (first < last && w->st == AMP_OK) {
        int cnt = 0;
        size_t len = 0;
        int64_t off = w->p[first].off;
        while (first + cnt < last && cnt < IOV_MAX && len < MAX_CALL) {
            const amp_io_seg_t *p = &w->p[first + cnt];
            w->iov[cnt] = (struct iovec){p->mem, p->len};
            len += p->len;
            cnt++;
        }
        ssize_t r = move_iov(w, w->iov, cnt, off, len);
        if (r < 0) {
            fail(w, errno);
            return;
        }
        if ((size_t)r < len && w->eof < 0)
            w->eof = off + r;
        first += cnt;
    }
}

/* A window without gaps of small pieces, written from the bounce buffer. */
static int flush_dense_bounce(window_t *w)
{
    char *buf = bounce_of(w);
    if (!buf || w->data > w->x->bounce)
        return 0;
    size_t at = 0;
    for (int i = 0; i < w->n; i++) {
        memcpy(buf + at, w->p[i].mem, w->p[i].len);
        at += w->p[i].len;
    }
    if (move_buf(w, buf, w->lo, at) < 0)
        fail(w, errno);
    return 1;
}

/* A read window with gaps: one read, copied out. */
static void flush_sieved(window_t *w)
{
    char *buf = bounce_of(w);
    size_t span = (size_t)(w->hi - w->lo);
    if (!buf) { /* no memory for sieving: piece by piece */
        for (int i = 0; i < w->n && w->st == AMP_OK; i++)
            flush_dense_iov(w, i, i + 1);
        return;
    }
    ssize_t r = move_buf(w, buf, w->lo, span);
    if (r < 0) {
        fail(w, errno);
        return;
    }
    if ((size_t)r < span && w->eof < 0)
        w->eof = w->lo + r;
    for (int i = 0; i < w->n; i++) {
        const amp_io_seg_t *p = &w->p[i];
        int64_t at = p->off - w->lo;
        if (at >= r)
            break;
        size_t len = p->len;
        if (at + (int64_t)len > r)
            len = (size_t)(r - at);
        memcpy(p->mem, buf + at, len);
    }
}

static void flush(window_t *w)
{
    if (w->n == 0)
        return;
    if (w->st == AMP_OK) {
        int dense = w->data == (size_t)(w->hi - w->lo);
        if (!dense)
            flush_sieved(w);
        else if (!(w->x->write && w->x->bounce && w->n > 1 &&
                   w->data / (size_t)w->n < SMALL_PIECE &&
                   flush_dense_bounce(w)))
            flush_dense_iov(w, 0, w->n);
    }
    for (int i = 0; i < w->n; i++)
        count_piece(w, &w->p[i]);
    w->n = 0;
    w->data = 0;
}

/* Whether piece s may join the window. */
static int joins(const window_t *w, const amp_io_seg_t *s)
{
    if (w->n == 0)
        return 1;
    if (w->n == WINDOW_PIECES || s->off < w->hi)
        return 0;
    if (s->off == w->hi)
        return w->x->write || w->data == (size_t)(w->hi - w->lo) ||
               s->off + (int64_t)s->len - w->lo <= (int64_t)w->x->bounce;
    /* A gap: only reads sieve, within the bounce buffer. */
    return !w->x->write && !w->x->file->sequential &&
           s->off - w->hi <= SIEVE_GAP &&
           s->off + (int64_t)s->len - w->lo <= (int64_t)w->x->bounce;
}

static void add(window_t *w, const amp_io_seg_t *s)
{
    if (!joins(w, s))
        flush(w);
    if (w->n == 0) {
        w->lo = s->off;
        w->hi = s->off;
    }
    w->p[w->n++] = *s;
    w->hi = s->off + (int64_t)s->len;
    w->data += s->len;
}

/* ---- atomic mode ---- */

static int range_lock(amp_io_xfer_t *x, int type)
{
    struct flock fl = {.l_type = (short)type,
                       .l_whence = SEEK_SET,
                       .l_start = (off_t)x->lo,
                       .l_len = (off_t)(x->hi - x->lo)};
    if (x->hi <= x->lo)
        return 0;
    while (fcntl(x->file->fd, F_SETLKW, &fl) != 0)
        if (errno != EINTR)
            return errno;
    return 0;
}

static int lock(amp_io_xfer_t *x)
{
    if (x->write)
        pthread_rwlock_wrlock(&x->file->atomic_lock);
    else
        pthread_rwlock_rdlock(&x->file->atomic_lock);
    if (!x->file->lock_procs)
        return 0;
    int err = range_lock(x, x->write ? F_WRLCK : F_RDLCK);
    if (err)
        pthread_rwlock_unlock(&x->file->atomic_lock);
    return err;
}

static void unlock(amp_io_xfer_t *x)
{
    if (x->file->lock_procs)
        range_lock(x, F_UNLCK);
    pthread_rwlock_unlock(&x->file->atomic_lock);
}

amp_status_t amp_io_xfer_run(amp_io_xfer_t *x, int *err)
{
    window_t w = {.x = x, .eof = -1};
    w.p = malloc(WINDOW_PIECES * sizeof(*w.p));
    w.iov = malloc(IOV_MAX * sizeof(*w.iov));
    *err = 0;
    if (!w.p || !w.iov) {
        free(w.p);
        free(w.iov);
        return AMP_ERR_NOMEM;
    }
    int lerr = x->atomic ? lock(x) : 0;
    if (lerr)
        fail(&w, lerr);
    amp_io_seg_t s;
    while (w.st == AMP_OK && x->next(x->src, &s))
        if (s.len)
            add(&w, &s);
    flush(&w);
    if (x->atomic && !lerr)
        unlock(x);
    free(w.bounce);
    free(w.p);
    free(w.iov);
    *err = w.err;
    return w.st;
}

/* ---- merging cursors ---- */

static int64_t head_off(const amp_io_merge_t *m, int i)
{
    return m->head[m->heap[i]].off;
}

static void sift_down(amp_io_merge_t *m, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, min = i;
        if (l < m->n && head_off(m, l) < head_off(m, min))
            min = l;
        if (r < m->n && head_off(m, r) < head_off(m, min))
            min = r;
        if (min == i)
            return;
        int t = m->heap[i];
        m->heap[i] = m->heap[min];
        m->heap[min] = t;
        i = min;
    }
}

void amp_io_merge_init(amp_io_merge_t *m, amp_io_cursor_t *cur, int n,
                       amp_io_seg_t *head, int *heap)
{
    m->cur = cur;
    m->head = head;
    m->heap = heap;
    m->n = 0;
    for (int i = 0; i < n; i++)
        if (amp_io_cursor_next(&cur[i], &head[i]))
            heap[m->n++] = i;
    for (int i = m->n / 2 - 1; i >= 0; i--)
        sift_down(m, i);
}

int amp_io_merge_next(void *arg, amp_io_seg_t *seg)
{
    amp_io_merge_t *m = arg;
    if (m->n == 0)
        return 0;
    int i = m->heap[0];
    *seg = m->head[i];
    if (!amp_io_cursor_next(&m->cur[i], &m->head[i]))
        m->heap[0] = m->heap[--m->n];
    sift_down(m, 0);
    return 1;
}
