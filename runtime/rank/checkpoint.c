/*
 * The checkpoint side of checkpoint/restart (checkpoint.h): what a rank
 * may hold at a checkpoint, the description of its MPI objects that it
 * keeps in its own heap, the snapshot of its slot written from a context
 * of its own, the manifest, and the rebuilding of the objects after a
 * restart.
 */
#include "rank/checkpoint.h"
#include "mpi/impl.h"
#include "rank/ckpt_copy.h"
#include "rank/ckpt_dir.h"
#include "rank/slot.h"

#include "mem/heap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WRITER_STACK ((size_t)64 << 10)

uint64_t amp_ckpt_hash(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

#define SUM_K 0x9e3779b97f4a7c15ull

static inline uint64_t sum_mix(uint64_t lane, uint64_t w)
{
    uint64_t x = (lane ^ w) * SUM_K;
    return x << 31 | x >> 33;
}

static inline void sum_block(amp_ckpt_sum_t *s, const unsigned char *p)
{
    for (int i = 0; i < 4; i++) {
        uint64_t w;
        memcpy(&w, p + 8 * i, sizeof(w));
        s->lane[i] = sum_mix(s->lane[i], w);
    }
}

void amp_ckpt_sum_init(amp_ckpt_sum_t *s)
{
    memset(s, 0, sizeof(*s));
    for (int i = 0; i < 4; i++)
        s->lane[i] = AMP_CKPT_FNV0 + (uint64_t)i * SUM_K;
}

void amp_ckpt_sum_add(amp_ckpt_sum_t *s, const void *p, size_t n)
{
    const unsigned char *c = p;
    s->len += n;
    if (s->nbuf) {
        size_t k = sizeof(s->buf) - s->nbuf < n ? sizeof(s->buf) - s->nbuf : n;
        memcpy(s->buf + s->nbuf, c, k);
        s->nbuf += (unsigned)k;
        c += k;
        n -= k;
        if (s->nbuf < sizeof(s->buf))
            return;
        sum_block(s, s->buf);
        s->nbuf = 0;
    }
    for (; n >= sizeof(s->buf); c += sizeof(s->buf), n -= sizeof(s->buf))
        sum_block(s, c);
    memcpy(s->buf, c, n);
    s->nbuf = (unsigned)n;
}

uint64_t amp_ckpt_sum_end(const amp_ckpt_sum_t *s)
{
    amp_ckpt_sum_t t = *s;
    if (t.nbuf) { /* the last bytes, padded with zeros */
        memset(t.buf + t.nbuf, 0, sizeof(t.buf) - t.nbuf);
        sum_block(&t, t.buf);
    }
    uint64_t h = sum_mix(AMP_CKPT_FNV0, t.len);
    for (int i = 0; i < 4; i++)
        h = sum_mix(h, t.lane[i]);
    h ^= h >> 29;
    h *= SUM_K;
    return h ^ h >> 32;
}

/* ---- what may be live at a checkpoint ---- */

/* A reason the rank's state cannot be saved, in why; an MPI class. */
typedef struct why {
    char text[160];
} why_t;

static int refuse(why_t *w, int cls, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int refuse(why_t *w, int cls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->text, sizeof(w->text), fmt, ap);
    va_end(ap);
    return cls;
}

/* The first live index of t from its first one, or -1. */
static int first_live(const amp_table_t *t)
{
    for (int i = t->first; i < amp_table_capacity(t); i++)
        if (amp_table_lookup(t, i))
            return i;
    return -1;
}

static int posted_empty(const amp_p2p_ep_t *ep)
{
    if (ep->posted.head)
        return 0;
    for (int b = 0; b < AMP_P2P_BUCKETS; b++)
        if (ep->posted_b[b].head)
            return 0;
    return 1;
}

static int unexpected_empty(const amp_p2p_ep_t *ep)
{
    if (ep->unexp.head)
        return 0;
    for (int b = 0; b < AMP_P2P_BUCKETS; b++)
        if (ep->unexp_b[b].head)
            return 0;
    return 1;
}

/* Whether a message waits for the rank on a communicator it holds.  The
 * collective context of MPI_COMM_WORLD is left out: the checkpoint's own
 * collectives run on it, and a rank that is further on may already have
 * sent its part of the next one (across processes, where they go through
 * the queues); a restarted rank skips those.  A message on a context the
 * rank no longer holds could never be received: it is not missed. */
static int message_waiting(amp_rank_t *rank)
{
    amp_comm_t *world = amp_comm_lookup(rank, MPI_COMM_WORLD);
    amp_table_t *t = &rank->comms;
    amp_p2p_probe_info_t info;
    for (int i = 0; i < amp_table_capacity(t); i++) {
        amp_comm_t *c = amp_table_lookup(t, i);
        if (!c)
            continue;
        if (amp_p2p_iprobe(&rank->ep, c->ctx, AMP_P2P_ANY, AMP_P2P_ANY,
                           &info) ||
            (c != world && amp_p2p_iprobe(&rank->ep, c->ctx + 1, AMP_P2P_ANY,
                                          AMP_P2P_ANY, &info)))
            return 1;
    }
    return 0;
}

static int check_comms(amp_rank_t *rank, why_t *w)
{
    amp_table_t *t = &rank->comms;
    for (int i = 0; i < amp_table_capacity(t); i++) {
        amp_comm_t *c = amp_table_lookup(t, i);
        if (!c)
            continue;
        const char *what = c->is_inter ? "is an inter-communicator"
                           : c->topo   ? "has a process topology"
                           : c->attrs  ? "has attributes"
                           : c->info   ? "has info hints"
                           : c->bsend  ? "has a buffer of buffered sends"
                                       : NULL;
        if (what)
            return refuse(w, MPI_ERR_UNSUPPORTED_OPERATION,
                          "communicator %#x %s, which a checkpoint cannot "
                          "hold yet (docs/checkpoint.md)",
                          (unsigned)AMPI_HANDLE(AMPI_HANDLE_COMM, i), what);
    }
    return MPI_SUCCESS;
}

static int check_dts(amp_rank_t *rank, why_t *w)
{
    for (int i = 0; rank->dt_attrs && i < AMPI_DTID_COUNT; i++)
        if (rank->dt_attrs[i])
            return refuse(w, MPI_ERR_UNSUPPORTED_OPERATION,
                          "a predefined datatype has attributes, which a "
                          "checkpoint cannot hold yet (docs/checkpoint.md)");
    amp_table_t *t = &rank->dts;
    for (int i = 0; i < amp_table_capacity(t); i++) {
        amp_dt_t *d = amp_table_lookup(t, i);
        if (d && d->attrs)
            return refuse(
                w, MPI_ERR_UNSUPPORTED_OPERATION,
                "datatype %#x has attributes, which a checkpoint "
                "cannot hold yet (docs/checkpoint.md)",
                (unsigned)AMPI_HANDLE(AMPI_HANDLE_DATATYPE_DERIVED, i));
    }
    return MPI_SUCCESS;
}

/* MPI_SUCCESS when everything the rank holds can be saved: into a
 * checkpoint (for_file: messages of the checkpoint's own collectives may
 * already wait) or for a move (none may). */
static int check_state_for(amp_rank_t *rank, int for_file, why_t *w)
{
    int i;
    if ((i = first_live(&rank->reqs)) >= 0)
        return refuse(w, MPI_ERR_REQUEST,
                      "request %#x is still allocated; complete and free "
                      "every request before a checkpoint",
                      (unsigned)AMPI_HANDLE(AMPI_HANDLE_REQUEST, i));
    if (first_live(&rank->msgs) >= 0 || !posted_empty(&rank->ep) ||
        (for_file ? message_waiting(rank) : !unexpected_empty(&rank->ep)) ||
        rank->bsend.segs)
        return refuse(w, MPI_ERR_REQUEST,
                      "a message to or from this rank is still pending; "
                      "receive every message before a checkpoint");
    if ((i = first_live(&rank->wins)) >= 0)
        return refuse(w, MPI_ERR_UNSUPPORTED_OPERATION,
                      "window %#x is open; a checkpoint cannot hold windows "
                      "(docs/checkpoint.md)",
                      (unsigned)AMPI_HANDLE(AMPI_HANDLE_WIN, i));
    const char *path;
    MPI_File fh = amp_file_first_open(rank, &path);
    if (fh != MPI_FILE_NULL)
        return refuse(w, MPI_ERR_UNSUPPORTED_OPERATION,
                      "file %#x (\"%.60s\") is open; close files before a "
                      "checkpoint (docs/mpi-io.md)",
                      (unsigned)fh, path);
    if (rank->datareps)
        return refuse(w, MPI_ERR_UNSUPPORTED_OPERATION,
                      "the rank registered data representations "
                      "(MPI_Register_datarep), which a checkpoint cannot hold "
                      "yet (docs/mpi-io.md)");
    if (atomic_load(&rank->mt_threads) > 0 || rank->nsessions > 0)
        return refuse(w, MPI_ERR_UNSUPPORTED_OPERATION,
                      "the rank has %s, which a checkpoint cannot hold "
                      "(docs/checkpoint.md)",
                      rank->nsessions ? "open sessions"
                                      : "kernel threads of its own");
    if (rank->tool)
        return refuse(w, MPI_ERR_UNSUPPORTED_OPERATION,
                      "the rank has the tool interface initialized "
                      "(MPI_T_init_thread without its MPI_T_finalize), "
                      "which a checkpoint cannot hold (docs/tools.md)");
    if (first_live(&rank->keyvals) >= 0 || rank->user_errs || rank->tls_dtors)
        return refuse(w, MPI_ERR_UNSUPPORTED_OPERATION,
                      "the rank holds %s, which a checkpoint cannot hold "
                      "yet (docs/checkpoint.md)",
                      rank->user_errs   ? "added error classes or codes"
                      : rank->tls_dtors ? "thread_local objects with "
                                          "destructors"
                                        : "attribute keyvals");
    int rc = check_comms(rank, w);
    return rc != MPI_SUCCESS ? rc : check_dts(rank, w);
}

static int check_state(amp_rank_t *rank, why_t *w)
{
    return check_state_for(rank, 0, w);
}

/* ---- the description of the rank's objects (in its own heap) ---- */

enum { REC_END, REC_ERRH, REC_OP, REC_GROUP, REC_INFO, REC_DT, REC_COMM };

typedef struct rec {
    int32_t kind, idx;
    uint64_t bytes; /* of the payload that follows, padded to 16 */
} rec_t;

typedef struct comm_rec {
    int ctx, rank, size, errh, has_world;
    unsigned asserts, coll_seq;
    char name[MPI_MAX_OBJECT_NAME];
} comm_rec_t;

/* A growing buffer in the rank's heap, so that it is saved with it. */
typedef struct blob {
    char *p;
    size_t len, cap;
    int failed;
} blob_t;

static void *blob_room(amp_rank_t *rank, blob_t *b, size_t n)
{
    n = AMP_ROUND_UP(n, 16);
    if (b->failed)
        return NULL;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->len + n)
            cap *= 2;
        char *p = b->p ? amp_heap_realloc(rank->heap, b->p, cap)
                       : amp_heap_alloc(amp_rank_heap(rank), cap, 16);
        if (!p) {
            b->failed = 1;
            return NULL;
        }
        b->p = p;
        b->cap = cap;
    }
    void *at = b->p + b->len;
    memset(at, 0, n);
    b->len += n;
    return at;
}

