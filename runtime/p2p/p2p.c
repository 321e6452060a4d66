#include "p2p/p2p.h"

#include "p2p/msg.h"
#include "p2p/pe.h"
#include "p2p/ring.h"

#include <stdlib.h>
#include <string.h>

static amp_p2p_pe_t *p2p_of(amp_pe_t *pe)
{
    return pe->upper;
}

static amp_msg_pool_t *pool_of(amp_pe_t *pe)
{
    return &p2p_of(pe)->pool;
}

amp_status_t amp_p2p_pe_init(amp_pe_t *pe, size_t eager_limit,
                             amp_p2p_world_t *world)
{
    int npes = pe->sched->npes;
    amp_p2p_pe_t *me = aligned_alloc(64, AMP_ROUND_UP(sizeof(*me), 64));
    if (!me)
        return AMP_ERR_NOMEM;
    memset(me, 0, sizeof(*me));
    atomic_init(&me->pool.returned, NULL);
    me->pool.payload = eager_limit;
    me->in = aligned_alloc(128, (size_t)npes * sizeof(amp_ring_t));
    if (!me->in) {
        free(me);
        return AMP_ERR_NOMEM;
    }
    for (int i = 0; i < npes; i++)
        amp_ring_init(&me->in[i]);
    me->npes = npes;
    me->world = world;
    pe->upper = me;
    return AMP_OK;
}

static void free_chain(amp_msg_t *m)
{
    while (m) {
        amp_msg_t *next = m->next;
        free(m);
        m = next;
    }
}

void amp_p2p_pe_cleanup(amp_pe_t *pe)
{
    amp_p2p_pe_t *me = p2p_of(pe);
    if (!me)
        return;
    free_chain(me->pool.free);
    free_chain(atomic_load(&me->pool.returned));
    free(me->in);
    free(me);
    pe->upper = NULL;
}

void amp_p2p_ep_init(amp_p2p_ep_t *ep, amp_p2p_world_t *world, int world_rank,
                     amp_thread_t *thr)
{
    memset(ep, 0, sizeof(*ep));
    ep->world = world;
    ep->world_rank = world_rank;
    ep->thr = thr;
}

/* ---- queues ---------------------------------------------------------- */

static int matches(int ctx, int src, int tag, int want_ctx, int want_src,
                   int want_tag)
{
    return ctx == want_ctx && (want_src == AMP_P2P_ANY || want_src == src) &&
           (want_tag == AMP_P2P_ANY || want_tag == tag);
}

static void posted_append(amp_p2p_ep_t *ep, amp_p2p_req_t *r)
{
    r->next = NULL;
    r->prev = ep->posted_tail;
    if (ep->posted_tail)
        ep->posted_tail->next = r;
    else
        ep->posted_head = r;
    ep->posted_tail = r;
    r->posted = 1;
}

static void posted_remove(amp_p2p_ep_t *ep, amp_p2p_req_t *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        ep->posted_head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    else
        ep->posted_tail = r->prev;
    r->posted = 0;
}

static amp_p2p_req_t *match_posted(amp_p2p_ep_t *ep, int ctx, int src, int tag)
{
    for (amp_p2p_req_t *r = ep->posted_head; r; r = r->next) {
        if (matches(ctx, src, tag, r->ctx, r->peer, r->tag)) {
            posted_remove(ep, r);
            return r;
        }
    }
    return NULL;
}

static void unexp_append(amp_p2p_ep_t *ep, amp_msg_t *m)
{
    m->next = NULL;
    m->prev = ep->unexp_tail;
    if (ep->unexp_tail)
        ep->unexp_tail->next = m;
    else
        ep->unexp_head = m;
    ep->unexp_tail = m;
    m->queued = 1;
    if (ep->probe_waiting)
        amp_sched_wake(ep->thr);
}

static void unexp_remove(amp_p2p_ep_t *ep, amp_msg_t *m)
{
    if (m->prev)
        m->prev->next = m->next;
    else
        ep->unexp_head = m->next;
    if (m->next)
        m->next->prev = m->prev;
    else
        ep->unexp_tail = m->prev;
    m->queued = 0;
}

