#include "p2p/net_impl.h"

#include "gpu/gpu.h"
#include "p2p/transport.h"

#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucp/api/ucp.h>
#include <unistd.h>

static void counts_message(struct amp_net *net, const struct net_hdr *h,
                           const void *data, size_t length);

/* ---- sending --------------------------------------------------------- */

/* A send's record, from np's free list (its header to fill in). */
static net_op_t *op_get(amp_net_pe_t *np)
{
    net_op_t *op = np->free_ops;
    if (op)
        np->free_ops = op->next;
    else if (!(op = malloc(sizeof(*op))))
        amp_fatal("out of memory sending to another process");
    op->np = np;
    op->hlen = sizeof(net_hdr_t);
    op->cuda = 0;
    op->req = NULL;
    op->temp = NULL;
    op->done = NULL;
    op->counted = 1;
    op->ucx = 0;
    return op;
}

static void op_finish(net_op_t *op, ucs_status_t status)
{
    amp_p2p_req_t *req = op->req;
    amp_p2p_am_done_fn_t done = op->done;
    void *arg = op->arg;
    if (op->counted)
        bump(&op->np->busy, -1);
    free(op->temp);
    op->next = op->np->free_ops;
    op->np->free_ops = op;
    if (done)
        done(arg, status == UCS_OK);
    if (!req)
        return;
    if (status != UCS_OK)
        req->error = AMP_ERR_SYS;
    req->st_bytes = req->bytes;
    amp_p2p_core(op->np->pe)->complete(req);
}

/* op is done (ok: it succeeded), as a ring says. */
static void op_end(net_op_t *op, int ok)
{
    op_finish(op, ok ? UCS_OK : UCS_ERR_IO_ERROR);
}

static void send_done(void *request, ucs_status_t status, void *user_data)
{
    op_finish(user_data, status);
    ucp_request_free(request);
}

static ucp_ep_h ep_to(amp_net_pe_t *np, int proc, int rpe)
{
    ucp_ep_h *slot = &np->eps[chan(np->net, proc, rpe)];
    if (*slot)
        return *slot;
    ucp_ep_params_t p = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                         .address = np->net->addr[chan(np->net, proc, rpe)]};
    ucs_status_t s = ucp_ep_create(np->worker, &p, slot);
    if (s != UCS_OK)
        amp_fatal("UCX cannot connect PE %d to PE %d of process %d: %s",
                  np->pe->id, rpe, proc, ucs_status_string(s));
    return *slot;
}

/* Hands op (its header filled in) and bytes of data to UCX. */
static void op_post(amp_net_pe_t *np, net_op_t *op, int proc, int rpe,
                    const void *data, size_t bytes, unsigned flags)
{
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                        UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS,
        .flags = flags,
        .cb.send = send_done,
        .user_data = op,
    };
    if (op->cuda) {
        p.op_attr_mask |= UCP_OP_ATTR_FIELD_MEMORY_TYPE;
        p.memory_type = UCS_MEMORY_TYPE_CUDA;
    }
    if (op->counted) {
        bump_u64(&np->sent, 1);
        bump(&np->busy, 1);
    }
    if (np->tx && !op->cuda && !op->ucx &&
        amp_net_node_post(np, op, proc, rpe, data, bytes,
                          !(flags & UCP_AM_SEND_FLAG_EAGER)))
        return;
    /* What UCX allocates here is the process's, even on a rank. */
    amp_sys_alloc_enter();
    ucs_status_ptr_t sp = ucp_am_send_nbx(ep_to(np, proc, rpe), NET_AM_ID,
                                          &op->wire, op->hlen, data, bytes, &p);
    amp_sys_alloc_leave();
    if (sp == NULL)
        op_finish(op, UCS_OK);
    else if (UCS_PTR_IS_ERR(sp))
        op_finish(op, UCS_PTR_STATUS(sp));
}

/* op, a message without data, to PE rpe of process proc. */
static void op_send(amp_net_pe_t *np, net_op_t *op, int proc, int rpe)
{
    op_post(np, op, proc, rpe, NULL, 0, UCP_AM_SEND_FLAG_EAGER);
}

/* The same with bytes of data, copied first. */
static void op_send_data(amp_net_pe_t *np, net_op_t *op, int proc, int rpe,
                         const void *data, size_t bytes)
{
    if (!(op->temp = malloc(bytes)))
        amp_fatal("out of memory sending to process %d", proc);
    memcpy(op->temp, data, bytes);
    op_post(np, op, proc, rpe, op->temp, bytes, UCP_AM_SEND_FLAG_EAGER);
}

/* Through UCX: ends the sleep of PE rpe of process proc (AMP_NET_WAKE). */
static void wake_ucx(amp_net_pe_t *np, int proc, int rpe)
{
    net_op_t *op = op_get(np);
    op->counted = 0;
    op->ucx = 1;
    op->wire.hdr = (net_hdr_t){.kind = AMP_NET_WAKE,
                               .from_pe = (uint16_t)np->pe->id,
                               .from_proc = np->net->proc};
    op_post(np, op, proc, rpe, NULL, 0, UCP_AM_SEND_FLAG_EAGER);
}

/* Whether messages to PE rpe of process proc go through a ring of this
 * node (netnode.c) rather than UCX. */
static int by_ring(const amp_net_pe_t *np, int proc, int rpe)
{
    return np->tx && np->tx[chan(np->net, proc, rpe)].r;
}

/* The transport's send (transport.h): req's data (buf, bytes, dt) to
 * world rank req->peer, which lives in another process. */
static void net_tp_send(amp_pe_t *pe, amp_p2p_req_t *req, int mode)
{
    const void *buf = req->buf;
    size_t bytes = req->bytes;
    const amp_dt_t *dt = req->dt;
    int dst = req->peer;
    amp_net_pe_t *np = net_of(pe);
    amp_p2p_world_t *w = ((amp_p2p_pe_t *)pe->upper)->world;
    int proc = w->rank_proc[dst], rpe = w->rank_pe[dst];
    void *temp = NULL;
    if (dt && bytes && !(temp = malloc(bytes))) {
        /* Before a sequence number is taken: nothing goes out, and only
         * this send fails (MPI_ERR_NO_MEM where it is completed). */
        req->error = AMP_ERR_NOMEM;
        amp_p2p_core(pe)->complete(req);
        return;
    }
    net_op_t *op = op_get(np);
    /* Device memory (only when UCX moves it: p2p/dev.h) is a rendezvous. */
    op->cuda = amp_p2p_on_device(req);
    int eager =
        !op->cuda && (bytes <= np->net->eager ||
                      (bytes <= np->net->eager_far && mode != AMP_P2P_SYNC &&
                       !by_ring(np, proc, rpe)));
    op->wire.hdr = (net_hdr_t){
        .kind = !eager                 ? AMP_NET_RNDV
                : mode == AMP_P2P_SYNC ? AMP_NET_SYNC
                                       : AMP_NET_EAGER,
        .from_pe = (uint16_t)pe->id,
        .from_proc = np->net->proc,
        .ctx = req->ctx,
        .src = req->src,
        .tag = req->tag,
        .dst = dst,
        .seq = seq_next(&np->send_seq[chan(np->net, proc, rpe)]),
        .from_rank = req->owner->world_rank,
        .bytes = bytes,
        .sreq = (uint64_t)(uintptr_t)req,
        .sid = req->sid,
    };
    op->req = op->wire.hdr.kind == AMP_NET_SYNC ? NULL : req;
    if (op->wire.hdr.kind == AMP_NET_EAGER)
        op->hlen = NET_HDR_SHORT;
    if (temp) {
        amp_dt_copy_typed(dt, buf, NULL, temp, bytes);
        op->temp = temp;
        buf = temp;
    }
    op_post(np, op, proc, rpe, buf, bytes,
            eager ? UCP_AM_SEND_FLAG_EAGER : UCP_AM_SEND_FLAG_RNDV);
}

