/*
 * rma: one-sided communication through the shared address space.
 *
 * Every member of a window reaches one amp_rma_win_t, the window's shared
 * state: each member's exposed memory (a segment, or for a dynamic window
 * the regions attached), the passive-target lock of each member, the lock
 * that makes accumulates on a member atomic, and the counters of
 * post-start-complete-wait.  Since the ranks of a process share one address
 * space, an origin reads and writes the target's memory itself: a put or
 * get is a copy done at the call, an accumulate a read-modify-write under
 * the target's accumulate lock.  The target takes no part, so passive
 * target communication never waits for the target to call MPI.
 *
 * Windows across processes (remote.c): each process keeps its own state
 * of the window, shared by its members of it.  The state of the process
 * that runs member r holds r's memory, lock, accumulate lock and
 * post-start-complete-wait counters; an origin in another process reaches
 * them through active messages (amp_p2p_am_send) to the PE that runs r,
 * whose handler does the work there: it copies a put in, answers a get,
 * applies an accumulate under r's accumulate lock, grants r's lock in turn
 * with the local members, counts posts and completes.  The target rank
 * itself takes no part, so passive target works while it computes, as
 * long as its PE polls (an MPI call that waits or polls, unlocks and
 * flushes among them, or idle).  Every remote operation is
 * answered, and the origin counts what it still waits for
 * (amp_rma_origin_t): flushes, unlocks, fences and completes wait for
 * that count to drop to zero.
 *
 * Nothing here blocks except amp_rma_lock, amp_rma_start and amp_rma_wait,
 * which wait as user-level threads: they yield to the other ranks of their
 * PE for a while, then sleep until a member changes the window's state, so
 * that a wait nothing can end shows in the deadlock report.
 */
#ifndef AMP_RMA_RMA_H
#define AMP_RMA_RMA_H

#include "base/base.h"
#include "coll/coll.h"
#include "dt/dt.h"
#include "p2p/p2p.h"
#include "sched/sched.h"

#include <stddef.h>
#include <stdint.h>

typedef struct amp_rma_win amp_rma_win_t;

/* The memory a member exposes (not used by dynamic windows). */
typedef struct amp_rma_seg {
    char *base;
    size_t size;
    int disp_unit;
} amp_rma_seg_t;

/* This process's state for a window of size members, nlocal of them in
 * this process; its creator holds one reference per local member (each
 * releases one).  NULL when out of memory. */
amp_rma_win_t *amp_rma_win_new(int size, int nlocal);
/* Drops one member's reference; the last frees the state and the memory
 * of amp_rma_shared_alloc. */
void amp_rma_win_release(amp_rma_win_t *w);

/* Member r's segment (written by r before the window is used). */
amp_rma_seg_t *amp_rma_seg(amp_rma_win_t *w, int r);
/* MPI_Win_allocate_shared: one block for all members, segment after
 * segment in rank order (each starts 64-byte aligned), after every member
 * has set its segment's size and disp_unit.  Called by one member. */
AMP_MUST_USE amp_status_t amp_rma_shared_alloc(amp_rma_win_t *w);

/* Dynamic windows: member r exposes [base, base + size) (attach) or no
 * longer the region attached at base (detach: AMP_ERR_ARG when none). */
AMP_MUST_USE amp_status_t amp_rma_attach(amp_rma_win_t *w, int r, void *base,
                                         size_t size);
AMP_MUST_USE amp_status_t amp_rma_detach(amp_rma_win_t *w, int r,
                                         const void *base);
/* Whether every byte of [addr, addr + len) lies in a region member r has
 * attached (one, or several adjacent ones). */
int amp_rma_attached(amp_rma_win_t *w, int r, const char *addr, size_t len);

/* Passive target: the lock of member r, shared or exclusive.  Waits (as a
 * user-level thread) while a conflicting holder has it. */
void amp_rma_lock(amp_rma_win_t *w, int r, int exclusive);
void amp_rma_unlock(amp_rma_win_t *w, int r, int exclusive);

/* The accumulate family on member r's memory, atomic with respect to
 * every other accumulate-family call on that member.  Target data: tcount
 * elements of tdt at taddr; origin data: ocount elements of odt at oaddr
 * (unused for MPI_NO_OP, op_id 14); result (may be NULL): rcount elements
 * of rdt at raddr receive the target data from before the operation.  All
 * types hold the same number of values of one basic type.  op is a
 * predefined operation valid for tdt. */
typedef struct amp_rma_acc {
    char *taddr;
    const amp_dt_t *tdt;
    int tcount;
    const void *oaddr;
    const amp_dt_t *odt;
    int ocount;
    void *raddr;
    const amp_dt_t *rdt;
    int rcount;
} amp_rma_acc_t;
AMP_MUST_USE amp_status_t amp_rma_accumulate(amp_rma_win_t *w, int r,
                                             const amp_rma_acc_t *a,
                                             const amp_coll_op_t *op);
/* Compare-and-swap of one value of size bytes at taddr in member r. */
void amp_rma_cas(amp_rma_win_t *w, int r, char *taddr, const void *origin,
                 const void *compare, void *result, size_t size);

/* Post-start-complete-wait, between comm ranks of the window.  post: me
 * exposes its memory to the n origins listed; start: me waits until each of
 * the n targets listed has posted to it (skip the wait with nocheck);
 * complete: me tells the n targets its accesses are done; wait (test when
 * !block): me's exposure ends once expected origins have completed;
 * returns whether it ended. */