static amp_msg_t *find_unexpected(amp_p2p_ep_t *ep, int ctx, int src, int tag)
{
    for (amp_msg_t *m = ep->unexp_head; m; m = m->next)
        if (matches(m->ctx, m->src, m->tag, ctx, src, tag))
            return m;
    return NULL;
}

/* ---- completion ------------------------------------------------------ */

void amp_p2p_req_complete(amp_p2p_req_t *r)
{
    amp_p2p_ep_t *ep = r->owner;
    r->done = 1;
    r->msg = NULL;
    if (r->in_wait) {
        r->in_wait = 0;
        if (--ep->wait_pending == 0)
            amp_sched_wake(ep->thr);
    }
    if (r->on_done)
        r->on_done(r);
}

static void req_init(amp_p2p_req_t *r, amp_p2p_ep_t *ep, int is_send, void *buf,
                     size_t bytes, int ctx, int peer, int tag)
{
    r->next = r->prev = NULL;
    r->owner = ep;
    r->buf = buf;
    r->bytes = bytes;
    r->ctx = ctx;
    r->peer = peer;
    r->tag = tag;
    r->is_send = (unsigned char)is_send;
    r->done = 0;
    r->in_wait = 0;
    r->cancelled = 0;
    r->posted = 0;
    r->error = AMP_OK;
    r->st_source = peer;
    r->st_tag = tag;
    r->st_bytes = 0;
    r->msg = NULL;
}

void amp_p2p_req_init_done(amp_p2p_ep_t *ep, amp_p2p_req_t *req, int source,
                           int tag)
{
    req_init(req, ep, 0, NULL, 0, -1, source, tag);
    req->done = 1;
}

/* Copies a matched message into a receive request and records the status. */
static void copy_in(amp_p2p_req_t *r, const void *data, size_t bytes, int src,
                    int tag)
{
    size_t n = bytes;
    if (n > r->bytes) {
        n = r->bytes;
        r->error = AMP_ERR_TRUNCATE;
    }
    if (n)
        memcpy(r->buf, data, n);
    r->st_bytes = n;
    r->st_source = src;
    r->st_tag = tag;
}

/* Sends envelope m from PE pe to PE to, through their ring. */
static void post_msg(amp_pe_t *pe, amp_pe_t *to, amp_msg_t *m)
{
    amp_ring_put_msg(&p2p_of(to)->in[pe->id], m);
    amp_sched_notify(to);
}

/* The receiver has copied a rendezvous message: complete its sender. */
static void finish_rndv(amp_pe_t *pe, amp_msg_t *m)
{
    amp_p2p_req_t *sreq = m->sreq;
    amp_pe_t *sender_pe = m->sender->thr->pe;
    if (sender_pe == pe) {
        amp_msg_put(pool_of(pe), m);
        amp_p2p_req_complete(sreq);
        return;
    }
    m->kind = AMP_MSG_RNDV_DONE;
    post_msg(pe, sender_pe, m);
}

/* A receive and a message have matched (on the receiver's PE). */
static void consume(amp_pe_t *pe, amp_p2p_req_t *r, amp_msg_t *m)
{
    copy_in(r, m->data, m->bytes, m->src, m->tag);
    if (m->kind == AMP_MSG_RNDV)
        finish_rndv(pe, m);
    else
        amp_msg_put(pool_of(pe), m);
    amp_p2p_req_complete(r);
}

/* ---- sending --------------------------------------------------------- */

static amp_msg_t *envelope(amp_pe_t *pe, amp_p2p_ep_t *ep, const void *buf,
                           size_t bytes, int dst, int ctx, int src, int tag,
                           int mode, amp_p2p_req_t *req)
{
    amp_msg_pool_t *pool = pool_of(pe);
    amp_msg_t *m = amp_msg_get(pool);
    m->ctx = ctx;
    m->src = src;
    m->tag = tag;
    m->dst = dst;
    m->bytes = bytes;
    m->sender = ep;
    m->queued = 0;
    if (bytes <= pool->payload && mode == AMP_P2P_STANDARD) {
        m->kind = AMP_MSG_EAGER;
        if (bytes)
            memcpy(m->payload, buf, bytes);
        m->data = m->payload;
        m->sreq = NULL;
    } else {
        m->kind = AMP_MSG_RNDV;
        m->data = buf;
        m->sreq = req;
        req->msg = m;
    }
    return m;
}