/* Appends a record of the given parts (pointer, bytes; NULL pointers
 * skipped), each padded to 16 bytes. */
static void put(amp_rank_t *rank, blob_t *b, int kind, int idx, int nparts,
                const void *const *parts, const size_t *sizes)
{
    size_t total = 0;
    for (int i = 0; i < nparts; i++)
        total += parts[i] ? AMP_ROUND_UP(sizes[i], 16) : 0;
    rec_t *r = blob_room(rank, b, sizeof(*r));
    if (!r)
        return;
    r->kind = kind;
    r->idx = idx;
    r->bytes = total;
    for (int i = 0; i < nparts; i++) {
        void *at = parts[i] ? blob_room(rank, b, sizes[i]) : NULL;
        if (at)
            memcpy(at, parts[i], sizes[i]);
    }
}

static void describe_simple(amp_rank_t *rank, blob_t *b)
{
    for (int i = 0; i < amp_table_capacity(&rank->errhs); i++) {
        amp_errh_t *e =
            i >= rank->errhs.first ? amp_table_lookup(&rank->errhs, i) : NULL;
        if (e)
            put(rank, b, REC_ERRH, i, 1, (const void *[]){e},
                (size_t[]){sizeof(*e)});
    }
    for (int i = 0; i < amp_table_capacity(&rank->ops); i++) {
        amp_op_obj_t *o =
            i >= rank->ops.first ? amp_table_lookup(&rank->ops, i) : NULL;
        if (o)
            put(rank, b, REC_OP, i, 1, (const void *[]){o},
                (size_t[]){sizeof(*o)});
    }
    for (int i = 1; i < amp_table_capacity(&rank->groups); i++) {
        amp_group_t *g = amp_table_lookup(&rank->groups, i);
        if (g)
            put(rank, b, REC_GROUP, i, 2, (const void *[]){g, g->world},
                (size_t[]){sizeof(*g), (size_t)g->size * sizeof(int)});
    }
}

