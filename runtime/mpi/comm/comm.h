/*
 * Communicators' construction (comm.c), groups (group.c),
 * inter-communicators (intercomm.c, and their collectives:
 * ../coll/intercoll_calls.c), and what every collective call of the layer
 * shares (../coll/).  The communicator object, its lookup and check are
 * ../handles.h's.
 */
#ifndef AMP_MPI_COMM_H
#define AMP_MPI_COMM_H

#include "mpi/handles.h"

/* A group: an ordered list of world ranks (group.c). */
typedef struct amp_group {
    amp_obj_t obj;
    int size;
    int *world; /* group rank -> world rank; NULL when empty */
    /* ../init/session.c: the buffer of buffered sends of the session it
     * comes from (MPI_Group_from_session_pset), or NULL */
    struct amp_bsend *session_bsend;
    const char *session_memkinds; /* and its memory allocation kinds */
} amp_group_t;

/* collective.c: root is a rank of comm; op (a valid handle) is defined on
 * dt (handle dtype) and resolved into *out. */
int amp_check_root(amp_rank_t *rank, amp_comm_t *comm, int root,
                   const char *call);
int amp_check_op(amp_rank_t *rank, amp_comm_t *comm, MPI_Op op,
                 MPI_Datatype dtype, const amp_dt_t *dt, const char *call,
                 amp_coll_op_t *out);
/* The arguments of a reduction (MPI_Reduce, MPI_Allreduce and their
 * nonblocking forms): count elements of dtype at sendbuf combined with op
 * into recvbuf at root, or with all at every rank (root unused). */
typedef struct amp_reduce_args {
    const void *sendbuf;
    void *recvbuf;
    int count;
    MPI_Datatype dtype;
    MPI_Op op;
    int root, all;
} amp_reduce_args_t;
/* coll_calls.c: runs schedule s (built with status st) to the end, or,
 * when request is not NULL, hands it out as *request (kind AMP_REQ_COLL on
 * comm_h).  Takes s over; returns the MPI code (errors through comm). */
int amp_coll_launch(amp_rank_t *rank, amp_comm_t *comm, MPI_Comm comm_h,
                    amp_status_t st, struct amp_nbc *s, MPI_Request *request,
                    const char *call);

/* ---- persistent collectives (pcoll.c) ---- */
typedef struct amp_pcoll amp_pcoll_t;
/* amp_coll_launch of a persistent collective being set up (schedule s
 * dropped) or started (s completes its request); g: its device buffers. */
AMP_MUST_USE amp_status_t amp_pcoll_launch(amp_rank_t *rank, amp_pcoll_t *p,
                                           struct amp_nbc *s,
                                           struct amp_gpu_op *g);

/* ---- process topologies (topology.c) ---- */

/* A copy of t for MPI_Comm_dup (*copy NULL when t is NULL). */
AMP_MUST_USE amp_status_t amp_topology_dup(const struct amp_topology *t,
                                           struct amp_topology **copy);
void amp_topology_free(struct amp_topology *t);

/* ---- communicators (comm.c) ---- */

/* A new rank's MPI_COMM_WORLD and MPI_COMM_SELF (in its table of
 * communicators, made empty). */
AMP_MUST_USE amp_status_t amp_comm_rank_init(amp_rank_t *rank);

/* Whether the size ranks of world (comm rank -> world rank, NULL: the
 * identity) all run in this process: only then do collectives go through
 * its shared memory (coll/shm.c). */
int amp_comm_members_local(int size, const int *world);

/* world (size entries, taken over: freed) as a map shared with the other
 * members in this process that hold the same, counted once more; NULL
 * when out of memory. */
amp_world_map_t *amp_world_map_share(amp_world_maps_t *t, int *world, int size);
/* The ranks of a shared map (NULL for NULL). */
const int *amp_world_map_ranks(const amp_world_map_t *m);
/* Counts k more holders of m (not NULL); returns m. */
amp_world_map_t *amp_world_map_hold(amp_world_maps_t *t, amp_world_map_t *m,
                                    int k);
/* Counts a holder of m less; the last frees it.  NULL: nothing. */
void amp_world_map_drop(amp_world_maps_t *t, amp_world_map_t *m);

/* Collective over comm (an intra-communicator), after the context ctx of
 * the new communicators was agreed: the members of the caller's color
 * (MPI_UNDEFINED: none), ordered by key and then rank in comm, as a shared
 * map (*map, one hold of it the caller's) of *n world ranks, the caller at
 * *me (split.c).  Fails with AMP_ERR_NOMEM.  May block; re-read rank-local
 * pointers after. */
