/*
 * CUDA device memory in p2p: copies by the GPU where a message meets its
 * receive, and the device protocol between processes (dev.h).
 */
#include "p2p/dev.h"

#include "gpu/gpu.h"
#include "p2p/pe.h"
#include "p2p/transport.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The protocol's state of the process (the world's slot AMP_P2P_TP_DEV). */
typedef struct dev_world {
    amp_sched_t *sched; /* the process's PEs */
    /* Device transfers with another process under way: the exchanges of
     * rank moves wait until none is (amp_p2p_dev_idle). */
    _Atomic long live;
} dev_world_t;

static amp_p2p_world_t *world_of(amp_pe_t *pe)
{
    return ((amp_p2p_pe_t *)pe->upper)->world;
}

/* Counts a device transfer with another process that starts (d = 1) or
 * ends (d = -1) on pe. */
static void dev_live(amp_pe_t *pe, long d)
{
    dev_world_t *dw = world_of(pe)->tp[AMP_P2P_TP_DEV];
    /* Release: what the transfer sent is counted before it ends. */
    atomic_fetch_add_explicit(&dw->live, d, memory_order_release);
}

/* Tells world rank rank that its device message (request sreq) was
 * taken, through the transport between processes. */
static void dev_ack(amp_pe_t *pe, int rank, uint64_t sreq)
{
    world_of(pe)->between->ack(pe, rank, sreq);
}

/* Whether the transport between processes moves device memory between
 * this process and process proc itself. */
static int moves_device(amp_pe_t *pe, int proc)
{
    const amp_p2p_tp_t *between = world_of(pe)->between;
    return between->moves_device && between->moves_device(pe, proc);
}

amp_status_t amp_p2p_dev_init(amp_p2p_world_t *w, amp_sched_t *sched)
{
    dev_world_t *dw = calloc(1, sizeof(*dw));
    if (!dw)
        return AMP_ERR_NOMEM;
    dw->sched = sched;
    atomic_init(&dw->live, 0);
    w->tp[AMP_P2P_TP_DEV] = dw;
    return AMP_OK;
}

void amp_p2p_dev_finish(amp_p2p_world_t *w)
{
    free(w->tp[AMP_P2P_TP_DEV]);
    w->tp[AMP_P2P_TP_DEV] = NULL;
}

int amp_p2p_dev_idle(amp_p2p_world_t *w)
{
    dev_world_t *dw = w->tp[AMP_P2P_TP_DEV];
    if (!dw)
        return 1;
    if (atomic_load_explicit(&dw->live, memory_order_acquire))
        return 0;
    for (int i = 0; w->gpu && i < dw->sched->npes; i++)
        if (amp_gpu_pending(w->gpu, dw->sched->pes[i]))
            return 0;
    return 1;
}

/* ---- within a process: the GPU copies where the message meets its
 * receive ---- */

/* One copy of a dev_copy_t: bytes [off, off + len) of the message. */
typedef struct dev_chunk {
    struct dev_copy *c;
    size_t off, len;
} dev_chunk_t;

/* Data mapped from another process (CUDA IPC): its mapping, and whom to
 * acknowledge when the copy is done. */
typedef struct dev_ack {
    void *ipc_base;
    int rank;
    uint64_t sreq;
} dev_ack_t;

/* A matched message whose data the GPU moves; everything it holds is
 * released when the last of its copies is done (on pe, by its poll). */
typedef struct dev_copy {
    amp_pe_t *pe; /* whose stream and bounce buffers it uses */
    amp_gpu_t *gpu;
    amp_p2p_req_t *r;    /* the receive */
    amp_p2p_req_t *sreq; /* a send matched on its own PE, or NULL */
    amp_msg_t *m;        /* the envelope, or NULL */
    int acks;            /* data mapped from another process: */
    dev_ack_t ack;       /* unmap and acknowledge at the end */
    const char *src;     /* the data: on device sdev, or host (-1) */
    int sdev;
    char *bounce;          /* pinned (device <-> host), cap bytes */
    size_t cap, n, chunks; /* n: the bytes moved */
    int to_host;           /* device to host: bounce -> r->buf by the CPU */
    int window; /* bounce holds AMP_GPU_WINDOW chunks, reused in turn;
                   else all of the data */
    int packed; /* host to device: bounce already holds all the data */
    int left;   /* copies not yet done, + 1 while queuing */
    amp_status_t st;
    dev_chunk_t ch[];
} dev_copy_t;

