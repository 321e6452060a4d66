/* Windows whose members run in several processes; see rma.h. */
#include "rma/rma.h"
#include "rma/state.h"

#include <stdlib.h>
#include <string.h>

/* MPI_NO_OP's index among the predefined operations (mpi.h). */
#define OP_NO_OP 14

/* What a message asks (the first five are the AMP_RMA_* operations). */
enum msg_kind {
    M_LOCK = AMP_RMA_CAS + 1,
    M_UNLOCK,
    M_POST,
    M_COMPLETE,
    M_ACK,  /* to the origin: done, with a status */
    M_DATA, /* to the origin: done, with the data it asked for */
};

/* A target layout on the wire; its blocks lead the data. */
typedef struct wire_dt {
    int64_t true_lb, true_extent, extent;
    uint64_t size, basic_size;
    int32_t contig, nblocks, base_id;
    int32_t ndims; /* a regular type's levels (amp_dt.dims), sent after its
                      blocks as blocks (off: stride, len: count) */
} wire_dt_t;

/* Every message of this protocol; answers echo rop. */
typedef struct rma_msg {
    uint8_t kind, exclusive, dynamic, op_id;
    int32_t status;
    int32_t target, origin; /* members of the window */
    int32_t tcount;
    uint64_t win;   /* the receiving process's state of the window */
    uint64_t taddr; /* target memory, in the target's process */
    uint64_t bytes; /* data after the blocks */
    uint64_t rop;   /* the origin's record */
    wire_dt_t tdt;
} rma_msg_t;

/* The origin's record of one request, until it is answered. */
typedef struct rop_rec {
    amp_rma_origin_t *o;
    amp_p2p_req_t *req;
    char *raddr;   /* where answered data goes */
    amp_dt_t *rdt; /* its layout (a copy), or NULL: plain bytes at raddr */
    int rcount;
    void *temp;   /* answered data, fetched to be unpacked */
    size_t bytes; /* of temp */
} rop_rec_t;

/* An operation whose data is being fetched at the target. */
typedef struct incoming {
    rma_msg_t m;
    int proc, pe; /* where the answer goes */
    char *buf;    /* blocks and data; NULL: straight into the window */
} incoming_t;

/* ---- where members are ------------------------------------------------ */

void amp_rma_set_peer(amp_rma_win_t *w, int r, uint64_t state, int proc, int pe)
{
    w->peers[r] = (peer_t){state, proc, pe};
}

int amp_rma_is_remote(const amp_rma_win_t *w, int r)
{
    return w->peers[r].state != 0;
}

/* ---- sending ------------------------------------------------------------ */

static void sent(void *temp, int ok)
{
    if (!ok)
        amp_fatal("UCX could not deliver a one-sided operation to another "
                  "process");
    free(temp);
}

/* m (its win filled in here) and bytes of data to the PE of member r;
 * temp, when not NULL, is freed once sent. */
static void send_to(amp_rma_win_t *w, int r, rma_msg_t *m, const void *data,
                    size_t bytes, void *temp)
{
    const peer_t *p = &w->peers[r];
    m->win = p->state;
    amp_p2p_am_send(amp_pe_self(), &(amp_p2p_am_out_t){.id = AMP_P2P_AM_RMA,
                                                       .proc = p->proc,
                                                       .pe = p->pe,
                                                       .hdr = m,
                                                       .hlen = sizeof(*m),
                                                       .data = data,
                                                       .bytes = bytes,
                                                       .done = sent,
                                                       .arg = temp});
}

/* The answer to request q from PE pe of process proc. */
static void answer(const rma_msg_t *q, int proc, int pe, int kind,
                   amp_status_t status, const void *data, size_t bytes,
                   void *temp)
{
    rma_msg_t a = {
        .kind = (uint8_t)kind, .status = status, .bytes = bytes, .rop = q->rop};
    amp_p2p_am_send(amp_pe_self(), &(amp_p2p_am_out_t){.id = AMP_P2P_AM_RMA,
                                                       .proc = proc,
                                                       .pe = pe,
                                                       .hdr = &a,
                                                       .hlen = sizeof(a),
                                                       .data = data,
                                                       .bytes = bytes,
                                                       .done = sent,
                                                       .arg = temp});
}

