/*
 * Windows whose members run in several processes of this node (win.h):
 * their memory lives in node objects (node/node.h) that every process of
 * the node running a member maps, so that origins reach it with loads and
 * stores (rma/rma.h), and accumulates of every process take the same lock
 * words, which live in those objects too.
 *
 *  - MPI_Win_allocate: each member's memory is an object of its own
 *    ("w<process>.<serial>"); its accumulate lock is in the object's head.
 *  - MPI_Win_allocate_shared: one object for all members
 *    ("s<process of rank 0>.<serial>"): a page of lock words (64 bytes
 *    each, member after member), then the segments in rank order.
 *  - MPI_Win_create: the memory is the program's; puts and gets to a
 *    member of another process of the node are cross-memory copies where
 *    the kernel allows them.
 *
 * The first member of each process maps the others' objects after the
 * segments are exchanged; an object's name goes once every process that
 * is to map it has (or when creation ends, whatever happened).
 */
#include "mpi/comm/comm.h"
#include "mpi/win/win.h"
#include "rma/rma.h"

#include <stdio.h>
#include <string.h>

#define SEG_ALIGN 64
#define LOCK_BYTES 64
#define OPEN_WAIT_MS 30000

static const amp_node_t *node(void)
{
    return &amp_proc.world.node;
}

static int proc_of(const amp_comm_t *c, int r)
{
    const int *rank_proc = amp_proc.world.rank_proc;
    return rank_proc ? rank_proc[amp_comm_world_rank(c, r)] : 0;
}

static size_t round_up(size_t n)
{
    return AMP_ROUND_UP(n, SEG_ALIGN);
}

static void tag_of(char *tag, size_t n, int shared, int proc, unsigned serial)
{
    snprintf(tag, n, "%c%d.%u", shared ? 's' : 'w', proc, serial);
}

int amp_win_node_others(const amp_comm_t *c)
{
    const amp_node_t *n = node();
    int others = 0;
    for (int i = 0; i < n->nprocs; i++) {
        if (i == n->index)
            continue;
        int r = 0;
        while (r < c->size && proc_of(c, r) != n->procs[i])
            r++;
        others += r < c->size;
    }
    return others;
}

static amp_status_t create_status(amp_status_t st)
{
    return st == AMP_ERR_NOMEM || st == AMP_ERR_SYS ? AMP_ERR_NOMEM
                                                    : AMP_ERR_INTERN;
}

amp_status_t amp_win_node_expose(const amp_comm_t *c, amp_win_t *w, size_t size)
{
    amp_node_t *n = &amp_proc.world.node;
    unsigned serial = atomic_fetch_add(&n->serial, 1);
    char tag[32];
    tag_of(tag, sizeof(tag), 0, amp_proc.world.proc, serial);
    size_t bytes = round_up(size);
    void *p;
    amp_status_t st =
        amp_node_create(n, tag, bytes, amp_win_node_others(c), &p);
    if (st != AMP_OK)
        return create_status(st);
    st = amp_rma_keep_mapping(w->shared, p, bytes);
    if (st != AMP_OK) {
        amp_node_unmap(p, bytes);
        amp_node_drop(n, tag);
        return st;
    }
    amp_rma_set_acc_lock(w->shared, w->rank, amp_node_head(p));
    w->base = p;
    w->own_shm = serial + 1;
    return AMP_OK;
}

/* Maps node object tag of bytes bytes for the window. */
static amp_status_t map_object(amp_win_t *w, const char *tag, size_t bytes,
                               void **p)
{
    amp_status_t st = amp_node_open(node(), tag, bytes, OPEN_WAIT_MS, p);
    if (st != AMP_OK)
        return st == AMP_ERR_NOMEM ? st : AMP_ERR_INTERN;
    st = amp_rma_keep_mapping(w->shared, *p, bytes);
    if (st != AMP_OK)
        amp_node_unmap(*p, bytes);
    return st;
}

