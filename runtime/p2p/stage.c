/*
 * Device buffers staged through host copies (gpu/stage.h) whose copies
 * back chain on requests: a request whose buffer is a host copy, and the
 * buffers of one operation, completed when the data is back on the device
 * (p2p.h).
 */
#include "p2p/p2p.h"

#include "gpu/stage.h"

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