static rop_rec_t *rec_new(amp_rma_origin_t *o, amp_p2p_req_t *req)
{
    rop_rec_t *rec = calloc(1, sizeof(*rec));
    if (rec) {
        rec->o = o;
        rec->req = req;
        o->pending++;
    }
    return rec;
}

/* ---- the origin --------------------------------------------------------- */

static void rec_finish(rop_rec_t *rec, amp_status_t status)
{
    amp_rma_origin_t *o = rec->o;
    if (status != AMP_OK && o->error == AMP_OK)
        o->error = status;
    if (rec->req) {
        rec->req->error = status;
        amp_p2p_req_complete(rec->req);
    }
    if (rec->rdt) {
        amp_dt_destroy(rec->rdt);
        free(rec->rdt);
    }
    free(rec->temp);
    free(rec);
    if (--o->pending == 0 && o->waiter)
        amp_p2p_wake(amp_pe_self(), o->waiter);
}

static void deliver(rop_rec_t *rec, const void *data, size_t bytes)
{
    if (rec->rdt)
        amp_dt_unpack(rec->rdt, rec->rcount, rec->raddr, data, bytes);
    else
        memcpy(rec->raddr, data, bytes);
}

static void fetched(void *arg, int ok)
{
    rop_rec_t *rec = arg;
    if (ok && rec->temp)
        deliver(rec, rec->temp, rec->bytes);
    rec_finish(rec, ok ? AMP_OK : AMP_ERR_SYS);
}

static void answered(amp_pe_t *pe, const rma_msg_t *m, const amp_p2p_am_t *am)
{
    rop_rec_t *rec = (rop_rec_t *)(uintptr_t)m->rop;
    size_t bytes = (size_t)m->bytes;
    if (m->kind != M_DATA || !bytes) {
        rec_finish(rec, (amp_status_t)m->status);
        return;
    }
    if (am->data) {
        deliver(rec, am->data, bytes);
        rec_finish(rec, AMP_OK);
        return;
    }
    void *into = rec->raddr;
    rec->bytes = bytes;
    if (rec->rdt && !(into = rec->temp = malloc(bytes)))
        amp_fatal("out of memory receiving a one-sided answer");
    amp_p2p_am_fetch(pe, am->desc, into, bytes, fetched, rec);
}

amp_status_t amp_rma_origin_wait(amp_rma_origin_t *o)
{
    while (o->pending) {
        o->waiter = amp_pe_self()->current;
        amp_sched_block();
    }
    o->waiter = NULL;
    amp_status_t st = o->error;
    o->error = AMP_OK;
    return st;
}

/* tdt on the wire: *wd, and its blocks (*n of them) to send ahead of the
 * data. */
static const amp_dt_block_t *dt_out(const amp_dt_t *tdt, wire_dt_t *wd, int *n)
{
    *wd = (wire_dt_t){.true_lb = tdt->true_lb,
                      .true_extent = tdt->true_extent,
                      .extent = tdt->extent,
                      .size = tdt->size,
                      .basic_size = tdt->basic_size,
                      .contig = tdt->contig,
                      .nblocks = tdt->contig ? 0 : tdt->nblocks,
                      .base_id = tdt->base_id,
                      .ndims = tdt->contig || !tdt->nblocks ? 0 : tdt->ndims};
    *n = wd->nblocks;
    return tdt->blocks;
}

/* Where the answer of a get goes: plain at raddr, or unpacked through a
 * copy of rdt. */
