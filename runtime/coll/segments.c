/*
 * The level above the processes for an allreduce in which every leader
 * gets the root (amp_coll_tree_allreduce_blocks, coll/tree.h).  A value of
 * AMP_COLL_SEGMENTS_MIN bytes or more: the leaders share the tree's work
 * out by segments of the elements, as below.  A smaller one is a single
 * segment, all the elements, that every leader evaluates itself from every
 * other's cover values (one exchange; no results to send).
 *
 * Leader s owns segment s (elements count * s / nblocks up to count *
 * (s + 1) / nblocks).  Every leader sends every other its cover values'
 * part in that leader's segment; each then evaluates the whole tree over
 * the n ranks for its own segment, from the values of every block, and
 * sends that part of the root's value to every other leader.  An element
 * combines through the same nodes, the same operands in the same order, as
 * in amp_coll_tree_reduce_blocks, so every leader has the bits block 0's
 * leader computes there.  Each leader sends its values once, in pieces,
 * and its segment of the result once to each leader: between two
 * processes, half the value each way twice, at the same time in both
 * directions, where the tree sends the whole value up and the broadcast
 * sends it back down, one after the other.
 */
#include "coll/tree.h"

#include <stdlib.h>
#include <string.h>

/* Tags: amp_coll_tag(c->seq, step), apart from coll.c's steps (below
 * 128). */
enum {
    TAG_SEG_RESULT = 128,
    TAG_SEG_VALUE = 129 /* .. 129 + 2 * AMP_COLL_TREE_MAX_HEIGHT */
};

typedef struct segs {
    const amp_coll_comm_t *c;
    int n, nblocks, me;
    const int *first;
    amp_coll_covers_t cv; /* every block's cover */
    const char *parts;    /* this leader's cover values */
    size_t bytes;         /* one whole value */
    int count;
    const amp_dt_t *dt;
    int whole;  /* every leader evaluates every element (small values) */
    char *got;  /* block b's values of my segment, from got + cv.at[b] */
    char *work; /* the tree evaluation's work buffers */
    amp_p2p_req_t *reqs; /* posted, and the list to wait for them */
    amp_p2p_req_t **list;
    int nreqs;
} segs_t;

/* Segment k: elements seg_lo .. seg_hi - 1 (all of them when whole). */
static int seg_lo(const segs_t *s, int k)
{
    return s->whole ? 0 : (int)((long long)s->count * k / s->nblocks);
}

static int seg_hi(const segs_t *s, int k)
{
    return s->whole ? s->count : seg_lo(s, k + 1);
}

static size_t seg_offset(const segs_t *s, int k)
{
    return (size_t)seg_lo(s, k) * s->dt->size;
}

static size_t seg_bytes(const segs_t *s, int k)
{
    return (size_t)(seg_hi(s, k) - seg_lo(s, k)) * s->dt->size;
}

static amp_p2p_req_t *next_req(segs_t *s)
{
    amp_p2p_req_t *r = &s->reqs[s->nreqs++];
    r->on_done = NULL;
    return r;
}

/* Messages go in pieces of PIECE_MAX bytes, or of the eager limit between
 * processes (AMPI_NET_EAGER where it is above +eager) if that is less: a
 * rendezvous over TCP costs round trips that pieces sent eagerly, all at
 * once, do not; and 64-KiB pieces made the 1-MiB allreduce between two
 * nodes slower than 32-KiB ones (docs/bench.md). */
#define PIECE_MAX (32u << 10)

static size_t piece_bytes(const amp_p2p_world_t *w)
{
    size_t p = w->net_eager > w->eager_limit ? w->net_eager : w->eager_limit;
    return p == 0 ? 1 : p < PIECE_MAX ? p : PIECE_MAX;
}

static size_t npieces(const amp_p2p_world_t *w, size_t bytes)
{
    size_t p = piece_bytes(w);
    return bytes ? (bytes + p - 1) / p : 1;
}

/* A message of bytes to peer from out, or from peer into in (out NULL),
 * in pieces. */
static void move(segs_t *s, const char *out, char *in, size_t bytes, int peer,
                 int step)
{
    const amp_coll_comm_t *c = s->c;
    size_t piece = piece_bytes(c->ep->world), off = 0;
    amp_p2p_env_t env = {.ctx = c->ctx,
                         .src = out ? c->rank : peer,
                         .tag = amp_coll_tag(c->seq, step)};
    if (out) /* a send's destination is a world rank */
        env.dst = c->world ? c->world[peer] : peer;
    do {
        size_t len = bytes - off < piece ? bytes - off : piece;
        if (out)
            amp_p2p_isend(c->ep, out + off, len, env, AMP_P2P_STANDARD,
                          next_req(s));
        else
            amp_p2p_irecv(c->ep, in + off, len, env, next_req(s));
        off += len;
    } while (off < bytes);
}

static void send_to(segs_t *s, const char *buf, size_t bytes, int dst, int step)
{
    move(s, buf, NULL, bytes, dst, step);
}

static void recv_from(segs_t *s, char *buf, size_t bytes, int src, int step)
{
    move(s, NULL, buf, bytes, src, step);
}