/* An info object as "key\0value\0..." through the MPI calls. */
static void describe_info(amp_rank_t *rank, blob_t *b, int i)
{
    MPI_Info h = (MPI_Info)AMPI_HANDLE(AMPI_HANDLE_INFO, i);
    int n = 0;
    if (PMPI_Info_get_nkeys(h, &n) != MPI_SUCCESS)
        return;
    char *text =
        malloc((size_t)n * (MPI_MAX_INFO_KEY + MPI_MAX_INFO_VAL + 2) + 1);
    if (!text) {
        b->failed = 1;
        return;
    }
    size_t len = 0;
    for (int k = 0; k < n; k++) {
        char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        if (PMPI_Info_get_nthkey(h, k, key) != MPI_SUCCESS ||
            PMPI_Info_get(h, key, MPI_MAX_INFO_VAL, value, &flag) !=
                MPI_SUCCESS ||
            !flag)
            continue;
        size_t kl = strlen(key) + 1, vl = strlen(value) + 1;
        memcpy(text + len, key, kl);
        memcpy(text + len + kl, value, vl);
        len += kl + vl;
    }
    put(rank, b, REC_INFO, i, 2, (const void *[]){&len, text},
        (size_t[]){sizeof(len), len});
    free(text);
}

static void describe_dt(amp_rank_t *rank, blob_t *b, int i, const amp_dt_t *d)
{
    size_t name_len = d->owned_name ? strlen(d->owned_name) + 1 : 0;
    const void *parts[] = {d,        d->owned_blocks, d->ints,
                           d->addrs, d->types,        d->owned_name};
    size_t sizes[] = {sizeof(*d),
                      (size_t)d->nblocks * sizeof(*d->blocks),
                      (size_t)d->nints * sizeof(int),
                      (size_t)d->naddrs * sizeof(ptrdiff_t),
                      (size_t)d->ntypes * sizeof(int),
                      name_len};
    put(rank, b, REC_DT, i, 6, parts, sizes);
}

static void describe_comm(amp_rank_t *rank, blob_t *b, int i,
                          const amp_comm_t *c)
{
    comm_rec_t r = {.ctx = c->ctx,
                    .rank = c->rank,
                    .size = c->size,
                    .errh = c->errh,
                    .has_world = c->world != NULL,
                    .asserts = c->asserts,
                    .coll_seq = c->coll_seq};
    memcpy(r.name, c->name, sizeof(r.name));
    put(rank, b, REC_COMM, i, 2, (const void *[]){&r, c->world},
        (size_t[]){sizeof(r), (size_t)c->size * sizeof(int)});
}

/* Every object the rank may hold at a checkpoint, in the order they are
 * rebuilt: what others refer to first. */
static int describe(amp_rank_t *rank, blob_t *b, why_t *w)
{
    describe_simple(rank, b);
    for (int i = rank->infos.first; i < amp_table_capacity(&rank->infos); i++)
        if (amp_table_lookup(&rank->infos, i))
            describe_info(rank, b, i);
    for (int i = 0; i < amp_table_capacity(&rank->dts); i++) {
        const amp_dt_t *d = amp_table_lookup(&rank->dts, i);
        if (d)
            describe_dt(rank, b, i, d);
    }
    for (int i = 0; i < amp_table_capacity(&rank->comms); i++) {
        const amp_comm_t *c = amp_table_lookup(&rank->comms, i);
        if (c)
            describe_comm(rank, b, i, c);
    }
    put(rank, b, REC_END, 0, 0, NULL, NULL);
    if (b->failed)
        return refuse(w, MPI_ERR_NO_MEM,
                      "the rank's heap has no room to describe its MPI "
                      "objects; raise +isomalloc_slot");
    return MPI_SUCCESS;
}