static amp_status_t result_side(rop_rec_t *rec, const amp_rma_acc_t *d)
{
    rec->rcount = d->rcount;
    if (d->rdt->contig) {
        rec->raddr = amp_dt_data(d->raddr, d->rdt);
        return AMP_OK;
    }
    rec->raddr = d->raddr;
    rec->rdt = calloc(1, sizeof(*rec->rdt));
    if (!rec->rdt)
        return AMP_ERR_NOMEM;
    return amp_dt_make_dup(rec->rdt, d->rdt);
}

/* The data that travels with op: the target's blocks, then the origin's
 * values packed (or, for a plain origin and no blocks, the origin's
 * buffer itself: zero-copy).  *temp is what to free once sent. */
static amp_status_t op_data(const amp_rma_rop_t *op, const amp_dt_block_t *b,
                            int nb, size_t bytes, const void **data,
                            size_t *len, void **temp)
{
    const amp_rma_acc_t *d = &op->d;
    int with_values = op->kind == AMP_RMA_PUT || op->kind == AMP_RMA_ACC ||
                      op->kind == AMP_RMA_CAS ||
                      (op->kind == AMP_RMA_GET_ACC && op->op_id != OP_NO_OP);
    size_t values = !with_values              ? 0
                    : op->kind == AMP_RMA_CAS ? 2 * bytes
                                              : bytes;
    const amp_dt_t *t = d->tdt;
    int nl = nb ? t->ndims : 0; /* the levels, after the blocks */
    size_t head = (size_t)(nb + nl) * sizeof(*b);
    *len = head + values;
    *temp = NULL;
    *data = NULL;
    if (!*len)
        return AMP_OK;
    if (!nb && values == bytes && d->odt->contig) {
        *data = amp_dt_data(d->oaddr, d->odt);
        return AMP_OK;
    }
    char *buf = malloc(*len ? *len : 1);
    if (!buf)
        return AMP_ERR_NOMEM;
    if (nb) /* b is NULL without blocks */
        memcpy(buf, b, (size_t)nb * sizeof(*b));
    for (int k = 0; k < nl; k++) {
        amp_dt_block_t lv = {.off = t->strides[k], .len = (size_t)t->dims[k]};
        memcpy(buf + (size_t)(nb + k) * sizeof(*b), &lv, sizeof(lv));
    }
    if (op->kind == AMP_RMA_CAS) {
        memcpy(buf + head, (const char *)d->oaddr, bytes);
        memcpy(buf + head + bytes, op->compare, bytes);
    } else if (values) {
        amp_dt_pack(d->odt, d->ocount, d->oaddr, buf + head);
    }
    *data = buf;
    *temp = buf;
    return AMP_OK;
}

amp_status_t amp_rma_remote_op(amp_rma_win_t *w, amp_rma_origin_t *o,
                               const amp_rma_rop_t *op)
{
    const amp_rma_acc_t *d = &op->d;
    size_t bytes = (size_t)d->tcount * d->tdt->size;
    rma_msg_t m = {.kind = (uint8_t)op->kind,
                   .dynamic = (uint8_t)op->dynamic,
                   .op_id = (uint8_t)op->op_id,
                   .target = op->target,
                   .tcount = d->tcount,
                   .taddr = (uint64_t)(uintptr_t)d->taddr,
                   .bytes = bytes};
    int nb;
    const amp_dt_block_t *b = dt_out(d->tdt, &m.tdt, &nb);
    const void *data;
    size_t len;
    void *temp;
    amp_status_t st = op_data(op, b, nb, bytes, &data, &len, &temp);
    if (st != AMP_OK)
        return st;
    rop_rec_t *rec = rec_new(o, op->req);
    if (!rec) {
        free(temp);
        return AMP_ERR_NOMEM;
    }
    if (d->raddr && (st = result_side(rec, d)) != AMP_OK) {
        free(temp);
        rec->req = NULL;
        rec_finish(rec, AMP_OK);
        return st;
    }
    m.rop = (uint64_t)(uintptr_t)rec;
    send_to(w, op->target, &m, data, len, temp);
    return AMP_OK;
}

