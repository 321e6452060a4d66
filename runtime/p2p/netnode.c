/* The rings between the PEs of the processes of one node; see net_impl.h.
 *
 * The node's first process creates one shared object, the others map it:
 *
 *   flags   a word per PE of each process (64 bytes apart): the PE sleeps
 *           (set by it before it sleeps, cleared by whoever wakes it)
 *   cma     [reader][owner]: whether the reader process may copy from the
 *           owner's memory (1 yes, 2 no, 0 not known yet)
 *   fence   a byte per process: whether it registered for asymmetric
 *           fences (1 yes, 2 no, 0 not known yet)
 *   split   a line per PE of each process: the state of the copy it shares
 *           with a sender (below)
 *   rings   one per ordered pair of PEs of two different processes
 *
 * Each ring takes size bytes of lines: 64 KiB, less when the node has so
 * many pairs of PEs that the rings would take more than RING_BUDGET (at
 * least 8 KiB).  A record takes at most half a ring; larger eager messages
 * go through UCX.
 *
 * A rendezvous through a ring carries the address of the sender's data and
 * of its send record; the receiver, once the message matched, copies the
 * data with process_vm_readv straight into the receive buffer and answers
 * with AMP_NET_FIN, which finishes the send.  Between two processes that
 * may not copy from each other (cma not 1), rendezvous go through UCX.
 *
 * A large one (AMPI_NODE_SPLIT_COPY, 256 KiB by default) is copied by both
 * processes at once, each on its own core: the receiver cuts it into 8
 * chunks (64 KiB to 512 KiB each), starts a new episode of its PE's split
 * line (the episode and the chunks claimed, in one word; the bytes copied),
 * and asks the sender's PE for help (AMP_NET_HELP, with the addresses).
 * Each side claims the next chunk with a compare-and-swap on that word and
 * copies it, the receiver reading from the sender's memory, the sender
 * writing into the receiver's, until none is left; the receiver then waits
 * until every claimed chunk is copied before it finishes.  A sender busy
 * elsewhere simply finds every chunk claimed (or a later episode) when it
 * gets to the request, and a chunk the sender could not write is copied
 * again by the receiver.
 *
 * A PE about to sleep sets its flag and looks at its rings once more; a
 * sender stores its record and then looks at the flag, with a fence
 * between on each side (shmring.h's handshake), so at least one of them
 * sees the other.  The fence is asymmetric (membarrier on the sleeping
 * side, none on the sender's) between two processes that both registered
 * for it (AMPI_NODE_MEMBARRIER, on where the kernel allows).  A sender
 * that finds the flag set clears it and sends an empty UCX message to the
 * PE, whose arrival ends the PE's sleep on its UCX worker. */
#include "p2p/net_impl.h"

#include <stdlib.h>
#include <string.h>

#define RING_MAX (64u << 10)
#define RING_MIN (8u << 10)
#define RING_BUDGET ((size_t)32 << 20)
#define FLAG_BYTES 64
#define SHM_TAG "net"
#define OPEN_WAIT_MS 60000

/* A plain eager message of up to 16 bytes is one line of a ring: the
 * record's word, the short header and the data. */
_Static_assert(sizeof(amp_shr_word_t) + NET_HDR_SHORT + 16 <= AMP_SHR_LINE,
               "a 16-byte eager message takes more than one line");

/* A rendezvous that came through a ring, until its data is copied. */
typedef struct net_cma {
    uint64_t addr; /* the data, in the sender's process */
    uint64_t op;   /* the sender's record, echoed by AMP_NET_FIN */
    int proc, pe;  /* the sender */
} net_cma_t;

static int nlocal(const amp_net_t *net)
{
    return net->node->nprocs;
}

static _Atomic uint32_t *flag_at(const amp_net_t *net, int n, int pe)
{
    return (_Atomic uint32_t *)(net->shm +
                                ((size_t)n * (size_t)net->maxpes + (size_t)pe) *
                                    FLAG_BYTES);
}

static size_t cma_off(const amp_net_t *net)
{
    return (size_t)nlocal(net) * (size_t)net->maxpes * FLAG_BYTES;
}

static _Atomic uint8_t *cma_at(const amp_net_t *net, int reader, int owner)
{
    return (_Atomic uint8_t *)(net->shm + cma_off(net) +
                               (size_t)reader * (size_t)nlocal(net) +
                               (size_t)owner);
}

