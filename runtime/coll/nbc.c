/* The schedule engine of coll/nbc.h. */
#include "coll/nbc.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

enum step_kind {
    STEP_SEND,
    STEP_RECV,
    STEP_SEND_TYPED,
    STEP_RECV_TYPED,
    STEP_COPY,
    STEP_REDUCE,
    STEP_CALL,
};

typedef struct amp_nbc_step {
    amp_p2p_req_t req; /* sends and receives */
    amp_nbc_t *s;
    unsigned char kind;
    int round;
    int tagstep;
    int peer;            /* comm rank */
    void *buf;           /* send/recv data; copy/reduce destination */
    const void *src;     /* copy/reduce source */
    size_t bytes;        /* raw send/recv length */
    int count, dcount;   /* typed: elements; copy: of src, of dst */
    const amp_dt_t *dt;  /* typed, copy source, reduce */
    const amp_dt_t *ddt; /* copy destination */
    char *tmp;           /* packed data of a non-contiguous typed step */
    amp_coll_op_t op;
    amp_nbc_fn_t fn;
    void *arg;
} amp_nbc_step_t;

struct amp_nbc {
    amp_coll_comm_t c;
    amp_nbc_t *next; /* on its PE's ready list */
    amp_p2p_req_t *done;
    amp_status_t error;
    int nsteps, max_steps;
    int round;      /* the round steps are added to */
    int tagstep;    /* the tag step they get */
    int begin, end; /* the running round's steps */
    int pending;    /* its steps not yet done */
    char *scratch;
    size_t scratch_used, scratch_size;
    void *extra; /* packing temporaries and datatype copies */
    void *mem;   /* what was allocated (s on the next 64-byte boundary) */
    amp_nbc_step_t steps[];
};

/* ---- per-PE ready lists -------------------------------------------- */

amp_nbc_pe_t *amp_nbc_pes_create(int npes)
{
    amp_nbc_pe_t *pes =
        aligned_alloc(64, AMP_ROUND_UP((size_t)npes * sizeof(*pes), 64));
    if (!pes)
        return NULL;
    for (int i = 0; i < npes; i++) {
        pes[i].head = pes[i].tail = pes[i].later = NULL;
        atomic_init(&pes[i].nready, 0);
        pes[i].draining = 0;
    }
    return pes;
}

void amp_nbc_pes_destroy(amp_nbc_pe_t *pes)
{
    free(pes);
}

static void run(amp_nbc_t *s);

void amp_nbc_poll(amp_nbc_pe_t *pes, amp_pe_t *pe)
{
    if (!pes)
        return;
    amp_nbc_pe_t *me = &pes[pe->id];
    if (me->draining || (!me->head && !me->later))
        return;
    me->draining = 1;
    /* The schedules whose owner was away: tried again at each drain, but
     * not counted as work (amp_nbc_pending), so that the PE does not spin
     * for them; the owner comes back through this PE and drains. */
    amp_nbc_t *retry = me->later;
    me->later = NULL;
    while (retry) {
        amp_nbc_t *s = retry;
        retry = s->next;
        run(s);
    }
    while (me->head) {
        amp_nbc_t *s = me->head;
        me->head = s->next;
        if (!me->head)
            me->tail = NULL;
        atomic_fetch_sub_explicit(&me->nready, 1, memory_order_relaxed);
        run(s);
    }
    me->draining = 0;
}

AMP_POLL_PATH int amp_nbc_pending(amp_nbc_pe_t *pes, amp_pe_t *pe)
{
    return pes &&
           atomic_load_explicit(&pes[pe->id].nready, memory_order_relaxed) > 0;
}

/* Queues s on the PE its owner runs on (where its requests complete). */
static void ready_push(amp_nbc_t *s)
{
    if (!s->c.nbc_pes) {
        run(s);
        return;
    }
    amp_nbc_pe_t *me = &s->c.nbc_pes[s->c.ep->thr->pe->id];
    s->next = NULL;
    if (me->tail)
        me->tail->next = s;
    else
        me->head = s;
    me->tail = s;
    atomic_fetch_add_explicit(&me->nready, 1, memory_order_relaxed);
}