/* ---- the target's side of operations ------------------------------------ */

_Static_assert(sizeof(rma_msg_t) <= AMP_P2P_AM_HDR_MAX,
               "a one-sided message header fits the transport's");

/* The layout m describes, with its blocks copied out of data (aligned);
 * *owned is what to free after. */
static int dt_in(const rma_msg_t *m, const char *data, amp_dt_t *dt,
                 amp_dt_block_t **owned)
{
    const wire_dt_t *wd = &m->tdt;
    memset(dt, 0, sizeof(*dt));
    dt->true_lb = wd->true_lb;
    dt->true_extent = wd->true_extent;
    dt->extent = wd->extent;
    dt->size = wd->size;
    dt->basic_size = wd->basic_size;
    dt->contig = wd->contig;
    dt->base_id = wd->base_id;
    dt->nblocks = wd->nblocks;
    if (wd->ndims < 0 || wd->ndims > AMP_DT_MAX_DIMS)
        return 0;
    dt->ndims = wd->ndims;
    for (int k = 0; k < dt->ndims; k++) {
        amp_dt_block_t lv;
        memcpy(&lv, data + (size_t)(wd->nblocks + k) * sizeof(lv), sizeof(lv));
        dt->strides[k] = lv.off;
        dt->dims[k] = (long long)lv.len;
    }
    amp_dt_rep_init(dt);
    *owned = NULL;
    if (wd->nblocks > 0) {
        size_t n = (size_t)wd->nblocks * sizeof(**owned);
        if (!(*owned = malloc(n)))
            return 0;
        memcpy(*owned, data, n);
        dt->blocks = *owned;
    }
    return 1;
}

static int inside(amp_rma_win_t *w, const rma_msg_t *m, const amp_dt_t *tdt)
{
    size_t span = amp_dt_span(tdt, m->tcount);
    return !m->dynamic || !span ||
           amp_rma_attached(w, m->target,
                            amp_dt_data((void *)(uintptr_t)m->taddr, tdt),
                            span);
}

/* Answers a get, a get-accumulate or a compare-and-swap with the bytes of
 * old values (taken over: freed once sent). */
static void answer_values(const rma_msg_t *m, int proc, int pe, void *old,
                          size_t bytes)
{
    answer(m, proc, pe, M_DATA, AMP_OK, old, bytes, old);
}

static amp_status_t do_op(amp_rma_win_t *w, const rma_msg_t *m, int proc,
                          int pe, const amp_dt_t *tdt, const char *values)
{
    char *taddr = (char *)(uintptr_t)m->taddr;
    size_t bytes = (size_t)m->bytes;
    amp_coll_op_t cop = {.op_id = m->op_id};
    void *old = NULL;
    if (m->kind != AMP_RMA_PUT && m->kind != AMP_RMA_ACC &&
        !(old = malloc(bytes ? bytes : 1)))
        return AMP_ERR_NOMEM;
    amp_status_t st = AMP_OK;
    switch (m->kind) {
    case AMP_RMA_PUT:
        amp_dt_unpack(tdt, m->tcount, taddr, values, bytes);
        break;
    case AMP_RMA_GET: amp_dt_pack(tdt, m->tcount, taddr, old); break;
    case AMP_RMA_CAS:
        amp_rma_cas(w, m->target, taddr, values, values + bytes, old, bytes);
        break;
    default:
        st = amp_rma_acc_packed(w, m->target, taddr, tdt, m->tcount, values,
                                &cop, old);
    }
    if (st != AMP_OK || !old) {
        free(old);
        return st;
    }
    answer_values(m, proc, pe, old, bytes);
    return AMP_OK;
}

