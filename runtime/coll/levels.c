/*
 * Gather, scatter, allgather, alltoall, reduce and reduce-scatter in two
 * levels across processes (hier.h), on the layout of hier.c: each
 * process's members are one block of consecutive comm ranks.
 *
 * Each call runs stages one after another, each a schedule (coll/nbc.h) on
 * a view of the communicator: the local view (this process's members, whose
 * messages stay in the process) or the gatherers' view (one member per
 * process: the root in its process, the first member elsewhere).  Both
 * views use the call's collective context; the gatherers' messages take
 * tags of another sequence number, so that a gatherer's messages of the two
 * levels never match each other.  Between processes every pair of
 * gatherers exchanges one message per call, packed bytes in rank order,
 * where the one-level algorithms send one per pair of ranks; between
 * processes of one node those go through the node's rings in shared memory
 * (or are copied once with cross-memory attach, p2p/net_impl.h).
 *
 * Reductions take the two-level allreduce (hier.c) and keep what the
 * call needs of its result, so that they combine in its order (the same
 * bits as MPI_Allreduce).  Scan and exscan stay one-level: a prefix split
 * at process boundaries would combine in an order that depends on where
 * the ranks run.  Alltoallv and alltoallw stay one-level too.
 */
#include "coll/hier.h"

#include "coll/nbc.h"
#include "coll/tree.h"

#include "mpi.h"

#include <stdlib.h>
#include <string.h>

/* XORed into the gatherers' sequence number (19 bits of it make tags). */
#define LEADERS_SEQ 0x40000u
/* Alltoall goes two-level up to this many bytes per pair of ranks when
 * the processes meet in node memory (every one on this node: above it, a
 * message per pair of ranks through the node's rings costs less than
 * regrouping the blocks), and up to A2A_NET otherwise: between nodes each
 * message pays the network's latency (16 ranks in 2 processes on 2 nodes
 * of scripts/cluster.sh: 1.0 ms at 512 bytes one-level, 0.21 to 0.28 ms
 * two-level; 0.83 to 1.2 ms against 0.67 to 0.79 ms at 4 KiB; no steady
 * gain at 32 KiB; docs/bench.md, "Between nodes"). */
#define A2A_SMALL 256
#define A2A_NET 4096

typedef struct levels {
    amp_coll_levels_t l;
    amp_coll_comm_t local, leaders;
    int *world; /* the gatherers' view's rank map */
    int gather; /* local rank of this process's gatherer */
    int rb;     /* the root's block, or -1 */
} levels_t;

static const amp_dt_t *byte_dt(void)
{
    return amp_dt_predefined(AMPI_DTID_MPI_BYTE);
}

static const amp_dt_t *int_dt(void)
{
    return amp_dt_predefined(AMPI_DTID_MPI_INT);
}

static char *elem_at(const void *buf, long long disp, const amp_dt_t *dt)
{
    return (char *)buf + disp * (long long)dt->extent;
}

static int block_of(const amp_coll_levels_t *l, int r)
{
    return amp_coll_block_of(l->block_first, l->nblocks, r);
}

static int nlocal_of(const amp_coll_levels_t *l, int b)
{
    return l->block_first[b + 1] - l->block_first[b];
}

/* The views of call c; root (-1: none) is its process's gatherer. */
static amp_status_t levels_init(levels_t *v, const amp_coll_hier_t *h,
                                const amp_coll_comm_t *c, int root)
{
    amp_coll_hier_levels(h, &v->l);
    const amp_coll_levels_t *l = &v->l;
    v->world = malloc((size_t)l->nblocks * sizeof(int));
    if (!v->world)
        return AMP_ERR_NOMEM;
    memcpy(v->world, l->leader_world, (size_t)l->nblocks * sizeof(int));
    v->local = *c;
    v->local.rank = c->rank - l->first;
    v->local.size = l->nlocal;
    v->local.world = l->local_world;
    v->gather = 0;
    v->rb = root >= 0 ? block_of(l, root) : -1;
    if (root >= 0) {
        v->world[v->rb] = c->world ? c->world[root] : root;
        if (v->rb == l->block)
            v->gather = root - l->first;
    }
    v->leaders = *c;
    v->leaders.rank = l->block;
    v->leaders.size = l->nblocks;
    v->leaders.world = v->world;
    v->leaders.seq = c->seq ^ LEADERS_SEQ;
    return AMP_OK;
}