/* on_done of every internal request: never re-enters p2p. */
static void step_done(amp_p2p_req_t *r)
{
    amp_nbc_step_t *st = AMP_CONTAINER_OF(r, amp_nbc_step_t, req);
    amp_nbc_t *s = st->s;
    if (--s->pending == 0)
        ready_push(s);
}

/* ---- building ------------------------------------------------------- */

amp_nbc_t *amp_nbc_create(const amp_coll_comm_t *c, int max_steps,
                          size_t scratch_bytes)
{
    size_t steps = AMP_ROUND_UP(
        sizeof(amp_nbc_t) + (size_t)max_steps * sizeof(amp_nbc_step_t), 64);
    size_t world = c->world ? (size_t)c->size * sizeof(int) : 0;
    size_t scratch = AMP_ROUND_UP(scratch_bytes, 64);
    /* malloc and align by hand: aligned_alloc of a small block costs the C
     * library several times more, and a schedule is made per call. */
    void *mem = malloc(steps + AMP_ROUND_UP(world, 64) + scratch + 63);
    if (!mem)
        return NULL;
    amp_nbc_t *s = (amp_nbc_t *)AMP_ROUND_UP((uintptr_t)mem, 64);
    memset(s, 0, sizeof(*s));
    s->mem = mem;
    s->c = *c;
    if (c->world) {
        int *map = (int *)((char *)s + steps);
        memcpy(map, c->world, world);
        s->c.world = map;
    }
    s->max_steps = max_steps;
    s->scratch = (char *)s + steps + AMP_ROUND_UP(world, 64);
    s->scratch_size = scratch;
    return s;
}

void amp_nbc_destroy(amp_nbc_t *s)
{
    free(s->mem);
}

void *amp_nbc_scratch(amp_nbc_t *s, size_t bytes)
{
    size_t n = AMP_ROUND_UP(bytes ? bytes : 1, 64);
    amp_assert(s->scratch_used + n <= s->scratch_size);
    void *p = s->scratch + s->scratch_used;
    s->scratch_used += n;
    return p;
}

size_t amp_nbc_elems_bytes(const amp_dt_t *dt, int count)
{
    /* Whole elements, padding included: reductions on pair types assign
     * whole structs. */
    size_t span = amp_dt_span(dt, count);
    size_t whole = count > 0 ? (size_t)count * (size_t)dt->extent : 0;
    return AMP_ROUND_UP(whole > span ? whole : span ? span : 1, 64);
}

char *amp_nbc_scratch_elems(amp_nbc_t *s, const amp_dt_t *dt, int count)
{
    size_t span = amp_dt_span(dt, count);
    size_t whole = count > 0 ? (size_t)count * (size_t)dt->extent : 0;
    char *p = amp_nbc_scratch(s, whole > span ? whole : span);
    return p - dt->true_lb;
}

void amp_nbc_round(amp_nbc_t *s)
{
    s->round++;
}

void amp_nbc_tag(amp_nbc_t *s, int step)
{
    s->tagstep = step;
}

static amp_nbc_step_t *add(amp_nbc_t *s, int kind)
{
    amp_assert(s->nsteps < s->max_steps);
    amp_nbc_step_t *st = &s->steps[s->nsteps++];
    memset(st, 0, sizeof(*st));
    st->s = s;
    st->kind = (unsigned char)kind;
    st->round = s->round;
    st->tagstep = s->tagstep;
    return st;
}

void amp_nbc_send(amp_nbc_t *s, const void *buf, size_t bytes, int peer)
{
    amp_nbc_step_t *st = add(s, STEP_SEND);
    st->buf = (void *)buf;
    st->bytes = bytes;
    st->peer = peer;
}

void amp_nbc_recv(amp_nbc_t *s, void *buf, size_t bytes, int peer)
{
    amp_nbc_step_t *st = add(s, STEP_RECV);
    st->buf = buf;
    st->bytes = bytes;
    st->peer = peer;
}

