#include "p2p/p2p.h"

#include "gpu/gpu.h"
#include "p2p/dev.h"
#include "p2p/msg.h"
#include "p2p/pe.h"
#include "p2p/ring.h"
#include "p2p/transport.h"

#include <stdlib.h>
#include <string.h>

static amp_p2p_pe_t *p2p_of(amp_pe_t *pe)
{
    return pe->upper;
}

_Static_assert(AMP_MSG_SMALL_PAYLOAD >= AMP_RING_INLINE,
               "a small envelope holds a ring slot's message");

static amp_msg_pool_t *pool_of(amp_pe_t *pe)
{
    return &p2p_of(pe)->pool;
}

/* The pool of an envelope carrying bytes inline (0: none). */
static amp_msg_pool_t *pool_for(amp_pe_t *pe, size_t bytes)
{
    amp_p2p_pe_t *p = p2p_of(pe);
    return bytes <= p->small.payload ? &p->small : &p->pool;
}

static const amp_p2p_core_ops_t core_ops;

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
    me->pool.owner = me->small.owner = pe;
    atomic_init(&me->small.returned, NULL);
    me->small.payload = AMP_MSG_SMALL_PAYLOAD < eager_limit
                            ? AMP_MSG_SMALL_PAYLOAD
                            : eager_limit;
    me->in = aligned_alloc(128, (size_t)npes * sizeof(amp_ring_t));
    if (!me->in) {
        free(me);
        return AMP_ERR_NOMEM;
    }
    for (int i = 0; i < npes; i++)
        amp_ring_init(&me->in[i]);
    me->npes = npes;
    me->world = world;
    me->core = &core_ops;
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

amp_status_t amp_p2p_world_eps_init(amp_p2p_world_t *world, int nranks)
{
    world->eps = calloc((size_t)nranks, sizeof(*world->eps));
    return world->eps ? AMP_OK : AMP_ERR_NOMEM;
}

void amp_p2p_ep_attach(amp_p2p_ep_t *ep)
{
    ep->world->eps[ep->world_rank] = ep;
}

void amp_p2p_ep_detach(amp_p2p_world_t *world, int world_rank)
{
    world->eps[world_rank] = NULL;
}

/* ---- queues ---------------------------------------------------------- */

static int matches(int ctx, int src, int tag, int want_ctx, int want_src,
                   int want_tag)
{
    return ctx == want_ctx && (want_src == AMP_P2P_ANY || want_src == src) &&
           (want_tag == AMP_P2P_ANY || want_tag == tag);
}

/* Queues of one kind: posted receives (linked through the requests) and
 * unexpected messages (through the envelopes). */
#define DEFINE_QUEUE(name, q_t, item_t)                                        \
    static void name##_push(q_t *q, item_t *x)                                 \
    {                                                                          \
        x->next = NULL;                                                        \
        x->prev = q->tail;                                                     \
        if (q->tail)                                                           \
            q->tail->next = x;                                                 \
        else                                                                   \
            q->head = x;                                                       \
        q->tail = x;                                                           \
    }                                                                          \
    static void name##_unlink(q_t *q, item_t *x)                               \
    {                                                                          \
        if (x->prev)                                                           \
            x->prev->next = x->next;                                           \
        else                                                                   \
            q->head = x->next;                                                 \
        if (x->next)                                                           \
            x->next->prev = x->prev;                                           \
        else                                                                   \
            q->tail = x->prev;                                                 \
    }
DEFINE_QUEUE(rq, amp_p2p_rq_t, amp_p2p_req_t)
DEFINE_QUEUE(mq, amp_p2p_mq_t, amp_msg_t)

/* Exact contexts (amp_p2p_ep_set_exact): no receive or probe on them names
 * a wildcard, so a message can only match receives of its own (source,
 * tag), and arrival order matters only within that pair.  Their receives
 * and messages live in buckets hashed on (ctx, source, tag), FIFO each,
 * instead of the two linear queues. */
static int is_exact(const amp_p2p_ep_t *ep, int ctx)
{
    for (int i = 0; i < ep->nexact; i++)
        if (ep->exact[i] == ctx)
            return 1;
    return 0;
}

static unsigned bucket_of(int ctx, int src, int tag)
{
    unsigned h = (unsigned)ctx * 0x9e3779b1u ^ (unsigned)src * 0x85ebca6bu ^
                 (unsigned)tag;
    return (h ^ (h >> 13)) % AMP_P2P_BUCKETS;
}

static amp_p2p_rq_t *posted_q(amp_p2p_ep_t *ep, const amp_p2p_req_t *r)
{
    if (!r->in_bucket)
        return &ep->posted;
    return &ep->posted_b[bucket_of(r->ctx, r->peer, r->tag)];
}

static amp_p2p_mq_t *unexp_q(amp_p2p_ep_t *ep, const amp_msg_t *m)
{
    if (!m->in_bucket)
        return &ep->unexp;
    return &ep->unexp_b[bucket_of(m->ctx, m->src, m->tag)];
}

static void posted_append(amp_p2p_ep_t *ep, amp_p2p_req_t *r)
{
    r->in_bucket = (unsigned char)(ep->nexact && is_exact(ep, r->ctx));
    rq_push(posted_q(ep, r), r);
    r->posted = 1;
}

static void posted_remove(amp_p2p_ep_t *ep, amp_p2p_req_t *r)
{
    rq_unlink(posted_q(ep, r), r);
    r->posted = 0;
}

/* Counts n queue entries compared by the matching of ep's PE. */
static void count_tries(const amp_p2p_ep_t *ep, uint64_t n)
{
    p2p_of(ep->thr->pe)->match_tries += n;
}