/* ---- rebuilding them after a restart ---- */

/* Table entries taken to reach a handle, given back once all are in. */
typedef struct fillers {
    amp_table_t *t;
    void **objs;
    int n, cap;
} fillers_t;

/* Takes entries of f->t until the next one handed out is idx. */
static amp_status_t skip_to(fillers_t *f, int idx)
{
    amp_table_t *t = f->t;
    for (;;) {
        /* A table with no free entry grows by a chunk, whose entries
         * from t->first on come out in ascending order. */
        int next = t->free_head;
        if (next < 0)
            next = amp_table_capacity(t) > t->first ? amp_table_capacity(t)
                                                    : t->first;
        if (next == idx)
            return AMP_OK;
        if (next > idx)
            return AMP_ERR_INTERN;
        if (f->n == f->cap) {
            int cap = f->cap ? 2 * f->cap : 16;
            void **objs = realloc(f->objs, (size_t)cap * sizeof(*objs));
            if (!objs)
                return AMP_ERR_NOMEM;
            f->objs = objs;
            f->cap = cap;
        }
        void *o = amp_table_alloc(t);
        if (!o)
            return AMP_ERR_NOMEM;
        f->objs[f->n++] = o;
    }
}

static void fillers_release(fillers_t *f)
{
    for (int i = 0; i < f->n; i++)
        amp_table_free(f->t, f->objs[i]);
    free(f->objs);
    memset(f, 0, sizeof(*f));
}

/* The object for record r at its own handle in t. */
static void *take(fillers_t *f, amp_table_t *t, const rec_t *r)
{
    if (f->t != t) {
        if (f->t)
            fillers_release(f);
        f->t = t;
    }
    if (skip_to(f, r->idx) != AMP_OK)
        return NULL;
    return amp_table_alloc(t);
}

static void *dup_part(const char **at, size_t bytes, int present)
{
    if (!present)
        return NULL;
    void *p = malloc(bytes ? bytes : 1);
    if (p)
        memcpy(p, *at, bytes);
    *at += AMP_ROUND_UP(bytes, 16);
    return p;
}

static amp_status_t rebuild_dt(fillers_t *f, amp_rank_t *rank, const rec_t *r)
{
    const char *at = (const char *)(r + 1);
    const amp_dt_t *saved = (const amp_dt_t *)at;
    amp_dt_t *d = take(f, &rank->dts, r);
    if (!d)
        return AMP_ERR_NOMEM;
    amp_obj_t obj = d->obj;
    *d = *saved;
    d->obj = obj;
    at += AMP_ROUND_UP(sizeof(*d), 16);
    d->owned_blocks = dup_part(&at, (size_t)d->nblocks * sizeof(*d->blocks),
                               saved->owned_blocks != NULL);
    if (saved->owned_blocks)
        d->blocks = d->owned_blocks;
    d->ints =
        dup_part(&at, (size_t)d->nints * sizeof(int), saved->ints != NULL);
    d->addrs = dup_part(&at, (size_t)d->naddrs * sizeof(ptrdiff_t),
                        saved->addrs != NULL);
    d->types =
        dup_part(&at, (size_t)d->ntypes * sizeof(int), saved->types != NULL);
    d->owned_name = saved->owned_name ? dup_part(&at, strlen(at) + 1, 1) : NULL;
    if (saved->owned_name && saved->name == saved->owned_name)
        d->name = d->owned_name;
    if ((saved->owned_blocks && !d->owned_blocks) ||
        (saved->ints && !d->ints) || (saved->addrs && !d->addrs) ||
        (saved->types && !d->types) || (saved->owned_name && !d->owned_name))
        return AMP_ERR_NOMEM;
    return AMP_OK;
}

static amp_status_t rebuild_comm(fillers_t *f, amp_rank_t *rank, const rec_t *r)
{
    const comm_rec_t *s = (const comm_rec_t *)(r + 1);
    amp_comm_t *c;
    if (r->idx < rank->comms.first) { /* MPI_COMM_WORLD, MPI_COMM_SELF */
        c = amp_table_lookup(&rank->comms, r->idx);
    } else {
        int *world = NULL;
        if (s->has_world) {
            world = malloc((size_t)s->size * sizeof(int));
            if (!world)
                return AMP_ERR_NOMEM;
            memcpy(world, (const char *)s + AMP_ROUND_UP(sizeof(*s), 16),
                   (size_t)s->size * sizeof(int));
        }
        if (f->t != &rank->comms) {
            if (f->t)
                fillers_release(f);
            f->t = &rank->comms;
        }
        if (skip_to(f, r->idx) != AMP_OK) {
            free(world);
            return AMP_ERR_NOMEM;
        }
        c = amp_comm_new(rank, s->ctx, s->rank, s->size, world);
    }
    if (!c)
        return AMP_ERR_NOMEM;
    c->errh = s->errh;
    c->asserts = s->asserts;
    c->coll_seq = s->coll_seq;
    memcpy(c->name, s->name, sizeof(c->name));
    return AMP_OK;
}