/* The end of a matched message, its data moved (or not: r->error): the
 * envelope goes back, the sender (here or, through ack, in another
 * process) learns it is done, then the receive completes. */
static void dev_matched_end(amp_pe_t *pe, amp_gpu_t *gpu, amp_p2p_req_t *r,
                            amp_p2p_req_t *sreq, amp_msg_t *m,
                            const dev_ack_t *ack)
{
    const amp_p2p_core_ops_t *core = amp_p2p_core(pe);
    if (m)
        core->release(pe, m);
    if (ack) {
        amp_gpu_ipc_release(gpu, pe, ack->ipc_base);
        dev_ack(pe, ack->rank, ack->sreq);
        dev_live(pe, -1);
    }
    if (sreq) {
        sreq->st_bytes = sreq->bytes;
        core->complete(sreq);
    }
    core->complete(r);
}

static void dev_copy_end(dev_copy_t *c)
{
    amp_p2p_req_t *r = c->r, *sreq = c->sreq;
    r->owner->dev_busy--;
    if (sreq)
        sreq->owner->dev_busy--;
    if (c->st != AMP_OK && r->error == AMP_OK)
        r->error = c->st;
    if (c->to_host && r->dt && c->st == AMP_OK)
        amp_dt_copy_typed(NULL, c->bounce, r->dt, r->buf, c->n);
    if (c->bounce && c->cap)
        amp_gpu_host_put(c->gpu, c->pe, c->bounce, c->cap);
    else
        free(c->bounce);
    amp_pe_t *pe = c->pe;
    amp_gpu_t *gpu = c->gpu;
    amp_msg_t *m = c->m;
    dev_ack_t ack = c->ack;
    int acks = c->acks;
    free(c);
    dev_matched_end(pe, gpu, r, sreq, m, acks ? &ack : NULL);
}

static void dev_copy_release(dev_copy_t *c)
{
    if (--c->left == 0)
        dev_copy_end(c);
}

/* Where chunk i of c passes through the bounce buffer. */
static char *dev_slot(const dev_copy_t *c, size_t i)
{
    size_t at = c->window ? i % AMP_GPU_WINDOW : i;
    return c->bounce + at * AMP_GPU_CHUNK;
}

static void dev_chunk_next(dev_copy_t *c, size_t i);

/* A copy is done; device to a plain host buffer, its bytes go on (the
 * CPU copies this chunk while the GPU moves the next); with a window, the
 * chunk's slot takes the chunk AMP_GPU_WINDOW further. */
static void dev_chunk_done(void *arg, amp_status_t st)
{
    dev_chunk_t *k = arg;
    dev_copy_t *c = k->c;
    size_t i = (size_t)(k - c->ch);
    if (st != AMP_OK && c->st == AMP_OK)
        c->st = st;
    if (st == AMP_OK && c->to_host && !c->r->dt)
        memcpy((char *)c->r->buf + k->off, dev_slot(c, i), k->len);
    if (c->window && c->st == AMP_OK)
        dev_chunk_next(c, i + AMP_GPU_WINDOW);
    dev_copy_release(c);
}

/* Queues chunk i: len bytes from src (device sdev, -1: host) to dst. */
static void dev_chunk_queue(dev_copy_t *c, size_t i, size_t off, size_t len,
                            void *dst, int ddev, const void *src, int sdev)
{
    dev_chunk_t *k = &c->ch[i];
    k->c = c;
    k->off = off;
    k->len = len;
    c->left++;
    const amp_gpu_copy_desc_t d = {dst, src, len, ddev, sdev};
    amp_status_t st =
        amp_gpu_copy_between(c->gpu, c->pe, &d, dev_chunk_done, k);
    if (st != AMP_OK)
        dev_chunk_done(k, st);
}

/* Queues chunk i of a message between host and device memory (if there
 * is one): off the device into its slot, or (the CPU packing it first,
 * unless all is packed) from its slot onto the device. */
static void dev_chunk_next(dev_copy_t *c, size_t i)
{
    if (i >= c->chunks)
        return;
    size_t off = i * AMP_GPU_CHUNK;
    size_t len = c->n - off < AMP_GPU_CHUNK ? c->n - off : AMP_GPU_CHUNK;
    char *slot = dev_slot(c, i);
    if (c->to_host) {
        dev_chunk_queue(c, i, off, len, slot, -1, c->src + off, c->sdev);
        return;
    }
    if (!c->packed)
        memcpy(slot, c->src + off, len);
    dev_chunk_queue(c, i, off, len, (char *)c->r->buf + off, c->r->mem.device,
                    slot, -1);
}

