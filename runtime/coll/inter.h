/*
 * Collectives on inter-communicators (inter.c): schedules (coll/nbc.h)
 * that reach both groups, for the MPI layer to run or hand out as a
 * request.
 */
#ifndef AMP_COLL_INTER_H
#define AMP_COLL_INTER_H

#include "coll/coll.h"

struct amp_nbc;

/* One collective call's view of an inter-communicator: the local group's
 * (its rank, size and world map, the call's context and sequence number)
 * and the remote group's world map.  Each builder below takes the call's
 * schedule from it, so every member of both groups makes one view and one
 * schedule per call. */
typedef struct amp_coll_inter {
    amp_coll_comm_t local;
    int remote_size;
    const int *remote_world; /* remote rank -> world rank */
} amp_coll_inter_t;

/* Barrier, bcast, reduce (all: allreduce, root unused) as the MPI calls
 * on an inter-communicator: root is MPI_ROOT, MPI_PROC_NULL or a rank of
 * the remote group.  Fails only with AMP_ERR_NOMEM. */
AMP_MUST_USE amp_status_t amp_coll_inter_barrier(const amp_coll_inter_t *ic,
                                                 struct amp_nbc **out);
AMP_MUST_USE amp_status_t amp_coll_inter_bcast(const amp_coll_inter_t *ic,
                                               void *buf, int count,
                                               const amp_dt_t *dt, int root,
                                               struct amp_nbc **out);
/* Reduce r to root, or (all) allreduce. */
AMP_MUST_USE amp_status_t amp_coll_inter_reduce(const amp_coll_inter_t *ic,
                                                const amp_coll_reduction_t *r,
                                                int root, int all,
                                                struct amp_nbc **out);
/* Reduce_scatter(_block) of r: counts over the local group, r->count their
 * sum (the same in both groups). */
AMP_MUST_USE amp_status_t amp_coll_inter_reduce_scatter(
    const amp_coll_inter_t *ic, const amp_coll_reduction_t *r,
    const int *counts, struct amp_nbc **out);
/* The local rank 0 of one group, the low one (low: this rank's group),
 * sends the n ints at buf to every other member of both groups. */
AMP_MUST_USE amp_status_t amp_coll_inter_from_leader(const amp_coll_inter_t *ic,
                                                     int low, int *buf, int n,
                                                     struct amp_nbc **out);

/* One round that sends sd's blocks of sendbuf and receives rd's blocks
 * (coll.h) into recvbuf, the ranks of the blocks the remote group's. */
AMP_MUST_USE amp_status_t amp_coll_inter_exchange(
    const amp_coll_inter_t *ic, const void *sendbuf, const amp_coll_side_t *sd,
    void *recvbuf, const amp_coll_side_t *rd, struct amp_nbc **out);

#endif