static size_t fence_off(const amp_net_t *net)
{
    return cma_off(net) + (size_t)nlocal(net) * (size_t)nlocal(net);
}

/* The copy a receiving PE shares with a sender (one at a time: the
 * receiver copies before it goes on). */
typedef struct split {
    _Atomic uint64_t claim; /* the episode << 32 | chunks claimed */
    _Atomic uint64_t done;  /* bytes of the episode's chunks copied */
    _Atomic uint32_t bad;   /* an episode a chunk of failed to copy in */
} split_t;
_Static_assert(sizeof(split_t) <= 64, "a split copy's state is one line");

static size_t split_off(const amp_net_t *net)
{
    return AMP_ROUND_UP(fence_off(net) + (size_t)nlocal(net), 64);
}

static split_t *split_at(const amp_net_t *net, int n, int pe)
{
    return (split_t *)(net->shm + split_off(net) +
                       ((size_t)n * (size_t)net->maxpes + (size_t)pe) * 64);
}

static _Atomic uint8_t *fence_at(const amp_net_t *net, int n)
{
    return (_Atomic uint8_t *)(net->shm + fence_off(net) + (size_t)n);
}

/* The ring from PE spe of node process sn to PE dpe of dn (sn != dn). */
static amp_shr_t *ring_at(const amp_net_t *net, int sn, int spe, int dn,
                          int dpe)
{
    size_t nl = (size_t)nlocal(net), maxpes = (size_t)net->maxpes;
    size_t pair = (size_t)sn * (nl - 1) + (size_t)(dn < sn ? dn : dn - 1);
    size_t idx = (pair * maxpes + (size_t)spe) * maxpes + (size_t)dpe;
    return (amp_shr_t *)(net->shm + net->rings_off +
                         idx * AMP_SHR_BYTES(net->ring_size));
}

/* The layout of the node's object (net->ring_size, rings_off, shm_bytes). */
static void layout(amp_net_t *net)
{
    size_t nl = (size_t)nlocal(net), maxpes = (size_t)net->maxpes;
    size_t rings = nl * (nl - 1) * maxpes * maxpes;
    uint32_t size = RING_MAX;
    while (size > RING_MIN && (size_t)size * rings > RING_BUDGET)
        size /= 2;
    net->ring_size = size;
    net->rings_off = split_off(net) + nl * maxpes * 64;
    net->shm_bytes = net->rings_off + rings * AMP_SHR_BYTES(size);
}

/* PE a's ends of the rings: out to, and in from, every PE of the node's
 * other processes. */
static amp_status_t pe_rings(amp_net_t *net, amp_net_pe_t *np, int a)
{
    const amp_node_t *node = net->node;
    int nl = nlocal(net), me = node->index, k = 0;
    np->tx = calloc((size_t)net->nprocs * (size_t)net->maxpes, sizeof(*np->tx));
    np->rx = calloc((size_t)(nl - 1) * (size_t)net->maxpes, sizeof(*np->rx));
    np->rx_chan =
        calloc((size_t)(nl - 1) * (size_t)net->maxpes, sizeof(unsigned));
    if (!np->tx || !np->rx || !np->rx_chan)
        return AMP_ERR_NOMEM;
    for (int i = 0; i < nl; i++) {
        int q = node->procs[i];
        for (int b = 0; i != me && b < net->proc_npes[q]; b++) {
            np->tx[chan(net, q, b)] = (amp_shr_tx_t){
                .r = ring_at(net, me, a, i, b), .size = net->ring_size};
            np->rx[k] = (amp_shr_rx_t){.r = ring_at(net, i, b, me, a),
                                       .size = net->ring_size};
            np->rx_chan[k++] = chan(net, q, b);
        }
    }
    np->nrx = k;
    np->sleeping = flag_at(net, me, a);
    return AMP_OK;
}