void amp_nbc_send_typed(amp_nbc_t *s, const void *buf, int count,
                        const amp_dt_t *dt, int peer)
{
    amp_nbc_step_t *st = add(s, STEP_SEND_TYPED);
    st->buf = (void *)buf;
    st->count = count;
    st->dt = dt;
    st->peer = peer;
}

void amp_nbc_recv_typed(amp_nbc_t *s, void *buf, int count, const amp_dt_t *dt,
                        int peer)
{
    amp_nbc_step_t *st = add(s, STEP_RECV_TYPED);
    st->buf = buf;
    st->count = count;
    st->dt = dt;
    st->peer = peer;
}

void amp_nbc_copy(amp_nbc_t *s, const void *src, int scount,
                  const amp_dt_t *sdt, void *dst, int dcount,
                  const amp_dt_t *ddt)
{
    amp_nbc_step_t *st = add(s, STEP_COPY);
    st->src = src;
    st->count = scount;
    st->dt = sdt;
    st->buf = dst;
    st->dcount = dcount;
    st->ddt = ddt;
}

void amp_nbc_reduce(amp_nbc_t *s, const amp_coll_op_t *op, const void *in,
                    void *inout, int count, const amp_dt_t *dt)
{
    amp_nbc_step_t *st = add(s, STEP_REDUCE);
    st->op = *op;
    st->src = in;
    st->buf = inout;
    st->count = count;
    st->dt = dt;
}

void amp_nbc_call(amp_nbc_t *s, amp_nbc_fn_t fn, void *arg)
{
    amp_nbc_step_t *st = add(s, STEP_CALL);
    st->fn = fn;
    st->arg = arg;
}

/* ---- starting ------------------------------------------------------- */

/* Bytes of packing temporary a step needs. */
static size_t tmp_bytes(const amp_nbc_step_t *st)
{
    switch (st->kind) {
    case STEP_SEND_TYPED:
    case STEP_RECV_TYPED:
        return st->dt->contig ? 0 : st->dt->size * (size_t)st->count;
    case STEP_COPY:
        return !st->ddt || (st->dt->contig && st->ddt->contig)
                   ? 0
                   : st->dt->size * (size_t)st->count;
    default: return 0;
    }
}

static size_t dt_copy_bytes(const amp_dt_t *dt)
{
    if (!dt || dt->predefined)
        return 0;
    return AMP_ROUND_UP(
        sizeof(amp_dt_t) + (size_t)dt->nblocks * sizeof(amp_dt_block_t), 64);
}

/* A copy of derived type dt at mem that needs nothing dt owns. */
static const amp_dt_t *dt_copy(const amp_dt_t *dt, char *mem)
{
    amp_dt_t *d = (amp_dt_t *)mem;
    *d = *dt;
    amp_dt_block_t *blocks = (amp_dt_block_t *)(mem + sizeof(amp_dt_t));
    memcpy(blocks, dt->blocks, (size_t)dt->nblocks * sizeof(*blocks));
    d->blocks = blocks;
    d->owned_blocks = NULL;
    d->ints = NULL;
    d->addrs = NULL;
    d->types = NULL;
    d->owned_name = NULL;
    d->name = NULL;
    d->nints = d->naddrs = d->ntypes = 0;
    return d;
}

/* A step's source (which 0) or destination (1) datatype slot. */
static const amp_dt_t **dt_slot(amp_nbc_step_t *st, int which)
{
    return which ? &st->ddt : &st->dt;
}

/* Gives every step its packing temporary and its own copies of derived
 * datatypes (one per run of steps naming the same type), in one
 * allocation. */
