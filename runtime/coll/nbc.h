/*
 * nbc: collective schedules, the engine behind the nonblocking collectives
 * (and the blocking ones built the same way).
 *
 * A schedule is a list of rounds; a round is a list of steps:
 *
 *   - send / receive of raw bytes to / from a rank of the communicator, on
 *     its collective context, tagged amp_coll_tag(c->seq, step) where step
 *     is what amp_nbc_tag last set (0 at first): the messages of two
 *     collective calls never match each other; between two ranks, messages
 *     with the same tag match in the order they were added (p2p never lets
 *     them overtake), so most algorithms need no step numbers at all;
 *   - typed send / receive: count elements of a datatype in the user's
 *     layout (non-contiguous data is packed into a temporary when the round
 *     starts, and unpacked when the round ends);
 *   - local typed copy, local reduction (amp_coll_apply), and a callback.
 *
 * The steps of a round start in the order they were added; local steps run
 * to completion when they start, so a local step sees what the earlier
 * local steps of its round wrote, and a send added after it sends that.
 * A round starts when every step of the previous round is done (sends
 * included, so a later round may overwrite what an earlier one sent).
 *
 * Use:
 *
 *     amp_nbc_t *s = amp_nbc_create(c, max_steps, scratch_bytes);
 *     char *tmp = amp_nbc_scratch(s, bytes);   // builder's temporaries
 *     amp_nbc_recv(s, tmp, bytes, 3);           // round 0
 *     amp_nbc_round(s);
 *     amp_nbc_send_typed(s, buf, count, dt, 4); // round 1
 *     amp_nbc_start(s, &done);                  // s belongs to the engine
 *
 * max_steps and scratch_bytes are upper bounds the builder computes (going
 * past them is an internal error and asserts).  The schedule is one
 * allocation (steps, a copy of the communicator's rank map, scratch); the
 * packing temporaries and copies of derived datatypes are one more, made
 * at amp_nbc_start.  Nothing is allocated per message.  The schedule keeps
 * its own copies of the derived datatypes and of the rank map, so the user
 * may free those (and the communicator) while it runs; buffers stay the
 * user's.
 *
 * Progress does not depend on the owning rank calling MPI.  Each internal
 * request's completion (which p2p runs on the owner's PE, possibly inside
 * another rank's call or the scheduler) only counts down the round and,
 * at zero, queues the schedule on its PE's ready list; the list is drained
 * at a safe point: the scheduler's poll hook (amp_nbc_poll, which runs
 * whenever any thread of the PE blocks or yields, and in the scheduler
 * loop).  So p2p matching is never re-entered from inside a completion,
 * and stacks do not grow with chains of completions.  A drained schedule
 * runs on the owner's PE but not necessarily on the owner's stack:
 * callbacks and user reduction functions must not block.  A user
 * reduction function runs as the owner (amp_sched_act_begin: its globals,
 * and its rank for the MPI calls the function makes); while the owner
 * runs as another PE's guest, its schedule waits until it is back.
 *
 * When the last round is done, the schedule frees itself and completes
 * the request done (amp_p2p_req_complete on the owner's PE, done->error:
 * the first step that failed, e.g. AMP_ERR_TRUNCATE).  A failed step does
 * not stop the schedule: the remaining messages still flow, so that the
 * other members finish.
 */
#ifndef AMP_COLL_NBC_H
#define AMP_COLL_NBC_H

#include "coll/coll.h"

#include <stdatomic.h>

typedef struct amp_nbc amp_nbc_t;

/* Per-PE state: the schedules ready to run.  An array by PE id, made
 * before the PEs start; touched only by its PE (pending by any). */
typedef struct amp_nbc_pe {
    _Alignas(64) amp_nbc_t *head, *tail;
    /* Schedules whose next round applies a user function while their owner
     * runs as another PE's guest: tried again at every drain. */
    amp_nbc_t *later;
    _Atomic int nready;
    int draining;
} amp_nbc_pe_t;

amp_nbc_pe_t *amp_nbc_pes_create(int npes);
void amp_nbc_pes_destroy(amp_nbc_pe_t *pes);
/* Scheduler hooks (with p2p's, see start.c): runs the schedules ready on
 * pe / says whether there are any.  pes may be NULL. */
void amp_nbc_poll(amp_nbc_pe_t *pes, amp_pe_t *pe);
int amp_nbc_pending(amp_nbc_pe_t *pes, amp_pe_t *pe);

/* A callback step; its status is recorded like a failed step's. */
typedef amp_status_t (*amp_nbc_fn_t)(void *arg);

/* A new, empty schedule for the collective call c describes (its ctx, seq,
 * rank map), with room for max_steps steps and scratch_bytes of scratch;
 * NULL when out of memory. */
amp_nbc_t *amp_nbc_create(const amp_coll_comm_t *c, int max_steps,
                          size_t scratch_bytes);
/* Frees a schedule that was never started. */
void amp_nbc_destroy(amp_nbc_t *s);

/* bytes of the schedule's scratch, 64-byte aligned (count each carve as
 * AMP_ROUND_UP(bytes, 64) in scratch_bytes).  Lives as long as s. */
void *amp_nbc_scratch(amp_nbc_t *s, size_t bytes);
/* Scratch bytes amp_nbc_scratch_elems needs. */
size_t amp_nbc_elems_bytes(const amp_dt_t *dt, int count);
/* Scratch for count elements of dt in its layout: returns the address to
 * use as the elements' buffer (data at base + true_lb). */
char *amp_nbc_scratch_elems(amp_nbc_t *s, const amp_dt_t *dt, int count);