amp_status_t amp_net_node_setup(amp_p2p_world_t *w, amp_net_t *net,
                                amp_sched_t *sched,
                                const amp_net_node_ops_t *ops)
{
    const amp_node_t *node = &w->node;
    void *p = NULL;
    net->node_ops = ops;
    layout(net);
    amp_status_t st =
        node->index == 0
            ? amp_node_create(node, SHM_TAG, net->shm_bytes, node->nprocs - 1,
                              &p)
            : amp_node_open(node, SHM_TAG, net->shm_bytes, OPEN_WAIT_MS, &p);
    if (st != AMP_OK) {
        amp_log_error("cannot share %zu bytes of memory with the %d other "
                      "processes of this node (%s); AMPI_NODE_SHM=0 runs "
                      "without",
                      net->shm_bytes, node->nprocs - 1, amp_status_str(st));
        return st;
    }
    net->shm = p;
    for (int i = 0; i < node->nprocs; i++)
        atomic_store(cma_at(net, node->index, i), node->cma[i] ? 1 : 2);
    net->fence_asym = w->node_membarrier && amp_shr_fence_register();
    net->split_min = w->node_split;
    atomic_store(fence_at(net, node->index), net->fence_asym ? 1 : 2);
    for (int a = 0; st == AMP_OK && a < sched->npes; a++)
        st = pe_rings(net, net_of(sched->pes[a]), a);
    net->all_local = node->nprocs == net->nprocs;
    return st;
}

void amp_net_node_cleanup(amp_net_t *net, amp_sched_t *sched)
{
    if (!net->shm)
        return;
    for (int a = 0; a < sched->npes; a++) {
        amp_net_pe_t *np = net_of(sched->pes[a]);
        free(np->tx);
        free(np->rx);
        free(np->rx_chan);
        np->tx = NULL;
        np->rx = NULL;
        np->nrx = 0;
        np->sleeping = NULL;
    }
    amp_node_unmap(net->shm, net->shm_bytes);
    if (net->node->index == 0) /* if a process never came to open it */
        amp_node_drop(net->node, SHM_TAG);
    net->shm = NULL;
}

/* ---- sending --------------------------------------------------------- */

/* After a record went into a ring to PE rpe of process proc: wakes that
 * PE if it sleeps. */
static void notify(amp_net_pe_t *np, int proc, int rpe)
{
    amp_net_t *net = np->net;
    int n = net->node->of_proc[proc];
    _Atomic uint32_t *f = flag_at(net, n, rpe);
    amp_shr_fence_producer(
        net->fence_asym &&
        atomic_load_explicit(fence_at(net, n), memory_order_relaxed) == 1);
    if (atomic_load_explicit(f, memory_order_relaxed) &&
        atomic_exchange_explicit(f, 0, memory_order_relaxed))
        net->node_ops->wake_ucx(np, proc, rpe);
}

void amp_p2p_wake_node_pe(amp_pe_t *pe, int r)
{
    amp_net_pe_t *np = net_of(pe);
    amp_p2p_world_t *w = ((amp_p2p_pe_t *)pe->upper)->world;
    int proc = w->rank_proc[r];
    if (np && np->net->shm && proc != np->net->proc &&
        np->net->node->of_proc[proc] >= 0)
        notify(np, proc, w->rank_pe[r]);
}

int amp_net_node_post(amp_net_pe_t *np, net_op_t *op, int proc, int rpe,
                      const void *data, size_t bytes, int rndv)
{
    amp_net_t *net = np->net;
    amp_shr_tx_t *tx = &np->tx[chan(net, proc, rpe)];
    if (!tx->r)
        return 0;
    uint64_t ref[2] = {(uint64_t)(uintptr_t)data, (uint64_t)(uintptr_t)op};
    if (rndv && atomic_load_explicit(
                    cma_at(net, net->node->of_proc[proc], net->node->index),
                    memory_order_relaxed) != 1)
        return 0;
    size_t n = rndv ? sizeof(ref) : bytes;
    amp_shr_word_t *w = amp_shr_reserve(tx, op->hlen, n);
    if (!w)
        return 0;
    memcpy(amp_shr_hdr(w), &op->wire, op->hlen);
    if (n)
        memcpy(amp_shr_data(w, op->hlen), rndv ? (const void *)ref : data, n);
    amp_shr_commit(tx, w, op->hlen, n, rndv ? AMP_SHR_RNDV : 0);
    notify(np, proc, rpe);
    if (!rndv)
        net->node_ops->op_finish(op, 1);
    return 1;
}

/* ---- receiving ------------------------------------------------------- */