AMP_MUST_USE amp_status_t amp_comm_split_members(amp_comm_t *comm, int ctx,
                                                 int color, int key,
                                                 amp_world_map_t **map,
                                                 int *n, int *me);

/* A new communicator object of this rank with context ctx (ctx and ctx + 1),
 * this rank's position myrank among size members, and world (comm rank ->
 * world rank, which the communicator takes over and frees; NULL for the
 * identity).  Error handler MPI_ERRORS_ARE_FATAL, no name.  NULL when out
 * of memory (world is freed then too). */
amp_comm_t *amp_comm_new(amp_rank_t *rank, int ctx, int myrank, int size,
                         int *world);
/* The same without the collectives' shared state (amp_comm_coll_attach
 * adds it once ctx is known: MPI_Comm_idup). */
amp_comm_t *amp_comm_alloc(amp_rank_t *rank, int ctx, int myrank, int size,
                           int *world);
/* amp_comm_new and amp_comm_alloc with a shared map instead of world (NULL:
 * the identity), one of whose holds the communicator takes over (dropped
 * when out of memory). */
amp_comm_t *amp_comm_new_mapped(amp_rank_t *rank, int ctx, int myrank,
                                int size, amp_world_map_t *map);
amp_comm_t *amp_comm_alloc_mapped(amp_rank_t *rank, int ctx, int myrank,
                                  int size, amp_world_map_t *map);
/* +trace: c, just made, is an inter-communicator (the archive leaves
 * it out of its communicators). */
void amp_comm_trace_inter(const amp_rank_t *rank, const amp_comm_t *c);
/* Releases everything the communicator holds and its handle. */
void amp_comm_destroy(amp_rank_t *rank, amp_comm_t *comm);
/* Releases what every communicator of a rank that left this process held
 * here (amp_rank_objects_forget; such a rank has intra-communicators
 * without attributes only: rank/checkpoint.c's check). */
void amp_comm_forget_all(amp_rank_t *rank);
/* Keeps comm alive (MPI_Comm_free only invalidates the program's handle)
 * while a persistent request uses it; the last drop after the free
 * destroys it. */
void amp_comm_hold(amp_comm_t *comm);
void amp_comm_drop(amp_rank_t *rank, amp_comm_t *comm);
/* comm->hier: the layout of the two levels of comm's collectives
 * (coll/hier.h) when its members run in several processes, each
 * process's as one block of consecutive ranks, else NULL. */
AMP_MUST_USE amp_status_t amp_comm_hier_attach(amp_comm_t *comm);
/* The shared state of comm's collectives for the processes its members
 * run in now (amp_comm_new does it; a rank that moves between processes
 * detaches and attaches again, rank/move.c).  Fails with AMP_ERR_NOMEM. */
AMP_MUST_USE amp_status_t amp_comm_coll_attach(amp_comm_t *c);
void amp_comm_coll_detach(amp_comm_t *c);
/* Context ids agreed while other threads of the rank may agree too
 * (MPI_THREAD_MULTIPLE; comm.c has the protocol).  propose: nids ids
 * from the rank's next one, issued to the caller alone; the first is the
 * rank's proposal.  take: after the proposals were combined (agreed, their
 * largest), whether ids agreed.. agreed+nids-1 may be taken at this rank
 * (they are then); every member must say so, else all try again.
 * threads: whether the rank has threads that may agree at the same time
 * (no member has: take is certain and may be skipped).  backoff: a short
 * random wait before another try, longer with each (*tries). */
int amp_comm_ctx_propose(amp_rank_t *rank, int nids);
int amp_comm_ctx_take(amp_rank_t *rank, int proposed, int agreed, int nids);
int amp_comm_ctx_threads(amp_rank_t *rank);
void amp_comm_ctx_backoff(unsigned *tries);
/* Collective over comm: a context id no member has used yet (two ids are
 * taken: ctx and ctx + 1).  May block; re-read rank-local pointers after. */
AMP_MUST_USE amp_status_t amp_comm_agree_ctx(amp_rank_t *rank, amp_comm_t *comm,
                                             int *ctx);

/* Collective over the members of comm listed in members (comm ranks, by
 * position; this rank is members[me]), n of them, only: like
 * amp_comm_agree_ctx.  tag (0..MPI_TAG_UB) keeps apart
 * concurrent agreements on one communicator (MPI_Comm_create_group). */