static int gatherer(const levels_t *v)
{
    return v->local.rank == v->gather;
}

/* Runs the schedule a builder made (st its outcome) to its end. */
static amp_status_t run(amp_status_t st, amp_nbc_t *s, const amp_coll_comm_t *c)
{
    if (st != AMP_OK)
        return st;
    amp_p2p_req_t done;
    done.on_done = NULL;
    st = amp_nbc_start(s, &done);
    if (st == AMP_OK && !done.done) {
        amp_p2p_req_t *p = &done;
        amp_p2p_wait_all(c->ep, &p, 1);
    }
    return st == AMP_OK ? done.error : st;
}

/* Offsets of n sizes, one after another; returns the total. */
static size_t prefix(const int *sizes, int n, int *offs)
{
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        offs[i] = (int)total;
        total += (size_t)sizes[i];
    }
    return total;
}

/* At this process's gatherer: the bytes each member brings or takes
 * (mine: this member's), in sizes[nlocal]: gathered when they may differ
 * (the v forms), else all mine. */
static amp_status_t member_sizes(levels_t *v, int mine, int differ, int *sizes)
{
    if (!differ) {
        for (int i = 0; gatherer(v) && i < v->local.size; i++)
            sizes[i] = mine;
        return AMP_OK;
    }
    amp_nbc_t *s = NULL;
    amp_status_t st = amp_coll_sched_gather(
        &v->local,
        &(amp_coll_blocks_t){.buf = &mine, .count = 1, .dt = int_dt()},
        &(amp_coll_blocks_t){.buf = sizes, .count = 1, .dt = int_dt()},
        v->gather, 0, &s);
    return run(st, s, &v->local);
}

/* The element counts and displacements of the members of block b, from
 * the call's (counts NULL: count each, displacements rank * count). */
static void block_layout(const levels_t *v, int b, int count, const int *counts,
                         const int *displs, int *cnt, int *dsp)
{
    int first = v->l.block_first[b];
    for (int i = 0; i < nlocal_of(&v->l, b); i++) {
        cnt[i] = counts ? counts[first + i] : count;
        dsp[i] = counts ? displs[first + i] : (first + i) * count;
    }
}

static amp_status_t levels_done(levels_t *v, amp_status_t st, void *a, void *b)
{
    free(a);
    free(b);
    free(v->world);
    return st;
}

/* At the root, the blocks of the side with a block per rank (as the
 * call gives it) that go through the other processes: each rank's element
 * count and displacement (cnt, dsp), each process block's packed bytes
 * (none for the root's own) at offs of a buffer of total bytes. */
typedef struct others {
    int *bytes, *offs, *cnt, *dsp;
    size_t total;
} others_t;

/* Lays out o for the blocks side b; AMP_ERR_NOMEM, or o->bytes to free. */
static amp_status_t others_init(const levels_t *v, const amp_coll_blocks_t *b,
                                others_t *o)
{
    const amp_coll_levels_t *l = &v->l;
    int size = l->block_first[l->nblocks];
    o->bytes = malloc((size_t)(2 * l->nblocks + 2 * size) * sizeof(int));
    if (!o->bytes)
        return AMP_ERR_NOMEM;
    o->offs = o->bytes + l->nblocks;
    o->cnt = o->offs + l->nblocks;
    o->dsp = o->cnt + size;
    for (int k = 0; k < l->nblocks; k++) {
        block_layout(v, k, b->count, b->counts, b->displs,
                     o->cnt + l->block_first[k], o->dsp + l->block_first[k]);
        o->bytes[k] = 0;
        for (int r = l->block_first[k]; k != v->rb && r < l->block_first[k + 1];
             r++)
            o->bytes[k] += o->cnt[r] * (int)b->dt->size;
    }
    o->total = prefix(o->bytes, l->nblocks, o->offs);
    return AMP_OK;
}