/* Both this process's and process proc's UCX move CUDA memory (gpu/ucx.c):
 * a device buffer may be given to net_tp_send (tagged as CUDA memory),
 * and a rendezvous is fetched straight into a device receive. */
static int net_moves_device(amp_pe_t *pe, int proc)
{
    amp_net_t *net = net_of(pe)->net;
    return net->cuda && net->proc_cuda[proc];
}

/* A header-only message of kind about request sreq of world rank rank,
 * to the PE that runs that rank now, in order with the other messages to
 * it. */
static void to_sender(amp_pe_t *pe, int kind, int rank, uint64_t sreq, int flag)
{
    amp_net_pe_t *np = net_of(pe);
    amp_p2p_world_t *w = ((amp_p2p_pe_t *)pe->upper)->world;
    int proc = w->rank_proc[rank], rpe = w->rank_pe[rank];
    net_op_t *op = op_get(np);
    op->wire.hdr = (net_hdr_t){
        .kind = (uint8_t)kind,
        .flag = (uint8_t)flag,
        .from_pe = (uint16_t)pe->id,
        .from_proc = np->net->proc,
        .seq = seq_next(&np->send_seq[chan(np->net, proc, rpe)]),
        .sreq = sreq,
    };
    op_post(np, op, proc, rpe, NULL, 0, UCP_AM_SEND_FLAG_EAGER);
}

void amp_net_ack(amp_pe_t *pe, int rank, uint64_t sreq)
{
    to_sender(pe, AMP_NET_ACK, rank, sreq, 0);
}

/* The cancel travels after the message (the same pair of PEs, unless a
 * rank moved since: then the message is not found and stays). */
void amp_net_cancel(amp_pe_t *pe, const amp_p2p_req_t *req)
{
    amp_net_pe_t *np = net_of(pe);
    amp_p2p_world_t *w = ((amp_p2p_pe_t *)pe->upper)->world;
    int proc = w->rank_proc[req->peer], rpe = w->rank_pe[req->peer];
    net_op_t *op = op_get(np);
    op->wire.hdr = (net_hdr_t){
        .kind = AMP_NET_CANCEL,
        .from_pe = (uint16_t)pe->id,
        .from_proc = np->net->proc,
        .ctx = req->ctx,
        .src = req->src,
        .tag = req->tag,
        .dst = req->peer,
        .seq = seq_next(&np->send_seq[chan(np->net, proc, rpe)]),
        .from_rank = req->owner->world_rank,
        .sreq = (uint64_t)(uintptr_t)req,
        .sid = req->sid,
    };
    op_post(np, op, proc, rpe, NULL, 0, UCP_AM_SEND_FLAG_EAGER);
}

static void net_am_send(amp_pe_t *pe, const amp_p2p_am_out_t *am)
{
    amp_net_pe_t *np = net_of(pe);
    net_op_t *op = op_get(np);
    op->wire.hdr = (net_hdr_t){
        .kind = AMP_NET_UPPER,
        .am = am->id,
        .from_pe = (uint16_t)pe->id,
        .from_proc = np->net->proc,
        .seq = seq_next(&np->send_seq[chan(np->net, am->proc, am->pe)]),
        .bytes = am->bytes,
    };
    memcpy(op->wire.upper, am->hdr, am->hlen);
    op->hlen = sizeof(net_hdr_t) + am->hlen;
    op->done = am->done;
    op->arg = am->arg;
    op_post(np, op, am->proc, am->pe, am->data, am->bytes,
            am->bytes <= np->net->eager ? UCP_AM_SEND_FLAG_EAGER
                                        : UCP_AM_SEND_FLAG_RNDV);
}

/* ---- fetching rendezvous data ---------------------------------------- */

static void fetch_finish(net_fetch_t *f, ucs_status_t status)
{
    const amp_p2p_core_ops_t *core = amp_p2p_core(f->np->pe);
    amp_p2p_req_t *r = f->r;
    bump(&f->np->busy, -1);
    bump(&f->np->fetching, -1);
    if (!r) {
        amp_p2p_am_done_fn_t done = f->done;
        void *arg = f->arg;
        free(f);
        done(arg, status == UCS_OK);
        return;
    }
    if (f->temp &&
        amp_p2p_on_device(r)) { /* on to the device; r completes after */
        if (status == UCS_OK) {
            core->copy(f->np->pe, r, f->temp, f->bytes, f->src, f->tag, NULL);
        } else {
            r->error = AMP_ERR_SYS;
            core->complete(r);
        }
        free(f->temp);
        free(f);
        return;
    }
    if (f->temp) {
        core->copy_into(r, f->temp, f->bytes, f->src, f->tag);
        free(f->temp);
    } else {
        r->st_bytes = f->bytes;
        r->st_source = f->src;
        r->st_tag = f->tag;
    }
    if (status != UCS_OK)
        r->error = AMP_ERR_SYS;
    free(f);
    core->complete(r);
}

static void fetch_done(void *request, ucs_status_t status, size_t length,
                       void *user_data)
{
    (void)length;
    fetch_finish(user_data, status);
    ucp_request_free(request);
}

/* Lets go of the data f->desc names without taking it (the sender is
 * told it was taken) and of f. */
static void fetch_drop(amp_net_pe_t *np, net_fetch_t *f)
{
    bump(&np->busy, -1);
    bump(&np->fetching, -1);
    if (amp_net_node_desc(f->desc)) {
        amp_net_node_discard(np, f->desc);
    } else {
        amp_sys_alloc_enter();
        ucp_am_data_release(np->worker, f->desc);
        amp_sys_alloc_leave();
    }
    free(f);
}

/* No memory to take f's data in: the data is dropped and only the receive
 * fails (MPI_ERR_NO_MEM where it is completed). */
static void fetch_no_memory(amp_net_pe_t *np, net_fetch_t *f)
{
    amp_p2p_req_t *r = f->r;
    r->st_bytes = 0;
    r->st_source = f->src;
    r->st_tag = f->tag;
    r->error = AMP_ERR_NOMEM;
    fetch_drop(np, f);
    amp_p2p_core(np->pe)->complete(r);
}

/* Straight into the receive buffer when it is plain and large enough (and
 * host memory, or device memory UCX can reach); through a temporary
 * otherwise (layout, truncation, device memory: p2p/dev.h). */