/* Between host and device memory: a window of chunks in a small bounce
 * buffer when the data stays where it is until the end (a device buffer;
 * host data of the send or of the envelope: keep) and has no gaps on the
 * host side; else one bounce buffer for all of it (host data in layout
 * sdt packed at once; transient host data copied at once). */
static void dev_copy_bounce(dev_copy_t *c, const amp_dt_t *sdt, int keep)
{
    c->window = c->to_host ? !c->r->dt : !sdt && keep;
    size_t first = c->chunks;
    size_t want = c->n;
    if (c->window && c->chunks > AMP_GPU_WINDOW) {
        first = AMP_GPU_WINDOW;
        want = AMP_GPU_WINDOW * AMP_GPU_CHUNK;
    }
    c->bounce = amp_gpu_host_get(c->gpu, c->pe, want, &c->cap);
    if (!c->bounce) { /* pageable: slower copies, same result */
        c->cap = 0;
        if (!(c->bounce = malloc(want))) {
            c->st = AMP_ERR_NOMEM;
            return;
        }
    }
    if (!c->to_host && sdt) {
        amp_dt_copy_typed(sdt, c->src, NULL, c->bounce, c->n);
        c->packed = 1;
    }
    for (size_t i = 0; i < first && c->st == AMP_OK; i++)
        dev_chunk_next(c, i);
}

/* Where the data of a copy is: n bytes at data, on device dev (-1: host
 * memory, in layout dt); keep: it stays there until the copy ends. */
typedef struct dev_src {
    const void *data;
    const amp_dt_t *dt;
    int dev, keep;
    size_t n;
} dev_src_t;

/* Starts moving the data at from into r, one of them device memory; m,
 * sreq (either may be NULL) and ack (NULL: none) are settled at the
 * end. */
static void dev_copy_start(amp_pe_t *pe, amp_p2p_req_t *r,
                           const dev_src_t *from, amp_msg_t *m,
                           amp_p2p_req_t *sreq, const dev_ack_t *ack)
{
    amp_gpu_t *gpu = world_of(pe)->gpu;
    const void *data = from->data;
    int sdev = from->dev;
    size_t n = from->n;
    int both = amp_p2p_on_device(r) && sdev >= 0;
    size_t chunks = both ? 1 : (n + AMP_GPU_CHUNK - 1) / AMP_GPU_CHUNK;
    dev_copy_t *c = malloc(sizeof(*c) + chunks * sizeof(c->ch[0]));
    if (!c) { /* only this receive fails (MPI_ERR_NO_MEM) */
        r->error = AMP_ERR_NOMEM;
        dev_matched_end(pe, gpu, r, sreq, m, ack);
        return;
    }
    *c = (dev_copy_t){.pe = pe,
                      .gpu = gpu,
                      .r = r,
                      .sreq = sreq,
                      .m = m,
                      .acks = ack != NULL,
                      .ack = ack ? *ack : (dev_ack_t){0},
                      .src = data,
                      .sdev = sdev,
                      .n = n,
                      .chunks = chunks,
                      .to_host = !amp_p2p_on_device(r),
                      .left = 1,
                      .st = AMP_OK};
    r->owner->dev_busy++;
    if (sreq)
        sreq->owner->dev_busy++;
    if (both)
        dev_chunk_queue(c, 0, 0, n, r->buf, r->mem.device, data, sdev);
    else
        dev_copy_bounce(c, from->dt, from->keep);
    dev_copy_release(c);
}

int amp_p2p_dev_copy_in(amp_pe_t *pe, amp_p2p_req_t *r,
                        const amp_p2p_dev_in_t *in)
{
    const amp_p2p_req_t *from = in->from;
    int sdev = from && amp_p2p_on_device(from) ? from->mem.device : -1;
    if (!amp_p2p_on_device(r) && sdev < 0)
        return 0;
    size_t n = in->bytes;
    if (n > r->bytes) {
        n = r->bytes;
        r->error = AMP_ERR_TRUNCATE;
    }
    if (n == 0)
        return 0;
    r->st_bytes = n;
    r->st_source = in->src;
    r->st_tag = in->tag;
    /* The data stays until the end when it is the sender's buffer or in
     * the envelope; else (a ring slot, an arrival) it is copied at once. */
    dev_src_t src = {.data = in->data,
                     .dt = in->dt,
                     .dev = sdev,
                     .keep = from || in->m,
                     .n = n};
    dev_copy_start(pe, r, &src, in->m, in->sreq, NULL);
    return 1;
}