/* levels_init for a gather or scatter to or from root, with *sizes: room
 * for two ints per member of this process (freed by levels_done). */
static amp_status_t levels_open(levels_t *v, const amp_coll_hier_t *h,
                                const amp_coll_comm_t *c, int root, int **sizes)
{
    amp_status_t st = levels_init(v, h, c, root);
    if (st != AMP_OK)
        return st;
    *sizes = malloc((size_t)(2 * v->l.nlocal) * sizeof(int));
    return *sizes ? AMP_OK : levels_done(v, AMP_ERR_NOMEM, NULL, NULL);
}

/* Away from the root's process: member_sizes into sizes, their offsets
 * after them, and at the gatherer *tmp, a buffer of all of them (*total
 * bytes). */
static amp_status_t member_buffer(levels_t *v, int mine, int differ, int *sizes,
                                  char **tmp, size_t *total)
{
    int n = v->l.nlocal;
    amp_status_t st = member_sizes(v, mine, differ, sizes);
    *total = gatherer(v) ? prefix(sizes, n, sizes + n) : 0;
    if (st == AMP_OK && gatherer(v) && !(*tmp = malloc(*total + 1)))
        st = AMP_ERR_NOMEM;
    return st;
}

/* ---- gather ----------------------------------------------------------- */

/* The root's block: straight into the root's receive buffer. */
static amp_status_t gather_root_block(levels_t *v,
                                      const amp_coll_blocks_t *send,
                                      const amp_coll_blocks_t *recv,
                                      int in_place, int *cnt, int *dsp)
{
    if (gatherer(v))
        block_layout(v, v->l.block, recv->count, recv->counts, recv->displs,
                     cnt, dsp);
    amp_nbc_t *s = NULL;
    amp_status_t st = amp_coll_sched_gather(
        &v->local, send,
        &(amp_coll_blocks_t){
            .buf = recv->buf, .counts = cnt, .displs = dsp, .dt = recv->dt},
        v->gather, in_place, &s);
    return run(st, s, &v->local);
}

/* At the root: every other block's packed bytes from its gatherer, then
 * each member's part into place in recv. */
static amp_status_t gather_from_blocks(levels_t *v,
                                       const amp_coll_blocks_t *recv)
{
    const amp_coll_levels_t *l = &v->l;
    const amp_dt_t *rdt = recv->dt;
    others_t o;
    if (others_init(v, recv, &o) != AMP_OK)
        return AMP_ERR_NOMEM;
    char *tmp = malloc(o.total + 1);
    amp_nbc_t *s = NULL;
    amp_status_t st =
        tmp ? amp_coll_sched_gather(&v->leaders,
                                    &(amp_coll_blocks_t){.dt = byte_dt()},
                                    &(amp_coll_blocks_t){.buf = tmp,
                                                         .counts = o.bytes,
                                                         .displs = o.offs,
                                                         .dt = byte_dt()},
                                    v->rb, 1, &s)
            : AMP_ERR_NOMEM;
    st = run(st, s, &v->leaders);
    for (int b = 0; st == AMP_OK && b < l->nblocks; b++) {
        const char *p = tmp + o.offs[b];
        for (int r = l->block_first[b]; b != v->rb && r < l->block_first[b + 1];
             r++)
            p += amp_dt_unpack(rdt, o.cnt[r], elem_at(recv->buf, o.dsp[r], rdt),
                               p, (size_t)o.cnt[r] * rdt->size);
    }
    free(tmp);
    free(o.bytes);
    return st;
}