static void fetch_start(amp_net_pe_t *np, net_fetch_t *f)
{
    if (f->discard) {
        fetch_drop(np, f);
        return;
    }
    void *into = f->r ? f->r->buf : f->into;
    int node = amp_net_node_desc(f->desc);
    int cuda = f->r && amp_p2p_on_device(f->r) && np->net->cuda && !node;
    f->temp = NULL;
    if (f->r && (f->r->dt || f->bytes > f->r->bytes ||
                 (amp_p2p_on_device(f->r) && !cuda))) {
        f->temp = malloc(f->bytes);
        if (!f->temp) {
            fetch_no_memory(np, f);
            return;
        }
        into = f->temp;
    }
    if (node) { /* through a ring: copied from the sender's memory now */
        int ok = amp_net_node_fetch(np, f->desc, into, f->bytes);
        fetch_finish(f, ok ? UCS_OK : UCS_ERR_IO_ERROR);
        return;
    }
    ucp_request_param_t p = {
        .op_attr_mask =
            UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.recv_am = fetch_done,
        .user_data = f,
    };
    if (cuda && !f->temp) {
        p.op_attr_mask |= UCP_OP_ATTR_FIELD_MEMORY_TYPE;
        p.memory_type = UCS_MEMORY_TYPE_CUDA;
    }
    amp_sys_alloc_enter();
    ucs_status_ptr_t sp =
        ucp_am_recv_data_nbx(np->worker, f->desc, into, f->bytes, &p);
    amp_sys_alloc_leave();
    if (sp == NULL)
        fetch_finish(f, UCS_OK);
    else if (UCS_PTR_IS_ERR(sp))
        fetch_finish(f, UCS_PTR_STATUS(sp));
}

/* Starts f now, or after the progress call that matched it. */
static void fetch_queue(amp_net_pe_t *np, net_fetch_t *f)
{
    f->np = np;
    bump(&np->busy, 1);
    bump(&np->fetching, 1);
    if (!np->in_progress) {
        fetch_start(np, f);
        return;
    }
    /* Matched inside UCX's callback: start once the progress call is
     * over, in the order matched. */
    net_fetch_t **tail = &np->fetches;
    while (*tail)
        tail = &(*tail)->next;
    *tail = f;
}

static net_fetch_t *fetch_new(void)
{
    net_fetch_t *f = malloc(sizeof(*f));
    if (!f)
        amp_fatal("out of memory receiving from another process");
    return f;
}

void amp_net_fetch(amp_pe_t *pe, void *desc, size_t bytes, amp_p2p_req_t *r,
                   int src, int tag)
{
    net_fetch_t *f = fetch_new();
    *f = (net_fetch_t){
        .r = r, .desc = desc, .bytes = bytes, .src = src, .tag = tag};
    fetch_queue(net_of(pe), f);
}

void amp_net_discard(amp_pe_t *pe, void *desc)
{
    net_fetch_t *f = fetch_new();
    *f = (net_fetch_t){.discard = 1, .desc = desc};
    fetch_queue(net_of(pe), f);
}

static void net_am_fetch(amp_pe_t *pe, void *desc, void *into, size_t bytes,
                         amp_p2p_am_done_fn_t done, void *arg)
{
    net_fetch_t *f = fetch_new();
    *f = (net_fetch_t){
        .into = into, .done = done, .arg = arg, .desc = desc, .bytes = bytes};
    fetch_queue(net_of(pe), f);
}

/* ---- arrivals -------------------------------------------------------- */

/* A plain eager message larger than an envelope's payload (eager_far),
 * waiting unexpected: its data in a block of its own, freed once it is
 * received. */
static void keep_large(amp_pe_t *pe, const net_hdr_t *h, const void *data)
{
    const amp_p2p_core_ops_t *core = amp_p2p_core(pe);
    amp_sys_alloc_enter();
    void *block = malloc((size_t)h->bytes);
    amp_sys_alloc_leave();
    if (!block)
        amp_fatal("out of memory keeping a %zu-byte message from process %d "
                  "until it is received",
                  (size_t)h->bytes, (int)h->from_proc);
    memcpy(block, data, (size_t)h->bytes);
    amp_msg_t *m = core->msg(pe, NULL, h->ctx, h->src, h->tag, h->dst,
                             (size_t)h->bytes, h->from_proc);
    m->kind = AMP_MSG_HEAP;
    m->tp_kind = h->kind;
    m->from_rank = h->from_rank;
    m->remote_sreq = h->sreq;
    m->sid = h->sid;
    m->data = block;
    core->queue(pe, m);
}

/* A message of the program's (kind EAGER, SYNC or RNDV) on the PE that
 * runs its receiver: its data (inline, or desc: a rendezvous) into the
 * receive it matches, or it waits as an unexpected message. */
static void net_deliver(amp_pe_t *pe, const net_hdr_t *h, const void *data,
                        void *desc)
{
    const amp_p2p_core_ops_t *core = amp_p2p_core(pe);
    amp_p2p_req_t *r =
        core->match(pe, h->dst, h->ctx, h->src, h->tag, h->from_proc);
    if (r && h->kind == AMP_NET_RNDV) {
        amp_net_fetch(pe, desc, (size_t)h->bytes, r, h->src, h->tag);
        return;
    }
    if (r) {
        if (h->kind == AMP_NET_SYNC)
            amp_net_ack(pe, h->from_rank, h->sreq);
        core->copy(pe, r, data, (size_t)h->bytes, h->src, h->tag, NULL);
        return;
    }
    if (h->kind == AMP_NET_EAGER && h->bytes > amp_p2p_tp_payload(pe)) {
        keep_large(pe, h, data);
        return;
    }
    if (h->kind != AMP_NET_RNDV && h->bytes > amp_p2p_tp_payload(pe))
        amp_fatal("a %zu-byte eager message from process %d exceeds this "
                  "process's eager limit: give every process the same "
                  "+eager",
                  (size_t)h->bytes, (int)h->from_proc);
    /* A plain eager message owes nothing to its sender. */
    amp_msg_t *m =
        core->msg(pe, h->kind == AMP_NET_EAGER ? NULL : &amp_p2p_net_tp, h->ctx,
                  h->src, h->tag, h->dst, (size_t)h->bytes, h->from_proc);
    m->tp_kind = h->kind;
    m->from_rank = h->from_rank;
    m->remote_sreq = h->sreq;
    m->sid = h->sid;
    if (h->kind == AMP_NET_RNDV) {
        m->data = desc;
    } else {
        memcpy(m->payload, data, (size_t)h->bytes);
        m->data = m->payload;
    }
    core->queue(pe, m);
}

/* A layer above's message (UPPER or CONTROL: header, then its own) for
 * the handler registered under its id. */
static void upper_message(amp_pe_t *pe, const net_wire_t *wire, size_t hlen,
                          void *data, size_t length, int rndv)
{
    const net_hdr_t *h = &wire->hdr;
    amp_p2p_am_t m = {
        .hdr = wire->upper,
        .hlen = hlen - sizeof(net_hdr_t),
        .data = rndv ? NULL : data,
        .bytes = rndv ? (size_t)h->bytes : length,
        .desc = rndv ? data : NULL,
        .from_proc = h->from_proc,
        .from_pe = h->from_pe,
    };
    amp_p2p_world_t *w = ((amp_p2p_pe_t *)pe->upper)->world;
    if (h->am >= AMP_P2P_AM_NIDS || !w->am_fns[h->am])
        amp_fatal("an active message of unknown kind %u from process %d",
                  (unsigned)h->am, (int)h->from_proc);
    w->am_fns[h->am](pe, &m);
}