static amp_status_t prepare(amp_nbc_t *s)
{
    size_t total = 0;
    const amp_dt_t *last[2] = {NULL, NULL};
    for (int i = 0; i < s->nsteps; i++) {
        amp_nbc_step_t *st = &s->steps[i];
        total += AMP_ROUND_UP(tmp_bytes(st), 64);
        /* Counted as the second loop copies, or more. */
        for (int w = 0; w < 2; w++) {
            const amp_dt_t *dt = *dt_slot(st, w);
            if (dt && dt != last[w])
                total += dt_copy_bytes(dt);
            last[w] = dt ? dt : last[w];
        }
    }
    if (total == 0)
        return AMP_OK;
    void *raw = malloc(total + 63); /* aligned by hand, as in create */
    if (!raw)
        return AMP_ERR_NOMEM;
    s->extra = raw;
    char *mem = (char *)AMP_ROUND_UP((uintptr_t)raw, 64);
    const amp_dt_t *orig[2] = {NULL, NULL}, *copy[2] = {NULL, NULL};
    for (int i = 0; i < s->nsteps; i++) {
        amp_nbc_step_t *st = &s->steps[i];
        size_t t = AMP_ROUND_UP(tmp_bytes(st), 64);
        if (t) {
            st->tmp = mem;
            mem += t;
        }
        for (int w = 0; w < 2; w++) {
            const amp_dt_t **slot = dt_slot(st, w);
            if (!*slot || (*slot)->predefined)
                continue;
            if (*slot != orig[w]) {
                orig[w] = *slot;
                copy[w] = dt_copy(*slot, mem);
                mem += dt_copy_bytes(*slot);
            }
            *slot = copy[w];
        }
    }
    return AMP_OK;
}

static int world_of(const amp_nbc_t *s, int r)
{
    return s->c.world ? s->c.world[r] : r;
}

static void fail(amp_nbc_t *s, amp_status_t st)
{
    if (st != AMP_OK && s->error == AMP_OK)
        s->error = st;
}

static void copy_step(amp_nbc_t *s, amp_nbc_step_t *st)
{
    size_t sbytes = st->dt->size * (size_t)st->count;
    size_t dbytes =
        st->ddt ? st->ddt->size * (size_t)st->dcount : (size_t)st->dcount;
    size_t n = sbytes;
    if (n > dbytes) {
        fail(s, AMP_ERR_TRUNCATE);
        n = dbytes;
    }
    if (!st->ddt) {
        if (st->dt->contig)
            memmove(st->buf, amp_dt_data(st->src, st->dt), n);
        else if (n == sbytes)
            amp_dt_pack(st->dt, st->count, st->src, st->buf);
        return;
    }
    if (!st->tmp) {
        if (n && st->src != st->buf)
            memmove(amp_dt_data(st->buf, st->ddt), amp_dt_data(st->src, st->dt),
                    n);
        return;
    }
    amp_dt_pack(st->dt, st->count, st->src, st->tmp);
    amp_dt_unpack(st->ddt, st->dcount, st->buf, st->tmp, n);
}

/* Steps run wherever the schedule progresses: in the owner's thread, in
 * another rank's, or in the scheduler's.  A user function runs as its
 * owner: with that rank's privatized globals, and the MPI calls it makes
 * (MPI_Type_get_extent of its datatype argument) act for that rank. */
static void reduce_step(amp_nbc_t *s, amp_nbc_step_t *st)
{
    if (!st->op.user) {
        amp_coll_apply(&st->op, st->dt, st->count, st->src, st->buf);
        return;
    }
    amp_sched_act_t saved;
    amp_sched_act_begin(s->c.ep->thr, &saved);
    amp_coll_apply(&st->op, st->dt, st->count, st->src, st->buf);
    amp_sched_act_end(&saved);
}

/* Starts one step; returns 1 when it is a request still pending. */
static int start_step(amp_nbc_t *s, amp_nbc_step_t *st)
{
    const amp_coll_comm_t *c = &s->c;
    int tag = amp_coll_tag(c->seq, st->tagstep);
    void *data = st->buf;
    size_t bytes = st->bytes;
    switch (st->kind) {
    case STEP_COPY: copy_step(s, st); return 0;
    case STEP_REDUCE: reduce_step(s, st); return 0;
    case STEP_CALL: fail(s, st->fn(st->arg)); return 0;
    case STEP_SEND_TYPED:
    case STEP_RECV_TYPED:
        bytes = st->dt->size * (size_t)st->count;
        data = st->tmp ? st->tmp : amp_dt_data(st->buf, st->dt);
        if (st->tmp && st->kind == STEP_SEND_TYPED)
            amp_dt_pack(st->dt, st->count, st->buf, st->tmp);
        break;
    default: break;
    }
    st->req.on_done = step_done;
    s->pending++;
    if (st->kind == STEP_SEND || st->kind == STEP_SEND_TYPED)
        amp_p2p_isend(c->ep, data, bytes,
                      (amp_p2p_env_t){.ctx = c->ctx,
                                      .src = c->rank,
                                      .dst = world_of(s, st->peer),
                                      .tag = tag},
                      AMP_P2P_STANDARD, &st->req);
    else
        amp_p2p_irecv(
            c->ep, data, bytes,
            (amp_p2p_env_t){.ctx = c->ctx, .src = st->peer, .tag = tag},
            &st->req);
    return 1;
}