amp_status_t amp_coll_levels_gather(const amp_coll_hier_t *h,
                                    const amp_coll_comm_t *c,
                                    const amp_coll_blocks_t *send,
                                    const amp_coll_blocks_t *recv, int root,
                                    int in_place)
{
    levels_t v;
    int *sizes;
    char *tmp = NULL;
    size_t total;
    amp_status_t st = levels_open(&v, h, c, root, &sizes);
    if (st != AMP_OK)
        return st;
    int n = v.l.nlocal;
    if (v.rb == v.l.block) {
        st = gather_root_block(&v, send, recv, in_place, sizes, sizes + n);
        if (st == AMP_OK && gatherer(&v))
            st = gather_from_blocks(&v, recv);
        return levels_done(&v, st, sizes, NULL);
    }
    /* Elsewhere: packed to the first member, which sends the block. */
    st = member_buffer(&v, send->count * (int)send->dt->size,
                       recv->counts != NULL, sizes, &tmp, &total);
    amp_nbc_t *s = NULL;
    if (st == AMP_OK) {
        st = amp_coll_sched_gather(&v.local,
                                   &(amp_coll_blocks_t){.buf = send->buf,
                                                        .count = send->count,
                                                        .dt = send->dt},
                                   &(amp_coll_blocks_t){.buf = tmp,
                                                        .counts = sizes,
                                                        .displs = sizes + n,
                                                        .dt = byte_dt()},
                                   0, 0, &s);
        st = run(st, s, &v.local);
    }
    if (st == AMP_OK && gatherer(&v)) {
        st = amp_coll_sched_gather(
            &v.leaders,
            &(amp_coll_blocks_t){
                .buf = tmp, .count = (int)total, .dt = byte_dt()},
            &(amp_coll_blocks_t){.dt = byte_dt()}, v.rb, 0, &s);
        st = run(st, s, &v.leaders);
    }
    return levels_done(&v, st, sizes, tmp);
}

/* ---- scatter ---------------------------------------------------------- */

/* At the root: every other block's parts of send packed, to its
 * gatherer. */
static amp_status_t scatter_to_blocks(levels_t *v,
                                      const amp_coll_blocks_t *send)
{
    const amp_coll_levels_t *l = &v->l;
    const amp_dt_t *sdt = send->dt;
    others_t o;
    if (others_init(v, send, &o) != AMP_OK)
        return AMP_ERR_NOMEM;
    char *tmp = malloc(o.total + 1);
    for (int b = 0; tmp && b < l->nblocks; b++) {
        char *p = tmp + o.offs[b];
        for (int r = l->block_first[b]; b != v->rb && r < l->block_first[b + 1];
             r++) {
            amp_dt_pack(sdt, o.cnt[r], elem_at(send->buf, o.dsp[r], sdt), p);
            p += (size_t)o.cnt[r] * sdt->size;
        }
    }
    amp_nbc_t *s = NULL;
    amp_status_t st =
        tmp ? amp_coll_sched_scatter(&v->leaders,
                                     &(amp_coll_blocks_t){.buf = tmp,
                                                          .counts = o.bytes,
                                                          .displs = o.offs,
                                                          .dt = byte_dt()},
                                     &(amp_coll_blocks_t){.dt = byte_dt()},
                                     v->rb, 1, &s)
            : AMP_ERR_NOMEM;
    st = run(st, s, &v->leaders);
    free(tmp);
    free(o.bytes);
    return st;
}