static void arrive(amp_pe_t *pe, const net_wire_t *wire, size_t hlen,
                   void *data, size_t length, int rndv)
{
    const net_hdr_t *h = &wire->hdr;
    if (h->kind == AMP_NET_FIN) { /* a rendezvous through a ring is done */
        op_end((net_op_t *)(uintptr_t)h->sreq, h->ctx);
        return;
    }
    amp_p2p_req_t *sreq = (amp_p2p_req_t *)(uintptr_t)h->sreq;
    if (h->kind == AMP_NET_ACK) { /* to the PE that runs the sender now */
        sreq->st_bytes = sreq->bytes;
        amp_p2p_core(pe)->complete(sreq);
        return;
    }
    if (h->kind == AMP_NET_CANCEL_ANSWER) { /* likewise */
        amp_p2p_core(pe)->cancel_answer(sreq, h->flag);
        return;
    }
    if (h->kind == AMP_NET_CANCEL) {
        int ok = amp_p2p_core(pe)->withdraw(pe, h->dst, h->ctx, h->src, h->tag,
                                            h->sid);
        to_sender(pe, AMP_NET_CANCEL_ANSWER, h->from_rank, h->sreq, ok);
        return;
    }
    if (h->kind == AMP_NET_UPPER) {
        upper_message(pe, wire, hlen, data, length, rndv);
        return;
    }
    net_deliver(pe, h, rndv ? NULL : data, rndv ? data : NULL);
}

static void hold(amp_net_pe_t *np, const net_wire_t *wire, size_t hlen,
                 void *data, size_t length, int rndv)
{
    net_held_t *e = malloc(sizeof(*e) + (rndv ? 0 : length));
    if (!e)
        amp_fatal("out of memory holding a message from another process");
    memcpy(&e->wire, wire, hlen);
    bump(&np->busy, 1);
    e->hlen = hlen;
    e->length = length;
    e->rndv = rndv;
    e->data = data;
    if (!rndv) {
        e->data = e + 1;
        memcpy(e->data, data, length);
    }
    e->next = np->held;
    np->held = e;
}

/* Delivers the held messages of channel ch whose turn has come. */
static void release_held(amp_pe_t *pe, amp_net_pe_t *np, unsigned ch)
{
    for (net_held_t **p = &np->held; *p;) {
        net_held_t *e = *p;
        if (chan(np->net, e->wire.hdr.from_proc, e->wire.hdr.from_pe) != ch ||
            e->wire.hdr.seq != seq_of(&np->recv_seq[ch])) {
            p = &e->next;
            continue;
        }
        *p = e->next;
        bump(&np->busy, -1);
        arrive(pe, &e->wire, e->hlen, e->data, e->length, e->rndv);
        seq_next(&np->recv_seq[ch]);
        free(e);
        p = &np->held; /* the next one may be earlier in the list */
    }
}

/* The hlen-byte header of a message with length bytes of data, as it came,
 * into wire, completed when short (NET_HDR_SHORT); returns its length in
 * wire. */
static size_t wire_in(net_wire_t *wire, const void *header, size_t hlen,
                      size_t length, int rndv)
{
    uint8_t kind = hlen ? *(const uint8_t *)header : 0;
    if (hlen == NET_HDR_SHORT && kind == AMP_NET_EAGER && !rndv) {
        memcpy(wire, header, hlen);
        wire->hdr.bytes = length;
        wire->hdr.sreq = 0;
        return sizeof(net_hdr_t);
    }
    if (hlen < sizeof(net_hdr_t) || hlen > sizeof(net_wire_t) ||
        (kind != AMP_NET_UPPER && kind != AMP_NET_CONTROL &&
         hlen != sizeof(net_hdr_t)))
        amp_fatal("a message from another process has a %zu-byte header: "
                  "are all processes the same program?",
                  hlen);
    memcpy(wire, header, hlen);
    return hlen;
}

/* A message for pe, through UCX or a ring (amp_net_node_ops_t): delivered
 * now, or held until its turn. */
static void receive(amp_pe_t *pe, const void *header, size_t hlen, void *data,
                    size_t length, int rndv)
{
    amp_net_pe_t *np = net_of(pe);
    net_wire_t wire;
    hlen = wire_in(&wire, header, hlen, length, rndv);
    const net_hdr_t *h = &wire.hdr;
    if (h->kind == AMP_NET_WAKE) /* its arrival woke this PE */
        return;
    if (h->kind == AMP_NET_HELP) {
        amp_net_node_help(np, h, data, length);
        return;
    }
    if (h->kind == AMP_NET_CONTROL || h->kind == AMP_NET_COUNTS) {
        if (rndv)
            amp_fatal("a %zu-byte control message from process %d came as "
                      "rendezvous",
                      length, h->from_proc);
        if (h->kind == AMP_NET_COUNTS)
            counts_message(np->net, h, data, length);
        else
            upper_message(pe, &wire, hlen, data, length, 0);
        return;
    }
    bump_u64(&np->recvd, 1);
    unsigned ch = chan(np->net, h->from_proc, h->from_pe);
    if (h->seq != seq_of(&np->recv_seq[ch])) {
        hold(np, &wire, hlen, data, length, rndv);
        return;
    }
    arrive(pe, &wire, hlen, data, length, rndv);
    seq_next(&np->recv_seq[ch]);
    if (np->held)
        release_held(pe, np, ch);
}

static ucs_status_t on_message(void *arg, const void *header, size_t hlen,
                               void *data, size_t length,
                               const ucp_am_recv_param_t *param)
{
    int rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
    if (rndv && amp_net_node_desc(data))
        amp_fatal("UCX handed over a rendezvous descriptor at an odd "
                  "address, which this transport cannot tell from its own");
    receive(arg, header, hlen, data, length, rndv);
    return rndv ? UCS_INPROGRESS : UCS_OK;
}

/* Whether this progress looks at UCX.  When every process of the job
 * shares this node, the rings carry nearly everything: UCX (what did not
 * fit, wake-ups) is looked at on every NET_UCX_EVERY-th call only.  Else
 * at every call while nothing else waits to run on the PE, and at most once
 * every NET_UCX_GAP_NS while threads are ready (a PE of many ranks
 * progresses at each switch between them). */
static int ucx_due(amp_net_pe_t *np, const amp_pe_t *pe)
{
    if (np->net->all_local)
        return (np->ticks++ & (NET_UCX_EVERY - 1)) == 0;
    if (!pe->runq_head)
        return 1;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long now = ts.tv_sec * 1000000000L + ts.tv_nsec;
    if (now - np->ucx_last < NET_UCX_GAP_NS)
        return 0;
    np->ucx_last = now;
    return 1;
}

unsigned amp_net_progress(amp_pe_t *pe)
{
    amp_net_pe_t *np = net_of(pe);
    if (np->in_progress)
        return 0;
    /* The rings first: what they hold is delivered before UCX's progress
     * (the costlier call) runs. */
    unsigned n = np->rx ? amp_net_node_progress(pe, np) : 0;
    if (ucx_due(np, pe)) {
        np->in_progress = 1;
        amp_sys_alloc_enter(); /* UCX's, even on a rank's stack */
        n += ucp_worker_progress(np->worker);
        amp_sys_alloc_leave();
        np->in_progress = 0;
    }
    while (np->fetches) {
        net_fetch_t *f = np->fetches;
        np->fetches = f->next;
        fetch_start(np, f);
        n++;
    }
    return n;
}

/* ---- control messages and counts, for the layers above (p2p.h) ------- */