/* ---- between processes (dev.h) ---- */

enum dev_kind { DEV_RTS, DEV_CTS, DEV_CHUNK };

/* The header of every device message between processes; an RTS sends all
 * of it, the others up to rts. */
typedef struct dev_hdr {
    uint8_t kind; /* enum dev_kind */
    uint8_t ok;   /* CHUNK: the sender could copy it off its device */
    uint8_t pad[2];
    int32_t ctx, src, tag, dst; /* RTS: the envelope */
    uint64_t sreq;              /* CTS: the sender's request */
    uint64_t rstate;            /* CTS, CHUNK: the receiver's dev_recv_t */
    uint64_t off, bytes;        /* CTS: bytes wanted; CHUNK: its place */
    amp_p2p_dev_rts_t rts;      /* RTS */
} dev_hdr_t;

_Static_assert(sizeof(dev_hdr_t) <= AMP_P2P_AM_HDR_MAX, "device header");

static size_t chunk_len(size_t n, size_t off)
{
    return n - off < AMP_GPU_CHUNK ? n - off : AMP_GPU_CHUNK;
}

/* A message of the protocol could not be sent: the other process is gone
 * or unreachable, and the transfer can never end (arg: that process). */
static void sent_check(void *arg, int ok)
{
    if (!ok)
        amp_fatal("UCX could not send a message about device memory to "
                  "process %d",
                  (int)(intptr_t)arg);
}

/* To the PE that runs world rank rank now (a sender waiting for its data
 * to be taken does not move between processes). */
static void send_to_rank(amp_pe_t *pe, int rank, const dev_hdr_t *h,
                         size_t hlen)
{
    amp_p2p_world_t *w = world_of(pe);
    int proc = w->rank_proc[rank];
    w->between->am_send(pe, &(amp_p2p_am_out_t){.id = AMP_P2P_AM_GPU,
                                                .proc = proc,
                                                .pe = w->rank_pe[rank],
                                                .hdr = h,
                                                .hlen = hlen,
                                                .done = sent_check,
                                                .arg = (void *)(intptr_t)proc});
}

int amp_p2p_dev_order(amp_pe_t *pe, int peer, int send)
{
    amp_p2p_world_t *w = world_of(pe);
    if (w->nprocs == 1)
        return 0;
    int proc = peer >= 0 ? w->rank_proc[peer] : -1;
    if (proc == w->proc)
        return 0;
    if (!send) /* UCX fetches into device memory of this process */
        return moves_device(pe, w->proc);
    if (proc < 0)
        return 0;
    int same = w->proc_node[proc] == w->proc_node[w->proc];
    int xfer =
        amp_gpu_xfer_choose(amp_gpu_mode(w->gpu), same, moves_device(pe, proc));
    return xfer != AMP_GPU_XFER_PIPELINE;
}

/* The transport's send (transport.h): device send req to world rank
 * req->peer, of another process: through the transport between processes
 * when it moves device memory itself, else announced (RTS). */
static void send_net(amp_pe_t *pe, amp_p2p_req_t *req)
{
    amp_p2p_world_t *w = world_of(pe);
    amp_gpu_t *g = w->gpu;
    int dst = req->peer, proc = w->rank_proc[dst];
    int same = w->proc_node[proc] == w->proc_node[w->proc];
    int xfer =
        amp_gpu_xfer_choose(amp_gpu_mode(g), same, moves_device(pe, proc));
    if (xfer == AMP_GPU_XFER_UCX) {
        w->between->send(pe, req, AMP_P2P_SYNC);
        return;
    }
    dev_hdr_t h = {.kind = DEV_RTS,
                   .ctx = req->ctx,
                   .src = req->src,
                   .tag = req->tag,
                   .dst = dst};
    h.rts.sreq = (uint64_t)(uintptr_t)req;
    h.rts.bytes = req->bytes;
    h.rts.from_rank = req->owner->world_rank;
    amp_gpu_range_t r;
    if (xfer == AMP_GPU_XFER_IPC && req->bytes > 0 &&
        amp_gpu_is_device(g, pe, req->buf, &r) &&
        amp_gpu_ipc_export(g, pe, &r, req->buf, &h.rts.ipc) == AMP_OK)
        h.rts.has_ipc = 1;
    send_to_rank(pe, dst, &h, sizeof(h));
}