amp_status_t amp_coll_levels_scatter(const amp_coll_hier_t *h,
                                     const amp_coll_comm_t *c,
                                     const amp_coll_blocks_t *send,
                                     const amp_coll_blocks_t *recv, int root,
                                     int in_place)
{
    levels_t v;
    int *sizes;
    char *tmp = NULL;
    size_t total;
    amp_nbc_t *s = NULL;
    amp_status_t st = levels_open(&v, h, c, root, &sizes);
    if (st != AMP_OK)
        return st;
    int n = v.l.nlocal;
    if (v.rb == v.l.block) { /* the other blocks first, then this one */
        if (gatherer(&v))
            st = scatter_to_blocks(&v, send);
        if (st == AMP_OK && gatherer(&v))
            block_layout(&v, v.l.block, send->count, send->counts, send->displs,
                         sizes, sizes + n);
        if (st == AMP_OK) {
            st = amp_coll_sched_scatter(
                &v.local,
                &(amp_coll_blocks_t){.buf = send->buf,
                                     .counts = sizes,
                                     .displs = sizes + n,
                                     .dt = send->dt},
                &(amp_coll_blocks_t){
                    .buf = recv->buf, .count = recv->count, .dt = recv->dt},
                v.gather, in_place, &s);
            st = run(st, s, &v.local);
        }
        return levels_done(&v, st, sizes, NULL);
    }
    st = member_buffer(&v, recv->count * (int)recv->dt->size,
                       send->counts != NULL, sizes, &tmp, &total);
    if (st == AMP_OK && gatherer(&v)) {
        st = amp_coll_sched_scatter(
            &v.leaders, &(amp_coll_blocks_t){.dt = byte_dt()},
            &(amp_coll_blocks_t){
                .buf = tmp, .count = (int)total, .dt = byte_dt()},
            v.rb, 0, &s);
        st = run(st, s, &v.leaders);
    }
    if (st == AMP_OK) {
        st = amp_coll_sched_scatter(&v.local,
                                    &(amp_coll_blocks_t){.buf = tmp,
                                                         .counts = sizes,
                                                         .displs = sizes + n,
                                                         .dt = byte_dt()},
                                    &(amp_coll_blocks_t){.buf = recv->buf,
                                                         .count = recv->count,
                                                         .dt = recv->dt},
                                    0, 0, &s);
        st = run(st, s, &v.local);
    }
    return levels_done(&v, st, sizes, tmp);
}

/* ---- allgather -------------------------------------------------------- */

/* Regular blocks: the members' blocks into the first member's receive
 * buffer, the processes' runs of blocks between the first members, the
 * whole buffer to the members through shared memory. */
static amp_status_t allgather_regular(levels_t *v,
                                      const amp_coll_blocks_t *send,
                                      const amp_coll_blocks_t *recv,
                                      int in_place)
{
    const void *sendbuf = send->buf;
    int scount = send->count, rcount = recv->count;
    const amp_dt_t *sdt = send->dt, *rdt = recv->dt;
    void *recvbuf = (void *)recv->buf;
    const amp_coll_levels_t *l = &v->l;
    int n = l->nlocal, nb = l->nblocks, size = l->block_first[nb];
    int *a = malloc((size_t)(2 * n + 2 * nb) * sizeof(int));
    if (!a)
        return AMP_ERR_NOMEM;
    int *bcnt = a + 2 * n, *bdsp = bcnt + nb;
    block_layout(v, l->block, rcount, NULL, NULL, a, a + n);
    if (in_place) { /* this member's block is its send data */
        sendbuf = elem_at(recvbuf,
                          (long long)(l->first + v->local.rank) * rcount, rdt);
        scount = rcount;
        sdt = rdt;
    }
    amp_nbc_t *s = NULL;
    amp_status_t st = amp_coll_sched_gather(
        &v->local,
        &(amp_coll_blocks_t){.buf = sendbuf, .count = scount, .dt = sdt},
        &(amp_coll_blocks_t){
            .buf = recvbuf, .counts = a, .displs = a + n, .dt = rdt},
        0, in_place && gatherer(v), &s);
    st = run(st, s, &v->local);
    for (int b = 0; b < nb; b++) {
        bcnt[b] = nlocal_of(l, b) * rcount;
        bdsp[b] = l->block_first[b] * rcount;
    }
    if (st == AMP_OK && gatherer(v)) {
        st = amp_coll_sched_allgather(
            &v->leaders, &(amp_coll_blocks_t){.dt = rdt},
            &(amp_coll_blocks_t){
                .buf = recvbuf, .counts = bcnt, .displs = bdsp, .dt = rdt},
            1, &s);
        st = run(st, s, &v->leaders);
    }
    if (st == AMP_OK)
        st = amp_coll_shm_bcast(l->shm, &v->local, recvbuf, size * rcount, rdt,
                                0);
    free(a);
    return st;
}