static amp_status_t rebuild_info(fillers_t *f, amp_rank_t *rank, const rec_t *r)
{
    if (f->t != &rank->infos) {
        if (f->t)
            fillers_release(f);
        f->t = &rank->infos;
    }
    if (skip_to(f, r->idx) != AMP_OK)
        return AMP_ERR_NOMEM;
    MPI_Info h;
    if (PMPI_Info_create(&h) != MPI_SUCCESS || AMP_HANDLE_INDEX(h) != r->idx)
        return AMP_ERR_NOMEM;
    const char *at = (const char *)(r + 1);
    size_t len;
    memcpy(&len, at, sizeof(len));
    const char *text = at + 16, *end = text + len;
    while (text < end) {
        const char *value = text + strlen(text) + 1;
        if (PMPI_Info_set(h, text, value) != MPI_SUCCESS)
            return AMP_ERR_NOMEM;
        text = value + strlen(value) + 1;
    }
    return AMP_OK;
}

static amp_status_t rebuild_one(fillers_t *f, amp_rank_t *rank, const rec_t *r)
{
    const void *payload = r + 1;
    switch (r->kind) {
    case REC_ERRH: {
        amp_errh_t *e = take(f, &rank->errhs, r);
        if (!e)
            return AMP_ERR_NOMEM;
        const amp_errh_t *s = payload;
        e->fn = s->fn;
        e->kind = s->kind;
        return AMP_OK;
    }
    case REC_OP: {
        amp_op_obj_t *o = take(f, &rank->ops, r);
        if (!o)
            return AMP_ERR_NOMEM;
        const amp_op_obj_t *s = payload;
        o->fn = s->fn;
        o->commute = s->commute;
        return AMP_OK;
    }
    case REC_GROUP: {
        amp_group_t *g = take(f, &rank->groups, r);
        if (!g)
            return AMP_ERR_NOMEM;
        const amp_group_t *s = payload;
        const char *at = (const char *)payload + AMP_ROUND_UP(sizeof(*s), 16);
        g->size = s->size;
        g->world = dup_part(&at, (size_t)s->size * sizeof(int), 1);
        return g->world ? AMP_OK : AMP_ERR_NOMEM;
    }
    case REC_INFO: return rebuild_info(f, rank, r);
    case REC_DT: return rebuild_dt(f, rank, r);
    case REC_COMM: return rebuild_comm(f, rank, r);
    }
    return AMP_ERR_INTERN;
}

/* Runs in the restarted rank: its objects back under their handles. */
static int rebuild(amp_rank_t *rank, const blob_t *b, const char *call)
{
    fillers_t f = {0};
    amp_status_t st = AMP_OK;
    const char *at = b->p;
    for (;;) {
        const rec_t *r = (const rec_t *)at;
        if (r->kind == REC_END || st != AMP_OK)
            break;
        st = rebuild_one(&f, rank, r);
        at += sizeof(*r) + r->bytes;
    }
    if (f.t)
        fillers_release(&f);
    amp_ckpt_blob_free(rank, b->p);
    if (st != AMP_OK)
        amp_fatal("rank %d: %s: cannot rebuild its MPI objects after the "
                  "restart (%s)",
                  rank->world_rank, call, amp_status_str(st));
    return MPI_SUCCESS;
}

/* ---- the rank's file ---- */

/* What the writer of a rank's file is given, and tells. */
typedef struct snap {
    const char *dir;
    uint64_t id;
    int cls;
    why_t *why;
} snap_t;

typedef struct out {
    int fd;
    amp_ckpt_sum_t sum;
    int err; /* errno of the first failed write */
} out_t;

static void out_write(out_t *o, const void *p, size_t n)
{
    amp_ckpt_sum_add(&o->sum, p, n);
    const char *c = p;
    while (n > 0 && !o->err) {
        ssize_t k = write(o->fd, c, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            o->err = k < 0 ? errno : EIO;
            break;
        }
        c += k;
        n -= (size_t)k;
    }
}

static int write_rank_file(const amp_slot_stop_t *stop, snap_t *s)
{
    amp_rank_t *rank = stop->rank;
    amp_ckpt_rank_hdr_t h = {.version = AMP_CKPT_VERSION,
                             .world_rank = rank->world_rank,
                             .id = s->id,
                             .slot = stop->desc};
    memcpy(h.magic, AMP_CKPT_RANK_MAGIC, sizeof(h.magic));
    int first = amp_slot_pie_first(&stop->desc);
    h.pie_nranges = (uint32_t)(stop->nranges - first);
    for (int i = first; i < stop->nranges; i++) {
        h.pie[i - first].addr = (uintptr_t)stop->ranges[i].addr;
        h.pie[i - first].len = stop->ranges[i].len;
    }
    /* Straight under its name: the staging directory it is written into
     * becomes the checkpoint in one step once every file and the manifest
     * are there (ckpt_dir.h), and a rank's file is checked whole on
     * restart.  A temporary name and a rename each took the directory's
     * lock once more: with 10,000 files, a fifth of the time spent
     * waiting on it. */
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/rank-%d.ckpt", s->dir, rank->world_rank);
    out_t o = {.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)};
    amp_ckpt_sum_init(&o.sum);
    if (o.fd < 0)
        return refuse(s->why, MPI_ERR_IO, "cannot create %s: %s", path,
                      strerror(errno));
    out_write(&o, &h, sizeof(h));
    for (int i = 0; i < stop->nranges; i++)
        out_write(&o, stop->ranges[i].addr, stop->ranges[i].len);
    uint64_t hash = amp_ckpt_sum_end(&o.sum);
    out_write(&o, &hash, sizeof(hash));
    if (close(o.fd) != 0 && !o.err)
        o.err = errno;
    if (o.err) {
        unlink(path);
        return refuse(s->why, MPI_ERR_IO, "cannot write %s: %s", path,
                      strerror(o.err));
    }
    return MPI_SUCCESS;
}

/* Runs on a stack of its own while the rank is stopped (amp_slot_stop):
 * its memory does not change while it is written. */
