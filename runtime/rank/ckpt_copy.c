/*
 * Copies of an in-memory checkpoint on another node (ckpt_copy.h): the
 * directories of the job, and each rank's file sent to the next one.  The
 * messages go on MPI_COMM_WORLD's collective context under tags no
 * collective uses (collectives' are never negative).
 */
#define _GNU_SOURCE 1
#include "rank/ckpt_copy.h"
#include "rank/ckpt_dir.h"
#include "mpi/impl.h"

#include "mem/sys_alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { TAG_HDR = -16, TAG_DATA = -17 };

/* ---- the directories ---- */

/* Leader of process q's directory from the sums (leader + 1 and 1 over
 * its ranks); -1: no rank of q could prepare one (or q holds none). */
static int leader_of(const int64_t *sums, int np, int q)
{
    return sums[np + q] ? (int)(sums[q] / sums[np + q]) - 1 : -1;
}

/* d from every process's leader, for a rank of directory mine. */
static void order(const int64_t *sums, int np, int mine, amp_ckpt_dirs_t *d)
{
    int lo = INT_MAX, hi = -1, above = INT_MAX, below = -1;
    for (int q = 0; q < np; q++) {
        int l = leader_of(sums, np, q);
        if (l < 0)
            continue;
        lo = l < lo ? l : lo;
        hi = l > hi ? l : hi;
        if (l > mine && l < above)
            above = l;
        if (l < mine && l > below)
            below = l;
    }
    d->n = 0; /* directories: each is counted at its leader's process */
    for (int q = 0; q < np; q++) {
        int l = leader_of(sums, np, q);
        d->n += l >= 0 && amp_proc.world.rank_proc[l] == q;
    }
    d->next = above != INT_MAX ? above : lo;
    int prev = below >= 0 ? below : hi;
    d->from_prev = 0;
    for (int q = 0; q < np; q++)
        if (leader_of(sums, np, q) == prev)
            d->from_prev += sums[np + q];
}

int amp_ckpt_dirs_find(int leader, amp_ckpt_dirs_t *d)
{
    const amp_p2p_world_t *w = &amp_proc.world;
    *d = (amp_ckpt_dirs_t){.n = 1, .first = leader, .next = leader};
    if (w->nprocs <= 1)
        return MPI_SUCCESS;
    int np = w->nprocs;
    amp_sys_alloc_enter();
    int64_t *in = calloc(4 * (size_t)np, sizeof(*in));
    amp_sys_alloc_leave();
    if (!in)
        amp_fatal("out of memory for a checkpoint's directories");
    int64_t *out = in + 2 * np;
    if (leader >= 0) {
        in[w->proc] = leader + 1;
        in[np + w->proc] = 1;
    }
    int rc =
        PMPI_Allreduce(in, out, 2 * np, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS) {
        order(out, np, leader, d);
        d->first = leader_of(out, np, w->rank_proc[0]);
    }
    amp_sys_alloc_enter();
    free(in);
    amp_sys_alloc_leave();
    return rc;
}

/* ---- the copies ---- */

typedef struct copy_hdr {
    int64_t rank;
    int64_t bytes; /* -1: the sender could not read its file */
} copy_hdr_t;

static int io_fail(char *why, size_t len, int cls, const char *what,
                   const char *path, int err)
{
    if (cls == MPI_SUCCESS)
        snprintf(why, len, "cannot %s %s: %s", what, path, strerror(err));
    return MPI_ERR_IO;
}

static void wait_one(amp_rank_t *rank, amp_p2p_req_t *req)
{
    amp_p2p_req_t *reqs[1] = {req};
    amp_p2p_wait_all(&rank->ep, reqs, 1);
}

/* Receives one sender's file into stage (or, when it cannot be written
 * there, into memory that is dropped, so that the sender finishes). */
static int receive_one(amp_rank_t *rank, int ctx, const char *stage, int cls,
                       char *why, size_t len)
{
    copy_hdr_t h;
    amp_p2p_req_t req = {.on_done = NULL};
    amp_p2p_irecv(
        &rank->ep, &h, sizeof(h),
        (amp_p2p_env_t){.ctx = ctx, .src = AMP_P2P_ANY, .tag = TAG_HDR}, &req);
    wait_one(rank, &req);
    if (h.bytes < 0) {
        if (cls == MPI_SUCCESS)
            snprintf(why, len, "rank %lld could not read its own file",
                     (long long)h.rank);
        return MPI_ERR_IO;
    }
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/rank-%lld.ckpt", stage, (long long)h.rank);
    amp_ckpt_incoming_t in;
    amp_ckpt_incoming_begin(&in, path, (size_t)h.bytes);
    req = (amp_p2p_req_t){.on_done = NULL};
    amp_p2p_irecv(
        &rank->ep, in.mem, in.bytes,
        (amp_p2p_env_t){.ctx = ctx, .src = (int)h.rank, .tag = TAG_DATA}, &req);
    wait_one(rank, &req);
    int err = amp_ckpt_incoming_end(&in);
    return err ? io_fail(why, len, cls, "write the copy", path, err) : cls;
}

int amp_ckpt_copy_to_next(amp_rank_t *rank, const char *stage, int leader,
                          const amp_ckpt_dirs_t *d, char *why, size_t len)
{
    int ctx = amp_comm_lookup(rank, MPI_COMM_WORLD)->ctx + 1,
        me = rank->world_rank;
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/rank-%d.ckpt", stage, me);
    size_t bytes = 0;
    int err = 0, cls = MPI_SUCCESS;
    void *data = amp_ckpt_file_map(path, &bytes, &err);
    if (!data)
        cls = io_fail(why, len, cls, "read", path, err);
    copy_hdr_t h = {me, data ? (int64_t)bytes : -1};
    amp_p2p_req_t hreq = {.on_done = NULL}, dreq = {.on_done = NULL};
    amp_p2p_req_t *reqs[2] = {&hreq, &dreq};
    amp_p2p_env_t env = {.ctx = ctx, .src = me, .dst = d->next, .tag = TAG_HDR};
    amp_p2p_isend(&rank->ep, &h, sizeof(h), env, AMP_P2P_STANDARD, &hreq);
    env.tag = TAG_DATA;
    if (data)
        amp_p2p_isend(&rank->ep, data, bytes, env, AMP_P2P_STANDARD, &dreq);
    for (long i = 0; leader == me && i < d->from_prev; i++) {
        cls = receive_one(rank, ctx, stage, cls, why, len);
        rank = amp_rank_self();
    }
    amp_p2p_wait_all(&rank->ep, reqs, data ? 2 : 1);
    if (data)
        munmap(data, bytes);
    return cls;
}