/* To a rank on another PE: small messages travel inline in a ring slot,
 * the rest as envelopes through the same ring. */
static void send_remote(amp_pe_t *pe, amp_p2p_ep_t *ep, amp_p2p_ep_t *to,
                        const void *buf, size_t bytes, int dst, int ctx,
                        int src, int tag, int mode, amp_p2p_req_t *req)
{
    amp_pe_t *dpe = to->thr->pe;
    amp_ring_t *ring = &p2p_of(dpe)->in[pe->id];
    amp_ring_slot_t *s;
    if (bytes <= AMP_RING_INLINE && bytes <= pool_of(pe)->payload &&
        mode == AMP_P2P_STANDARD && (s = amp_ring_reserve(ring))) {
        s->kind = AMP_SLOT_INLINE;
        s->bytes = (uint32_t)bytes;
        s->ctx = ctx;
        s->src = src;
        s->tag = tag;
        s->dst = dst;
        if (bytes)
            memcpy(s->u.data, buf, bytes);
        amp_ring_publish(ring, s);
        amp_sched_notify(dpe);
        amp_p2p_req_complete(req);
        return;
    }
    amp_msg_t *m = envelope(pe, ep, buf, bytes, dst, ctx, src, tag, mode, req);
    int eager = m->kind == AMP_MSG_EAGER;
    post_msg(pe, dpe, m);
    if (eager)
        amp_p2p_req_complete(req);
}

void amp_p2p_isend(amp_p2p_ep_t *ep, const void *buf, size_t bytes, int dst,
                   int ctx, int src, int tag, int mode, amp_p2p_req_t *req)
{
    amp_p2p_ep_t *to = ep->world->eps[dst];
    amp_pe_t *pe = ep->thr->pe;
    req_init(req, ep, 1, (void *)buf, bytes, ctx, dst, tag);
    if (to->thr->pe == pe) {
        amp_p2p_req_t *r = match_posted(to, ctx, src, tag);
        if (r) {
            copy_in(r, buf, bytes, src, tag);
            amp_p2p_req_complete(r);
            req->st_bytes = bytes;
            amp_p2p_req_complete(req);
            return;
        }
        amp_msg_t *m =
            envelope(pe, ep, buf, bytes, dst, ctx, src, tag, mode, req);
        unexp_append(to, m);
        if (m->kind == AMP_MSG_EAGER)
            amp_p2p_req_complete(req);
        return;
    }
    send_remote(pe, ep, to, buf, bytes, dst, ctx, src, tag, mode, req);
}

/* ---- receiving ------------------------------------------------------- */

void amp_p2p_irecv(amp_p2p_ep_t *ep, void *buf, size_t capacity, int ctx,
                   int src, int tag, amp_p2p_req_t *req)
{
    req_init(req, ep, 0, buf, capacity, ctx, src, tag);
    amp_msg_t *m = find_unexpected(ep, ctx, src, tag);
    if (m) {
        unexp_remove(ep, m);
        consume(ep->thr->pe, req, m);
        return;
    }
    posted_append(ep, req);
}

void amp_p2p_mrecv(amp_p2p_ep_t *ep, amp_msg_t *m, void *buf, size_t capacity,
                   amp_p2p_req_t *req)
{
    req_init(req, ep, 0, buf, capacity, m->ctx, m->src, m->tag);
    consume(ep->thr->pe, req, m);
}

static void fill_info(const amp_msg_t *m, amp_p2p_probe_info_t *info)
{
    info->source = m->src;
    info->tag = m->tag;
    info->bytes = m->bytes;
}

int amp_p2p_iprobe(amp_p2p_ep_t *ep, int ctx, int src, int tag,
                   amp_p2p_probe_info_t *info)
{
    amp_msg_t *m = find_unexpected(ep, ctx, src, tag);
    if (!m)
        return 0;
    fill_info(m, info);
    return 1;
}

amp_msg_t *amp_p2p_improbe(amp_p2p_ep_t *ep, int ctx, int src, int tag,
                           amp_p2p_probe_info_t *info)
{
    amp_msg_t *m = find_unexpected(ep, ctx, src, tag);
    if (!m)
        return NULL;
    unexp_remove(ep, m);
    fill_info(m, info);
    return m;
}