static void writer_main(amp_slot_stop_t *stop)
{
    snap_t *s = stop->arg;
    s->cls = write_rank_file(stop, s);
    amp_slot_resume(stop);
}

/* Stops the rank, writes its file, resumes it.  *restarted: it resumed in
 * a process started with +restart instead. */
static int snapshot(amp_rank_t *rank, const char *dir, uint64_t id,
                    int *restarted, why_t *w)
{
    void *stack = malloc(WRITER_STACK);
    if (!stack)
        return refuse(w, MPI_ERR_NO_MEM, "out of memory");
    snap_t s = {.dir = dir, .id = id, .why = w};
    if (!amp_slot_stop(rank, stack, WRITER_STACK, writer_main, &s)) {
        *restarted = 1; /* stack is the old process's: leave it */
        return MPI_SUCCESS;
    }
    free(stack);
    return s.cls;
}

/* ---- the manifest ---- */

static int write_manifest(const char *dir, uint64_t id, why_t *w)
{
    amp_ckpt_ident_t ident;
    amp_ckpt_ident(&ident);
    const amp_mem_t *mem = &amp_proc.mem;
    char path[PATH_MAX], tmp[PATH_MAX + 8];
    snprintf(path, sizeof(path), "%s/manifest", dir);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "we");
    if (!f)
        return refuse(w, MPI_ERR_IO, "cannot create %s: %s", tmp,
                      strerror(errno));
    fprintf(f,
            "%s %d\nid %llx\nranks %d\nprocesses %d\npes %d\n"
            "range_base %#llx\n"
            "slot_size %llu\nstack_size %llu\nrank_area %llu\n"
            "heap_offset %llu\nprogram %s\naddr_main %#llx\n"
            "addr_libampi %#llx\naddr_libc %#llx\nend\n",
            AMP_CKPT_MANIFEST_MAGIC, AMP_CKPT_VERSION, (unsigned long long)id,
            amp_proc.nranks, amp_proc.boot.nprocs, amp_proc.sched.npes,
            (unsigned long long)(uintptr_t)mem->base,
            (unsigned long long)mem->slot_size,
            (unsigned long long)mem->stack_size,
            (unsigned long long)mem->rank_area_size,
            (unsigned long long)mem->heap_offset, ident.program,
            (unsigned long long)ident.addr_main,
            (unsigned long long)ident.addr_libampi,
            (unsigned long long)ident.addr_libc);
    int err = ferror(f) ? EIO : 0;
    if (fclose(f) != 0 && !err)
        err = errno;
    if (!err && rename(tmp, path) != 0)
        err = errno;
    if (err) {
        unlink(tmp);
        return refuse(w, MPI_ERR_IO, "cannot write %s: %s", path,
                      strerror(err));
    }
    return MPI_SUCCESS;
}

/* ---- AMPI_Migrate's checkpoint step ---- */

/* A checkpoint to files whose directory this rank's process does not
 * share with rank 0's (a directory local to each node): refused, since no
 * restart could read it. */
static int not_shared(const char *stage, int first, why_t *w)
{
    char host[64] = "";
    gethostname(host, sizeof(host) - 1);
    return refuse(w, MPI_ERR_IO,
                  "%s, made by rank %d, is not on host %s: the processes "
                  "must share the directory (or checkpoint in memory)",
                  stage, first, host);
}

/* What every rank learns from rank 0 before it saves itself: the
 * checkpoint's id, and where rank 0's process has the program and its
 * libraries (what the manifest records). */
typedef struct stamp {
    uint64_t id;
    uint64_t program; /* hash of amp_ckpt_ident_t.program */
    uint64_t addr_main, addr_libampi, addr_libc;
} stamp_t;

/* Collective: the id into *id on every rank, made by rank 0 from its
 * clock, process id and count of MPI_COMM_WORLD's collectives (the
 * processes of a job share no start time to derive it from).  *cls: an
 * error when this process has the program or its libraries elsewhere than
 * rank 0's (a process on another node or with another stack limit), whose
 * ranks could then not be restarted against the manifest. */