/* ---- the receiver: pipelined chunks ---- */

typedef struct dev_recv dev_recv_t;

/* One chunk of a dev_recv_t. */
typedef struct dev_piece {
    dev_recv_t *rs;
    size_t off, len;
    char *bounce; /* device receive: where it lands first */
    size_t cap;   /* bounce is pinned, cap bytes; 0: malloc'ed */
    int arrived;
} dev_piece_t;

/* A matched receive whose data comes in chunks. */
struct dev_recv {
    amp_pe_t *pe; /* where the chunks come (this PE's stream) */
    amp_gpu_t *gpu;
    amp_p2p_req_t *r;
    size_t n, landed; /* bytes expected, and in place so far */
    char *host;       /* a host layout with gaps: chunks land here first */
    amp_status_t st;
    dev_piece_t piece[];
};

static void recv_finish(dev_recv_t *rs)
{
    const amp_p2p_core_ops_t *core = amp_p2p_core(rs->pe);
    amp_p2p_req_t *r = rs->r;
    if (rs->st != AMP_OK && r->error == AMP_OK)
        r->error = rs->st;
    if (rs->st == AMP_OK && rs->host)
        amp_dt_copy_typed(NULL, rs->host, r->dt, r->buf, rs->n);
    dev_live(rs->pe, -1);
    free(rs->host);
    free(rs);
    r->owner->dev_busy--;
    core->complete(r);
}

static void piece_landed(void *arg, amp_status_t st)
{
    dev_piece_t *k = arg;
    dev_recv_t *rs = k->rs;
    if (st != AMP_OK && rs->st == AMP_OK)
        rs->st = st;
    if (k->bounce && k->cap)
        amp_gpu_host_put(rs->gpu, rs->pe, k->bounce, k->cap);
    else
        free(k->bounce);
    k->bounce = NULL;
    rs->landed += k->len;
    if (rs->landed == rs->n)
        recv_finish(rs);
}

/* Chunk k is in rs's landing place: onto the device if r is there. */
static void piece_arrived(dev_piece_t *k, amp_status_t st)
{
    dev_recv_t *rs = k->rs;
    amp_p2p_req_t *r = rs->r;
    if (st != AMP_OK || !amp_p2p_on_device(r)) {
        piece_landed(k, st);
        return;
    }
    const amp_gpu_copy_desc_t d = {(char *)r->buf + k->off, k->bounce, k->len,
                                   r->mem.device, -1};
    st = amp_gpu_copy_between(rs->gpu, rs->pe, &d, piece_landed, k);
    if (st != AMP_OK)
        piece_landed(k, st);
}

static void piece_fetched(void *arg, int ok)
{
    piece_arrived(arg, ok ? AMP_OK : AMP_ERR_SYS);
}

/* Where chunk k lands: for a device receive a pinned buffer of its own
 * (from the PE's pool, back there once the chunk is on the device), for a
 * host layout with gaps the temporary, else the receive buffer itself. */
static char *piece_landing(dev_recv_t *rs, dev_piece_t *k)
{
    amp_p2p_req_t *r = rs->r;
    if (!amp_p2p_on_device(r))
        return (rs->host ? rs->host : (char *)r->buf) + k->off;
    k->bounce = amp_gpu_host_get(rs->gpu, rs->pe, k->len, &k->cap);
    if (!k->bounce) {
        k->cap = 0; /* pageable: slower copies, same result */
        if (!(k->bounce = malloc(k->len)))
            amp_fatal("out of memory receiving %zu bytes of device memory",
                      rs->n);
    }
    return k->bounce;
}