static void net_am_control(amp_pe_t *pe, const amp_p2p_am_out_t *am)
{
    amp_net_pe_t *np = net_of(pe);
    net_op_t *op = op_get(np);
    size_t bytes = am->bytes;
    op->counted = 0;
    op->wire.hdr = (net_hdr_t){
        .kind = AMP_NET_CONTROL,
        .am = am->id,
        .from_pe = (uint16_t)pe->id,
        .from_proc = np->net->proc,
        .bytes = bytes,
    };
    memcpy(op->wire.upper, am->hdr, am->hlen);
    op->hlen = sizeof(net_hdr_t) + am->hlen;
    if (bytes) {
        if (!(op->temp = malloc(bytes)))
            amp_fatal("out of memory sending a %zu-byte control message",
                      bytes);
        memcpy(op->temp, am->data, bytes);
    }
    op_post(np, op, am->proc, am->pe, op->temp, bytes, UCP_AM_SEND_FLAG_EAGER);
}

/* The process's counts of the program's messages; whether a transfer is
 * under way. */
static int net_traffic(amp_p2p_world_t *w, uint64_t *sent, uint64_t *recv)
{
    amp_net_t *net = net_world(w);
    long busy = 0;
    *sent = *recv = 0;
    for (int i = 0; i < net->sched->npes; i++) {
        amp_net_pe_t *np = net_of(net->sched->pes[i]);
        *sent += atomic_load_explicit(&np->sent, memory_order_relaxed);
        *recv += atomic_load_explicit(&np->recvd, memory_order_relaxed);
        busy += atomic_load_explicit(&np->busy, memory_order_relaxed);
    }
    return busy != 0;
}

/* ---- moving ranks between the PEs of their processes (p2p.h) --------- */

/* What one thread of the process does while it waits for the others: lets
 * its own PE take what arrives (the other PEs, whose ranks all wait, do so
 * by themselves). */
static void move_poll(void)
{
    amp_sched_poll(amp_pe_self());
    for (int i = 0; i < 64; i++)
        __asm__ volatile("" ::: "memory");
}

/* A message of the count exchanges, with data, to PE 0 of process q, from
 * the calling PE; not counted, outside the order. */
static void move_send(amp_net_t *net, int q, const net_hdr_t *h,
                      const void *data, size_t bytes)
{
    amp_net_pe_t *np = net_of(amp_pe_self());
    net_op_t *op = op_get(np);
    op->counted = 0;
    op->wire.hdr = *h;
    op->wire.hdr.from_pe = (uint16_t)np->pe->id;
    op->wire.hdr.from_proc = net->proc;
    if (!(op->temp = malloc(bytes ? bytes : 1)))
        amp_fatal("out of memory exchanging the counts of messages");
    memcpy(op->temp, data, bytes);
    op_post(np, op, q, 0, op->temp, bytes, UCP_AM_SEND_FLAG_EAGER);
}

/* On PE 0, from process h->from_proc: its counts for a step. */
static void counts_message(amp_net_t *net, const net_hdr_t *h, const void *data,
                           size_t length)
{
    net_move_t *m = &net->move;
    size_t per_pe = (size_t)net->maxpes * sizeof(uint32_t);
    int q = h->from_proc;
    int slot = (int)(h->seq % NET_MOVE_SLOTS);
    if (h->ctx < 1 || h->ctx > net->maxpes || length != (size_t)h->ctx * per_pe)
        amp_fatal("process %d sent %zu bytes of message counts: are "
                  "all processes the same program?",
                  q, length);
    memcpy(m->counts[slot] + (size_t)q * net->maxpes * net->maxpes, data,
           length);
    m->totals[slot] += h->bytes;
    atomic_fetch_add_explicit(&m->got[slot], 1, memory_order_release);
}

/* Whether PE b of this process has received from every PE of every other
 * process what those said they had sent it (counts of slot). */
static int move_arrived(amp_net_t *net, int slot, int b)
{
    amp_net_pe_t *np = net_of(net->sched->pes[b]);
    if (atomic_load_explicit(&np->fetching, memory_order_relaxed))
        return 0;
    for (int q = 0; q < net->nprocs; q++) {
        if (q == net->proc)
            continue;
        const uint32_t *c =
            net->move.counts[slot] + (size_t)q * net->maxpes * net->maxpes;
        for (int a = 0; a < net->maxpes; a++) {
            uint32_t want = c[(size_t)a * net->maxpes + (size_t)b];
            uint32_t got = seq_of(&np->recv_seq[chan(net, q, a)]);
            if ((int32_t)(got - want) < 0)
                return 0;
        }
    }
    return 1;
}

/* One round: every process reports what each of its PEs has sent to each
 * PE of the others; each then waits until its PEs have received all that
 * (and fetched what they started to).  Returns the job's total. */
static uint64_t move_round(amp_p2p_world_t *w, amp_net_t *net)
{
    net_move_t *m = &net->move;
    while (!amp_p2p_dev_idle(w)) /* p2p/dev.c */
        move_poll();
    int npes = net->sched->npes, maxpes = net->maxpes;
    int step = ++m->step, slot = step % NET_MOVE_SLOTS;
    size_t per_q = (size_t)npes * (size_t)maxpes;
    uint32_t *snap = malloc((size_t)net->nprocs * per_q * sizeof(uint32_t));
    if (!snap)
        amp_fatal("out of memory counting the messages between processes");
    uint64_t mine = 0;
    for (int q = 0; q < net->nprocs; q++)
        for (int a = 0; a < npes; a++)
            for (int b = 0; b < maxpes; b++) {
                amp_net_pe_t *np = net_of(net->sched->pes[a]);
                uint32_t v =
                    q == net->proc ? 0 : seq_of(&np->send_seq[chan(net, q, b)]);
                snap[(size_t)q * per_q + (size_t)a * maxpes + b] = v;
                mine += v;
            }
    net_hdr_t h = {.kind = AMP_NET_COUNTS,
                   .ctx = npes,
                   .seq = (uint32_t)step,
                   .bytes = mine};
    for (int q = 0; q < net->nprocs; q++)
        if (q != net->proc)
            move_send(net, q, &h, snap + (size_t)q * per_q,
                      per_q * sizeof(uint32_t));
    free(snap);
    while (atomic_load_explicit(&m->got[slot], memory_order_acquire) <
           net->nprocs - 1)
        move_poll();
    uint64_t total = mine + m->totals[slot];
    for (int b = 0; b < npes; b++)
        while (!move_arrived(net, slot, b))
            move_poll();
    m->totals[slot] = 0;
    atomic_store_explicit(&m->got[slot], 0, memory_order_relaxed);
    return total;
}

static void net_quiesce(amp_p2p_world_t *w)
{
    /* Rounds until one where nothing was sent since the one before: what
     * a delivery answers (acknowledgements, one-sided answers) is sent
     * before its PE's round ends, so then nothing is in flight. */
    uint64_t prev = 0;
    for (int round = 0;; round++) {
        uint64_t total = move_round(w, net_world(w));
        if (round > 0 && total == prev)
            return;
        prev = total;
    }
}

static void net_settle(amp_p2p_world_t *w)
{
    amp_net_t *net = net_world(w);
    for (int b = 0; b < net->sched->npes; b++) {
        amp_net_pe_t *np = net_of(net->sched->pes[b]);
        while (atomic_load_explicit(&np->busy, memory_order_relaxed))
            move_poll();
    }
}