static amp_p2p_req_t *match_posted(amp_p2p_ep_t *ep, int ctx, int src, int tag)
{
    amp_p2p_rq_t *q = &ep->posted;
    if (ep->nexact && is_exact(ep, ctx))
        q = &ep->posted_b[bucket_of(ctx, src, tag)];
    uint64_t tries = 0;
    for (amp_p2p_req_t *r = q->head; r; r = r->next) {
        tries++;
        if (matches(ctx, src, tag, r->ctx, r->peer, r->tag)) {
            count_tries(ep, tries);
            posted_remove(ep, r);
            return r;
        }
    }
    count_tries(ep, tries);
    return NULL;
}

static void unexp_append(amp_p2p_ep_t *ep, amp_msg_t *m)
{
    m->in_bucket = (unsigned char)(ep->nexact && is_exact(ep, m->ctx));
    m->seq = ep->seq++;
    mq_push(unexp_q(ep, m), m);
    m->queued = 1;
    p2p_of(ep->thr->pe)->unexp_in++;
    for (amp_p2p_prober_t *p = ep->probers; p; p = p->next)
        amp_sched_wake(p->thr);
}

static void unexp_remove(amp_p2p_ep_t *ep, amp_msg_t *m)
{
    mq_unlink(unexp_q(ep, m), m);
    m->queued = 0;
    p2p_of(ep->thr->pe)->unexp_out++;
}

/* The earliest message in the buckets that matches (a wildcard on an
 * exact context: erroneous in MPI, answered anyway). */
static amp_msg_t *find_in_buckets(amp_p2p_ep_t *ep, int ctx, int src, int tag)
{
    amp_msg_t *best = NULL;
    for (int b = 0; b < AMP_P2P_BUCKETS; b++)
        for (amp_msg_t *m = ep->unexp_b[b].head; m; m = m->next)
            if (matches(m->ctx, m->src, m->tag, ctx, src, tag)) {
                if (!best || (int)(m->seq - best->seq) < 0)
                    best = m;
                break;
            }
    return best;
}

static amp_msg_t *find_unexpected(amp_p2p_ep_t *ep, int ctx, int src, int tag)
{
    amp_p2p_mq_t *q = &ep->unexp;
    if (ep->nexact && is_exact(ep, ctx)) {
        if (src == AMP_P2P_ANY || tag == AMP_P2P_ANY)
            return find_in_buckets(ep, ctx, src, tag);
        q = &ep->unexp_b[bucket_of(ctx, src, tag)];
    }
    uint64_t tries = 0;
    for (amp_msg_t *m = q->head; m; m = m->next) {
        tries++;
        if (matches(m->ctx, m->src, m->tag, ctx, src, tag)) {
            count_tries(ep, tries);
            return m;
        }
    }
    count_tries(ep, tries);
    return NULL;
}

/* Moves everything of ctx from the linear queues into the buckets. */
static void exact_on(amp_p2p_ep_t *ep, int ctx)
{
    ep->exact[ep->nexact++] = ctx;
    for (amp_p2p_req_t *r = ep->posted.head, *next; r; r = next) {
        next = r->next;
        if (r->ctx == ctx) {
            rq_unlink(&ep->posted, r);
            r->in_bucket = 1;
            rq_push(posted_q(ep, r), r);
        }
    }
    for (amp_msg_t *m = ep->unexp.head, *next; m; m = next) {
        next = m->next;
        if (m->ctx == ctx) {
            mq_unlink(&ep->unexp, m);
            m->in_bucket = 1;
            mq_push(unexp_q(ep, m), m);
        }
    }
}

/* Moves everything of ctx back into the linear queues; messages in arrival
 * order (wildcards may match them now). */
static void exact_off(amp_p2p_ep_t *ep, int i)
{
    int ctx = ep->exact[i];
    ep->exact[i] = ep->exact[--ep->nexact];
    for (int b = 0; b < AMP_P2P_BUCKETS; b++)
        for (amp_p2p_req_t *r = ep->posted_b[b].head, *next; r; r = next) {
            next = r->next;
            if (r->ctx == ctx) {
                rq_unlink(&ep->posted_b[b], r);
                r->in_bucket = 0;
                rq_push(&ep->posted, r);
            }
        }
    amp_msg_t *m;
    while ((m = find_in_buckets(ep, ctx, AMP_P2P_ANY, AMP_P2P_ANY))) {
        mq_unlink(unexp_q(ep, m), m);
        m->in_bucket = 0;
        mq_push(&ep->unexp, m);
    }
}

void amp_p2p_ep_set_exact(amp_p2p_ep_t *ep, int ctx, int on)
{
    int i = 0;
    while (i < ep->nexact && ep->exact[i] != ctx)
        i++;
    if (on && i == ep->nexact && ep->nexact < AMP_P2P_EXACT_MAX)
        exact_on(ep, ctx);
    else if (!on && i < ep->nexact)
        exact_off(ep, i);
}

/* ---- completion ------------------------------------------------------ */