static void block_for_arrival(amp_p2p_ep_t *ep, int ctx, int src, int tag)
{
    ep->probe_waiting = 1;
    ep->probe_ctx = ctx;
    ep->probe_src = src;
    ep->probe_tag = tag;
    amp_sched_block();
    ep->probe_waiting = 0;
}

void amp_p2p_probe(amp_p2p_ep_t *ep, int ctx, int src, int tag,
                   amp_p2p_probe_info_t *info)
{
    while (!amp_p2p_iprobe(ep, ctx, src, tag, info))
        block_for_arrival(ep, ctx, src, tag);
}

amp_msg_t *amp_p2p_mprobe(amp_p2p_ep_t *ep, int ctx, int src, int tag,
                          amp_p2p_probe_info_t *info)
{
    amp_msg_t *m;
    while (!(m = amp_p2p_improbe(ep, ctx, src, tag, info)))
        block_for_arrival(ep, ctx, src, tag);
    return m;
}

/* ---- waiting --------------------------------------------------------- */

void amp_p2p_wait_all(amp_p2p_ep_t *ep, amp_p2p_req_t **reqs, int n)
{
    int pending = 0;
    for (int i = 0; i < n; i++) {
        if (reqs[i] && !reqs[i]->done) {
            reqs[i]->in_wait = 1;
            pending++;
        }
    }
    if (!pending)
        return;
    ep->wait_pending = pending;
    ep->wait_reqs = reqs;
    ep->wait_nreqs = n;
    while (ep->wait_pending > 0)
        amp_sched_block();
    ep->wait_reqs = NULL;
}

void amp_p2p_wait_any(amp_p2p_ep_t *ep, amp_p2p_req_t **reqs, int n)
{
    int any = 0;
    for (int i = 0; i < n; i++) {
        if (reqs[i] && reqs[i]->done)
            return;
        any |= reqs[i] != NULL;
    }
    if (!any)
        return;
    for (int i = 0; i < n; i++)
        if (reqs[i])
            reqs[i]->in_wait = 1;
    ep->wait_pending = 1;
    ep->wait_reqs = reqs;
    ep->wait_nreqs = n;
    while (ep->wait_pending > 0)
        amp_sched_block();
    for (int i = 0; i < n; i++)
        if (reqs[i])
            reqs[i]->in_wait = 0;
    ep->wait_reqs = NULL;
}

void amp_p2p_progress(amp_p2p_ep_t *ep)
{
    (void)ep;
    amp_sched_yield();
}

/* ---- cancel ---------------------------------------------------------- */

void amp_p2p_cancel(amp_p2p_ep_t *ep, amp_p2p_req_t *req)
{
    if (req->done)
        return;
    if (!req->is_send) {
        if (req->posted) {
            posted_remove(ep, req);
            req->cancelled = 1;
            amp_p2p_req_complete(req);
        }
        return;
    }
    amp_msg_t *m = req->msg;
    if (!m)
        return;
    amp_p2p_ep_t *to = ep->world->eps[m->dst];
    amp_pe_t *pe = ep->thr->pe;
    if (to->thr->pe == pe) {
        if (!m->queued)
            return; /* taken by a matched probe: no longer cancellable */
        unexp_remove(to, m);
        amp_msg_put(pool_of(pe), m);
        req->cancelled = 1;
        amp_p2p_req_complete(req);
        return;
    }
    amp_msg_t *ctl = amp_msg_get(pool_of(pe));
    ctl->kind = AMP_MSG_CANCEL;
    ctl->sreq = req;
    ctl->dst = m->dst;
    ctl->sender = ep;
    post_msg(pe, to->thr->pe, ctl);
}

/* On the receiver's PE: withdraw the envelope of ctl->sreq if it is still
 * unexpected, and tell the sender either way only if it was withdrawn (if
 * not, the normal RNDV_DONE completes the send). */