/* Ends the current round: later steps wait for every step before. */
void amp_nbc_round(amp_nbc_t *s);
/* The tag step (0 .. 4095) of the sends and receives added from now on;
 * sender and receiver of a message must use the same. */
void amp_nbc_tag(amp_nbc_t *s, int step);
/* Raw bytes to / from comm rank peer. */
void amp_nbc_send(amp_nbc_t *s, const void *buf, size_t bytes, int peer);
void amp_nbc_recv(amp_nbc_t *s, void *buf, size_t bytes, int peer);
/* count elements of dt at buf (user layout). */
void amp_nbc_send_typed(amp_nbc_t *s, const void *buf, int count,
                        const amp_dt_t *dt, int peer);
void amp_nbc_recv_typed(amp_nbc_t *s, void *buf, int count, const amp_dt_t *dt,
                        int peer);
/* (src, scount, sdt) -> (dst, dcount, ddt): the data bytes, in order;
 * AMP_ERR_TRUNCATE when dst holds fewer bytes than src.  ddt NULL: dst is
 * packed bytes, dcount of them. */
void amp_nbc_copy(amp_nbc_t *s, const void *src, int scount,
                  const amp_dt_t *sdt, void *dst, int dcount,
                  const amp_dt_t *ddt);
/* inout = in op inout, count elements of dt (amp_coll_apply). */
void amp_nbc_reduce(amp_nbc_t *s, const amp_coll_op_t *op, const void *in,
                    void *inout, int count, const amp_dt_t *dt);
/* fn(arg), when its round starts. */
void amp_nbc_call(amp_nbc_t *s, amp_nbc_fn_t fn, void *arg);

/* Starts s (on the owner's PE, from the owner's thread).  done is
 * initialized here (owner c->ep, pending; its on_done is the caller's and
 * is kept) and completes when s is finished, possibly before this
 * returns.  Returns AMP_ERR_NOMEM (s freed, done untouched) when the
 * packing temporaries cannot be had. */
AMP_MUST_USE amp_status_t amp_nbc_start(amp_nbc_t *s, amp_p2p_req_t *done);

/* ---- schedules of the standard collectives (coll/sched.c) ----
 *
 * Each builds a complete schedule for comm c into *out (AMP_ERR_NOMEM, or
 * AMP_OK); the caller starts it.  Buffers, counts and types are as in the
 * MPI call, already checked; in_place says MPI_IN_PLACE was given where
 * the call allows it (the data is then in recvbuf).  Reductions combine in
 * the order of coll/tree.h (the binomial reduction to rank 0 is its tree),
 * so non-commutative operations keep rank order and the bits do not
 * depend on placement; scans combine along recursive doubling, which
 * depends on the communicator's size alone. */
AMP_MUST_USE amp_status_t amp_coll_sched_barrier(const amp_coll_comm_t *c,
                                                 amp_nbc_t **out);
AMP_MUST_USE amp_status_t amp_coll_sched_bcast(const amp_coll_comm_t *c,
                                               void *buf, int count,
                                               const amp_dt_t *dt, int root,
                                               amp_nbc_t **out);
/* Reduce r to root, or (all) allreduce. */
AMP_MUST_USE amp_status_t amp_coll_sched_reduce(const amp_coll_comm_t *c,
                                                const amp_coll_reduction_t *r,
                                                int root, int all,
                                                amp_nbc_t **out);
/* Gather(v) / scatter(v) / allgather(v): the send and receive sides
 * (coll.h; the side of the blocks per rank is the receive side of gather
 * and allgather, the send side of scatter). */
AMP_MUST_USE amp_status_t amp_coll_sched_gather(const amp_coll_comm_t *c,
                                                const amp_coll_blocks_t *send,
                                                const amp_coll_blocks_t *recv,
                                                int root, int in_place,
                                                amp_nbc_t **out);
AMP_MUST_USE amp_status_t amp_coll_sched_scatter(const amp_coll_comm_t *c,
                                                 const amp_coll_blocks_t *send,
                                                 const amp_coll_blocks_t *recv,
                                                 int root, int in_place,
                                                 amp_nbc_t **out);
AMP_MUST_USE amp_status_t amp_coll_sched_allgather(
    const amp_coll_comm_t *c, const amp_coll_blocks_t *send,
    const amp_coll_blocks_t *recv, int in_place, amp_nbc_t **out);
/* Alltoall(v,w): per peer i, the send block is sd's block i of sendbuf,
 * the receive block rd's block i of recvbuf (coll.h; a block for every
 * rank of c: their first and n are not used).  in_place: the send blocks
 * are the receive blocks. */
AMP_MUST_USE amp_status_t amp_coll_sched_alltoall(
    const amp_coll_comm_t *c, const void *sendbuf, const amp_coll_side_t *sd,
    void *recvbuf, const amp_coll_side_t *rd, int in_place, amp_nbc_t **out);
/* Reduce_scatter(_block): rcounts[i] elements go to rank i. */
AMP_MUST_USE amp_status_t amp_coll_sched_reduce_scatter(
    const amp_coll_comm_t *c, const void *sendbuf, void *recvbuf,
    const int *rcounts, const amp_dt_t *dt, const amp_coll_op_t *op,
    int in_place, amp_nbc_t **out);
/* Scan of r (exclusive: exscan; rank 0's recvbuf is left alone). */
AMP_MUST_USE amp_status_t amp_coll_sched_scan(const amp_coll_comm_t *c,
                                              const amp_coll_reduction_t *r,
                                              int exclusive, int in_place,
                                              amp_nbc_t **out);

#endif
