/*
 * coll/shm: collectives over the shared address space (DESIGN.md §7).
 *
 * The members of a communicator whose ranks all live in this process share
 * one amp_coll_shm_t, found through a process-wide registry when each
 * member creates its communicator object (keyed by the context id and the
 * world rank of member 0, which every member agrees on) and refcounted.
 * A communicator that spans processes gets no shared state (NULL) and its
 * collectives take the p2p algorithms in coll.c, or the two-level ones of
 * coll/hier.c, which give its members in each process a state of
 * their own.
 *
 * Each call is one "episode" on the communicator.  The members on one PE
 * form a group; the last member of a group to arrive leads it: it combines
 * its group's data (reading the members' user buffers directly, since every
 * member publishes its buffer pointers), meets the other groups' leaders at
 * a cross-PE barrier (an atomic counter), finishes the work and wakes its
 * group.  Members wait as blocked user-level threads, so the other ranks of
 * their PE run meanwhile; a leader spins briefly before it blocks, and the
 * leader that completes a barrier wakes sleeping leaders through the p2p
 * rings (amp_p2p_wake).
 *
 * Reductions combine in the order of coll/tree.h, the same under any
 * mapping and in every other algorithm: each group computes the largest
 * nodes of the tree whose ranks are all its members (its parts), and the
 * nodes above them are computed from those.
 *
 *  - small payloads (<= AMP_COLL_SHM_SMALL bytes): one barrier.  Reductions
 *    compute each group's parts into partial results before the barrier,
 *    and the nodes above them from the partials after it (every leader,
 *    for allreduce); broadcasts go through one staging copy.  Partials and
 *    staging are double-buffered by episode parity.
 *  - large payloads: two barriers.  Every PE evaluates the whole tree on
 *    its share of the element range straight from all members' buffers
 *    into every destination; broadcast receivers copy straight from the
 *    root's buffer.
 *
 * Groups and parts are computed from the ranks' PEs when the state is
 * created, and rebuilt when ranks migrate (amp_coll_shm_relayout).
 */
#ifndef AMP_COLL_SHM_H
#define AMP_COLL_SHM_H

#include "coll/coll.h"

#include <stdatomic.h>

/* Payloads up to this many bytes take the one-barrier algorithms. */
#define AMP_COLL_SHM_SMALL 1024

typedef struct amp_coll_shm amp_coll_shm_t;

/* The process-wide registry (in amp_proc; all zero is a valid empty
 * registry).  Its lock is taken only to attach and detach. */
typedef struct amp_coll_shm_registry {
    _Atomic int lock;
    /* The states by (context, first member's world rank): chains of a
     * table that doubles as they grow, so that each of a million members
     * of a thousand communicators finds its own at once. */
    amp_coll_shm_t **buckets;
    size_t nbuckets, count;
    /* The layouts over several processes that this process's members
     * share (coll/hier.c), under their own lock. */
    _Atomic int hier_lock;
    struct amp_coll_hier *hiers;
    int npes;
    char **scratch; /* per PE: working space for reductions */
} amp_coll_shm_registry_t;

/* The members of a communicator that share a state: size members
 * (world_map: member -> world rank, NULL for the identity) of the
 * communicator with context ctx, its comm ranks base .. base + size - 1
 * of total ranks (base 0 and total size, unless the communicator spans
 * processes: coll/hier.c), which sets the reduction tree. */
typedef struct amp_coll_shm_members {
    int ctx, size;
    const int *world_map;
    int base, total;
} amp_coll_shm_members_t;

/* The shared state of members m (rank_pe: world rank -> its PE, of
 * npes), created by the first member to ask and counted once per call.
 * *out is NULL for a single-member communicator (nothing to share).
 * Fails only with AMP_ERR_NOMEM. */
AMP_MUST_USE amp_status_t amp_coll_shm_attach(amp_coll_shm_registry_t *reg,
                                              const int *rank_pe, int npes,
                                              const amp_coll_shm_members_t *m,
                                              amp_coll_shm_t **out);
/* Rebuilds the groups of every state in the registry after ranks moved
 * to other PEs (rank_pe: world rank -> its PE now).  Only while no member
 * of any communicator is inside a collective (lb/lb.h).  AMP_ERR_NOMEM
 * leaves the states unusable: the caller ends the job. */
AMP_MUST_USE amp_status_t amp_coll_shm_relayout(amp_coll_shm_registry_t *reg,
                                                const int *rank_pe, int npes);
/* Drops one member's reference (s may be NULL). */
void amp_coll_shm_detach(amp_coll_shm_registry_t *reg, amp_coll_shm_t *s);

/* Whether the shared-memory reductions take this call on a communicator
 * of n ranks (total, in amp_coll_shm_attach's terms): contiguous data
 * (types with holes use the p2p path), and elements that fit the work
 * buffers when a user function combines them.  The same on every member,
 * since reductions need the same count and type everywhere. */
int amp_coll_shm_reduce_ok(const amp_dt_t *dt, int count,
                           const amp_coll_op_t *op, int n);

/* The collectives.  s is the communicator's shared state, or NULL for a
 * single-member communicator.  Arguments are checked by the caller;
 * sendbuf == recvbuf means in place; recvbuf matters at the root only for
 * reduce, where it receives the values of the tree's nodes that cover the
 * members (amp_coll_tree_cover of [base, base + size)), one after another:
 * the result, for a communicator of its own. */
AMP_MUST_USE amp_status_t amp_coll_shm_barrier(amp_coll_shm_t *s,
                                               const amp_coll_comm_t *c);
AMP_MUST_USE amp_status_t amp_coll_shm_bcast(amp_coll_shm_t *s,
                                             const amp_coll_comm_t *c,
                                             void *buf, int count,
                                             const amp_dt_t *dt, int root);
AMP_MUST_USE amp_status_t
amp_coll_shm_reduce(amp_coll_shm_t *s, const amp_coll_comm_t *c,
                    const void *sendbuf, void *recvbuf, int count,
                    const amp_dt_t *dt, const amp_coll_op_t *op, int root);
AMP_MUST_USE amp_status_t amp_coll_shm_allreduce(
    amp_coll_shm_t *s, const amp_coll_comm_t *c, const void *sendbuf,
    void *recvbuf, int count, const amp_dt_t *dt, const amp_coll_op_t *op);

/* Whether comm rank r is inside a collective on s (deadlock report). */
int amp_coll_shm_waiting(const amp_coll_shm_t *s, int r);

#endif
