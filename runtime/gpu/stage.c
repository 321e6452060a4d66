/*
 * Device buffers of a call staged through pinned host memory (stage.h).
 *
 * Copies in are made before the call starts its messages, so that
 * messages keep MPI's order; copies back are made (or queued) when the
 * data has arrived.  The calling thread waits for a copy as for a message:
 * blocked in the scheduler, whose loop polls the copy's event.
 */
#include "gpu/stage.h"

/* ---- copies the calling thread waits for ---- */

/* A copy (or a watch) the calling thread waits for. */
typedef struct wait {
    amp_pe_t *pe;      /* where it was queued: the thread's */
    amp_thread_t *thr; /* blocked until it is done, or NULL */
    int done;
    amp_status_t error;
} wait_t;

static void wait_done(void *arg, amp_status_t st)
{
    wait_t *w = arg;
    w->error = st;
    w->done = 1;
    amp_sched_activity(w->pe);
    amp_thread_t *thr = w->thr;
    if (thr) {
        w->thr = NULL;
        amp_sched_wake(thr);
    }
}

/* Blocks the calling thread until w is done (its PE runs other threads
 * meanwhile); w's status. */
static amp_status_t wait_until_done(wait_t *w)
{
    if (!w->done) {
        w->thr = w->pe->current;
        while (!w->done)
            amp_sched_block();
    }
    return w->error;
}

static amp_status_t copy_wait(amp_gpu_t *g, void *dst, const void *src,
                              size_t bytes)
{
    wait_t w = {amp_pe_self(), NULL, 0, AMP_OK};
    amp_status_t st = amp_gpu_copy(g, w.pe, dst, src, bytes, wait_done, &w);
    if (st != AMP_OK)
        return st;
    return wait_until_done(&w);
}

/* Waits (blocked: the PE runs other threads) until the GPU has done the
 * work queued so far on the legacy default stream of the thread's device,
 * for a buffer that the GPU will read or write outside the runtime's
 * streams (amp_p2p_dev_order).  The call waits before its message starts,
 * so the rank's messages keep their order. */
static amp_status_t order_wait(amp_gpu_t *g)
{
    wait_t w = {amp_pe_self(), NULL, 0, AMP_OK};
    amp_status_t st = amp_gpu_watch(g, w.pe, NULL, wait_done, &w);
    if (st != AMP_OK)
        return st;
    return wait_until_done(&w);
}

/* ---- one buffer ---- */

amp_gpu_stage_desc_t amp_gpu_stage_dt(const void *buf, int count,
                                      const amp_dt_t *dt, int role)
{
    amp_gpu_stage_desc_t d = {.buf = buf, .span = {0, 0, 1}, .role = role};
    if (count > 0) { /* else not staged: dt is not read */
        amp_gpu_span_dt(&d.span, count, dt);
        d.elem = dt->size;
    }
    return d;
}

amp_gpu_stage_desc_t amp_gpu_stage_span(const void *buf,
                                        const amp_gpu_span_t *sp, int role)
{
    return (amp_gpu_stage_desc_t){
        .buf = buf, .span = *sp, .elem = 1, .role = role};
}

/* The path of d's buffer (first: where its span starts), *fetch whether
 * its host copy must be filled from the device, out->range its
 * allocation when it is device memory. */
static int stage_path(amp_gpu_t *g, const amp_gpu_stage_desc_t *d,
                      const char *first, int *fetch, amp_gpu_staged_t *out)
{
    int on_dev = amp_gpu_is_device(g, amp_pe_self(), first, &out->range);
    if (d->p2p)
        return amp_gpu_path_choose(amp_gpu_mode(g), on_dev, d->role, &d->span,
                                   &d->peer, fetch);
    return amp_gpu_path_select(on_dev, d->role, &d->span, fetch);
}