/* Asks the sender for n bytes in chunks (the pipeline). */
static void recv_pipeline(amp_pe_t *pe, amp_p2p_req_t *r,
                          const amp_p2p_dev_rts_t *rts, size_t n)
{
    size_t pieces = (n + AMP_GPU_CHUNK - 1) / AMP_GPU_CHUNK;
    dev_recv_t *rs = malloc(sizeof(*rs) + pieces * sizeof(rs->piece[0]));
    if (!rs)
        amp_fatal("out of memory receiving %zu bytes of device memory", n);
    *rs = (dev_recv_t){.pe = pe, .gpu = world_of(pe)->gpu, .r = r, .n = n};
    r->owner->dev_busy++;
    dev_live(pe, 1);
    for (size_t i = 0; i < pieces; i++)
        rs->piece[i] = (dev_piece_t){.rs = rs,
                                     .off = i * AMP_GPU_CHUNK,
                                     .len = chunk_len(n, i * AMP_GPU_CHUNK)};
    if (!amp_p2p_on_device(r) && r->dt && !(rs->host = malloc(n)))
        amp_fatal("out of memory receiving %zu bytes of device memory", n);
    dev_hdr_t h = {.kind = DEV_CTS,
                   .sreq = rts->sreq,
                   .rstate = (uint64_t)(uintptr_t)rs,
                   .bytes = n};
    send_to_rank(pe, rts->from_rank, &h, offsetof(dev_hdr_t, rts));
}

/* A chunk for rs arrived on pe (the PE that asked for it). */
static void recv_chunk(amp_pe_t *pe, const dev_hdr_t *h, const amp_p2p_am_t *m)
{
    dev_recv_t *rs = (dev_recv_t *)(uintptr_t)h->rstate;
    amp_assert(pe == rs->pe && h->off < rs->n);
    dev_piece_t *k = &rs->piece[h->off / AMP_GPU_CHUNK];
    if (h->off % AMP_GPU_CHUNK || k->arrived)
        amp_fatal("a chunk of device memory from process %d at offset %llu "
                  "came twice or out of place: are all processes the same "
                  "program?",
                  m->from_proc, (unsigned long long)h->off);
    k->arrived = 1;
    if (h->ok && m->bytes != k->len)
        amp_fatal("a %zu-byte chunk of device memory from process %d where "
                  "%zu bytes were due: are all processes the same program?",
                  m->bytes, m->from_proc, k->len);
    if (!h->ok) { /* the sender could not copy it off its device */
        piece_arrived(k, AMP_ERR_OTHER);
        return;
    }
    char *at = piece_landing(rs, k);
    if (m->data) {
        memcpy(at, m->data, k->len);
        piece_arrived(k, AMP_OK);
    } else {
        world_of(pe)->between->am_fetch(pe, m->desc, at, k->len, piece_fetched,
                                        k);
    }
}

/* Maps the sender's buffer and copies it with the GPU (CUDA IPC); 0 when
 * it cannot be mapped here. */
static int recv_ipc(amp_pe_t *pe, amp_p2p_req_t *r,
                    const amp_p2p_dev_rts_t *rts, int from_proc, size_t n)
{
    amp_gpu_t *g = world_of(pe)->gpu;
    void *base;
    if (!g || !rts->has_ipc ||
        amp_gpu_ipc_open(g, pe, from_proc, &rts->ipc, &base) != AMP_OK)
        return 0;
    dev_ack_t ack = {
        .ipc_base = base, .rank = rts->from_rank, .sreq = rts->sreq};
    dev_live(pe, 1); /* until the acknowledgement is sent */
    dev_src_t src = {.data = (char *)base + rts->ipc.offset,
                     .dev = amp_gpu_pe_device(g, pe),
                     .keep = 1,
                     .n = n};
    dev_copy_start(pe, r, &src, NULL, NULL, &ack);
    return 1;
}

/* Receive r has matched rts, announced by process from_proc: the data
 * moves (IPC or pipeline) and r completes when it is there. */
static void dev_matched(amp_pe_t *pe, amp_p2p_req_t *r,
                        const amp_p2p_dev_rts_t *rts, int from_proc, int src,
                        int tag)
{
    size_t n = rts->bytes;
    if (n > r->bytes) {
        n = r->bytes;
        r->error = AMP_ERR_TRUNCATE;
    }
    r->st_bytes = n;
    r->st_source = src;
    r->st_tag = tag;
    if (n == 0) {
        dev_ack(pe, rts->from_rank, rts->sreq);
        amp_p2p_core(pe)->complete(r);
        return;
    }
    if (!recv_ipc(pe, r, rts, from_proc, n))
        recv_pipeline(pe, r, rts, n);
}

/* ---- the sender: pipelined chunks ---- */

typedef struct dev_send dev_send_t;

/* One slot of the window: a chunk being copied off the device or sent. */
typedef struct dev_slot {
    dev_send_t *s;
    char *host; /* its part of the bounce buffer */
    size_t off, len;
    struct dev_slot *next_free;
} dev_slot_t;