void amp_p2p_req_complete(amp_p2p_req_t *r)
{
    if (r->cancel_wait) { /* completes with the answer (amp_p2p_cancel) */
        r->sent = 1;
        return;
    }
    r->done = 1;
    amp_sched_activity(r->owner->thr->pe);
    amp_p2p_waiter_t *w = r->waiter;
    if (w) {
        r->waiter = NULL;
        if (--w->pending == 0)
            amp_sched_wake(w->thr);
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
    r->waiter = NULL;
    r->cancelled = 0;
    r->posted = 0;
    r->cancel_wait = 0;
    r->sent = 0;
    r->error = AMP_OK;
    r->st_source = peer;
    r->st_tag = tag;
    r->st_bytes = 0;
    r->src = -1;
    r->sid = 0;
    r->dt = NULL;
    r->mem = (amp_p2p_mem_t){AMP_P2P_MEM_HOST, -1};
}

void amp_p2p_req_init_done(amp_p2p_ep_t *ep, amp_p2p_req_t *req, int source,
                           int tag)
{
    req_init(req, ep, 0, NULL, 0, -1, source, tag);
    req->done = 1;
}

void amp_p2p_req_init_pending(amp_p2p_ep_t *ep, amp_p2p_req_t *req)
{
    req_init(req, ep, 0, NULL, 0, -1, AMP_P2P_ANY, AMP_P2P_ANY);
}

void amp_p2p_req_init_sent(amp_p2p_ep_t *ep, amp_p2p_req_t *req,
                           const amp_p2p_req_t *from)
{
    req_init(req, ep, 1, NULL, from->bytes, from->ctx, from->peer, from->tag);
    req->src = from->src;
    req->sid = from->sid;
    req->st_bytes = from->bytes;
    req->done = 1;
}

/* Copies a matched message into a receive request and records the status;
 * sdt: the layout of data (NULL: plain bytes).  Between two non-contiguous
 * layouts too this is one copy, block by block. */
static void copy_in(amp_p2p_req_t *r, const void *data, const amp_dt_t *sdt,
                    size_t bytes, int src, int tag)
{
    size_t n = bytes;
    if (n > r->bytes) {
        n = r->bytes;
        r->error = AMP_ERR_TRUNCATE;
    }
    if (n && !sdt && !r->dt)
        memcpy(r->buf, data, n);
    else if (n)
        amp_dt_copy_typed(sdt, data, r->dt, r->buf, n);
    r->st_bytes = n;
    r->st_source = src;
    r->st_tag = tag;
}

static void copy_into(amp_p2p_req_t *r, const void *data, size_t bytes, int src,
                      int tag)
{
    copy_in(r, data, NULL, bytes, src, tag);
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

/* A matched message's data has been copied: give its envelope back (or
 * complete its rendezvous sender). */
static void msg_release(amp_pe_t *pe, amp_msg_t *m)
{
    if (m->kind == AMP_MSG_HEAP)
        free((void *)m->data);
    if (m->kind == AMP_MSG_RNDV)
        finish_rndv(pe, m);
    else
        amp_msg_put(pool_of(pe), m);
}

/* A receive and a message have matched (on the receiver's PE). */
static void consume(amp_pe_t *pe, amp_p2p_req_t *r, amp_msg_t *m)
{
    if (m->kind == AMP_MSG_TP) {
        m->tp->matched(pe, m, r);
        return;
    }
    const amp_p2p_req_t *from = m->kind == AMP_MSG_RNDV ? m->sreq : NULL;
    const amp_dt_t *sdt = from ? from->dt : NULL;
    if (amp_p2p_dev_moves(r, from) &&
        amp_p2p_dev_copy_in(pe, r,
                            &(amp_p2p_dev_in_t){.data = m->data,
                                                .dt = sdt,
                                                .from = from,
                                                .bytes = m->bytes,
                                                .src = m->src,
                                                .tag = m->tag,
                                                .m = m}))
        return;
    copy_in(r, m->data, sdt, m->bytes, m->src, m->tag);
    msg_release(pe, m);
    amp_p2p_req_complete(r);
}

/* ---- sending --------------------------------------------------------- */

/* Copies the data of send req (at buf) into the plain bytes at out. */
static void send_copy(const amp_p2p_req_t *req, const void *buf, void *out,
                      size_t bytes)
{
    if (!req->dt)
        memcpy(out, buf, bytes);
    else
        amp_dt_copy_typed(req->dt, buf, NULL, out, bytes);
}

/* The envelope of send req (bytes at buf, envelope env) from ep on pe:
 * the data copied in when small and eager, else its address. */
static amp_msg_t *envelope(amp_pe_t *pe, amp_p2p_ep_t *ep, const void *buf,
                           size_t bytes, amp_p2p_env_t env, int mode,
                           amp_p2p_req_t *req)
{
    amp_msg_pool_t *pool = pool_of(pe);
    int eager = bytes <= pool->payload && mode == AMP_P2P_STANDARD &&
                !amp_p2p_on_device(req);
    amp_msg_t *m = amp_msg_get(pool_for(pe, eager ? bytes : 0));
    m->ctx = env.ctx;
    m->src = env.src;
    m->tag = env.tag;
    m->dst = env.dst;
    m->bytes = bytes;
    m->sender = ep;
    m->queued = 0;
    m->sid = req->sid;
    if (eager) {
        m->kind = AMP_MSG_EAGER;
        if (bytes)
            send_copy(req, buf, m->payload, bytes);
        m->data = m->payload;
        m->sreq = NULL;
    } else {
        m->kind = AMP_MSG_RNDV;
        m->data = buf;
        m->sreq = req;
    }
    return m;
}

/* To a rank on another PE: small messages travel inline in a ring slot,
 * the rest as envelopes through the same ring. */
static void send_remote(amp_pe_t *pe, amp_p2p_ep_t *ep, amp_p2p_ep_t *to,
                        const void *buf, size_t bytes, amp_p2p_env_t env,
                        int mode, amp_p2p_req_t *req)
{
    amp_pe_t *dpe = to->thr->pe;
    amp_ring_t *ring = &p2p_of(dpe)->in[pe->id];
    amp_ring_slot_t *s;
    if (bytes <= AMP_RING_INLINE && bytes <= pool_of(pe)->payload &&
        mode == AMP_P2P_STANDARD && !amp_p2p_on_device(req) &&
        (s = amp_ring_reserve(ring))) {
        s->kind = AMP_SLOT_INLINE;
        s->bytes = (uint32_t)bytes;
        s->ctx = env.ctx;
        s->src = env.src;
        s->tag = env.tag;
        s->dst = env.dst;
        s->sid = req->sid;
        if (bytes)
            send_copy(req, buf, s->u.data, bytes);
        amp_ring_publish(ring, s);
        amp_sched_notify(dpe);
        amp_p2p_req_complete(req);
        return;
    }
    amp_msg_t *m = envelope(pe, ep, buf, bytes, env, mode, req);
    int eager = m->kind == AMP_MSG_EAGER;
    post_msg(pe, dpe, m);
    if (eager)
        amp_p2p_req_complete(req);
}

static void ring_send(amp_pe_t *pe, amp_p2p_req_t *req, int mode)
{
    amp_p2p_ep_t *ep = req->owner;
    amp_p2p_env_t env = {
        .ctx = req->ctx, .src = req->src, .dst = req->peer, .tag = req->tag};
    send_remote(pe, ep, ep->world->eps[req->peer], req->buf, req->bytes, env,
                mode, req);
}

/* The transport that takes send req to world rank dst, whose endpoint is
 * to (NULL: the rank is in another process); dst is not on pe. */
static const amp_p2p_tp_t *tp_route(const amp_p2p_world_t *w,
                                    const amp_p2p_ep_t *to,
                                    const amp_p2p_req_t *req)
{
    if (to)
        return &amp_p2p_ring_tp;
    return amp_p2p_on_device(req) ? w->device : w->between;
}

/* The number of a new send of ep's (never 0). */
static uint32_t next_sid(amp_p2p_ep_t *ep)
{
    if (++ep->last_sid == 0)
        ep->last_sid = 1;
    return ep->last_sid;
}

/* +trace: ep's rank sends req (bytes to world rank env.dst) to the rank
 * of endpoint to (NULL: in another process). */
static __attribute__((noinline)) void
trace_send(amp_pe_t *pe, const amp_p2p_ep_t *ep, const amp_p2p_ep_t *to,
           const amp_p2p_req_t *req, amp_p2p_env_t env)
{
    if (amp_pe_self() != pe)
        return; /* not from the PE whose buffer it is */
    int via =
        to ? (to->thr->pe == pe ? AMP_TRACE_VIA_PE : AMP_TRACE_VIA_PROCESS)
           : (amp_p2p_on_device(req) ? AMP_TRACE_VIA_DEVICE
                                     : AMP_TRACE_VIA_NET);
    if (env.ctx != 0) /* the converter tells the communicator by it */
        amp_trace_put(pe->trace, AMP_TRACE_ON_COMM, 0, ep->world_rank + 1,
                      env.ctx, 0, 0);
    amp_trace_put(pe->trace, AMP_TRACE_SEND, via, ep->world_rank + 1, env.dst,
                  env.tag, req->bytes);
}

/* Starts a send of bytes of data at buf in layout dt (NULL: plain; dev:
 * device memory, or NULL) with envelope env. */
static void isend(amp_p2p_ep_t *ep, const void *buf, size_t bytes,
                  const amp_dt_t *dt, const amp_p2p_dev_t *dev,
                  amp_p2p_env_t env, int mode, amp_p2p_req_t *req)
{
    amp_p2p_ep_t *to = ep->world->eps[env.dst];
    amp_pe_t *pe = ep->thr->pe;
    amp_p2p_pe_t *me = p2p_of(pe);
    req_init(req, ep, 1, (void *)buf, bytes, env.ctx, env.dst, env.tag);
    req->dt = dt;
    req->src = env.src;
    req->sid = next_sid(ep);
    if (dev) {
        req->mem = (amp_p2p_mem_t){AMP_P2P_MEM_DEVICE, dev->device};
    }
    if (__builtin_expect(pe->trace != NULL, 0))
        trace_send(pe, ep, to, req, env);
    if (to && to->thr->pe == pe) {
        me->sends[AMP_P2P_ROUTE_SELF]++;
        me->sent_bytes[AMP_P2P_ROUTE_SELF] += bytes;
        amp_p2p_req_t *r = match_posted(to, env.ctx, env.src, env.tag);
        if (r) {
            if (amp_p2p_dev_moves(r, req) &&
                amp_p2p_dev_copy_in(pe, r,
                                    &(amp_p2p_dev_in_t){.data = buf,
                                                        .dt = dt,
                                                        .from = req,
                                                        .bytes = bytes,
                                                        .src = env.src,
                                                        .tag = env.tag,
                                                        .sreq = req}))
                return;
            copy_in(r, buf, dt, bytes, env.src, env.tag);
            amp_p2p_req_complete(r);
            req->st_bytes = bytes;
            amp_p2p_req_complete(req);
            return;
        }
        amp_msg_t *m = envelope(pe, ep, buf, bytes, env, mode, req);
        unexp_append(to, m);
        if (m->kind == AMP_MSG_EAGER)
            amp_p2p_req_complete(req);
        return;
    }
    const amp_p2p_tp_t *tp = tp_route(ep->world, to, req);
    amp_p2p_route_t route =
        tp == &amp_p2p_ring_tp ? AMP_P2P_ROUTE_RING : AMP_P2P_ROUTE_NET;
    me->sends[route]++;
    me->sent_bytes[route] += bytes;
    if (route == AMP_P2P_ROUTE_RING) /* by name: the in-process path */
        send_remote(pe, ep, to, buf, bytes, env, mode, req);
    else
        tp->send(pe, req, mode);
}

void amp_p2p_pe_sends(const amp_pe_t *pe, uint64_t *sends, uint64_t *bytes)
{
    amp_p2p_counts_t c;
    amp_p2p_pe_counts(pe, &c);
    *sends = *bytes = 0;
    for (int r = 0; r < AMP_P2P_NROUTES; r++) {
        *sends += c.sends[r];
        *bytes += c.bytes[r];
    }
}

void amp_p2p_pe_counts(const amp_pe_t *pe, amp_p2p_counts_t *out)
{
    const amp_p2p_pe_t *me = pe->upper;
    *out = (amp_p2p_counts_t){0};
    if (!me)
        return;
    for (int r = 0; r < AMP_P2P_NROUTES; r++) {
        out->sends[r] = me->sends[r];
        out->bytes[r] = me->sent_bytes[r];
    }
    out->unexp_in = me->unexp_in;
    out->unexp_out = me->unexp_out;
    out->match_tries = me->match_tries;
}

void amp_p2p_isend(amp_p2p_ep_t *ep, const void *buf, size_t bytes,
                   amp_p2p_env_t env, int mode, amp_p2p_req_t *req)
{
    isend(ep, buf, bytes, NULL, NULL, env, mode, req);
}

void amp_p2p_isend_dev(amp_p2p_ep_t *ep, const void *buf, size_t bytes,
                       const amp_p2p_dev_t *dev, amp_p2p_env_t env, int mode,
                       amp_p2p_req_t *req)
{
    isend(ep, buf, bytes, NULL, dev, env, mode, req);
}

void amp_p2p_isend_typed(amp_p2p_ep_t *ep, const void *buf, int count,
                         const amp_dt_t *dt, amp_p2p_env_t env, int mode,
                         amp_p2p_req_t *req)
{
    size_t bytes = dt->size * (size_t)count;
    if (dt->contig || !bytes)
        isend(ep, amp_dt_data(buf, dt), bytes, NULL, NULL, env, mode, req);
    else
        isend(ep, buf, bytes, dt, NULL, env, mode, req);
}

/* ---- receiving ------------------------------------------------------- */

/* Starts a receive into capacity bytes at buf in layout dt (NULL: plain;
 * dev: device memory, or NULL) of a message that matches env (its dst
 * unused). */
static void irecv(amp_p2p_ep_t *ep, void *buf, size_t capacity,
                  const amp_dt_t *dt, const amp_p2p_dev_t *dev,
                  amp_p2p_env_t env, amp_p2p_req_t *req)
{
    req_init(req, ep, 0, buf, capacity, env.ctx, env.src, env.tag);
    req->dt = dt;
    if (dev) {
        req->mem = (amp_p2p_mem_t){AMP_P2P_MEM_DEVICE, dev->device};
    }
    amp_msg_t *m = find_unexpected(ep, env.ctx, env.src, env.tag);
    if (m) {
        unexp_remove(ep, m);
        consume(ep->thr->pe, req, m);
        return;
    }
    posted_append(ep, req);
}

void amp_p2p_irecv(amp_p2p_ep_t *ep, void *buf, size_t capacity,
                   amp_p2p_env_t env, amp_p2p_req_t *req)
{
    irecv(ep, buf, capacity, NULL, NULL, env, req);
}

void amp_p2p_irecv_dev(amp_p2p_ep_t *ep, void *buf, size_t capacity,
                       const amp_p2p_dev_t *dev, amp_p2p_env_t env,
                       amp_p2p_req_t *req)
{
    irecv(ep, buf, capacity, NULL, dev, env, req);
}

void amp_p2p_irecv_typed(amp_p2p_ep_t *ep, void *buf, int count,
                         const amp_dt_t *dt, amp_p2p_env_t env,
                         amp_p2p_req_t *req)
{
    size_t cap = dt->size * (size_t)count;
    if (dt->contig || !cap)
        irecv(ep, amp_dt_data(buf, dt), cap, NULL, NULL, env, req);
    else
        irecv(ep, buf, cap, dt, NULL, env, req);
}

void amp_p2p_mrecv(amp_p2p_ep_t *ep, amp_msg_t *m, void *buf, size_t capacity,
                   amp_p2p_req_t *req)
{
    req_init(req, ep, 0, buf, capacity, m->ctx, m->src, m->tag);
    consume(ep->thr->pe, req, m);
}

void amp_p2p_mrecv_typed(amp_p2p_ep_t *ep, amp_msg_t *m, void *buf, int count,
                         const amp_dt_t *dt, amp_p2p_req_t *req)
{
    size_t cap = dt->size * (size_t)count;
    int plain = dt->contig || !cap;
    req_init(req, ep, 0, plain ? amp_dt_data(buf, dt) : buf, cap, m->ctx,
             m->src, m->tag);
    req->dt = plain ? NULL : dt;
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
    amp_p2p_prober_t me = {amp_pe_self()->current, ep->probers};
    int own = me.thr == ep->thr;
    if (own) {
        ep->probe_waiting = 1;
        ep->probe_ctx = ctx;
        ep->probe_src = src;
        ep->probe_tag = tag;
    }
    ep->probers = &me;
    amp_sched_block();
    for (amp_p2p_prober_t **p = &ep->probers; *p; p = &(*p)->next)
        if (*p == &me) {
            *p = me.next;
            break;
        }
    if (own)
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

/* Blocks the calling thread, w's, until w->pending is 0; the deadlock
 * report shows what the rank's own thread waits for. */
static void block_until_done(amp_p2p_ep_t *ep, amp_p2p_waiter_t *w,
                             amp_p2p_req_t **reqs, int n)
{
    int own = w->thr == ep->thr;
    if (own) {
        ep->wait_reqs = reqs;
        ep->wait_nreqs = n;
    }
    while (w->pending > 0)
        amp_sched_block();
    if (own)
        ep->wait_reqs = NULL;
}

void amp_p2p_wait_all(amp_p2p_ep_t *ep, amp_p2p_req_t **reqs, int n)
{
    amp_p2p_waiter_t w = {amp_pe_self()->current, 0};
    for (int i = 0; i < n; i++) {
        if (reqs[i] && !reqs[i]->done) {
            reqs[i]->waiter = &w;
            w.pending++;
        }
    }
    if (w.pending)
        block_until_done(ep, &w, reqs, n);
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
    amp_p2p_waiter_t w = {amp_pe_self()->current, 1};
    for (int i = 0; i < n; i++)
        if (reqs[i])
            reqs[i]->waiter = &w;
    block_until_done(ep, &w, reqs, n);
    for (int i = 0; i < n; i++)
        if (reqs[i] && reqs[i]->waiter == &w)
            reqs[i]->waiter = NULL;
}

void amp_p2p_progress(amp_p2p_ep_t *ep)
{
    (void)ep;
    amp_sched_yield();
}

/* ---- cancel ---------------------------------------------------------- */

/* The unexpected message (ctx, src, tag, sid) of to, or NULL. */
static amp_msg_t *find_sent(amp_p2p_ep_t *to, int ctx, int src, int tag,
                            uint32_t sid)
{
    amp_p2p_mq_t *q = &to->unexp;
    if (to->nexact && is_exact(to, ctx))
        q = &to->unexp_b[bucket_of(ctx, src, tag)];
    for (amp_msg_t *m = q->head; m; m = m->next)
        if (m->sid == sid && m->ctx == ctx && m->src == src && m->tag == tag)
            return m;
    return NULL;
}

static int withdraw(amp_pe_t *pe, int dst, int ctx, int src, int tag,
                    uint32_t sid)
{
    amp_p2p_ep_t *to = p2p_of(pe)->world->eps[dst];
    if (!sid || !to || to->thr->pe != pe) /* the receiver moved on */
        return 0;
    amp_msg_t *m = find_sent(to, ctx, src, tag, sid);
    if (!m)
        return 0;
    if (m->kind == AMP_MSG_TP) {
        if (!m->tp->withdraw(pe, m))
            return 0;
        unexp_remove(to, m);
        amp_msg_put(pool_of(pe), m);
        return 1;
    }
    unexp_remove(to, m);
    msg_release(pe, m);
    return 1;
}

static void cancel_answer(amp_p2p_req_t *req, int ok)
{
    req->cancel_wait = 0;
    req->cancelled = (unsigned char)(ok != 0);
    if (req->sent)
        amp_p2p_req_complete(req);
}

void amp_p2p_cancel(amp_p2p_ep_t *ep, amp_p2p_req_t *req)
{
    if (!req->is_send) {
        if (req->posted && !req->done) {
            posted_remove(ep, req);
            req->cancelled = 1;
            amp_p2p_req_complete(req);
        }
        return;
    }
    if (!req->sid || req->cancel_wait || req->cancelled)
        return;
    amp_p2p_ep_t *to = ep->world->eps[req->peer];
    amp_pe_t *pe = ep->thr->pe;
    if (to && to->thr->pe == pe) { /* the answer is known now */
        /* Set first: withdrawing a rendezvous completes req. */
        req->cancelled = 1;
        req->cancelled = (unsigned char)withdraw(pe, req->peer, req->ctx,
                                                 req->src, req->tag, req->sid);
        return;
    }
    req->cancel_wait = 1;
    req->sent = req->done;
    req->done = 0;
    if (!to) {
        tp_route(ep->world, NULL, req)->cancel(pe, req);
        return;
    }
    amp_msg_t *ctl = amp_msg_get(pool_for(pe, 0));
    ctl->kind = AMP_MSG_CANCEL;
    ctl->sreq = req;
    ctl->dst = req->peer;
    ctl->ctx = req->ctx;
    ctl->src = req->src;
    ctl->tag = req->tag;
    ctl->sid = req->sid;
    ctl->sender = ep;
    post_msg(pe, to->thr->pe, ctl);
}

/* On the PE that ran the receiver when the sender asked: withdraw the
 * message if it is still unexpected, and answer either way. */
static void handle_cancel(amp_pe_t *pe, amp_msg_t *ctl)
{
    ctl->ok = (unsigned char)withdraw(pe, ctl->dst, ctl->ctx, ctl->src,
                                      ctl->tag, ctl->sid);
    amp_pe_t *sender_pe = ctl->sender->thr->pe;
    if (sender_pe != pe) {
        ctl->kind = AMP_MSG_CANCEL_DONE;
        post_msg(pe, sender_pe, ctl);
        return;
    }
    amp_p2p_req_t *sreq = ctl->sreq;
    int ok = ctl->ok;
    amp_msg_put(pool_of(pe), ctl);
    cancel_answer(sreq, ok);
}

void amp_p2p_wake(amp_pe_t *pe, amp_thread_t *thr)
{
    if (thr->pe == pe) {
        amp_sched_wake(thr);
        return;
    }
    amp_msg_t *m = amp_msg_get(pool_for(pe, 0));
    m->kind = AMP_MSG_WAKE;
    m->data = thr;
    post_msg(pe, thr->pe, m);
}

/* ---- arrivals -------------------------------------------------------- */

/* A small message from a ring slot: straight into a posted receive, or
 * into an envelope of this PE's pool for the unexpected queue. */
static void deliver_inline(amp_pe_t *pe, const amp_ring_slot_t *s)
{
    amp_p2p_ep_t *to = p2p_of(pe)->world->eps[s->dst];
    amp_p2p_req_t *r = match_posted(to, s->ctx, s->src, s->tag);
    if (r) {
        if (amp_p2p_dev_moves(r, NULL) &&
            amp_p2p_dev_copy_in(pe, r,
                                &(amp_p2p_dev_in_t){.data = s->u.data,
                                                    .bytes = s->bytes,
                                                    .src = s->src,
                                                    .tag = s->tag}))
            return;
        copy_in(r, s->u.data, NULL, s->bytes, s->src, s->tag);
        amp_p2p_req_complete(r);
        return;
    }
    amp_msg_t *m = amp_msg_get(pool_for(pe, s->bytes));
    m->kind = AMP_MSG_EAGER;
    m->ctx = s->ctx;
    m->src = s->src;
    m->tag = s->tag;
    m->dst = s->dst;
    m->bytes = s->bytes;
    m->sid = s->sid;
    memcpy(m->payload, s->u.data, s->bytes);
    m->data = m->payload;
    m->sreq = NULL;
    m->sender = NULL;
    unexp_append(to, m);
}

static void handle_msg(amp_pe_t *pe, amp_msg_t *m);

/* ---- arrivals through a transport (transport.h) ----------------------- */

/* The endpoint of world rank dst, which pe must run. */
static amp_p2p_ep_t *arrival_ep(amp_pe_t *pe, int dst, int from_proc)
{
    amp_p2p_ep_t *to = p2p_of(pe)->world->eps[dst];
    if (!to || to->thr->pe != pe)
        amp_fatal("a message from process %d for rank %d reached PE %d, "
                  "which does not run that rank",
                  from_proc, dst, pe->id);
    return to;
}

static amp_p2p_req_t *tp_match(amp_pe_t *pe, int dst, int ctx, int src, int tag,
                               int from_proc)
{
    return match_posted(arrival_ep(pe, dst, from_proc), ctx, src, tag);
}

static amp_msg_t *tp_msg(amp_pe_t *pe, const amp_p2p_tp_t *tp, int ctx, int src,
                         int tag, int dst, size_t bytes, int from_proc)
{
    amp_msg_t *m = amp_msg_get(pool_for(pe, bytes));
    m->kind = tp ? AMP_MSG_TP : AMP_MSG_EAGER;
    m->tp = tp;
    m->ctx = ctx;
    m->src = src;
    m->tag = tag;
    m->dst = dst;
    m->bytes = bytes;
    m->sreq = NULL;
    m->sender = NULL;
    m->from_proc = from_proc;
    m->sid = 0;
    return m;
}

static void tp_queue(amp_pe_t *pe, amp_msg_t *m)
{
    unexp_append(arrival_ep(pe, m->dst, m->from_proc), m);
}

static void tp_copy(amp_pe_t *pe, amp_p2p_req_t *r, const void *data,
                    size_t bytes, int src, int tag, amp_msg_t *m)
{
    if (amp_p2p_dev_moves(r, NULL) &&
        amp_p2p_dev_copy_in(
            pe, r,
            &(amp_p2p_dev_in_t){
                .data = data, .bytes = bytes, .src = src, .tag = tag, .m = m}))
        return;
    copy_in(r, data, NULL, bytes, src, tag);
    if (m)
        msg_release(pe, m);
    amp_p2p_req_complete(r);
}

/* What the transports call of p2p (transport.h), given to every PE. */
static const amp_p2p_core_ops_t core_ops = {
    .match = tp_match,
    .msg = tp_msg,
    .queue = tp_queue,
    .copy = tp_copy,
    .release = msg_release,
    .withdraw = withdraw,
    .cancel_answer = cancel_answer,
    .copy_into = copy_into,
    .complete = amp_p2p_req_complete,
};

/* ---- before a rank moves (p2p.h) ------------------------------------- */

typedef struct fetch_wait {
    amp_p2p_req_t req; /* completes when left drops to zero */
    int left;
} fetch_wait_t;

static void remote_fetched(void *arg, int ok)
{
    fetch_wait_t *fw = arg;
    if (!ok)
        amp_fatal("UCX could not fetch a message from another process");
    if (--fw->left == 0)
        amp_p2p_req_complete(&fw->req);
}

/* Starts taking m's data in, when its transport left it at the sender. */
static void fetch_remote_msg(amp_pe_t *pe, amp_msg_t *m, fetch_wait_t *fw)
{
    if (m->kind != AMP_MSG_TP || !m->tp->take)
        return;
    fw->left++;
    if (!m->tp->take(pe, m, remote_fetched, fw))
        fw->left--;
}

void amp_p2p_ep_fetch_remote(amp_p2p_ep_t *ep, struct amp_msg *const *taken,
                             int ntaken)
{
    fetch_wait_t fw = {.left = 1};
    amp_p2p_req_init_pending(ep, &fw.req);
    fw.req.on_done = NULL;
    amp_pe_t *pe = ep->thr->pe;
    for (amp_msg_t *m = ep->unexp.head; m; m = m->next)
        fetch_remote_msg(pe, m, &fw);
    for (int b = 0; b < AMP_P2P_BUCKETS; b++)
        for (amp_msg_t *m = ep->unexp_b[b].head; m; m = m->next)
            fetch_remote_msg(pe, m, &fw);
    for (int i = 0; i < ntaken; i++)
        fetch_remote_msg(pe, taken[i], &fw);
    remote_fetched(&fw, 1);
    amp_p2p_req_t *r = &fw.req;
    amp_p2p_wait_all(ep, &r, 1);
}

/* The ring transport's progress: take everything the other PEs of this
 * process sent, and move this PE's overflowed envelopes into rings that
 * have room again. */
static AMP_POLL_PATH unsigned ring_progress(amp_pe_t *pe)
{
    amp_p2p_pe_t *me = p2p_of(pe);
    amp_pe_t **pes = pe->sched->pes;
    unsigned n = 0;
    for (int i = 0; i < me->npes; i++) {
        amp_ring_t *ring = &me->in[i];
        amp_ring_slot_t *s;
        while ((s = amp_ring_peek(ring))) {
            if (s->kind == AMP_SLOT_INLINE)
                deliver_inline(pe, s);
            else
                handle_msg(pe, s->u.msg);
            amp_ring_release(ring, s);
            n++;
        }
        amp_ring_t *out = &p2p_of(pes[i])->in[pe->id];
        if (out->ovf_head) {
            amp_ring_flush(out);
            amp_sched_notify(pes[i]);
        }
    }
    return n;
}

/* Something for pe in a ring, or envelopes pe still has to move into
 * one. */
static AMP_POLL_PATH int ring_pending(amp_pe_t *pe)
{
    amp_p2p_pe_t *me = p2p_of(pe);
    amp_pe_t **pes = pe->sched->pes;
    for (int i = 0; i < me->npes; i++)
        if (amp_ring_nonempty(&me->in[i]) ||
            p2p_of(pes[i])->in[pe->id].ovf_head)
            return 1;
    return 0;
}

/* The scheduler's poll hook: what came from other processes, then from
 * the other PEs of this one. */
AMP_POLL_PATH void amp_p2p_poll(amp_pe_t *pe)
{
    const amp_p2p_tp_t *between = p2p_of(pe)->world->between;
    if (between)
        between->progress(pe);
    ring_progress(pe);
}

/* The scheduler's pending hook. */
AMP_POLL_PATH int amp_p2p_pending(amp_pe_t *pe)
{
    const amp_p2p_tp_t *between = p2p_of(pe)->world->between;
    if (between && between->pending(pe))
        return 1;
    return ring_pending(pe);
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
    case AMP_MSG_WAKE: {
        amp_thread_t *thr = (amp_thread_t *)m->data;
        amp_msg_put(pool_of(pe), m);
        /* A thread that migrated away since (lb/lb.h) waits for nothing
         * this wake-up was for. */
        if (thr->pe == pe)
            amp_sched_wake(thr);
        break;
    }
    case AMP_MSG_CANCEL_DONE: {
        int ok = m->ok;
        sreq = m->sreq;
        amp_msg_put(pool_of(pe), m);
        cancel_answer(sreq, ok);
        break;
    }
    default: amp_assert(!"unknown envelope kind");
    }
}

/* ---- between processes, through the transport (p2p.h) ---------------- */

void amp_p2p_am_register(amp_p2p_world_t *w, amp_p2p_am_id_t id,
                         amp_p2p_am_fn_t fn)
{
    amp_assert(id < AMP_P2P_AM_NIDS && !w->am_fns[id]);
    w->am_fns[id] = fn;
}

void amp_p2p_am_send(amp_pe_t *pe, const amp_p2p_am_out_t *am)
{
    amp_assert(am->hlen <= AMP_P2P_AM_HDR_MAX && am->id < AMP_P2P_AM_NIDS);
    p2p_of(pe)->world->between->am_send(pe, am);
}

void amp_p2p_am_fetch(amp_pe_t *pe, void *desc, void *into, size_t bytes,
                      amp_p2p_am_done_fn_t done, void *arg)
{
    p2p_of(pe)->world->between->am_fetch(pe, desc, into, bytes, done, arg);
}

void amp_p2p_net_sleep(amp_pe_t *pe, long ns)
{
    p2p_of(pe)->world->between->sleep(pe, ns);
}

void amp_p2p_net_wake(amp_pe_t *pe)
{
    p2p_of(pe)->world->between->wake(pe);
}

void amp_p2p_net_quiesce(amp_p2p_world_t *w)
{
    w->between->quiesce(w);
}

void amp_p2p_net_settle(amp_p2p_world_t *w)
{
    w->between->settle(w);
}

void amp_p2p_net_place(amp_p2p_world_t *w, int rank, int proc, int pe)
{
    if (w->rank_proc[rank] != proc)
        atomic_fetch_add_explicit(&w->placed, 1, memory_order_relaxed);
    w->rank_proc[rank] = proc;
    w->rank_pe[rank] = pe;
}

void amp_p2p_am_control(amp_pe_t *pe, const amp_p2p_am_out_t *am)
{
    amp_assert(am->hlen <= AMP_P2P_AM_HDR_MAX && am->id < AMP_P2P_AM_NIDS);
    p2p_of(pe)->world->between->am_control(pe, am);
}

int amp_p2p_net_traffic(amp_p2p_world_t *w, uint64_t *sent, uint64_t *recv)
{
    return w->between->traffic(w, sent, recv);
}

unsigned amp_p2p_net_progress(amp_pe_t *pe)
{
    return p2p_of(pe)->world->between->progress(pe);
}

/* ---- the ring of a pair of PEs of this process (transport.h) --------- */

const amp_p2p_tp_t amp_p2p_ring_tp = {
    .name = "ring",
    .send = ring_send,
    .progress = ring_progress,
    .pending = ring_pending,
};