/* Shows what the round waits for in done, for the deadlock report. */
static void describe(amp_nbc_t *s, const amp_nbc_step_t *st)
{
    amp_p2p_req_t *d = s->done;
    d->is_send = st->kind == STEP_SEND || st->kind == STEP_SEND_TYPED;
    d->peer = d->is_send ? world_of(s, st->peer) : st->peer;
    d->tag = amp_coll_tag(s->c.seq, st->tagstep);
}

static void start_round(amp_nbc_t *s)
{
    int i = s->begin;
    int round = s->steps[i].round;
    int described = 0;
    for (; i < s->nsteps && s->steps[i].round == round; i++) {
        if (start_step(s, &s->steps[i]) && !described) {
            describe(s, &s->steps[i]);
            described = 1;
        }
    }
    s->end = i;
}

static void finish_round(amp_nbc_t *s)
{
    for (int i = s->begin; i < s->end; i++) {
        amp_nbc_step_t *st = &s->steps[i];
        if (st->kind < STEP_COPY)
            fail(s, st->req.error);
        if (st->kind == STEP_RECV_TYPED && st->tmp)
            amp_dt_unpack(st->dt, st->count, st->buf, st->tmp,
                          st->req.st_bytes);
    }
    s->begin = s->end;
}

static void finish(amp_nbc_t *s)
{
    amp_p2p_req_t *done = s->done;
    done->error = s->error;
    done->peer = done->tag = AMP_P2P_ANY;
    done->is_send = 0;
    free(s->extra);
    free(s->mem);
    amp_p2p_req_complete(done);
}

/* The next round applies a user function, and its owner runs elsewhere
 * now (lent to another PE): that round waits for it. */
static int owner_away(const amp_nbc_t *s)
{
    if (!s->c.nbc_pes)
        return 0;
    int round = s->steps[s->begin].round;
    for (int i = s->begin; i < s->nsteps && s->steps[i].round == round; i++)
        if (s->steps[i].kind == STEP_REDUCE && s->steps[i].op.user)
            return !amp_sched_may_act(s->c.ep->thr);
    return 0;
}

static void later_push(amp_nbc_t *s)
{
    amp_nbc_pe_t *me = &s->c.nbc_pes[s->c.ep->thr->pe->id];
    s->next = me->later;
    me->later = s;
}

/* Runs rounds until one waits for a request, or the schedule is done. */
static void run(amp_nbc_t *s)
{
    for (;;) {
        if (s->end > s->begin)
            finish_round(s);
        if (s->begin >= s->nsteps) {
            finish(s);
            return;
        }
        if (owner_away(s)) {
            later_push(s);
            return;
        }
        s->pending = 1; /* a completion inside start_round must not queue s */
        start_round(s);
        if (--s->pending > 0)
            return;
    }
}

amp_status_t amp_nbc_start(amp_nbc_t *s, amp_p2p_req_t *done)
{
    amp_status_t st = prepare(s);
    if (st != AMP_OK) {
        free(s->mem);
        return st;
    }
    amp_p2p_done_fn_t on_done = done->on_done;
    amp_p2p_req_init_done(s->c.ep, done, AMP_P2P_ANY, AMP_P2P_ANY);
    done->done = 0;
    done->ctx = s->c.ctx;
    done->on_done = on_done;
    s->done = done;
    run(s);
    return AMP_OK;
}