/* Blocks of any sizes and places: packed everywhere, unpacked at the end
 * by every member. */
static amp_status_t allgather_v(levels_t *v, const amp_coll_blocks_t *send,
                                const amp_coll_blocks_t *recv, int in_place)
{
    const void *sendbuf = send->buf;
    int scount = send->count;
    const amp_dt_t *sdt = send->dt, *rdt = recv->dt;
    void *recvbuf = (void *)recv->buf;
    const int *rcounts = recv->counts, *displs = recv->displs;
    const amp_coll_levels_t *l = &v->l;
    int nb = l->nblocks, size = l->block_first[nb];
    int *a = malloc((size_t)(2 * size + 2 * nb) * sizeof(int));
    if (!a)
        return AMP_ERR_NOMEM;
    int *sizes = a, *offs = a + size, *bbytes = offs + size,
        *boffs = bbytes + nb;
    for (int r = 0; r < size; r++)
        sizes[r] = rcounts[r] * (int)rdt->size;
    size_t total = prefix(sizes, size, offs);
    for (int b = 0; b < nb; b++) {
        boffs[b] = offs[l->block_first[b]];
        bbytes[b] =
            (b + 1 < nb ? offs[l->block_first[b + 1]] : (int)total) - boffs[b];
    }
    char *all = malloc(total + 1);
    int me = l->first + v->local.rank;
    if (in_place) {
        sendbuf = elem_at(recvbuf, displs[me], rdt);
        scount = rcounts[me];
        sdt = rdt;
    }
    amp_nbc_t *s = NULL;
    /* Into the first member's copy of everything, at the block's place. */
    amp_status_t st = all ? amp_coll_sched_gather(
                                &v->local,
                                &(amp_coll_blocks_t){
                                    .buf = sendbuf, .count = scount, .dt = sdt},
                                &(amp_coll_blocks_t){.buf = all,
                                                     .counts = sizes + l->first,
                                                     .displs = offs + l->first,
                                                     .dt = byte_dt()},
                                0, 0, &s)
                          : AMP_ERR_NOMEM;
    st = run(st, s, &v->local);
    if (st == AMP_OK && gatherer(v)) {
        st = amp_coll_sched_allgather(
            &v->leaders, &(amp_coll_blocks_t){.dt = byte_dt()},
            &(amp_coll_blocks_t){
                .buf = all, .counts = bbytes, .displs = boffs, .dt = byte_dt()},
            1, &s);
        st = run(st, s, &v->leaders);
    }
    if (st == AMP_OK)
        st = amp_coll_shm_bcast(l->shm, &v->local, all, (int)total, byte_dt(),
                                0);
    for (int r = 0; st == AMP_OK && r < size; r++)
        if (!(in_place && r == me))
            amp_dt_unpack(rdt, rcounts[r], elem_at(recvbuf, displs[r], rdt),
                          all + offs[r], (size_t)sizes[r]);
    free(all);
    free(a);
    return st;
}

amp_status_t amp_coll_levels_allgather(const amp_coll_hier_t *h,
                                       const amp_coll_comm_t *c,
                                       const amp_coll_blocks_t *send,
                                       const amp_coll_blocks_t *recv,
                                       int in_place)
{
    levels_t v;
    amp_status_t st = levels_init(&v, h, c, -1);
    if (st != AMP_OK)
        return st;
    st = recv->counts ? allgather_v(&v, send, recv, in_place)
                      : allgather_regular(&v, send, recv, in_place);
    return levels_done(&v, st, NULL, NULL);
}

/* ---- alltoall --------------------------------------------------------- */