AMP_MUST_USE amp_status_t amp_comm_agree_ctx_among(amp_rank_t *rank,
                                                   amp_comm_t *comm,
                                                   const int *members, int n,
                                                   int me, int tag, int *ctx);

/* ---- groups (group.c) ---- */
amp_group_t *amp_group_lookup(amp_rank_t *rank, MPI_Group h);
/* Looks up h, answering MPI_ERR_GROUP (through comm's handler) if it is
 * not a valid group; arg names the argument. */
int amp_check_group(amp_rank_t *rank, amp_comm_t *comm, MPI_Group h,
                    const char *call, const char *arg, amp_group_t **group);
/* A new group handle for the world ranks in world (n of them), which the
 * group takes over (MPI_GROUP_EMPTY when n is 0; world is freed then). */
AMP_MUST_USE amp_status_t amp_group_new(amp_rank_t *rank, int *world, int n,
                                        MPI_Group *out);
/* Position of world rank w in group, or MPI_UNDEFINED. */
int amp_group_rank_of(const amp_group_t *group, int w);
/* space: NULL, or amp_table_space(sizeof(amp_group_t)) bytes for the
 * table's first chunk (base/table.h, amp_table_init_in). */
AMP_MUST_USE amp_status_t amp_group_init(amp_rank_t *rank, void *space);

/* ---- inter-communicators (intercomm.c) ---- */
/* Enters call with inter-communicator comm_h and a place out (named
 * outarg) for a result. */
int amp_intercomm_enter(amp_rank_t **rank, MPI_Comm comm_h, const void *out,
                        const char *outarg, const char *call,
                        amp_comm_t **comm);
/* MPI_Comm_dup of an inter-communicator: *out is the new one. */
int amp_intercomm_dup(amp_rank_t *rank, MPI_Comm comm_h, amp_comm_t **out,
                      const char *call);
/* A new inter-communicator object with the groups of comm and context
 * ids from ctx, its collectives' state attached (attach 1) or not yet
 * (MPI_Comm_idup: ctx -1, amp_comm_coll_attach on its local_comm later). */
int amp_intercomm_copy(amp_rank_t *rank, amp_comm_t *comm, int ctx, int attach,
                       amp_comm_t **out, const char *call);
/* MPI_Comm_split (and MPI_Comm_create, MPI_Comm_split_type) of the
 * inter-communicator comm_h, checked: the inter-communicator between the
 * members of each group with color (in the order of key, then rank), or
 * MPI_COMM_NULL when color is MPI_UNDEFINED or either side has none. */
int amp_intercomm_split(amp_rank_t *rank, MPI_Comm comm_h, int color, int key,
                        MPI_Comm *newcomm, const char *call);
/* Releases what an inter-communicator holds beside the intra part. */
void amp_intercomm_cleanup(amp_rank_t *rank, amp_comm_t *comm);
/* Collectives on an inter-communicator (intercoll_calls.c): each checks its
 * own arguments beyond comm (reduce_scatter's are checked), then runs the
 * call to the end or, when request is not NULL, hands it out as *request
 * (on comm_h); returns the MPI code.  reduce: all for allreduce (root
 * unused). */
int amp_intercoll_barrier(amp_rank_t *rank, amp_comm_t *comm, MPI_Comm comm_h,
                          MPI_Request *request, const char *call);
struct amp_xfer; /* request.h */
/* bcast: x's count elements of x->dtype at x->buf from root x->peer, on
 * x->comm_h (comm). */
int amp_intercoll_bcast(amp_rank_t *rank, amp_comm_t *comm,
                        const struct amp_xfer *x, MPI_Request *request,
                        const char *call);
int amp_intercoll_reduce(amp_rank_t *rank, amp_comm_t *comm, MPI_Comm comm_h,
                         const amp_reduce_args_t *a, MPI_Request *request,
                         const char *call);
/* Reduce_scatter(_block) of r: counts over the local group, r->count their
 * sum (the same in both groups). */
int amp_intercoll_reduce_scatter(amp_rank_t *rank, amp_comm_t *comm,
                                 MPI_Comm comm_h, const amp_coll_reduction_t *r,
                                 const int *counts, MPI_Request *request,
                                 const char *call);
/* root of a rooted collective on an inter-communicator: MPI_ROOT,
 * MPI_PROC_NULL or a rank of the remote group. */
int amp_check_inter_root(amp_rank_t *rank, amp_comm_t *comm, int root,
                         const char *call);

#endif