/* Bytes of origin values that follow the blocks of m's data. */
static size_t values_len(const rma_msg_t *m)
{
    size_t b = (size_t)m->bytes;
    switch (m->kind) {
    case AMP_RMA_GET: return 0;
    case AMP_RMA_CAS: return 2 * b;
    case AMP_RMA_GET_ACC: return m->op_id == OP_NO_OP ? 0 : b;
    default: return b;
    }
}

static amp_status_t serve_checked(amp_rma_win_t *w, const rma_msg_t *m,
                                  int proc, int pe, const amp_dt_t *tdt,
                                  const char *values)
{
    size_t vlen = values_len(m);
    if (!inside(w, m, tdt))
        return AMP_ERR_ARG;
    if (!vlen || !((uintptr_t)values & 15))
        return do_op(w, m, proc, pe, tdt, values);
    /* The values as the operations want them: aligned. */
    char *aligned = malloc(vlen);
    if (!aligned)
        return AMP_ERR_NOMEM;
    memcpy(aligned, values, vlen);
    amp_status_t st = do_op(w, m, proc, pe, tdt, aligned);
    free(aligned);
    return st;
}

/* An operation with all its data at hand (blocks, then values). */
static void serve_op(const rma_msg_t *m, int proc, int pe, const char *data)
{
    amp_rma_win_t *w = (amp_rma_win_t *)(uintptr_t)m->win;
    amp_dt_t tdt;
    amp_dt_block_t *owned;
    amp_status_t st = AMP_ERR_NOMEM;
    if (dt_in(m, data, &tdt, &owned)) {
        const char *values =
            data ? data + (size_t)(tdt.nblocks + tdt.ndims) * sizeof(*owned)
                 : NULL;
        st = serve_checked(w, m, proc, pe, &tdt, values);
        free(owned);
    }
    int answered_with_data =
        st == AMP_OK && m->kind != AMP_RMA_PUT && m->kind != AMP_RMA_ACC;
    if (!answered_with_data)
        answer(m, proc, pe, M_ACK, st, NULL, 0, NULL);
}

static void incoming_done(void *arg, int ok)
{
    incoming_t *in = arg;
    if (!ok)
        answer(&in->m, in->proc, in->pe, M_ACK, AMP_ERR_SYS, NULL, 0, NULL);
    else if (in->buf)
        serve_op(&in->m, in->proc, in->pe, in->buf);
    else
        answer(&in->m, in->proc, in->pe, M_ACK, AMP_OK, NULL, 0, NULL);
    free(in->buf);
    free(in);
}

/* An operation whose data stayed with the origin: fetched straight into
 * the window for a plain put, else into a buffer first. */
static void fetch_op(amp_pe_t *pe, const rma_msg_t *m, const amp_p2p_am_t *am)
{
    incoming_t *in = malloc(sizeof(*in));
    if (!in)
        amp_fatal("out of memory receiving a one-sided operation");
    *in = (incoming_t){.m = *m, .proc = am->from_proc, .pe = am->from_pe};
    amp_rma_win_t *w = (amp_rma_win_t *)(uintptr_t)m->win;
    char *into = NULL;
    amp_dt_t tdt;
    amp_dt_block_t *none;
    if (m->kind == AMP_RMA_PUT && m->tdt.contig &&
        dt_in(m, NULL, &tdt, &none) && inside(w, m, &tdt))
        into = (char *)(uintptr_t)m->taddr + tdt.true_lb;
    else if (!(into = in->buf = malloc(am->bytes)))
        amp_fatal("out of memory receiving a one-sided operation");
    amp_p2p_am_fetch(pe, am->desc, into, am->bytes, incoming_done, in);
}

/* ---- accumulates in order ------------------------------------------------ */

/* An accumulate held in its member's queue (target_t.held_head) until the
 * accumulates that came before it are applied.  The ones that come while
 * the data of an earlier one (sent as rendezvous) is still being fetched
 * wait behind it: applied at once, a small accumulate would overtake a
 * large one issued before it (MPICH's large_small_acc). */