static void handle_cancel(amp_pe_t *pe, amp_msg_t *ctl)
{
    amp_p2p_ep_t *to = ctl->sender->world->eps[ctl->dst];
    amp_p2p_req_t *sreq = ctl->sreq;
    amp_msg_put(pool_of(pe), ctl);
    for (amp_msg_t *m = to->unexp_head; m; m = m->next) {
        if (m->kind == AMP_MSG_RNDV && m->sreq == sreq) {
            unexp_remove(to, m);
            m->kind = AMP_MSG_CANCEL_DONE;
            post_msg(pe, m->sender->thr->pe, m);
            return;
        }
    }
}

/* ---- arrivals -------------------------------------------------------- */

/* A small message from a ring slot: straight into a posted receive, or
 * into an envelope of this PE's pool for the unexpected queue. */
static void deliver_inline(amp_pe_t *pe, const amp_ring_slot_t *s)
{
    amp_p2p_ep_t *to = p2p_of(pe)->world->eps[s->dst];
    amp_p2p_req_t *r = match_posted(to, s->ctx, s->src, s->tag);
    if (r) {
        copy_in(r, s->u.data, s->bytes, s->src, s->tag);
        amp_p2p_req_complete(r);
        return;
    }
    amp_msg_t *m = amp_msg_get(pool_of(pe));
    m->kind = AMP_MSG_EAGER;
    m->ctx = s->ctx;
    m->src = s->src;
    m->tag = s->tag;
    m->dst = s->dst;
    m->bytes = s->bytes;
    memcpy(m->payload, s->u.data, s->bytes);
    m->data = m->payload;
    m->sreq = NULL;
    m->sender = NULL;
    unexp_append(to, m);
}

static void handle_msg(amp_pe_t *pe, amp_msg_t *m);

/* The scheduler's poll hook: take everything the other PEs sent, and move
 * this PE's overflowed envelopes into rings that have room again. */
void amp_p2p_poll(amp_pe_t *pe)
{
    amp_p2p_pe_t *me = p2p_of(pe);
    amp_pe_t **pes = pe->sched->pes;
    for (int i = 0; i < me->npes; i++) {
        amp_ring_t *ring = &me->in[i];
        amp_ring_slot_t *s;
        while ((s = amp_ring_peek(ring))) {
            if (s->kind == AMP_SLOT_INLINE)
                deliver_inline(pe, s);
            else
                handle_msg(pe, s->u.msg);
            amp_ring_release(ring, s);
        }
        amp_ring_t *out = &p2p_of(pes[i])->in[pe->id];
        if (out->ovf_head) {
            amp_ring_flush(out);
            amp_sched_notify(pes[i]);
        }
    }
}

/* The scheduler's pending hook: something for pe in a ring, or envelopes
 * pe still has to move into one. */
int amp_p2p_pending(amp_pe_t *pe)
{
    amp_p2p_pe_t *me = p2p_of(pe);
    amp_pe_t **pes = pe->sched->pes;
    for (int i = 0; i < me->npes; i++)
        if (amp_ring_nonempty(&me->in[i]) ||
            p2p_of(pes[i])->in[pe->id].ovf_head)
            return 1;
    return 0;
}

void amp_p2p_handle_item(amp_pe_t *pe, amp_inbox_item_t *item)
{
    handle_msg(pe, AMP_CONTAINER_OF(item, amp_msg_t, item));
}

static void handle_msg(amp_pe_t *pe, amp_msg_t *m)
{
    amp_p2p_req_t *sreq;
    switch (m->kind) {
    case AMP_MSG_EAGER:
    case AMP_MSG_RNDV: {
        amp_p2p_ep_t *to = m->sender->world->eps[m->dst];
        amp_p2p_req_t *r = match_posted(to, m->ctx, m->src, m->tag);
        if (r)
            consume(pe, r, m);
        else
            unexp_append(to, m);
        break;
    }
    case AMP_MSG_RNDV_DONE:
        sreq = m->sreq;
        amp_msg_put(pool_of(pe), m);
        sreq->st_bytes = sreq->bytes;
        amp_p2p_req_complete(sreq);
        break;
    case AMP_MSG_CANCEL: handle_cancel(pe, m); break;
    case AMP_MSG_CANCEL_DONE:
        sreq = m->sreq;
        amp_msg_put(pool_of(pe), m);
        sreq->cancelled = 1;
        amp_p2p_req_complete(sreq);
        break;
    default: amp_assert(!"unknown envelope kind");
    }
}