amp_status_t amp_gpu_stage_begin(amp_gpu_t *g, const amp_gpu_stage_desc_t *d,
                                 amp_gpu_stage_t *s, amp_gpu_staged_t *out)
{
    const amp_gpu_span_t *sp = &d->span;
    s->host = NULL;
    out->view = (void *)d->buf;
    out->direct = 0;
    out->device = -1;
    if (!d->buf || sp->bytes == 0)
        return AMP_OK;
    char *first = (char *)d->buf + sp->lo;
    int fetch;
    int path = stage_path(g, d, first, &fetch, out);
    if (path == AMP_GPU_PATH_HOST)
        return AMP_OK;
    if ((uintptr_t)first - out->range.start + sp->bytes > out->range.size) {
        out->failed = AMP_GPU_STAGE_RANGE;
        return AMP_ERR_BUFFER;
    }
    amp_status_t st;
    if (path == AMP_GPU_PATH_DIRECT) {
        if (d->p2p && d->peer.order && (st = order_wait(g)) != AMP_OK) {
            out->failed = AMP_GPU_STAGE_ORDER;
            return st;
        }
        out->direct = 1;
        out->device = out->range.device;
        return AMP_OK;
    }
    s->host = amp_gpu_host_get(g, amp_pe_self(), sp->bytes, &s->cap);
    if (!s->host) {
        out->failed = AMP_GPU_STAGE_HOST;
        return AMP_ERR_NOMEM;
    }
    s->dev = first;
    s->bytes = sp->bytes;
    s->dense = sp->dense;
    s->elem = d->elem ? d->elem : 1;
    if (fetch && (st = copy_wait(g, s->host, s->dev, s->bytes)) != AMP_OK) {
        amp_gpu_host_put(g, amp_pe_self(), s->host, s->cap);
        s->host = NULL;
        out->failed = AMP_GPU_STAGE_FETCH;
        return st;
    }
    out->view = s->host - sp->lo;
    return AMP_OK;
}

size_t amp_gpu_stage_bytes(const amp_gpu_stage_t *s, size_t received)
{
    if (!s->dense)
        return s->bytes; /* the gaps were fetched: all of it */
    size_t n = (received + s->elem - 1) / s->elem * s->elem;
    return n < s->bytes ? n : s->bytes;
}

amp_status_t amp_gpu_stage_end(amp_gpu_t *g, amp_gpu_stage_t *s, size_t bytes)
{
    if (!s->host)
        return AMP_OK;
    amp_status_t st = AMP_OK;
    if (bytes > 0)
        st = copy_wait(g, s->dev, s->host, bytes < s->bytes ? bytes : s->bytes);
    amp_gpu_host_put(g, amp_pe_self(), s->host, s->cap);
    s->host = NULL;
    return st;
}

void amp_gpu_stage_release(amp_gpu_t *g, const amp_gpu_stage_t *s)
{
    amp_gpu_host_put(g, amp_pe_self(), s->host, s->cap);
}

/* ---- the buffers of one operation ---- */

amp_status_t amp_gpu_op_add(amp_gpu_op_t *op, const amp_gpu_stage_t *s,
                            int role)
{
    if (op->n == AMP_GPU_OP_BUFS)
        return AMP_ERR_INTERN;
    op->s[op->n] = *s;
    op->back[op->n++] = role != AMP_GPU_SEND;
    return AMP_OK;
}

void amp_gpu_op_release(amp_gpu_op_t *op)
{
    for (int i = 0; i < op->n; i++)
        amp_gpu_stage_release(op->g, &op->s[i]);
}

/* The bytes of stage i to copy back after received bytes arrived (NULL:
 * all of it). */
static size_t op_back_bytes(const amp_gpu_op_t *op, int i,
                            const size_t *received)
{
    if (!op->back[i])
        return 0;
    return received ? amp_gpu_stage_bytes(&op->s[i], *received)
                    : op->s[i].bytes;
}

amp_status_t amp_gpu_op_wait_back(amp_gpu_op_t *op, const size_t *received)
{
    amp_status_t st = AMP_OK;
    for (int i = 0; i < op->n && st == AMP_OK; i++) {
        size_t n = op_back_bytes(op, i, received);
        if (n > 0)
            st = copy_wait(op->g, op->s[i].dev, op->s[i].host, n);
    }
    return st;
}

static void op_copied(void *arg, amp_status_t st)
{
    amp_gpu_op_t *op = arg;
    if (st != AMP_OK && op->error == AMP_OK)
        op->error = st;
    if (--op->pending == 0)
        op->done(op->arg, op->error);
}

void amp_gpu_op_copy_back(amp_gpu_op_t *op, const size_t *received,
                          int cancelled, amp_gpu_done_fn_t done, void *arg)
{
    op->done = done;
    op->arg = arg;
    op->pending = 1; /* until every copy is queued */
    for (int i = 0; i < op->n; i++) {
        size_t n = cancelled ? 0 : op_back_bytes(op, i, received);
        if (n == 0)
            continue;
        op->pending++;
        amp_status_t st = amp_gpu_copy(op->g, amp_pe_self(), op->s[i].dev,
                                       op->s[i].host, n, op_copied, op);
        if (st != AMP_OK)
            op_copied(op, st);
    }
    op_copied(op, AMP_OK);
}