/* ---- sleeping -------------------------------------------------------- */

static void net_sleep(amp_pe_t *pe, long ns)
{
    amp_net_pe_t *np = net_of(pe);
    if (np->sleeping && !amp_net_node_sleep_begin(np))
        return;
    /* Busy: events are waiting (or a wake came first): do not sleep. */
    if (ucp_worker_arm(np->worker) == UCS_OK) {
        struct pollfd pfd = {.fd = np->efd, .events = POLLIN};
        poll(&pfd, 1, (int)(ns / 1000000));
    }
    if (np->sleeping)
        amp_net_node_sleep_end(np);
}

static void net_wake(amp_pe_t *pe)
{
    ucp_worker_signal(net_of(pe)->worker);
}

/* ---- the transport's table (transport.h) ------------------------------ */

/* A synchronous message (payload inline) or a rendezvous (data: UCX's or
 * a ring's descriptor) has matched r. */
static void net_matched(amp_pe_t *pe, amp_msg_t *m, amp_p2p_req_t *r)
{
    if (m->tp_kind == AMP_NET_RNDV) {
        amp_net_fetch(pe, (void *)m->data, m->bytes, r, m->src, m->tag);
        amp_p2p_core(pe)->release(pe, m);
        return;
    }
    amp_net_ack(pe, m->from_rank, m->remote_sreq);
    amp_p2p_core(pe)->copy(pe, r, m->data, m->bytes, m->src, m->tag, m);
}

static int net_withdraw(amp_pe_t *pe, amp_msg_t *m)
{
    if (m->tp_kind == AMP_NET_RNDV)
        amp_net_discard(pe, (void *)m->data);
    else
        amp_net_ack(pe, m->from_rank, m->remote_sreq);
    return 1;
}

/* A rendezvous fetched into a block of its own. */
static int net_take(amp_pe_t *pe, amp_msg_t *m, amp_p2p_am_done_fn_t done,
                    void *arg)
{
    if (m->tp_kind != AMP_NET_RNDV)
        return 0;
    void *desc = (void *)m->data;
    void *block = malloc(m->bytes ? m->bytes : 1);
    if (!block)
        amp_fatal("out of memory taking in a %zu-byte message from "
                  "another process before a rank moves",
                  m->bytes);
    m->kind = AMP_MSG_HEAP;
    m->tp = NULL;
    m->data = block;
    net_am_fetch(pe, desc, block, m->bytes, done, arg);
    return 1;
}

static unsigned net_progress(amp_pe_t *pe)
{
    return amp_net_progress(pe);
}

/* Only pe itself may look at its worker, by progressing it. */
static int net_pending(amp_pe_t *pe)
{
    return pe == amp_pe_self() && amp_net_progress(pe);
}

const amp_p2p_tp_t amp_p2p_net_tp = {
    .name = "net",
    .send = net_tp_send,
    .matched = net_matched,
    .withdraw = net_withdraw,
    .take = net_take,
    .cancel = amp_net_cancel,
    .ack = amp_net_ack,
    .moves_device = net_moves_device,
    .am_send = net_am_send,
    .am_fetch = net_am_fetch,
    .am_control = net_am_control,
    .progress = net_progress,
    .pending = net_pending,
    .sleep = net_sleep,
    .wake = net_wake,
    .quiesce = net_quiesce,
    .settle = net_settle,
    .traffic = net_traffic,
};

/* ---- setting up ------------------------------------------------------ */

static amp_status_t ucx_error(const char *call, ucs_status_t s)
{
    amp_log_error("%s failed: %s", call, ucs_status_string(s));
    return AMP_ERR_SYS;
}

static amp_status_t context_init(amp_net_t *net)
{
    ucp_config_t *config;
    ucs_status_t s = ucp_config_read(NULL, NULL, &config);
    if (s != UCS_OK)
        return ucx_error("ucp_config_read", s);
    ucp_params_t p = {.field_mask = UCP_PARAM_FIELD_FEATURES,
                      .features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP};
    s = ucp_init(&p, config, &net->ctx);
    ucp_config_release(config);
    return s == UCS_OK ? AMP_OK : ucx_error("ucp_init", s);
}

static amp_status_t worker_init(amp_net_t *net, amp_pe_t *pe)
{
    amp_net_pe_t *np = calloc(1, sizeof(*np));
    if (!np)
        return AMP_ERR_NOMEM;
    np->pe = pe;
    np->net = net;
    ((amp_p2p_pe_t *)pe->upper)->tp[AMP_P2P_TP_NET] = np;
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_SINGLE};
    ucs_status_t s = ucp_worker_create(net->ctx, &wp, &np->worker);
    if (s != UCS_OK)
        return ucx_error("ucp_worker_create", s);
    ucp_am_handler_param_t hp = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
                      UCP_AM_HANDLER_PARAM_FIELD_CB |
                      UCP_AM_HANDLER_PARAM_FIELD_ARG,
        .id = NET_AM_ID,
        .cb = on_message,
        .arg = pe,
    };
    s = ucp_worker_set_am_recv_handler(np->worker, &hp);
    if (s != UCS_OK)
        return ucx_error("ucp_worker_set_am_recv_handler", s);
    s = ucp_worker_get_efd(np->worker, &np->efd);
    return s == UCS_OK ? AMP_OK : ucx_error("ucp_worker_get_efd", s);
}

/* What a process publishes: its ranks, their PEs, its host, its kernel
 * and the address of each of its PEs' workers. */
typedef struct net_blob_head {
    uint32_t magic;
    int32_t npes, first, nlocal;
    uint32_t cuda; /* its UCX moves CUDA memory */
    int32_t pid;
    uint64_t nonce; /* names its node's shared memory, if it is the first */
    uint64_t probe; /* where it holds AMP_NODE_PROBE (node/node.h) */
    char host[NET_HOST_MAX];
    char boot[NET_BOOT_MAX]; /* the kernel's boot id ("": not known) */
} net_blob_head_t;

/* Where each process runs: its host (the node) and its kernel. */
typedef struct net_where {
    char host[NET_HOST_MAX];
    char boot[NET_BOOT_MAX];
} net_where_t;

/* What read_all learns of each process for the node (node/node.h). */
typedef struct net_peers {
    int *pids;
    uint64_t *probes, *nonces;
} net_peers_t;

/* Appends n bytes at src to the blob being built (*buf, *len). */
static void blob_add(char **buf, size_t *len, const void *src, size_t n)
{
    char *b = realloc(*buf, *len + n);
    if (!b)
        amp_fatal("out of memory publishing this process's address");
    memcpy(b + *len, src, n);
    *buf = b;
    *len += n;
}

/* The running kernel's boot id into id (NET_BOOT_MAX bytes), empty where
 * the system does not say. */
static void boot_id(char *id)
{
    memset(id, 0, NET_BOOT_MAX);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f)
        return;
    if (!fgets(id, NET_BOOT_MAX, f))
        id[0] = '\0';
    fclose(f);
    id[strcspn(id, "\n")] = '\0';
}