amp_status_t amp_win_node_peer(const amp_comm_t *c, amp_win_t *w, int r,
                               unsigned serial)
{
    const amp_node_t *n = node();
    int q = proc_of(c, r), i = n->of_proc[q];
    if (i < 0 || q == amp_proc.world.proc)
        return AMP_OK;
    if (!serial) {
        if (n->cma[i] && w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
            amp_rma_set_cma(w->shared, r, n->pids[i]);
        return AMP_OK;
    }
    char tag[32];
    tag_of(tag, sizeof(tag), 0, q, serial - 1);
    void *p;
    amp_status_t st =
        map_object(w, tag, round_up(amp_rma_seg(w->shared, r)->size), &p);
    if (st != AMP_OK)
        return st;
    amp_rma_set_direct(w->shared, r, p);
    amp_rma_set_acc_lock(w->shared, r, amp_node_head(p));
    return AMP_OK;
}

/* ---- MPI_Win_allocate_shared ------------------------------------------ */

/* The bytes of the shared block: the lock page(s), then every segment. */
static size_t block_bytes(const amp_win_t *w, size_t *locks)
{
    *locks = AMP_ROUND_UP((size_t)w->size * LOCK_BYTES, 4096);
    size_t total = *locks;
    for (int r = 0; r < w->size; r++)
        total += round_up(amp_rma_seg(w->shared, r)->size);
    return total;
}

/* Every member's segment and accumulate lock in the block at p. */
static void block_place(amp_win_t *w, char *p, size_t locks)
{
    char *q = p + locks;
    for (int r = 0; r < w->size; r++) {
        amp_rma_seg_t *seg = amp_rma_seg(w->shared, r);
        seg->base = q;
        amp_rma_set_direct(w->shared, r, q);
        amp_rma_set_acc_lock(w->shared, r,
                             (_Atomic int *)(p + (size_t)r * LOCK_BYTES));
        q += round_up(seg->size);
    }
}

/* Comm rank 0: creates the block; *serial its object's. */
static amp_status_t block_create(const amp_comm_t *c, amp_win_t *w,
                                 unsigned *serial)
{
    amp_node_t *n = &amp_proc.world.node;
    size_t locks, total = block_bytes(w, &locks);
    *serial = atomic_fetch_add(&n->serial, 1);
    char tag[32];
    tag_of(tag, sizeof(tag), 1, amp_proc.world.proc, *serial);
    void *p;
    amp_status_t st =
        amp_node_create(n, tag, total, amp_win_node_others(c), &p);
    if (st != AMP_OK)
        return create_status(st);
    w->own_shm = *serial + 1;
    st = amp_rma_keep_mapping(w->shared, p, total);
    if (st != AMP_OK) {
        amp_node_unmap(p, total);
        return st;
    }
    block_place(w, p, locks);
    return AMP_OK;
}

/* The first member of this process, if not comm rank 0's process: maps
 * the block rank 0 made. */
static amp_status_t block_open(const amp_comm_t *c, amp_win_t *w,
                               unsigned serial)
{
    size_t locks, total = block_bytes(w, &locks);
    char tag[32];
    tag_of(tag, sizeof(tag), 1, proc_of(c, 0), serial);
    void *p;
    amp_status_t st = map_object(w, tag, total, &p);
    if (st == AMP_OK)
        block_place(w, p, locks);
    return st;
}

amp_status_t amp_win_node_shared(const amp_comm_t *c, amp_win_t *w,
                                 amp_status_t st)
{
    if (PMPI_Barrier(w->comm) != MPI_SUCCESS)
        return AMP_ERR_INTERN;
    int me = amp_proc.world.proc, first = 0;
    while (proc_of(c, first) != me)
        first++;
    unsigned serial = 0;
    int out[2] = {st, 0};
    if (w->rank == 0 && st == AMP_OK) {
        out[0] = block_create(c, w, &serial);
        out[1] = (int)serial;
    }
    if (PMPI_Bcast(out, 2, MPI_INT, 0, w->comm) != MPI_SUCCESS)
        return AMP_ERR_INTERN;
    st = (amp_status_t)out[0];
    if (st == AMP_OK && w->rank == first && proc_of(c, 0) != me)
        st = block_open(c, w, (unsigned)out[1]);
    return st;
}

void amp_win_node_unlink(amp_win_t *w)
{
    if (!w->own_shm)
        return;
    char tag[32];
    tag_of(tag, sizeof(tag), w->flavor == MPI_WIN_FLAVOR_SHARED,
           amp_proc.world.proc, w->own_shm - 1);
    amp_node_drop(node(), tag);
}
