/*
 * The layout of a window's state, private to the rma module (rma.c keeps
 * the members of this process in step, remote.c serves and reaches those
 * of other processes).  A process holds one state per window, shared by
 * its members of it; the entries of members in other processes hold only
 * their segment (for the range checks) and where they are (peers).
 */
#ifndef AMP_RMA_STATE_H
#define AMP_RMA_STATE_H

#include "rma/rma.h"
#include "sched/sched.h"

#include <stdatomic.h>
#include <stdint.h>

/* A region attached to a dynamic window. */
typedef struct region {
    struct region *next;
    char *base;
    size_t size;
} region_t;

/* What the window holds for one member; written by the other members. */
typedef struct target {
    _Alignas(64) amp_rma_seg_t seg;
    region_t *regions; /* dynamic windows; under dyn */
    _Atomic int dyn;   /* spinlock of regions */
    _Atomic int acc;   /* spinlock of the accumulate family */
    /* Passive target: -1 held exclusively, n > 0 by n sharers, 0 free. */
    _Alignas(64) _Atomic int lock;
    _Atomic int completes; /* PSCW: origins done since the last wait */
    /* Lock requests that wait their turn, of ranks of this process and of
     * origins in other processes (lock_waiter_t), oldest first; under lq. */
    _Atomic int lq;
    struct lock_waiter *lq_head, *lq_tail;
    /* The accumulate lock this process takes for the member: acc, or a
     * word in memory the node's processes share (direct.c). */
    _Atomic int *accp;
    /* A member of another process of this node (direct.c): its memory
     * mapped here (seg.base there is direct here), or copied with
     * cross-memory attach from process cma_pid (0: not). */
    char *direct;
    int cma_pid;
    /* Accumulates of other processes on this member, held in the order they
     * came while the data of an earlier one is still being fetched
     * (remote.c): MPI orders the accumulates of an origin on a target.
     * Under oq; one PE at a time applies them (draining). */
    _Atomic int oq;
    int draining;
    struct held_op *held_head, *held_tail;
} target_t;

/* A request for a member's passive-target lock that waits its turn in the
 * member's queue (target_t.lq_head), oldest first: every request that
 * finds the lock taken or others waiting queues, from this process or
 * another, so the lock goes round in the order it was asked for. */
typedef struct lock_waiter {
    struct lock_waiter *next;
    int exclusive;
    /* A rank of this process (thr): it sleeps on the window until granted
     * is set, and the entry lives on its stack. */
    amp_thread_t *thr;
    _Atomic int granted;
    /* An origin of another process (thr NULL): where the grant goes, and
     * how (remote.c's answer; the entry is malloc'ed, freed once granted). */
    int proc, pe;
    uint64_t rop;
    void (*grant)(const struct lock_waiter *q);
} lock_waiter_t;

/* Where a member of another process is (remote.c): its process, the PE
 * that runs it and the address of that process's state of the window. */
typedef struct peer {
    uint64_t state; /* 0: the member is in this process */
    int proc, pe;
} peer_t;

/* A rank asleep on the window until a member changes what it waits for;
 * lives on the sleeper's stack. */
typedef struct sleeper {
    struct sleeper *next;
    amp_thread_t *thr;
} sleeper_t;

struct amp_rma_win {
    int size;
    _Atomic int refs;
    _Atomic int wl;      /* spinlock of sleepers */
    sleeper_t *sleepers; /* under wl */
    _Atomic int nsleepers;
    target_t *targets;
    _Atomic int *posts;   /* [origin * size + target]: posts not yet started */
    void *shared;         /* MPI_Win_allocate_shared's block */
    peer_t *peers;        /* by member */
    struct mapping *maps; /* node memory mapped for the window (direct.c) */
};

/* Takes passive-target lock l, shared or exclusive, if it is free for
 * that; returns whether it did. */
static inline int amp_rma_try_lock(_Atomic int *l, int exclusive)
{
    int v = atomic_load_explicit(l, memory_order_relaxed);
    if (exclusive)
        return v == 0 &&
               atomic_compare_exchange_strong_explicit(
                   l, &v, -1, memory_order_acquire, memory_order_relaxed);
    return v >= 0 &&
           atomic_compare_exchange_strong_explicit(
               l, &v, v + 1, memory_order_acquire, memory_order_relaxed);
}

/* Queues lock request q at the end of member t's queue (under t->lq). */
static inline void amp_rma_lq_append(target_t *t, lock_waiter_t *q)
{
    if (t->lq_tail)
        t->lq_tail->next = q;
    else
        t->lq_head = q;
    t->lq_tail = q;
}

/* The accumulate family's step on member r's memory, atomic with the
 * others: tcount elements of tdt at taddr become in (packed values) op
 * them, unless op is MPI_NO_OP; old (may be NULL) receives their packed
 * values from before. */
AMP_MUST_USE amp_status_t amp_rma_acc_packed(amp_rma_win_t *w, int r,
                                             char *taddr, const amp_dt_t *tdt,
                                             int tcount, const void *in,
                                             const amp_coll_op_t *op,
                                             void *old);

/* Wakes the members asleep on w to look at its state again. */
void amp_rma_notify(amp_rma_win_t *w);
/* After member r's lock was released or a request queued: grants the lock
 * to the requests at the head of its queue while it is free for them
 * (remote.c answers those of other processes); wakes the sleepers of w
 * when a rank of this process got it. */
void amp_rma_serve_locks(amp_rma_win_t *w, int r);
/* Frees what is left of the lock requests of member r, as the window is
 * freed. */
void amp_rma_drop_waiters(amp_rma_win_t *w, int r);

#endif