static amp_status_t publish(amp_sched_t *sched, amp_boot_t *boot, int first,
                            int nlocal, const int *local_pe)
{
    amp_net_t *net = net_of(sched->pes[0])->net;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    net->probe = AMP_NODE_PROBE;
    net_blob_head_t head = {
        .magic = NET_MAGIC,
        .npes = sched->npes,
        .first = first,
        .nlocal = nlocal,
        .cuda = (uint32_t)net->cuda,
        .pid = (int32_t)getpid(),
        .nonce = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^
                 ((uint64_t)getpid() << 40),
        .probe = (uint64_t)(uintptr_t)&net->probe,
    };
    gethostname(head.host, sizeof(head.host) - 1);
    boot_id(head.boot);
    char *blob = NULL;
    size_t len = 0;
    blob_add(&blob, &len, &head, sizeof(head));
    for (int i = 0; i < nlocal; i++) {
        int32_t pe = local_pe[i];
        blob_add(&blob, &len, &pe, sizeof(pe));
    }
    for (int i = 0; i < sched->npes; i++) {
        amp_net_pe_t *np = net_of(sched->pes[i]);
        ucp_address_t *addr;
        size_t alen;
        ucs_status_t s = ucp_worker_get_address(np->worker, &addr, &alen);
        if (s != UCS_OK) {
            free(blob);
            return ucx_error("ucp_worker_get_address", s);
        }
        uint64_t n = alen;
        blob_add(&blob, &len, &n, sizeof(n));
        blob_add(&blob, &len, addr, alen);
        ucp_worker_release_address(np->worker, addr);
    }
    amp_status_t st = amp_boot_put(boot, NET_KEY, blob, len);
    free(blob);
    if (st == AMP_OK)
        st = amp_boot_commit(boot);
    return st == AMP_OK ? amp_boot_fence(boot) : st;
}

/* Checks process q's blob against the job and returns its head. */
static const net_blob_head_t *blob_check(const void *blob, size_t len, int q,
                                         int nranks)
{
    const net_blob_head_t *h = blob;
    if (len < sizeof(*h) || h->magic != NET_MAGIC || h->npes < 1 ||
        h->nlocal < 0 || h->first < 0 || h->first + h->nlocal > nranks ||
        len < sizeof(*h) + (size_t)h->nlocal * sizeof(int32_t))
        amp_fatal("process %d of the job published no valid address: are "
                  "all processes the same program with the same options?",
                  q);
    return h;
}

/* Reads process q's ranks and worker addresses into w and net. */
static void read_proc(amp_p2p_world_t *w, amp_net_t *net, int q,
                      const char *blob, size_t len, net_where_t *where,
                      net_peers_t *peers)
{
    const net_blob_head_t *h = blob_check(blob, len, q, w->nranks);
    peers->pids[q] = h->pid;
    peers->probes[q] = h->probe;
    peers->nonces[q] = h->nonce;
    net->proc_npes[q] = h->npes;
    const char *p = blob + sizeof(*h);
    for (int i = 0; i < h->nlocal; i++, p += sizeof(int32_t)) {
        int32_t pe;
        memcpy(&pe, p, sizeof(pe));
        w->rank_proc[h->first + i] = q;
        w->rank_pe[h->first + i] = pe;
    }
    memcpy(where[q].host, h->host, NET_HOST_MAX);
    memcpy(where[q].boot, h->boot, NET_BOOT_MAX);
    net->proc_cuda[q] = h->cuda != 0;
    where[q].host[NET_HOST_MAX - 1] = '\0';
    where[q].boot[NET_BOOT_MAX - 1] = '\0';
    for (int i = 0; i < h->npes; i++) {
        uint64_t n;
        if ((size_t)(p - blob) + sizeof(n) > len)
            amp_fatal("process %d published a truncated address", q);
        memcpy(&n, p, sizeof(n));
        p += sizeof(n);
        if ((size_t)(p - blob) + n > len ||
            !(net->addr[q * net->maxpes + i] = malloc(n)))
            amp_fatal("process %d published a truncated address", q);
        memcpy(net->addr[q * net->maxpes + i], p, n);
        p += n;
    }
}

static void *blob_of(amp_boot_t *boot, int q, size_t *len)
{
    void *blob;
    if (amp_boot_get(boot, q, NET_KEY, &blob, len) != AMP_OK)
        amp_fatal("cannot read the address process %d published", q);
    return blob;
}

/* Every process's PEs: the largest count sizes the tables. */
static int max_pes(amp_boot_t *boot, int nranks)
{
    int maxpes = 1;
    for (int q = 0; q < boot->nprocs; q++) {
        size_t len;
        void *blob = blob_of(boot, q, &len);
        const net_blob_head_t *h = blob_check(blob, len, q, nranks);
        if (h->npes > maxpes)
            maxpes = h->npes;
        free(blob);
    }
    return maxpes;
}

/* Whether processes a and b share a kernel: the same boot id, or, where
 * either does not know its own, the same host. */
static int same_machine(const net_where_t *a, const net_where_t *b)
{
    if (!a->boot[0] || !b->boot[0])
        return strcmp(a->host, b->host) == 0;
    return strcmp(a->boot, b->boot) == 0;
}

/* This process's place among those that share its kernel, host names
 * aside: nodes of one machine (containers, network namespaces) share its
 * cores, and the runtime divides them as among a node's processes. */
static void find_machine(amp_p2p_world_t *w, const net_where_t *where)
{
    w->machine_index = w->machine_size = 0;
    for (int q = 0; q < w->nprocs; q++) {
        if (!same_machine(&where[q], &where[w->proc]))
            continue;
        if (q < w->proc)
            w->machine_index++;
        w->machine_size++;
    }
}

static void read_all(amp_p2p_world_t *w, amp_net_t *net, amp_boot_t *boot,
                     net_peers_t *peers)
{
    net_where_t *where = calloc((size_t)w->nprocs, sizeof(*where));
    if (!where)
        amp_fatal("out of memory reading the job's addresses");
    for (int r = 0; r < w->nranks; r++)
        w->rank_proc[r] = -1;
    for (int q = 0; q < w->nprocs; q++) {
        size_t len;
        void *blob = blob_of(boot, q, &len);
        read_proc(w, net, q, blob, len, where, peers);
        free(blob);
    }
    for (int r = 0; r < w->nranks; r++)
        if (w->rank_proc[r] < 0)
            amp_fatal("no process of the job runs rank %d: do all processes "
                      "have the same +vp?",
                      r);
    for (int q = 0; q < w->nprocs; q++) {
        int k = 0;
        while (strcmp(where[k].host, where[q].host) != 0)
            k++;
        w->proc_node[q] = k;
    }
    find_machine(w, where);
    free(where);
}

static amp_status_t move_init(amp_net_t *net, int nranks)
{
    net_move_t *m = &net->move;
    size_t n = (size_t)net->nprocs * (size_t)net->maxpes * (size_t)net->maxpes;
    net->nranks = nranks;
    for (int i = 0; i < NET_MOVE_SLOTS; i++) {
        if (!(m->counts[i] = calloc(n, sizeof(uint32_t))))
            return AMP_ERR_NOMEM;
        atomic_init(&m->got[i], 0);
    }
    return AMP_OK;
}

static amp_status_t pe_tables(amp_net_t *net, amp_pe_t *pe)
{
    amp_net_pe_t *np = net_of(pe);
    size_t n = (size_t)net->nprocs * (size_t)net->maxpes;
    np->eps = calloc(n, sizeof(*np->eps));
    np->send_seq = calloc(n, sizeof(*np->send_seq));
    np->recv_seq = calloc(n, sizeof(*np->recv_seq));
    return np->eps && np->send_seq && np->recv_seq ? AMP_OK : AMP_ERR_NOMEM;
}