/* The record at w of the ring from a PE of another process. */
static void deliver(amp_pe_t *pe, const amp_net_node_ops_t *ops,
                    const amp_shr_word_t *w)
{
    amp_shr_word_t v = *w;
    char *hdr = amp_shr_hdr((amp_shr_word_t *)w);
    char *data = amp_shr_data((amp_shr_word_t *)w, v.hlen);
    if (!(v.flags & AMP_SHR_RNDV)) {
        ops->receive(pe, hdr, v.hlen, data, v.bytes, 0);
        return;
    }
    net_hdr_t h;
    uint64_t ref[2];
    if (v.hlen < sizeof(h) || v.bytes != sizeof(ref))
        amp_fatal("a rendezvous through shared memory has a %u-byte "
                  "header: are all processes the same program?",
                  (unsigned)v.hlen);
    memcpy(&h, hdr, sizeof(h));
    memcpy(ref, data, sizeof(ref));
    net_cma_t *c = malloc(sizeof(*c));
    if (!c)
        amp_fatal("out of memory receiving from another process");
    *c = (net_cma_t){ref[0], ref[1], h.from_proc, h.from_pe};
    ops->receive(pe, hdr, v.hlen, (void *)((uintptr_t)c | 1), (size_t)h.bytes,
                 1);
}

unsigned amp_net_node_progress(amp_pe_t *pe, amp_net_pe_t *np)
{
    if (np->in_rings)
        return 0;
    np->in_rings = 1;
    unsigned n = 0;
    for (int k = 0; k < np->nrx; k++) {
        amp_shr_word_t *w;
        while ((w = amp_shr_peek(&np->rx[k]))) {
            deliver(pe, np->net->node_ops, w);
            amp_shr_release(&np->rx[k], w);
            n++;
        }
    }
    np->in_rings = 0;
    return n;
}

int amp_net_node_waiting(amp_net_pe_t *np)
{
    for (int k = 0; k < np->nrx; k++)
        if (amp_shr_nonempty(&np->rx[k]))
            return 1;
    return 0;
}

/* Tells the sender of a rendezvous through a ring that its data was
 * copied (or could not be). */
static void send_fin(amp_net_pe_t *np, const net_cma_t *c, int ok)
{
    const amp_net_node_ops_t *ops = np->net->node_ops;
    net_op_t *op = ops->op_get(np);
    op->wire.hdr = (net_hdr_t){
        .kind = AMP_NET_FIN,
        .from_pe = (uint16_t)np->pe->id,
        .from_proc = np->net->proc,
        .ctx = ok,
        .seq = seq_next(&np->send_seq[chan(np->net, c->proc, c->pe)]),
        .sreq = c->op,
    };
    ops->op_send(np, op, c->proc, c->pe);
}

/* What AMP_NET_HELP carries (the episode is its ctx). */
typedef struct help {
    uint64_t src, dst; /* the sender's data, the receiver's buffer */
    uint64_t bytes, chunk;
} help_t;

/* Claims the next chunk of episode gen of s (of n chunks): its index, or
 * -1 when none is left (or s went on to another episode). */
static long claim(split_t *s, uint32_t gen, uint64_t n)
{
    uint64_t w = atomic_load_explicit(&s->claim, memory_order_acquire);
    while ((w >> 32) == gen && (uint32_t)w < n)
        if (atomic_compare_exchange_weak_explicit(&s->claim, &w, w + 1,
                                                  memory_order_acq_rel,
                                                  memory_order_acquire))
            return (long)(uint32_t)w;
    return -1;
}

/* Copies the chunks of h this side claims of episode gen of s: reading
 * from process pid (read) or writing into it. */
static void copy_chunks(split_t *s, uint32_t gen, const help_t *h, pid_t pid,
                        int read, void *local)
{
    uint64_t n = (h->bytes + h->chunk - 1) / h->chunk;
    long k;
    while ((k = claim(s, gen, n)) >= 0) {
        uint64_t off = (uint64_t)k * h->chunk;
        size_t len = (size_t)(h->bytes - off < h->chunk ? h->bytes - off
                                                        : h->chunk);
        amp_status_t st =
            read ? amp_node_cma_read(pid, (char *)local + off, h->src + off,
                                     len)
                 : amp_node_cma_write(pid, (const char *)(uintptr_t)h->src +
                                               off,
                                      h->dst + off, len);
        if (st != AMP_OK)
            atomic_store_explicit(&s->bad, gen, memory_order_relaxed);
        atomic_fetch_add_explicit(&s->done, len, memory_order_release);
    }
}