void amp_rma_post(amp_rma_win_t *w, int me, const int *origins, int n);
void amp_rma_start(amp_rma_win_t *w, int me, const int *targets, int n,
                   int nocheck);
void amp_rma_complete(amp_rma_win_t *w, int me, const int *targets, int n);
int amp_rma_wait(amp_rma_win_t *w, int me, int expected, int block);

/* ---- members in other processes (remote.c) ---- */

/* Registers the handler of the active messages of windows (once, before
 * any rank runs; jobs of several processes). */
void amp_rma_remote_init(amp_p2p_world_t *world);

/* Records where member r is: process proc, PE pe there, whose state of the
 * window is at address state in that process (state 0: r is in this
 * process).  Written once at creation, before the window is used. */
void amp_rma_set_peer(amp_rma_win_t *w, int r, uint64_t state, int proc,
                      int pe);
/* Whether member r runs in another process. */
int amp_rma_is_remote(const amp_rma_win_t *w, int r);

/* An origin rank's view of what it has asked of other processes on one
 * window; only that rank's PE touches it. */
typedef struct amp_rma_origin {
    int pending;        /* operations and lock requests not yet answered */
    amp_status_t error; /* the first failure a target reported, or AMP_OK */
    amp_thread_t *waiter;
} amp_rma_origin_t;

/* Waits (as a user-level thread) until every request of o is answered;
 * returns and clears the first failure. */
AMP_MUST_USE amp_status_t amp_rma_origin_wait(amp_rma_origin_t *o);

/* One operation on member target of another process.  d describes it as
 * for amp_rma_accumulate (taddr is the address in the target's process;
 * put and accumulate use the origin triple, get the result triple,
 * get-accumulate both).  Compare-and-swap: odt one value, compare the
 * value compared, raddr the result.  With dynamic, the target checks that
 * the memory is attached (a failure comes back through the origin's
 * error).  req, when not NULL, completes when the operation does. */
enum { AMP_RMA_PUT, AMP_RMA_GET, AMP_RMA_ACC, AMP_RMA_GET_ACC, AMP_RMA_CAS };
typedef struct amp_rma_rop {
    int kind, target, dynamic;
    amp_rma_acc_t d;
    const void *compare;
    int op_id;
    amp_p2p_req_t *req;
} amp_rma_rop_t;
AMP_MUST_USE amp_status_t amp_rma_remote_op(amp_rma_win_t *w,
                                            amp_rma_origin_t *o,
                                            const amp_rma_rop_t *op);

/* Asks member r's lock (granted when the answer comes: wait on o), and
 * gives it back (answered once released). */
void amp_rma_remote_lock(amp_rma_win_t *w, amp_rma_origin_t *o, int r,
                         int exclusive);
void amp_rma_remote_unlock(amp_rma_win_t *w, amp_rma_origin_t *o, int r,
                           int exclusive);
/* Post-start-complete-wait with a member of another process: target me
 * posts to origin; origin me completes at target (after its operations
 * are answered). */
void amp_rma_remote_post(amp_rma_win_t *w, int me, int origin);
void amp_rma_remote_complete(amp_rma_win_t *w, int me, int target);

/* ---- members in other processes of this node (direct.c) ----
 * Window memory the node's processes share (node/node.h): a member of
 * another process of this node whose memory is mapped here is reached by
 * loads and stores of the origin itself, as a member of this process is;
 * its accumulate lock is a word of the shared memory that every process
 * takes for it, its own included, so accumulates stay atomic whichever
 * process applies them.  A member whose memory is not shared but lies in a
 * process this one may copy from and to (cross-memory attach) takes puts
 * and gets as one such copy.  Locks, post-start-complete-wait and
 * dynamic windows keep going through the target's process (remote.c). */

/* Member r's memory (seg.base in its process) is mapped here at base. */
void amp_rma_set_direct(amp_rma_win_t *w, int r, char *base);
/* Where member r's address taddr (in r's process) is mapped here, or NULL
 * when r's memory is not. */
char *amp_rma_direct(const amp_rma_win_t *w, int r, const char *taddr);
/* The accumulate lock of member r is the word at acc (shared memory). */
void amp_rma_set_acc_lock(amp_rma_win_t *w, int r, _Atomic int *acc);
/* Member r is in process pid of this node, whose memory this process may
 * copy from and to. */
void amp_rma_set_cma(amp_rma_win_t *w, int r, int pid);
int amp_rma_cma(const amp_rma_win_t *w, int r);
/* A put (origin data to the target) or a get (target data to the result)
 * between this process and member r's (amp_rma_set_cma): d as for
 * amp_rma_accumulate, taddr in r's process.  AMP_ERR_UNSUPPORTED when the
 * target layout has too many pieces for one copy (then send it). */
AMP_MUST_USE amp_status_t amp_rma_cma_put(amp_rma_win_t *w, int r,
                                          const amp_rma_acc_t *d);
AMP_MUST_USE amp_status_t amp_rma_cma_get(amp_rma_win_t *w, int r,
                                          const amp_rma_acc_t *d);
/* Node memory mapped for the window (p, bytes, as node/node.h maps it):
 * unmapped when the window's state goes. */
AMP_MUST_USE amp_status_t amp_rma_keep_mapping(amp_rma_win_t *w, void *p,
                                               size_t bytes);
void amp_rma_unmap_all(amp_rma_win_t *w);

/* Makes this rank's earlier loads and stores to any window visible to the
 * other ranks and theirs to it (flush, MPI_Win_sync). */
void amp_rma_sync(void);

#endif
