/*
 * Collectives of a communicator whose members run in several processes,
 * in two levels: the members of each process meet through its shared
 * address space (coll/shm.h), one member per process talks to the other
 * processes over point-to-point.  hier.c: the layout of the levels,
 * barrier, bcast and allreduce; levels.c: gather, scatter, allgather,
 * alltoall, reduce and reduce-scatter on the same layout.
 */
#ifndef AMP_COLL_HIER_H
#define AMP_COLL_HIER_H

#include "coll/coll.h"
#include "coll/shm.h"
#include "node/node.h"

/* The layout of a communicator's two levels (hier.c). */
typedef struct amp_coll_hier amp_coll_hier_t;

/* Where the members of a communicator run, for amp_coll_hier_new. */
typedef struct amp_coll_where {
    int size;             /* members */
    const int *world;     /* comm rank -> world rank; NULL: the identity */
    const int *rank_proc; /* world rank -> its process */
    int proc;             /* this process */
    int ctx;              /* the communicator's context */
    /* Where the shared state of this process's members is found, as
     * amp_coll_shm_attach takes it. */
    amp_coll_shm_registry_t *reg;
    const int *rank_pe;
    int npes;
    /* The node's processes (node/node.h), whose shared memory the leaders
     * meet in when every process of the communicator is on this node;
     * NULL: they meet over point-to-point. */
    const amp_node_t *node;
    /* The placement rank_proc describes (amp_p2p_world_t.placed): the
     * layout of a communicator with the identity map is computed once per
     * process and placement, and shared by its members there. */
    unsigned long placed;
} amp_coll_where_t;

/* The layout of a communicator whose members run in several processes
 * (the caller knows they do), each process's as one block of consecutive
 * ranks: *out, or NULL when some process's members are not one block.
 * Fails only with AMP_ERR_NOMEM.  amp_coll_hier_free releases it (NULL:
 * nothing). */
AMP_MUST_USE amp_status_t amp_coll_hier_new(const amp_coll_where_t *w,
                                            amp_coll_hier_t **out);
void amp_coll_hier_free(amp_coll_hier_t *h);

/* The two-level collectives on such a communicator (c: this call's view
 * of it); allreduce needs amp_coll_shm_reduce_ok. */
AMP_MUST_USE amp_status_t amp_coll_hier_barrier(const amp_coll_hier_t *h,
                                                const amp_coll_comm_t *c);
AMP_MUST_USE amp_status_t amp_coll_hier_bcast(const amp_coll_hier_t *h,
                                              const amp_coll_comm_t *c,
                                              void *buf, int count,
                                              const amp_dt_t *dt, int root);
AMP_MUST_USE amp_status_t amp_coll_hier_allreduce(
    const amp_coll_hier_t *h, const amp_coll_comm_t *c, const void *sendbuf,
    void *recvbuf, int count, const amp_dt_t *dt, const amp_coll_op_t *op);

/* ---- the leaders' level through node shared memory (nodelevel.c) ----
 * Made with the layout when every block's process is on this node; used
 * by the blocks' leaders only, one episode (a barrier or an allreduce) at
 * a time, in the communicator's order of collectives.  n ranks in nblocks
 * blocks (first: as amp_coll_tree_reduce_blocks takes it; leader_world:
 * block b's leader's world rank; both kept by the caller), this leader's
 * block; ctx and first_world (the world rank of comm rank 0) name the node
 * object. */
typedef struct amp_coll_nlevel amp_coll_nlevel_t;
typedef struct amp_coll_nlevel_layout {
    int nblocks, block, n;
    const int *first, *leader_world;
} amp_coll_nlevel_layout_t;
AMP_MUST_USE amp_status_t amp_coll_nlevel_new(
    const amp_node_t *node, int ctx, int first_world,
    const amp_coll_nlevel_layout_t *lay, amp_coll_nlevel_t **out);
void amp_coll_nlevel_free(amp_coll_nlevel_t *l);
/* Whether an allreduce of bytes per value goes through l (not NULL):
 * the same answer at every leader. */
int amp_coll_nlevel_allreduce_ok(const amp_coll_nlevel_t *l, size_t bytes);
AMP_MUST_USE amp_status_t amp_coll_nlevel_barrier(amp_coll_nlevel_t *l);
/* Whether a broadcast of bytes goes through l (not NULL); the same answer
 * at every leader. */
