/*
 * Device buffers staged through host copies (gpu/stage.h): a call's
 * buffer looked up once and staged when it must be (stage.h), and the
 * copies back chained on requests: a request whose buffer is a host copy,
 * and the buffers of one operation, completed when the data is back on
 * the device (p2p.h).
 */
#include "p2p/stage.h"

#include <stdlib.h>

/* ---- one request on a host copy ---- */

/* A request object's data staged: inner moves the host copy; outer, the
 * user's request, completes when the copy back (if any) is done. */
typedef struct staged {
    amp_p2p_req_t inner;
    amp_p2p_req_t *outer;
    amp_p2p_req_t **slot; /* the outer's pointer to inner */
    amp_gpu_t *g;
    amp_gpu_stage_t s;
} staged_t;

static void staged_finish(staged_t *w, amp_status_t st)
{
    amp_p2p_req_t *o = w->outer;
    *w->slot = NULL;
    if (st != AMP_OK && o->error == AMP_OK)
        o->error = st;
    amp_gpu_stage_release(w->g, &w->s);
    free(w);
    amp_p2p_req_complete(o);
}

static void staged_stored(void *arg, amp_status_t st)
{
    staged_t *w = arg;
    w->outer->owner->dev_busy--;
    staged_finish(w, st);
}

static void staged_send_done(amp_p2p_req_t *p)
{
    staged_t *w = AMP_CONTAINER_OF(p, staged_t, inner);
    w->outer->error = p->error;
    w->outer->cancelled = p->cancelled;
    staged_finish(w, AMP_OK);
}

/* The data is in the host copy: queue the copy back (on the PE where the
 * request completes, the rank's). */
static void staged_recv_done(amp_p2p_req_t *p)
{
    staged_t *w = AMP_CONTAINER_OF(p, staged_t, inner);
    amp_p2p_req_t *o = w->outer;
    o->error = p->error;
    o->cancelled = p->cancelled;
    o->st_source = p->st_source;
    o->st_tag = p->st_tag;
    o->st_bytes = p->st_bytes;
    size_t n = p->cancelled ? 0 : amp_gpu_stage_bytes(&w->s, p->st_bytes);
    if (n == 0) {
        staged_finish(w, AMP_OK);
        return;
    }
    o->owner->dev_busy++; /* until staged_stored */
    amp_status_t st = amp_gpu_copy(w->g, amp_pe_self(), w->s.dev, w->s.host, n,
                                   staged_stored, w);
    if (st != AMP_OK)
        staged_stored(w, st);
}

amp_p2p_req_t *amp_p2p_stage_req(amp_p2p_ep_t *ep, struct amp_gpu *g,
                                 const struct amp_gpu_stage *s, int send,
                                 amp_p2p_req_t *outer, amp_p2p_req_t **slot)
{
    staged_t *w = malloc(sizeof(*w));
    if (!w)
        return NULL;
    w->outer = outer;
    w->slot = slot;
    w->g = g;
    w->s = *s;
    w->inner.on_done = send ? staged_send_done : staged_recv_done;
    amp_p2p_req_init_pending(ep, outer);
    *slot = &w->inner;
    return &w->inner;
}

/* ---- the buffers of one operation ---- */

typedef struct stage_op {
    amp_gpu_op_t op;
    amp_p2p_req_t inner; /* what the operation completes */
    amp_p2p_req_t *outer;
    int by_status;
} stage_op_t;

struct amp_gpu_op *amp_p2p_stage_op_new(struct amp_gpu *g)
{
    stage_op_t *so = calloc(1, sizeof(*so));
    if (!so)
        return NULL;
    so->op.g = g;
    return &so->op;
}

void amp_p2p_stage_op_free(struct amp_gpu_op *op)
{
    if (!op)
        return;
    amp_gpu_op_release(op);
    free(AMP_CONTAINER_OF(op, stage_op_t, op));
}

/* The last copy back is done: outer completes with the operation's status
 * (on the PE where the operation completed, its owner's). */
static void op_complete(void *arg, amp_status_t st)
{
    stage_op_t *so = arg;
    amp_p2p_req_t *o = so->outer, *in = &so->inner;
    o->error = in->error != AMP_OK ? in->error : st;
    o->cancelled = in->cancelled;
    o->st_source = in->st_source;
    o->st_tag = in->st_tag;
    o->st_bytes = in->st_bytes;
    o->owner->dev_busy--;
    amp_p2p_stage_op_free(&so->op);
    amp_p2p_req_complete(o);
}