/* What the rings of the node (netnode.c) call of this file. */
static const amp_net_node_ops_t node_ops = {
    .op_get = op_get,
    .op_finish = op_end,
    .op_send = op_send,
    .op_send_data = op_send_data,
    .wake_ucx = wake_ucx,
    .receive = receive,
};

/* The processes of this node (node/node.h), and the rings to them when
 * processes share memory (AMPI_NODE_SHM, on by default; off: each process
 * is a node of its own for that). */
static amp_status_t node_init(amp_p2p_world_t *w, amp_net_t *net,
                              amp_sched_t *sched, const net_peers_t *peers)
{
    int *own = NULL;
    const int *nodes = w->proc_node;
    if (!w->node_shm) {
        if (!(own = malloc((size_t)net->nprocs * sizeof(int))))
            return AMP_ERR_NOMEM;
        for (int q = 0; q < net->nprocs; q++)
            own[q] = q;
        nodes = own;
    }
    amp_status_t st =
        amp_node_init(&w->node, net->nprocs, net->proc, nodes, peers->pids,
                      peers->probes, peers->nonces[nodes[net->proc]]);
    free(own);
    net->node = &w->node;
    if (st != AMP_OK || w->node.nprocs < 2)
        return st;
    return amp_net_node_setup(w, net, sched, &node_ops);
}

amp_status_t amp_net_init(amp_p2p_world_t *w, amp_sched_t *sched,
                          amp_boot_t *boot, int first, int nlocal,
                          const int *local_pe)
{
    amp_net_t *net = calloc(1, sizeof(*net));
    w->rank_proc = calloc((size_t)w->nranks, sizeof(int));
    w->rank_pe = calloc((size_t)w->nranks, sizeof(int));
    w->proc_node = calloc((size_t)boot->nprocs, sizeof(int));
    if (!net || !w->rank_proc || !w->rank_pe || !w->proc_node)
        return AMP_ERR_NOMEM;
    w->tp[AMP_P2P_TP_NET] = net;
    net->sched = sched;
    w->nprocs = net->nprocs = boot->nprocs;
    w->proc = net->proc = boot->index;
    net->eager = w->eager_limit;
    net->eager_far =
        w->net_eager > w->eager_limit ? w->net_eager : w->eager_limit;
    net->proc_cuda = calloc((size_t)boot->nprocs, 1);
    if (!net->proc_cuda)
        return AMP_ERR_NOMEM;
    amp_status_t st = context_init(net);
    /* UCX moves device memory only on the auto path (gpu.h). */
    if (st == AMP_OK && w->gpu && amp_gpu_mode(w->gpu) == AMP_GPU_MODE_AUTO)
        net->cuda = amp_gpu_ucx_cuda(net->ctx);
    for (int i = 0; st == AMP_OK && i < sched->npes; i++)
        st = worker_init(net, sched->pes[i]);
    if (st == AMP_OK)
        st = publish(sched, boot, first, nlocal, local_pe);
    if (st != AMP_OK)
        return st;
    net->maxpes = max_pes(boot, w->nranks);
    size_t n = (size_t)net->nprocs;
    net->addr = calloc(n * (size_t)net->maxpes, sizeof(*net->addr));
    net->proc_npes = calloc(n, sizeof(int));
    net_peers_t peers = {calloc(n, sizeof(int)), calloc(n, sizeof(uint64_t)),
                         calloc(n, sizeof(uint64_t))};
    if (!net->addr || !net->proc_npes || !peers.pids || !peers.probes ||
        !peers.nonces)
        st = AMP_ERR_NOMEM;
    if (st == AMP_OK)
        read_all(w, net, boot, &peers);
    for (int i = 0; st == AMP_OK && i < sched->npes; i++)
        st = pe_tables(net, sched->pes[i]);
    if (st == AMP_OK)
        st = node_init(w, net, sched, &peers);
    free(peers.pids);
    free(peers.probes);
    free(peers.nonces);
    return st == AMP_OK ? move_init(net, w->nranks) : st;
}

/* Progresses the worker until request sp (of an nbx call) is done. */
static void wait_request(ucp_worker_h worker, ucs_status_ptr_t sp)
{
    if (sp == NULL || UCS_PTR_IS_ERR(sp))
        return;
    while (ucp_request_check_status(sp) == UCS_INPROGRESS)
        ucp_worker_progress(worker);
    ucp_request_free(sp);
}

/* Progresses every PE's worker of this process once. */
static void progress_workers(void *arg)
{
    amp_sched_t *sched = arg;
    for (int i = 0; i < sched->npes; i++)
        ucp_worker_progress(net_of(sched->pes[i])->worker);
}

/* Flushes every PE's worker, progressing all of them meanwhile: a flush
 * over TCP may wait on a connection or an acknowledgment that another of
 * this process's workers has to handle for a peer. */
static void flush_workers(amp_sched_t *sched)
{
    ucp_request_param_t p = {.op_attr_mask = 0};
    for (int i = 0; i < sched->npes; i++) {
        ucp_worker_h worker = net_of(sched->pes[i])->worker;
        ucs_status_ptr_t sp = ucp_worker_flush_nbx(worker, &p);
        if (sp == NULL || UCS_PTR_IS_ERR(sp))
            continue;
        while (ucp_request_check_status(sp) == UCS_INPROGRESS)
            progress_workers(sched);
        ucp_request_free(sp);
    }
}

static void worker_close(amp_net_pe_t *np)
{
    size_t n = (size_t)np->net->nprocs * (size_t)np->net->maxpes;
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                             .flags = UCP_EP_CLOSE_FLAG_FORCE};
    for (size_t i = 0; i < n; i++)
        if (np->eps[i])
            wait_request(np->worker, ucp_ep_close_nbx(np->eps[i], &p));
    ucp_worker_destroy(np->worker);
    while (np->free_ops) {
        net_op_t *op = np->free_ops;
        np->free_ops = op->next;
        free(op);
    }
    free(np->eps);
    free(np->send_seq);
    free(np->recv_seq);
    free(np);
}

void amp_net_finish(amp_p2p_world_t *w, amp_sched_t *sched, amp_boot_t *boot)
{
    amp_net_t *net = net_world(w);
    if (!net)
        return;
    flush_workers(sched);
    /* Nobody closes a connection another process still uses, and every
     * process keeps progressing its workers until all have flushed theirs:
     * between nodes a flush may need the peer's progress (a process that
     * sat in a plain fence hung another's flush there).  A failed fence is
     * logged by boot; the job is ending, so close anyway. */
    amp_status_ignore(amp_boot_fence_progress(boot, progress_workers, sched));
    amp_net_node_cleanup(net, sched);
    for (int i = 0; i < sched->npes; i++) {
        worker_close(net_of(sched->pes[i]));
        ((amp_p2p_pe_t *)sched->pes[i]->upper)->tp[AMP_P2P_TP_NET] = NULL;
    }
    free(net->proc_npes);
    for (int i = 0; i < net->nprocs * net->maxpes; i++)
        free(net->addr[i]);
    free(net->addr);
    free(net->proc_cuda);
    ucp_cleanup(net->ctx);
    for (int i = 0; i < NET_MOVE_SLOTS; i++)
        free(net->move.counts[i]);
    free(net);
    w->tp[AMP_P2P_TP_NET] = NULL;
}