static int agree_stamp(amp_rank_t *rank, uint64_t *id, int *cls, why_t *w)
{
    amp_ckpt_ident_t ident;
    amp_sys_alloc_enter();
    amp_ckpt_ident(&ident);
    amp_sys_alloc_leave();
    stamp_t mine = {.program = amp_ckpt_hash(AMP_CKPT_FNV0, ident.program,
                                             strlen(ident.program)),
                    .addr_main = ident.addr_main,
                    .addr_libampi = ident.addr_libampi,
                    .addr_libc = ident.addr_libc},
            root = mine;
    if (rank->world_rank == 0) {
        amp_comm_t *world = amp_comm_lookup(rank, MPI_COMM_WORLD);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t parts[] = {(uint64_t)ts.tv_sec, (uint64_t)ts.tv_nsec,
                            (uint64_t)getpid(), world->coll_seq};
        root.id = amp_ckpt_hash(AMP_CKPT_FNV0, parts, sizeof(parts));
    }
    int rc = PMPI_Bcast(&root, sizeof(root) / sizeof(uint64_t), MPI_UINT64_T, 0,
                        MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        return rc;
    *id = root.id;
    if (root.program != mine.program)
        *cls = refuse(w, MPI_ERR_OTHER,
                      "this process runs another program than rank 0's");
    else if (memcmp(&root.addr_main, &mine.addr_main,
                    sizeof(mine) - offsetof(stamp_t, addr_main)) != 0)
        *cls = refuse(w, MPI_ERR_OTHER,
                      "this process has libampi at %#llx, rank 0's at %#llx; "
                      "give every process the same libraries and ulimit -s",
                      (unsigned long long)mine.addr_libampi,
                      (unsigned long long)root.addr_libampi);
    return MPI_SUCCESS;
}

/* A directory's leader's last step: the manifest into the staging
 * directory, then the staging directory in DIR's place (ckpt_dir.h).  Out
 * of line, as the steps after a rank's file (copy_step, commit_step):
 * their buffers (paths, 8 KB) would take every rank's stack down at its
 * snapshot, into its file and its resident memory. */
static __attribute__((noinline)) int finish(const char *dir,
                                            const char *stage, uint64_t id,
                                            int noted, int keep, why_t *w)
{
    amp_sys_alloc_enter();
    int cls = write_manifest(stage, id, w);
    if (cls == MPI_SUCCESS)
        cls = amp_ckpt_dir_commit(dir, noted, amp_proc.nranks, keep, w->text,
                                  sizeof(w->text));
    amp_sys_alloc_leave();
    return cls;
}

/* Collective: whether any rank has failed. */
static int any_failed(int failed, int *any)
{
    return PMPI_Allreduce(&failed, any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
}

/* Up to the rank's file: the id, the directory as this rank sees it (its
 * leader in *leader), the job's directories, the checks, the snapshot.
 * MPI_SUCCESS or a class with *w; *restarted: resumed in a restarted
 * process.  *rc: an error of a collective (then nothing else is valid). */
typedef struct write_ctx {
    const char *dir, *call;
    char stage[PATH_MAX - 64]; /* room for a file's name after it */
    uint64_t id;
    int in_memory, made, leader;
    amp_ckpt_dirs_t dirs;
    blob_t blob;
    why_t w;
} write_ctx_t;

/* What the process's first rank to join a checkpoint's directory found
 * (amp_ckpt_dir_join: nine system calls, under the directory's lock),
 * which its other ranks take over. */
typedef struct amp_ckpt_joined {
    pthread_mutex_t lock;
    uint64_t id;
    char dir[PATH_MAX];
    int cls, leader;
    why_t why;
} amp_ckpt_joined_t;

static amp_ckpt_joined_t *joined(void)
{
    amp_ckpt_joined_t *j = atomic_load(&amp_proc.ckpt_joined);
    if (j)
        return j;
    amp_ckpt_joined_t *fresh = calloc(1, sizeof(*fresh));
    if (!fresh)
        return NULL;
    pthread_mutex_init(&fresh->lock, NULL);
    if (atomic_compare_exchange_strong(&amp_proc.ckpt_joined, &j, fresh))
        return fresh;
    pthread_mutex_destroy(&fresh->lock);
    free(fresh);
    return j;
}

/* Joins c's checkpoint in its directory once a process; an MPI class. */
static int join(write_ctx_t *c, int me)
{
    amp_ckpt_joined_t *j = joined();
    if (!j)
        return amp_ckpt_dir_join(c->dir, c->id, me, &c->made, &c->leader,
                                 c->w.text, sizeof(c->w.text));
    pthread_mutex_lock(&j->lock);
    int cls;
    if (j->id == c->id && strcmp(j->dir, c->dir) == 0) {
        cls = j->cls;
        c->leader = j->leader;
        c->made = 0; /* the first one made it, if anybody here did */
        c->w = j->why;
    } else {
        cls = amp_ckpt_dir_join(c->dir, c->id, me, &c->made, &c->leader,
                                c->w.text, sizeof(c->w.text));
        j->id = c->id;
        if (snprintf(j->dir, sizeof(j->dir), "%s", c->dir) >=
            (int)sizeof(j->dir))
            j->dir[0] = '\0'; /* too long to compare: each rank joins */
        j->cls = cls;
        j->leader = c->leader;
        j->why = c->w;
    }
    pthread_mutex_unlock(&j->lock);
    return cls;
}

static int write_own(write_ctx_t *c, int *cls, int *restarted)
{
    int rc = agree_stamp(amp_rank_self(), &c->id, cls, &c->w);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_rank_t *rank = amp_rank_self();
    c->leader = -1;
    if (*cls == MPI_SUCCESS)
        *cls = check_state_for(rank, 1, &c->w);
    if (*cls == MPI_SUCCESS) {
        amp_sys_alloc_enter();
        *cls = join(c, rank->world_rank);
        amp_sys_alloc_leave();
    }
    rc = amp_ckpt_dirs_find(c->leader, &c->dirs);
    if (rc != MPI_SUCCESS)
        return rc;
    rank = amp_rank_self();
    if (*cls == MPI_SUCCESS && !c->in_memory && c->dirs.first >= 0 &&
        c->leader != c->dirs.first)
        *cls = not_shared(c->stage, c->dirs.first, &c->w);
    if (*cls == MPI_SUCCESS)
        *cls = describe(rank, &c->blob, &c->w);
    if (*cls == MPI_SUCCESS)
        *cls = snapshot(rank, c->stage, c->id, restarted, &c->w);
    return MPI_SUCCESS;
}

/* The copies on the next node, with several directories: this rank's
 * failure reported (*failed, *err), any rank's in *any.  An error of a
 * collective, or MPI_SUCCESS. */
static __attribute__((noinline)) int copy_step(write_ctx_t *c, int *failed,
                                               int *any, int *err)
{
    int cls = amp_ckpt_copy_to_next(amp_rank_self(), c->stage, c->leader,
                                    &c->dirs, c->w.text, sizeof(c->w.text));
    *failed = cls != MPI_SUCCESS;
    if (*failed)
        *err = amp_mpi_error(amp_rank_self(), NULL, cls, c->call,
                             "checkpoint to %s: %s", c->dir, c->w.text);
    return any_failed(*failed, any);
}

/* Once every file is in place (!any): each leader's manifest and swap;
 * else (or when that fails) the leaders drop their staging directories,
 * and a rank that made DIR removes it if empty.  *manifest: this rank's
 * class; *anybad: whether any leader failed.  An error of a collective, or
 * MPI_SUCCESS. */
static __attribute__((noinline)) int commit_step(write_ctx_t *c, int any,
                                                 int *manifest,
                                                 int *anybad)
{
    int me = amp_rank_self()->world_rank, leads = c->leader == me;
    int noted = c->leader != c->dirs.first ? AMP_CKPT_NOTE_NONE
                : c->dirs.n > 1            ? AMP_CKPT_NOTE_NODES
                                           : AMP_CKPT_NOTE;
    *manifest = MPI_SUCCESS;
    if (!any && leads)
        *manifest =
            finish(c->dir, c->stage, c->id, noted, c->dirs.n > 1, &c->w);
    amp_sys_alloc_enter();
    if ((any || *manifest != MPI_SUCCESS) && leads)
        amp_ckpt_dir_abandon(c->dir);
    amp_sys_alloc_leave();
    int rc = any_failed(*manifest != MPI_SUCCESS, anybad);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_sys_alloc_enter();
    if ((any || *anybad) && c->made)
        (void)rmdir(c->dir); /* ENOTEMPTY: it holds something else now */
    /* Every directory holds the new checkpoint: the previous one, kept
     * until now in case a node died halfway, goes. */
    if (!any && !*anybad && c->dirs.n > 1 && leads)
        amp_ckpt_dir_drop_previous(c->dir);
    amp_sys_alloc_leave();
    return MPI_SUCCESS;
}

int amp_ckpt_write(amp_rank_t *rank, const char *dir, int in_memory,
                   const char *call)
{
    write_ctx_t c = {.dir = dir, .call = call, .in_memory = in_memory};
    amp_ckpt_dir_staging(dir, c.stage, sizeof(c.stage));
    int cls = MPI_SUCCESS, restarted = 0, any = 0, rc;
    if ((rc = write_own(&c, &cls, &restarted)) != MPI_SUCCESS)
        return rc;
    if (restarted)
        return rebuild(amp_rank_self(), &c.blob, call);
    rank = amp_rank_self();
    amp_ckpt_blob_free(rank, c.blob.p);
    /* The rank that failed reports why before the others learn of it: with
     * MPI_ERRORS_ARE_FATAL its reason, not theirs, ends the job. */
    int failed = cls != MPI_SUCCESS;
    int err = failed ? amp_mpi_error(rank, NULL, cls, call,
                                     "checkpoint to %s: %s", dir, c.w.text)
                     : MPI_SUCCESS;
    if ((rc = any_failed(failed, &any)) != MPI_SUCCESS)
        return rc;
    if (!any && c.dirs.n > 1 &&
        (rc = copy_step(&c, &failed, &any, &err)) != MPI_SUCCESS)
        return rc;
    int manifest, anybad = 0;
    if ((rc = commit_step(&c, any, &manifest, &anybad)) != MPI_SUCCESS)
        return rc;
    rank = amp_rank_self();
    if (failed)
        return err;
    if (manifest != MPI_SUCCESS)
        return amp_mpi_error(rank, NULL, manifest, call, "checkpoint to %s: %s",
                             dir, c.w.text);
    if (any || anybad)
        return amp_mpi_error(rank, NULL, MPI_ERR_OTHER, call,
                             "checkpoint to %s: failed on another rank; "
                             "nothing usable was written",
                             dir);
    if (in_memory && c.dirs.n > 1)
        atomic_store(&amp_proc.ckpt_in_memory, AMP_CKPT_MEMORY_NODES);
    return MPI_SUCCESS;
}

/* A job that checkpointed in memory and ended well frees that memory:
 * every process that wrote into it, once all are done.  Under ampirun
 * (AMPI_CHECKPOINT_NOTE set) ampirun removes it, after the last run it may
 * restart from it, except the copies on nodes of their own, which ampirun
 * does not see: each process removes its node's. */
void amp_ckpt_job_end(void)
{
    const char *note = getenv("AMPI_CHECKPOINT_NOTE");
    int kept = atomic_load(&amp_proc.ckpt_in_memory);
    if (!kept || atomic_load(&amp_proc.exit_status) != 0 ||
        (note && note[0] && kept != AMP_CKPT_MEMORY_NODES))
        return;
    char dir[PATH_MAX];
    amp_ckpt_dir_memory(dir, sizeof(dir));
    amp_ckpt_dir_remove(dir);
}

/* ---- for ranks that move to another process (rank/move.c) ---- */

int amp_ckpt_check(amp_rank_t *rank, char *why, size_t len)
{
    why_t w = {{0}};
    int cls = check_state(rank, &w);
    snprintf(why, len, "%s", w.text);
    return cls;
}

int amp_ckpt_describe(amp_rank_t *rank, amp_ckpt_blob_t *b)
{
    why_t w = {{0}};
    blob_t blob = {0};
    int cls = describe(rank, &blob, &w);
    b->p = blob.p;
    b->len = blob.len;
    return cls;
}

void amp_ckpt_rebuild(amp_rank_t *rank, const amp_ckpt_blob_t *b,
                      const char *call)
{
    blob_t blob = {.p = b->p, .len = b->len, .cap = b->len};
    rebuild(rank, &blob, call);
}

void amp_ckpt_blob_free(amp_rank_t *rank, void *p)
{
    if (p && amp_heap_free(rank->heap, p) != AMP_OK)
        amp_log_error("rank %d: the description of its MPI objects at %p is "
                      "not a block of its heap; not freed",
                      rank->world_rank, p);
}