struct dev_send {
    amp_pe_t *pe;
    amp_gpu_t *gpu;
    amp_p2p_req_t *sreq;
    int to_proc, to_pe; /* the receiving PE, which asked */
    uint64_t rstate;
    size_t n, next;      /* bytes to send; the next to copy */
    size_t chunks, sent; /* chunks in all; chunks UCX is done with */
    char *bounce;        /* pinned, AMP_GPU_WINDOW chunks */
    size_t cap;          /* 0: malloc'ed */
    int pumping;         /* in send_pump: callbacks leave the loop to it */
    dev_slot_t *free;
    amp_status_t st;
    dev_slot_t slot[AMP_GPU_WINDOW];
};

static void send_finish(dev_send_t *s)
{
    const amp_p2p_core_ops_t *core = amp_p2p_core(s->pe);
    amp_p2p_req_t *sreq = s->sreq;
    if (s->cap)
        amp_gpu_host_put(s->gpu, s->pe, s->bounce, s->cap);
    else
        free(s->bounce);
    if (s->st != AMP_OK && sreq->error == AMP_OK)
        sreq->error = s->st;
    sreq->owner->dev_busy--;
    dev_live(s->pe, -1);
    free(s);
    sreq->st_bytes = sreq->bytes;
    core->complete(sreq);
}

static void chunk_copied(void *arg, amp_status_t st);

/* Starts copying chunks off the device while the window has room; the
 * send is done when UCX is done with the last chunk. */
static void send_pump(dev_send_t *s)
{
    if (s->pumping)
        return;
    s->pumping = 1;
    while (s->free && s->next < s->n) {
        dev_slot_t *k = s->free;
        s->free = k->next_free;
        k->off = s->next;
        k->len = chunk_len(s->n, s->next);
        s->next += k->len;
        const amp_gpu_copy_desc_t d = {k->host,
                                       (const char *)s->sreq->buf + k->off,
                                       k->len, -1, s->sreq->mem.device};
        amp_status_t st =
            amp_gpu_copy_between(s->gpu, s->pe, &d, chunk_copied, k);
        if (st != AMP_OK)
            chunk_copied(k, st);
    }
    s->pumping = 0;
    if (s->sent == s->chunks)
        send_finish(s);
}

static void chunk_sent(void *arg, int ok)
{
    dev_slot_t *k = arg;
    dev_send_t *s = k->s;
    sent_check((void *)(intptr_t)s->to_proc, ok);
    k->next_free = s->free;
    s->free = k;
    s->sent++;
    send_pump(s);
}

/* Chunk k is in pinned memory (or failed: the receiver is told so). */
static void chunk_copied(void *arg, amp_status_t st)
{
    dev_slot_t *k = arg;
    dev_send_t *s = k->s;
    if (st != AMP_OK && s->st == AMP_OK)
        s->st = st;
    dev_hdr_t h = {.kind = DEV_CHUNK,
                   .ok = st == AMP_OK,
                   .rstate = s->rstate,
                   .off = k->off,
                   .bytes = k->len};
    world_of(s->pe)->between->am_send(
        s->pe, &(amp_p2p_am_out_t){.id = AMP_P2P_AM_GPU,
                                   .proc = s->to_proc,
                                   .pe = s->to_pe,
                                   .hdr = &h,
                                   .hlen = offsetof(dev_hdr_t, rts),
                                   .data = st == AMP_OK ? k->host : NULL,
                                   .bytes = st == AMP_OK ? k->len : 0,
                                   .done = chunk_sent,
                                   .arg = k});
}