/* The operation is done: queue the copies back. */
static void op_done(amp_p2p_req_t *p)
{
    stage_op_t *so = AMP_CONTAINER_OF(p, stage_op_t, inner);
    size_t got = p->st_bytes;
    so->outer->owner->dev_busy++; /* until op_complete */
    amp_gpu_op_copy_back(&so->op, so->by_status ? &got : NULL, p->cancelled,
                         op_complete, so);
}

amp_p2p_req_t *amp_p2p_stage_op_start(amp_p2p_ep_t *ep, struct amp_gpu_op *op,
                                      amp_p2p_req_t *outer, int by_status)
{
    stage_op_t *so = AMP_CONTAINER_OF(op, stage_op_t, op);
    so->outer = outer;
    so->by_status = by_status;
    amp_p2p_req_init_pending(ep, outer);
    so->inner.on_done = op_done;
    amp_p2p_req_init_pending(ep, &so->inner);
    return &so->inner;
}

/* ---- a buffer of a call: host, direct or a host copy ---- */

amp_gpu_stage_desc_t amp_p2p_stage_desc(const amp_p2p_ep_t *ep,
                                        const void *buf, int count,
                                        const amp_dt_t *dt, int use)
{
    amp_gpu_stage_desc_t d = amp_gpu_stage_dt(
        buf, count, dt, use == AMP_P2P_STAGE_RECV ? AMP_GPU_RECV : AMP_GPU_SEND);
    size_t bytes = count > 0 ? dt->size * (size_t)count : 0;
    d.p2p = 1;
    d.peer.eager = use == AMP_P2P_STAGE_BSEND ||
                   (use == AMP_P2P_STAGE_SEND &&
                    bytes <= ep->world->eager_limit);
    d.peer.order = 0;
    return d;
}

/* Whether d's buffer is device memory: the one question a host buffer is
 * asked (the allocation in *range when it is). */
static int on_device(amp_gpu_t *g, const amp_gpu_stage_desc_t *d,
                     amp_gpu_range_t *range)
{
    if (!d->buf || d->span.bytes == 0)
        return 0;
    return amp_gpu_is_device(g, amp_pe_self(),
                             (const char *)d->buf + d->span.lo, range);
}

amp_status_t amp_p2p_stage_begin(amp_p2p_ep_t *ep,
                                 const amp_gpu_stage_desc_t *d, int peer,
                                 amp_gpu_stage_t *s, amp_gpu_staged_t *out,
                                 amp_p2p_dev_t *dev)
{
    amp_gpu_t *g = ep->world->gpu;
    s->host = NULL;
    out->view = (void *)d->buf;
    out->direct = 0;
    out->device = -1;
    if (!on_device(g, d, &out->range))
        return AMP_OK; /* host memory: straight on */
    amp_gpu_stage_desc_t e = *d;
    if (e.p2p && peer != AMP_P2P_STAGE_NO_PEER)
        e.peer.order =
            amp_p2p_dev_order(amp_pe_self(), peer, e.role == AMP_GPU_SEND);
    amp_status_t st = amp_gpu_stage_begin(g, &e, s, out);
    if (st == AMP_OK && out->direct) {
        dev->gpu = g;
        dev->device = out->device;
    }
    return st;
}

/* Keeps s, staged for role, in *op (made when NULL); on an error s's host
 * copy goes back and out->failed says why. */
static amp_status_t op_keep(amp_p2p_ep_t *ep, amp_gpu_op_t **op,
                            const amp_gpu_stage_t *s, int role,
                            amp_gpu_staged_t *out)
{
    amp_gpu_t *g = ep->world->gpu;
    if (!*op && !(*op = amp_p2p_stage_op_new(g))) {
        out->failed = AMP_P2P_STAGE_OP_MEM;
        amp_gpu_stage_release(g, s);
        return AMP_ERR_NOMEM;
    }
    if (amp_gpu_op_add(*op, s, role) != AMP_OK) {
        out->failed = AMP_P2P_STAGE_OP_FULL;
        amp_gpu_stage_release(g, s);
        return AMP_ERR_INTERN;
    }
    return AMP_OK;
}

amp_status_t amp_p2p_stage_op_add(amp_p2p_ep_t *ep, amp_gpu_op_t **op,
                                  const amp_gpu_stage_desc_t *d, int peer,
                                  amp_gpu_staged_t *out, amp_p2p_dev_t *dev)
{
    amp_gpu_stage_t s;
    amp_gpu_stage_desc_t e = *d;
    e.elem = 1;
    amp_status_t st = amp_p2p_stage_begin(ep, &e, peer, &s, out, dev);
    if (st == AMP_OK && s.host)
        st = op_keep(ep, op, &s, d->role, out);
    if (st != AMP_OK) {
        amp_p2p_stage_op_free(*op);
        *op = NULL;
        out->view = (void *)d->buf;
    }
    return st;
}