/* The receiver's side of a copy shared with the sender (process pid): 1
 * when every byte arrived. */
static int split_copy(amp_net_pe_t *np, const net_cma_t *c, pid_t pid,
                      void *into, size_t bytes)
{
    amp_net_t *net = np->net;
    split_t *s = split_at(net, net->node->index, np->pe->id);
    uint32_t gen = ++np->split_gen;
    if (!gen)
        gen = ++np->split_gen; /* 0 never names an episode */
    uint64_t chunk = AMP_ROUND_UP(bytes / 8, 4096);
    chunk = chunk < (64u << 10) ? 64u << 10 : chunk > (512u << 10) ? 512u << 10
                                                                  : chunk;
    help_t h = {c->addr, (uint64_t)(uintptr_t)into, bytes, chunk};
    atomic_store_explicit(&s->done, 0, memory_order_relaxed);
    atomic_store_explicit(&s->claim, (uint64_t)gen << 32, memory_order_release);
    net_op_t *op = net->node_ops->op_get(np);
    op->counted = 0;
    op->wire.hdr = (net_hdr_t){.kind = AMP_NET_HELP,
                               .from_pe = (uint16_t)np->pe->id,
                               .from_proc = net->proc,
                               .ctx = (int32_t)gen};
    net->node_ops->op_send_data(np, op, c->proc, c->pe, &h, sizeof(h));
    copy_chunks(s, gen, &h, pid, 1, into);
    while (atomic_load_explicit(&s->done, memory_order_acquire) < bytes)
        amp_sched_relax(); /* the sender finishes what it claimed */
    if (atomic_load_explicit(&s->bad, memory_order_relaxed) != gen)
        return 1;
    return amp_node_cma_read(pid, into, c->addr, bytes) == AMP_OK;
}

void amp_net_node_help(amp_net_pe_t *np, const net_hdr_t *hdr,
                       const void *data, size_t length)
{
    amp_net_t *net = np->net;
    help_t h;
    int n = net->node->of_proc[hdr->from_proc];
    if (length != sizeof(h) || n < 0 || hdr->from_pe >= net->maxpes)
        amp_fatal("a malformed request to copy from process %d: are all "
                  "processes the same program?",
                  (int)hdr->from_proc);
    memcpy(&h, data, sizeof(h));
    copy_chunks(split_at(net, n, hdr->from_pe), (uint32_t)hdr->ctx, &h,
                net->node->pids[n], 0, NULL);
}

int amp_net_node_fetch(amp_net_pe_t *np, void *desc, void *into, size_t bytes)
{
    net_cma_t *c = (net_cma_t *)((uintptr_t)desc & ~(uintptr_t)1);
    const amp_node_t *node = np->net->node;
    int sn = node->of_proc[c->proc];
    pid_t pid = node->pids[sn];
    int ok = np->net->split_min && bytes >= np->net->split_min &&
                     atomic_load_explicit(cma_at(np->net, sn, node->index),
                                          memory_order_relaxed) == 1
                 ? split_copy(np, c, pid, into, bytes)
                 : amp_node_cma_read(pid, into, c->addr, bytes) == AMP_OK;
    if (!ok)
        amp_log_error("cannot copy %zu bytes from process %d of this node "
                      "(process_vm_readv); AMPI_NODE_SHM=0 runs without",
                      bytes, c->proc);
    send_fin(np, c, ok);
    free(c);
    return ok;
}

void amp_net_node_discard(amp_net_pe_t *np, void *desc)
{
    net_cma_t *c = (net_cma_t *)((uintptr_t)desc & ~(uintptr_t)1);
    send_fin(np, c, 1);
    free(c);
}

/* ---- sleeping -------------------------------------------------------- */

int amp_net_node_sleep_begin(amp_net_pe_t *np)
{
    atomic_store_explicit(np->sleeping, 1, memory_order_seq_cst);
    if (amp_shr_fence_sleeper(np->net->fence_asym) &&
        !amp_net_node_waiting(np))
        return 1;
    atomic_store_explicit(np->sleeping, 0, memory_order_relaxed);
    return 0;
}

void amp_net_node_sleep_end(amp_net_pe_t *np)
{
    atomic_store_explicit(np->sleeping, 0, memory_order_relaxed);
}