/* The receiver matched and wants h->bytes in chunks. */
static void send_start(amp_pe_t *pe, const dev_hdr_t *h, const amp_p2p_am_t *m)
{
    amp_p2p_req_t *sreq = (amp_p2p_req_t *)(uintptr_t)h->sreq;
    dev_send_t *s = malloc(sizeof(*s));
    if (!s)
        amp_fatal("out of memory sending device memory to another process");
    size_t n = h->bytes;
    size_t win =
        n < AMP_GPU_WINDOW * AMP_GPU_CHUNK ? n : AMP_GPU_WINDOW * AMP_GPU_CHUNK;
    sreq->owner->dev_busy++;
    dev_live(pe, 1);
    *s = (dev_send_t){.pe = pe,
                      .gpu = world_of(pe)->gpu,
                      .sreq = sreq,
                      .to_proc = m->from_proc,
                      .to_pe = m->from_pe,
                      .rstate = h->rstate,
                      .n = n,
                      .chunks = (n + AMP_GPU_CHUNK - 1) / AMP_GPU_CHUNK};
    s->bounce = amp_gpu_host_get(s->gpu, pe, win, &s->cap);
    if (!s->bounce) {
        s->cap = 0;
        if (!(s->bounce = malloc(win)))
            amp_fatal("out of memory sending device memory to another "
                      "process");
    }
    for (int i = AMP_GPU_WINDOW - 1; i >= 0; i--) {
        dev_slot_t *k = &s->slot[i];
        *k =
            (dev_slot_t){.s = s, .host = s->bounce + (size_t)i * AMP_GPU_CHUNK};
        if ((size_t)i * AMP_GPU_CHUNK < win) {
            k->next_free = s->free;
            s->free = k;
        }
    }
    send_pump(s);
}

/* ---- arrivals ---- */

/* An announced device message for world rank dst (on pe, which runs it):
 * the data moves when it matches a receive; until then it waits as an
 * unexpected message of this transport's, with a copy of rts. */
static void dev_deliver(amp_pe_t *pe, int ctx, int src, int tag, int dst,
                        int from_proc, const amp_p2p_dev_rts_t *rts)
{
    const amp_p2p_core_ops_t *core = amp_p2p_core(pe);
    amp_p2p_req_t *r = core->match(pe, dst, ctx, src, tag, from_proc);
    if (r) {
        dev_matched(pe, r, rts, from_proc, src, tag);
        return;
    }
    amp_p2p_dev_rts_t *copy = malloc(sizeof(*copy));
    if (!copy)
        amp_fatal("out of memory holding a message from process %d", from_proc);
    *copy = *rts;
    amp_msg_t *m = core->msg(pe, &amp_p2p_dev_tp, ctx, src, tag, dst,
                             (size_t)rts->bytes, from_proc);
    m->from_rank = rts->from_rank;
    m->data = copy;
    core->queue(pe, m);
}

void amp_p2p_dev_am(amp_pe_t *pe, const amp_p2p_am_t *m)
{
    dev_hdr_t h = {0};
    if (m->hlen < offsetof(dev_hdr_t, rts) || m->hlen > sizeof(h))
        amp_fatal("a device message from process %d has a %zu-byte header",
                  m->from_proc, m->hlen);
    memcpy(&h, m->hdr, m->hlen);
    if (h.kind == DEV_RTS && m->hlen != sizeof(h))
        amp_fatal("a device message from process %d has a %zu-byte header",
                  m->from_proc, m->hlen);
    switch (h.kind) {
    case DEV_RTS:
        dev_deliver(pe, h.ctx, h.src, h.tag, h.dst, m->from_proc, &h.rts);
        break;
    case DEV_CTS: send_start(pe, &h, m); break;
    case DEV_CHUNK: recv_chunk(pe, &h, m); break;
    default:
        amp_fatal("a device message of unknown kind %d from process %d", h.kind,
                  m->from_proc);
    }
}

/* ---- the transport's table (transport.h) ---- */

static void dev_tp_send(amp_pe_t *pe, amp_p2p_req_t *req, int mode)
{
    (void)mode; /* always a rendezvous */
    send_net(pe, req);
}

static void dev_tp_matched(amp_pe_t *pe, amp_msg_t *m, amp_p2p_req_t *r)
{
    dev_matched(pe, r, m->data, m->from_proc, m->src, m->tag);
    free((void *)m->data);
    amp_p2p_core(pe)->release(pe, m);
}

/* An announcement holds the sender's transfer open: it stays. */
static int dev_tp_withdraw(amp_pe_t *pe, amp_msg_t *m)
{
    (void)pe;
    (void)m;
    return 0;
}

/* The cancellation travels as any other between the processes. */
static void dev_tp_cancel(amp_pe_t *pe, const amp_p2p_req_t *req)
{
    world_of(pe)->between->cancel(pe, req);
}

/* What moves device memory between processes; the rest is the transport
 * between processes' (its active messages carry this protocol). */
const amp_p2p_tp_t amp_p2p_dev_tp = {
    .name = "dev",
    .send = dev_tp_send,
    .matched = dev_tp_matched,
    .withdraw = dev_tp_withdraw,
    .cancel = dev_tp_cancel,
};