int amp_coll_levels_alltoall_ok(const amp_coll_hier_t *h, size_t pair_bytes)
{
    if (!h || pair_bytes > A2A_NET)
        return 0;
    amp_coll_levels_t l;
    amp_coll_hier_levels(h, &l);
    if (l.node && pair_bytes > A2A_SMALL)
        return 0;
    return l.nblocks < l.block_first[l.nblocks]; /* a process has several */
}

/* At the gatherer: the members' send rows (in: member i's blocks for every
 * rank, pb bytes each) regrouped by the destination's process (out). */
static void a2a_by_block(const levels_t *v, const char *in, size_t pb,
                         char *out, int *counts, ptrdiff_t *displs)
{
    const amp_coll_levels_t *l = &v->l;
    int n = l->nlocal, size = l->block_first[l->nblocks];
    size_t pos = 0;
    for (int b = 0; b < l->nblocks; b++) {
        displs[b] = (ptrdiff_t)pos;
        for (int i = 0; i < n; i++)
            for (int j = l->block_first[b]; j < l->block_first[b + 1]; j++) {
                memcpy(out + pos, in + ((size_t)i * size + j) * pb, pb);
                pos += pb;
            }
        counts[b] = (int)(pos - (size_t)displs[b]);
    }
}

/* At the gatherer: what came from each process (in: for its members i, for
 * this process's members j, the block i -> j) as the receive row of each
 * member j, in rank order of i (out). */
static void a2a_to_members(const levels_t *v, const char *in, size_t pb,
                           const ptrdiff_t *displs, char *out)
{
    const amp_coll_levels_t *l = &v->l;
    int n = l->nlocal, size = l->block_first[l->nblocks];
    for (int b = 0; b < l->nblocks; b++) {
        int nb = nlocal_of(l, b);
        for (int i = 0; i < nb; i++)
            for (int j = 0; j < n; j++)
                memcpy(out + ((size_t)j * size + l->block_first[b] + i) * pb,
                       in + displs[b] + ((size_t)i * n + j) * pb, pb);
    }
}

/* The gatherers' exchange: rows (n * size blocks of pb bytes) in, rows
 * out, through one message per pair of processes. */
static amp_status_t a2a_exchange(levels_t *v, char *rows, size_t pb)
{
    const amp_coll_levels_t *l = &v->l;
    int nb = l->nblocks;
    size_t bytes = (size_t)l->nlocal * l->block_first[nb] * pb;
    char *buf = malloc(2 * bytes + 1);
    int *counts = malloc((size_t)(2 * nb) * sizeof(int));
    ptrdiff_t *displs = malloc((size_t)(2 * nb) * sizeof(ptrdiff_t));
    const amp_dt_t **dts = malloc((size_t)nb * sizeof(*dts));
    amp_status_t st = AMP_ERR_NOMEM;
    if (buf && counts && displs && dts) {
        for (int b = 0; b < nb; b++)
            dts[b] = byte_dt();
        a2a_by_block(v, rows, pb, buf, counts, displs);
        for (int b = 0; b < nb; b++) { /* what block b's members send here */
            counts[nb + b] = nlocal_of(l, b) * l->nlocal * (int)pb;
            displs[nb + b] = b ? displs[nb + b - 1] + counts[nb + b - 1] : 0;
        }
        amp_nbc_t *s = NULL;
        st = amp_coll_sched_alltoall(
            &v->leaders, buf,
            &(amp_coll_side_t){
                .n = nb, .counts = counts, .displs = displs, .dts = dts},
            buf + bytes,
            &(amp_coll_side_t){.n = nb,
                               .counts = counts + nb,
                               .displs = displs + nb,
                               .dts = dts},
            0, &s);
        st = run(st, s, &v->leaders);
    }
    if (st == AMP_OK)
        a2a_to_members(v, buf + bytes, pb, displs + nb, rows);
    free(dts);
    free(displs);
    free(counts);
    free(buf);
    return st;
}