typedef struct held_op {
    struct held_op *next;
    rma_msg_t m;
    int proc, pe; /* where the answer goes */
    char *buf;    /* blocks and values */
    int ready;    /* under oq: 0 being fetched, 1 in, 2 the fetch failed */
} held_op_t;

static int is_accumulate(int kind)
{
    return kind == AMP_RMA_ACC || kind == AMP_RMA_GET_ACC ||
           kind == AMP_RMA_CAS;
}

static target_t *target_of(const rma_msg_t *m)
{
    amp_rma_win_t *w = (amp_rma_win_t *)(uintptr_t)m->win;
    return &w->targets[m->target];
}

static void apply_held(held_op_t *h)
{
    if (h->ready == 2)
        answer(&h->m, h->proc, h->pe, M_ACK, AMP_ERR_SYS, NULL, 0, NULL);
    else
        serve_op(&h->m, h->proc, h->pe, h->buf);
    free(h->buf);
    free(h);
}

/* Applies the accumulates at the head of t's queue whose data is in, in
 * order; one PE at a time (the others leave them to it). */
static void drain(target_t *t)
{
    amp_spin_lock(&t->oq);
    if (t->draining) {
        amp_spin_unlock(&t->oq);
        return;
    }
    t->draining = 1;
    for (held_op_t *h; (h = t->held_head) && h->ready;) {
        t->held_head = h->next;
        if (!t->held_head)
            t->held_tail = NULL;
        amp_spin_unlock(&t->oq);
        apply_held(h);
        amp_spin_lock(&t->oq);
    }
    t->draining = 0;
    amp_spin_unlock(&t->oq);
}

static void held_fetched(void *arg, int ok)
{
    held_op_t *h = arg;
    target_t *t = target_of(&h->m);
    amp_spin_lock(&t->oq);
    h->ready = ok ? 1 : 2;
    amp_spin_unlock(&t->oq);
    drain(t);
}

/* An accumulate: applied now when nothing waits before it and its data is
 * here, else queued (its data copied, or fetched) behind the others. */
static void accumulate_op(amp_pe_t *pe, const rma_msg_t *m,
                          const amp_p2p_am_t *am)
{
    target_t *t = target_of(m);
    int here = am->data || !am->bytes;
    amp_spin_lock(&t->oq);
    int alone = !t->held_head;
    amp_spin_unlock(&t->oq);
    if (alone && here) {
        serve_op(m, am->from_proc, am->from_pe, am->data);
        return;
    }
    held_op_t *h = malloc(sizeof(*h));
    char *buf = malloc(am->bytes ? am->bytes : 1);
    if (!h || !buf)
        amp_fatal("out of memory holding a one-sided accumulate");
    *h = (held_op_t){.m = *m,
                     .proc = am->from_proc,
                     .pe = am->from_pe,
                     .buf = buf,
                     .ready = here};
    if (here && am->bytes)
        memcpy(buf, am->data, am->bytes);
    amp_spin_lock(&t->oq);
    if (t->held_tail)
        t->held_tail->next = h;
    else
        t->held_head = h;
    t->held_tail = h;
    amp_spin_unlock(&t->oq);
    if (here)
        drain(t);
    else
        amp_p2p_am_fetch(pe, am->desc, buf, am->bytes, held_fetched, h);
}

/* ---- locks, posts, completes -------------------------------------------- */

/* The grant of lock request q of another process's origin. */
static void grant_remote(const lock_waiter_t *q)
{
    rma_msg_t m = {.rop = q->rop};
    answer(&m, q->proc, q->pe, M_ACK, AMP_OK, NULL, 0, NULL);
}