int amp_coll_nlevel_bcast_ok(const amp_coll_nlevel_t *l, size_t bytes);
/* bytes of data (type signature) from block root's leader's buf to every
 * leader's buf, each in its own layout dt. */
AMP_MUST_USE amp_status_t amp_coll_nlevel_bcast(amp_coll_nlevel_t *l, void *buf,
                                                const amp_dt_t *dt,
                                                size_t bytes, int root);
/* amp_coll_tree_reduce_blocks through the node: parts holds this block's
 * ncover cover values; every leader gets the root's value in result. */
AMP_MUST_USE amp_status_t amp_coll_nlevel_allreduce(
    amp_coll_nlevel_t *l, const char *parts, int ncover, char *result,
    int count, const amp_dt_t *dt, const amp_coll_op_t *op);

/* The layout of the two levels, for the other two-level collectives
 * (levels.c). */
typedef struct amp_coll_levels {
    int first, nlocal;       /* this process's members: comm ranks first.. */
    int block, nblocks;      /* this process's block among the comm's */
    const int *local_world;  /* local member i -> world rank */
    const int *leader_world; /* block b's leader -> world rank */
    const int *block_first;  /* block b's first comm rank; [nblocks] = size */
    struct amp_coll_shm *shm;
    int node; /* the leaders meet in this node's memory (every process of
                 the communicator on this node) */
} amp_coll_levels_t;
void amp_coll_hier_levels(const amp_coll_hier_t *h, amp_coll_levels_t *out);

/* ---- the other collectives in two levels (levels.c) ----
 * Blocking calls on a communicator with a layout h: the members of each
 * process meet through its shared address space, the processes' gatherers
 * (the root where it is, the block's first rank elsewhere) exchange whole
 * blocks of data, one message per pair of processes (through the node's
 * rings between processes of one node).  Arguments as the MPI call's,
 * already checked, the send and receive sides as amp_coll_blocks_t
 * (coll.h; counts NULL for the regular forms). */
AMP_MUST_USE amp_status_t amp_coll_levels_gather(const amp_coll_hier_t *h,
                                                 const amp_coll_comm_t *c,
                                                 const amp_coll_blocks_t *send,
                                                 const amp_coll_blocks_t *recv,
                                                 int root, int in_place);
AMP_MUST_USE amp_status_t amp_coll_levels_scatter(const amp_coll_hier_t *h,
                                                  const amp_coll_comm_t *c,
                                                  const amp_coll_blocks_t *send,
                                                  const amp_coll_blocks_t *recv,
                                                  int root, int in_place);
AMP_MUST_USE amp_status_t amp_coll_levels_allgather(
    const amp_coll_hier_t *h, const amp_coll_comm_t *c,
    const amp_coll_blocks_t *send, const amp_coll_blocks_t *recv, int in_place);
/* Alltoall with count elements of dt per pair, both sides (types of the
 * same size may differ); whether it goes two-level: a layout (h not NULL)
 * and small blocks. */
int amp_coll_levels_alltoall_ok(const amp_coll_hier_t *h, size_t pair_bytes);
AMP_MUST_USE amp_status_t amp_coll_levels_alltoall(
    const amp_coll_hier_t *h, const amp_coll_comm_t *c,
    const amp_coll_blocks_t *send, const amp_coll_blocks_t *recv, int in_place);
/* Reduce and reduce-scatter through the two-level allreduce (so their
 * results are its bits), needing amp_coll_shm_reduce_ok.  rcounts: each
 * rank's part of the reduce-scatter, in order. */
AMP_MUST_USE amp_status_t
amp_coll_levels_reduce(const amp_coll_hier_t *h, const amp_coll_comm_t *c,
                       const void *sendbuf, void *recvbuf, int count,
                       const amp_dt_t *dt, const amp_coll_op_t *op, int root);
AMP_MUST_USE amp_status_t amp_coll_levels_reduce_scatter(
    const amp_coll_hier_t *h, const amp_coll_comm_t *c, const void *sendbuf,
    void *recvbuf, const int *rcounts, const amp_dt_t *dt,
    const amp_coll_op_t *op);

#endif