amp_status_t amp_coll_levels_alltoall(const amp_coll_hier_t *h,
                                      const amp_coll_comm_t *c,
                                      const amp_coll_blocks_t *send,
                                      const amp_coll_blocks_t *recv,
                                      int in_place)
{
    const void *sendbuf = send->buf;
    void *recvbuf = (void *)recv->buf;
    int scount = send->count, rcount = recv->count;
    const amp_dt_t *sdt = send->dt, *rdt = recv->dt;
    levels_t v;
    amp_status_t st = levels_init(&v, h, c, -1);
    if (st != AMP_OK)
        return st;
    int n = v.l.nlocal, size = v.l.block_first[v.l.nblocks];
    size_t pb = (size_t)rcount * rdt->size, row = (size_t)size * pb;
    if (in_place) {
        sendbuf = recvbuf;
        scount = rcount;
        sdt = rdt;
    }
    int *a = malloc((size_t)(2 * n) * sizeof(int));
    char *rows = gatherer(&v) ? malloc((size_t)n * row + 1) : NULL;
    if (!a || (gatherer(&v) && !rows))
        return levels_done(&v, AMP_ERR_NOMEM, a, rows);
    for (int i = 0; i < n; i++) {
        a[i] = (int)row;
        a[n + i] = (int)(i * row);
    }
    amp_nbc_t *s = NULL;
    st = amp_coll_sched_gather(
        &v.local,
        &(amp_coll_blocks_t){.buf = sendbuf, .count = size * scount, .dt = sdt},
        &(amp_coll_blocks_t){
            .buf = rows, .counts = a, .displs = a + n, .dt = byte_dt()},
        0, 0, &s);
    st = run(st, s, &v.local);
    if (st == AMP_OK && gatherer(&v))
        st = a2a_exchange(&v, rows, pb);
    if (st == AMP_OK) {
        st = amp_coll_sched_scatter(
            &v.local,
            &(amp_coll_blocks_t){
                .buf = rows, .counts = a, .displs = a + n, .dt = byte_dt()},
            &(amp_coll_blocks_t){
                .buf = recvbuf, .count = size * rcount, .dt = rdt},
            0, 0, &s);
        st = run(st, s, &v.local);
    }
    return levels_done(&v, st, a, rows);
}

/* ---- reductions ------------------------------------------------------- */

/* count elements of dt in a new block of memory (*mem, to free): the
 * address to use as their buffer. */
static char *scratch(const amp_dt_t *dt, int count, void **mem)
{
    *mem = malloc(amp_dt_span(dt, count) + 1);
    return *mem ? (char *)*mem - dt->true_lb : NULL;
}

amp_status_t amp_coll_levels_reduce(const amp_coll_hier_t *h,
                                    const amp_coll_comm_t *c,
                                    const void *sendbuf, void *recvbuf,
                                    int count, const amp_dt_t *dt,
                                    const amp_coll_op_t *op, int root)
{
    void *mem = NULL;
    char *into = c->rank == root ? recvbuf : scratch(dt, count, &mem);
    if (!into)
        return AMP_ERR_NOMEM;
    amp_status_t st =
        amp_coll_hier_allreduce(h, c, sendbuf, into, count, dt, op);
    free(mem);
    return st;
}

amp_status_t amp_coll_levels_reduce_scatter(const amp_coll_hier_t *h,
                                            const amp_coll_comm_t *c,
                                            const void *sendbuf, void *recvbuf,
                                            const int *rcounts,
                                            const amp_dt_t *dt,
                                            const amp_coll_op_t *op)
{
    int total = 0, off = 0;
    for (int r = 0; r < c->size; r++) {
        off += r < c->rank ? rcounts[r] : 0;
        total += rcounts[r];
    }
    void *mem;
    char *all = scratch(dt, total, &mem);
    if (!all)
        return AMP_ERR_NOMEM;
    amp_status_t st =
        amp_coll_hier_allreduce(h, c, sendbuf, all, total, dt, op);
    if (st == AMP_OK)
        amp_dt_copy(dt, rcounts[c->rank], recvbuf,
                    all + (ptrdiff_t)off * dt->extent);
    free(mem);
    return st;
}