static void wait_posted(segs_t *s)
{
    for (int i = 0; i < s->nreqs; i++)
        s->list[i] = &s->reqs[i];
    amp_p2p_wait_all(s->c->ep, s->list, s->nreqs);
    s->nreqs = 0;
}

/* Each value of this leader's cover, segment k of it, to leader k; each
 * other leader's values of my segment into got. */
static void exchange_values(segs_t *s)
{
    size_t mine = seg_bytes(s, s->me);
    for (int b = 0; b < s->nblocks; b++) {
        if (b == s->me)
            continue;
        for (int k = 0; k < s->cv.at[b + 1] - s->cv.at[b]; k++)
            recv_from(s, s->got + (size_t)(s->cv.at[b] + k) * mine, mine, b,
                      TAG_SEG_VALUE + k);
    }
    int nc = s->cv.at[s->me + 1] - s->cv.at[s->me];
    for (int d = 1; d < s->nblocks; d++) {
        int b = (s->me + d) % s->nblocks; /* not all to leader 0 first */
        for (int k = 0; k < nc; k++)
            send_to(s, s->parts + (size_t)k * s->bytes + seg_offset(s, b),
                    seg_bytes(s, b), b, TAG_SEG_VALUE + k);
    }
}

/* A cover node's value: this leader's from parts, the others' from got. */
static const char *seg_leaf(const amp_coll_tree_eval_t *e, int lo, int hi)
{
    const segs_t *s = e->arg;
    int b, k = amp_coll_covers_find(&s->cv, s->first, s->nblocks, lo, hi, &b);
    if (k < 0)
        return NULL;
    if (b == s->me)
        return s->parts + (size_t)k * s->bytes + seg_offset(s, s->me);
    return s->got + (size_t)(s->cv.at[b] + k) * e->bytes;
}

/* My segment of the root's value into result, then every segment shared
 * out. */
static void reduce_and_share(segs_t *s, const amp_coll_op_t *op, char *result)
{
    size_t mine = seg_bytes(s, s->me);
    char *tmp[AMP_COLL_TREE_MAX_HEIGHT];
    for (int i = 0; i < amp_coll_tree_height(s->n); i++)
        tmp[i] = s->work + (size_t)i * mine;
    amp_coll_tree_eval_t e = {.leaf = seg_leaf,
                              .arg = s,
                              .op = op,
                              .unit = s->dt,
                              .units = seg_hi(s, s->me) - seg_lo(s, s->me),
                              .lb = s->dt->true_lb,
                              .bytes = mine,
                              .tmp = tmp};
    if (mine)
        amp_coll_tree_eval(&e, 0, s->n, result + seg_offset(s, s->me));
    for (int d = 1; d < s->nblocks && !s->whole; d++) {
        int b = (s->me + d) % s->nblocks;
        recv_from(s, result + seg_offset(s, b), seg_bytes(s, b), b,
                  TAG_SEG_RESULT);
        send_to(s, result + seg_offset(s, s->me), mine, b, TAG_SEG_RESULT);
    }
}

/* Everything the exchange needs, before any message. */
static amp_status_t make_room(segs_t *s)
{
    if (amp_coll_covers_make(&s->cv, s->n, s->nblocks, s->first) != AMP_OK)
        return AMP_ERR_NOMEM;
    size_t mine = seg_bytes(s, s->me) ? seg_bytes(s, s->me) : 1;
    size_t nvalues = (size_t)s->cv.at[s->nblocks];
    size_t nc = (size_t)(s->cv.at[s->me + 1] - s->cv.at[s->me]);
    size_t most =
        s->whole ? s->bytes : s->bytes / (size_t)s->nblocks + s->dt->size;
    size_t nreqs = (nvalues + (nc + 2) * (size_t)s->nblocks) *
                   npieces(s->c->ep->world, most);
    s->got = malloc(nvalues * mine);
    s->work = malloc((size_t)amp_coll_tree_height(s->n) * mine);
    s->reqs = malloc(nreqs * sizeof(*s->reqs));
    s->list = malloc(nreqs * sizeof(*s->list));
    return s->got && s->work && s->reqs && s->list ? AMP_OK : AMP_ERR_NOMEM;
}

amp_status_t amp_coll_tree_allreduce_blocks(const amp_coll_comm_t *c, int n,
                                            const int *first, const char *parts,
                                            char *result, int count,
                                            const amp_dt_t *dt,
                                            const amp_coll_op_t *op)
{
    segs_t s = {.c = c,
                .n = n,
                .nblocks = c->size,
                .me = c->rank,
                .first = first,
                .parts = parts,
                .bytes = (size_t)count * dt->size,
                .count = count,
                .dt = dt,
                .whole = (size_t)count * dt->size < AMP_COLL_SEGMENTS_MIN};
    amp_status_t st = make_room(&s);
    if (st == AMP_OK) {
        exchange_values(&s);
        wait_posted(&s);
        reduce_and_share(&s, op, result);
        wait_posted(&s);
    }
    free(s.got);
    free(s.work);
    free(s.reqs);
    free(s.list);
    amp_coll_covers_free(&s.cv);
    return st;
}