static void lock_request(const rma_msg_t *m, int proc, int pe)
{
    amp_rma_win_t *w = (amp_rma_win_t *)(uintptr_t)m->win;
    target_t *t = &w->targets[m->target];
    lock_waiter_t *q = malloc(sizeof(*q));
    if (!q)
        amp_fatal("out of memory queueing a window lock request");
    *q = (lock_waiter_t){.exclusive = m->exclusive,
                         .proc = proc,
                         .pe = pe,
                         .rop = m->rop,
                         .grant = grant_remote};
    amp_spin_lock(&t->lq);
    amp_rma_lq_append(t, q);
    amp_spin_unlock(&t->lq);
    /* The lock may have been released before the request was queued. */
    amp_rma_serve_locks(w, m->target);
}

static void unlock_request(const rma_msg_t *m, int proc, int pe)
{
    amp_rma_win_t *w = (amp_rma_win_t *)(uintptr_t)m->win;
    amp_rma_unlock(w, m->target, m->exclusive);
    answer(m, proc, pe, M_ACK, AMP_OK, NULL, 0, NULL);
}

static void sync_message(const rma_msg_t *m)
{
    amp_rma_win_t *w = (amp_rma_win_t *)(uintptr_t)m->win;
    if (m->kind == M_POST)
        atomic_fetch_add(&w->posts[(size_t)m->origin * w->size + m->target], 1);
    else
        atomic_fetch_add(&w->targets[m->target].completes, 1);
    amp_rma_notify(w);
}

/* ---- the handler -------------------------------------------------------- */

static void on_message(amp_pe_t *pe, const amp_p2p_am_t *am)
{
    rma_msg_t m;
    if (am->hlen != sizeof(m))
        amp_fatal("a one-sided message from process %d has a %zu-byte "
                  "header: are all processes the same program?",
                  am->from_proc, am->hlen);
    memcpy(&m, am->hdr, sizeof(m));
    switch (m.kind) {
    case M_ACK:
    case M_DATA: answered(pe, &m, am); return;
    case M_LOCK: lock_request(&m, am->from_proc, am->from_pe); return;
    case M_UNLOCK: unlock_request(&m, am->from_proc, am->from_pe); return;
    case M_POST:
    case M_COMPLETE: sync_message(&m); return;
    default:
        if (is_accumulate(m.kind))
            accumulate_op(pe, &m, am);
        else if (am->data || !am->bytes)
            serve_op(&m, am->from_proc, am->from_pe, am->data);
        else
            fetch_op(pe, &m, am);
    }
}

void amp_rma_remote_init(amp_p2p_world_t *world)
{
    amp_p2p_am_register(world, AMP_P2P_AM_RMA, on_message);
}

/* ---- the origin's synchronization --------------------------------------- */

/* Sends m of kind to member r, answered into o. */
static void request(amp_rma_win_t *w, amp_rma_origin_t *o, int r, rma_msg_t *m)
{
    rop_rec_t *rec = rec_new(o, NULL);
    if (!rec)
        amp_fatal("out of memory for a window lock request");
    m->rop = (uint64_t)(uintptr_t)rec;
    send_to(w, r, m, NULL, 0, NULL);
}

void amp_rma_remote_lock(amp_rma_win_t *w, amp_rma_origin_t *o, int r,
                         int exclusive)
{
    rma_msg_t m = {
        .kind = M_LOCK, .exclusive = (uint8_t)exclusive, .target = r};
    request(w, o, r, &m);
}

void amp_rma_remote_unlock(amp_rma_win_t *w, amp_rma_origin_t *o, int r,
                           int exclusive)
{
    rma_msg_t m = {
        .kind = M_UNLOCK, .exclusive = (uint8_t)exclusive, .target = r};
    request(w, o, r, &m);
}

void amp_rma_remote_post(amp_rma_win_t *w, int me, int origin)
{
    rma_msg_t m = {.kind = M_POST, .target = me, .origin = origin};
    send_to(w, origin, &m, NULL, 0, NULL);
}

void amp_rma_remote_complete(amp_rma_win_t *w, int me, int target)
{
    rma_msg_t m = {.kind = M_COMPLETE, .target = target, .origin = me};
    send_to(w, target, &m, NULL, 0, NULL);
}
