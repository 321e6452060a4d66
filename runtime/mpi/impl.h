/*
 * The MPI layer's private header: the objects behind MPI handles and the
 * calls between the layer's files.  The process-wide and per-rank structs,
 * which the layers above use too, are in proc.h.
 */
#ifndef AMP_MPI_IMPL_H
#define AMP_MPI_IMPL_H

#include "mpi.h"
#include "mpi/proc.h"

#include "base/base.h"
#include "base/table.h"
#include "boot/boot.h"
#include "coll/coll.h"
#include "coll/hier.h"
#include "coll/inter.h"
#include "coll/shm.h"
#include "dt/dt.h"
#include "gpu/gpu.h"
#include "io/io.h"
#include "lb/lb.h"
#include "mem/mem.h"
#include "p2p/p2p.h"
#include "pie/pie.h"
#include "rma/rma.h"
#include "sched/sched.h"
#include "topo/topo.h"

#include <pthread.h>
#include <stdatomic.h>

/* Makes MPI_name a weak alias of PMPI_name, defined just before.  Not for
 * the calls whose exported entry points scripts/gen_threads.py generates
 * (its header, forced into the runtime's sources, defines
 * AMP_MT_WRAPPED_name): the entry point and its alias are made there, and
 * PMPI_name here is renamed to its implementation. */
#define AMP_WEAK_ALIAS(name)                                                   \
    AMP_ALIAS_IF(AMP_ALIAS_PROBE(AMP_MT_WRAPPED_##name), name)
#define AMP_ALIAS_PROBE(...) AMP_ALIAS_SECOND(__VA_ARGS__, 1, ~)
#define AMP_ALIAS_SECOND(a, b, ...) b
#define AMP_ALIAS_IF(on, name) AMP_ALIAS_IF_(on, name)
#define AMP_ALIAS_IF_(on, name) AMP_ALIAS_##on(name)
#define AMP_ALIAS_1(name) AMP_ALIAS_DEF(name)
/* The alias itself, exported: Clang would make a "#pragma weak" alias
 * hidden under -fvisibility=hidden. */
#define AMP_ALIAS_DEF(name)                                                    \
    extern __typeof__(PMPI_##name) MPI_##name                                  \
        __attribute__((weak, alias("PMPI_" #name)));
#define AMP_ALIAS_0(name)

#define AMP_HANDLE_KIND(h) ((unsigned)(h) >> AMPI_HANDLE_SHIFT)
#define AMP_HANDLE_INDEX(h) ((int)((unsigned)(h) & 0xffffffu))

typedef struct amp_comm {
    amp_obj_t obj;
    int ctx; /* p2p context; ctx + 1 is the collective one */
    int rank, size;
    const int *world; /* comm rank -> world rank; NULL: identity */
    int *owned_world; /* world map to free with the communicator */
    MPI_Errhandler errh;
    char name[MPI_MAX_OBJECT_NAME];
    /* Each of the following belongs to the file named; amp_comm_new zeroes
     * them and amp_comm_destroy asks each owner to release its part. */
    int is_inter;              /* intercomm.c: an inter-communicator */
    int remote_size;           /* intercomm.c */
    const int *remote_world;   /* intercomm.c: remote rank -> world rank */
    int *owned_remote_world;   /* intercomm.c */
    MPI_Comm local_comm;       /* intercomm.c: the local group's intra-comm */
    struct amp_topology *topo; /* topology.c */
    struct amp_attr *attrs;    /* attr.c: cached attributes */
    struct amp_info *info;     /* info.c: hints set on the communicator */
    /* comm_create.c: the hardware level MPI_COMM_TYPE_HW_UNGUIDED made it
     * at, which MPI_Comm_get_info reports as "mpi_hw_resource_type" */
    const char *hw_resource;
    unsigned coll_seq;          /* coll: collectives started, for tags */
    struct amp_coll_shm *shm;   /* coll/shm.c: state its members share */
    unsigned asserts;           /* info.c: AMP_ASSERT_* from mpi_assert_* */
    struct amp_coll_hier *hier; /* coll/hier.h: members in several processes */
    int holds;                  /* comm.c: persistent requests that use it */
    int freed; /* comm.c: MPI_Comm_free'd while held; the handle is invalid */
} amp_comm_t;

/* Bits of amp_comm_t.asserts: the MPI-4 assertions set to "true" in the
 * communicator's info hints (info.c). */
enum {
    AMP_ASSERT_NO_ANY_TAG = 1u << 0,      /* mpi_assert_no_any_tag */
    AMP_ASSERT_NO_ANY_SOURCE = 1u << 1,   /* mpi_assert_no_any_source */
    AMP_ASSERT_EXACT_LENGTH = 1u << 2,    /* mpi_assert_exact_length */
    AMP_ASSERT_ALLOW_OVERTAKING = 1u << 3 /* mpi_assert_allow_overtaking */
};

enum amp_req_kind {
    AMP_REQ_SEND,
    AMP_REQ_RECV,
    AMP_REQ_DONE, /* complete at creation: MPI_PROC_NULL, Ibsend */
    AMP_REQ_COLL, /* nonblocking collective: p2p completes with it */
    AMP_REQ_IO,   /* file operation (file_rw.c): io/ completes it */
    AMP_REQ_GREQ, /* generalized request (grequest.c) */
};

typedef struct amp_req {
    amp_obj_t obj;
    amp_p2p_req_t p2p;
    unsigned char kind, persistent, active, freed;
    int mode; /* send mode (MPI_Send, Ssend, Rsend, Bsend) */
    MPI_Comm comm;
    /* Arguments, kept for persistent requests and unpacking. */
    void *buf;
    int count;
    MPI_Datatype dtype;
    const amp_dt_t *dt;
    int peer, tag;
    void *pack;          /* packed copy of non-contiguous data */
    struct amp_nbc *nbc; /* AMP_REQ_COLL: its schedule until it is done */
    int dt_held;         /* dt is held (amp_type_hold) until release */
    int comm_held;       /* comm is held (amp_comm_hold) until release */
    /* A device buffer staged (gpu.c): the request that moves the host
     * copy, which MPI_Cancel cancels; NULL otherwise. */
    amp_p2p_req_t *staged;
    struct amp_file_op *fop; /* AMP_REQ_IO: the operation (file_rw.c) */
    /* The owner's part of the completion, run once by the completion call
     * (Wait, Test, ...) that finishes the request, before its status is
     * filled: what must run in the owner's context (the communicator of
     * MPI_Comm_idup, a generalized request's query).  Returns an MPI error
     * class, 0 for success.  NULL: none. */
    int (*finish_fn)(struct amp_rank *rank, struct amp_req *r);
    void *finish_arg;
    int errclass;            /* what finish_fn returned */
    struct amp_greq *greq;   /* AMP_REQ_GREQ: its callbacks (grequest.c) */
    struct amp_pcoll *pcoll; /* pcoll.c: a persistent collective's call */
    struct amp_part *part;   /* part.c: a partitioned send or receive */
} amp_req_t;

enum amp_send_mode {
    AMP_SEND_STANDARD,
    AMP_SEND_SYNC,
    AMP_SEND_READY,
    AMP_SEND_BUFFERED
};

/* A group: an ordered list of world ranks (group.c). */
typedef struct amp_group {
    amp_obj_t obj;
    int size;
    int *world; /* group rank -> world rank; NULL when empty */
} amp_group_t;

/* Which objects a user error handler is for (errors.c). */
enum amp_errh_kind {
    AMP_ERRH_COMM,
    AMP_ERRH_WIN,
    AMP_ERRH_FILE,
    AMP_ERRH_SESSION
};

typedef struct amp_errh {
    amp_obj_t obj;
    MPI_Comm_errhandler_function *fn; /* the same type for windows, files */
    int kind;                         /* enum amp_errh_kind */
} amp_errh_t;

typedef struct amp_op_obj {
    amp_obj_t obj;
    MPI_User_function *fn; /* an MPI_User_function_c when large */
    int commute;
    int large; /* made by MPI_Op_create_c */
} amp_op_obj_t;

typedef struct amp_msg_handle {
    amp_obj_t obj;
    struct amp_msg *msg;
} amp_msg_handle_t;

/* A window (win.c): this rank's view of a window; the memory and the
 * locks its members share are in the rma module's state (rma/rma.h). */
typedef struct amp_win {
    amp_obj_t obj;
    struct amp_rma_win *shared;
    MPI_Comm comm; /* private duplicate of the creating communicator; its
                      error handler is the window's */
    int rank, size;
    int flavor; /* MPI_WIN_FLAVOR_* */
    void *base; /* as MPI_WIN_BASE reports it */
    MPI_Aint bytes;
    int disp_unit;
    void *own_mem;          /* MPI_Win_allocate's memory (C heap) */
    unsigned own_shm;       /* its memory is node object serial - 1 */
    struct amp_attr *attrs; /* attr.c */
    struct amp_info *hints; /* info.c: the window hints set, or NULL */
    char name[MPI_MAX_OBJECT_NAME];
    /* Epochs (win_sync.c). */
    int fence;               /* a fence epoch may be open */
    int lock_all;            /* in MPI_Win_lock_all */
    int nlocked;             /* targets locked with MPI_Win_lock */
    int *locks;              /* by target: 0 or MPI_LOCK_SHARED/EXCLUSIVE */
    unsigned char *acc;      /* by target: in the MPI_Win_start group */
    int started;             /* between MPI_Win_start and complete */
    int *access, naccess;    /* MPI_Win_start's group (comm ranks) */
    int exposing, nexpose;   /* between MPI_Win_post and wait/test */
    amp_rma_origin_t origin; /* what members in other processes owe it */
} amp_win_t;

/* ---- windows across the processes of a node (win_node.c) ----
 * Window memory that the processes of this node share (rma/rma.h). */

/* The processes other than this one, on this node, that run members of
 * comm: how many. */
int amp_win_node_others(const amp_comm_t *c);
/* MPI_Win_allocate: this member's size bytes in a node object the other
 * processes of the node that run members (amp_win_node_others, at least
 * one) will map; sets w->base, w->own_shm. */
AMP_MUST_USE amp_status_t amp_win_node_expose(const amp_comm_t *c, amp_win_t *w,
                                              size_t size);
/* After the segments are exchanged, by the first member of this process:
 * maps the memory of member r of another process of this node (created
 * by amp_win_node_expose there: serial its node object's + 1, 0 none), or
 * lets its puts and gets be cross-memory copies. */
AMP_MUST_USE amp_status_t amp_win_node_peer(const amp_comm_t *c, amp_win_t *w,
                                            int r, unsigned serial);
/* MPI_Win_allocate_shared over members in several processes of this node:
 * one node object for all segments, made by comm rank 0, mapped by the
 * first member of each other process; collective (st: this member's
 * outcome so far). */
AMP_MUST_USE amp_status_t amp_win_node_shared(const amp_comm_t *c, amp_win_t *w,
                                              amp_status_t st);
/* Once every process has mapped it: the name of this member's node
 * object goes. */
void amp_win_node_unlink(amp_win_t *w);

/* ---- errors (errors.c) ---- */

int amp_mpi_class_of(amp_status_t st);
_Noreturn void amp_mpi_abort_job(int code);
int amp_mpi_unsupported(const char *call); /* see unsupported.c */
/* The error class of code (predefined, recorded or added by the program),
 * or -1 when code is no error code. */
int amp_mpi_class_of_code(amp_rank_t *rank, int code);
/* Records an error of a call on window win and applies handler eh (the
 * window's) to it; detail says what is wrong.  Returns the code. */
int amp_mpi_error_win(amp_rank_t *rank, MPI_Errhandler eh, MPI_Win win,
                      int errclass, const char *call, const char *detail);
/* Error handlers of objects whose calls live outside errors.c (sessions):
 * a new handler of kind (enum amp_errh_kind) calling fn; whether eh may be
 * the handler of such an object (the error through MPI_COMM_WORLD's
 * handler if not); and eh applied to an error of errclass (raw: the
 * program's error code as it is) of the object handle, detail saying what
 * is wrong.  The last two return an MPI code. */
int amp_errh_create(int kind, void *fn, MPI_Errhandler *errhandler,
                    const char *call);
int amp_errh_check(amp_rank_t *rank, MPI_Errhandler eh, int kind,
                   const char *call);
int amp_errh_apply(amp_rank_t *rank, MPI_Errhandler eh, int handle,
                   int errclass, int raw, const char *call, const char *detail);
/* What MPI_LASTUSEDCODE points to. */
const int *amp_mpi_lastusedcode(amp_rank_t *rank);

/* ---- handles (handles.c) ---- */
amp_comm_t *amp_comm_lookup(amp_rank_t *rank, MPI_Comm h);
const amp_dt_t *amp_dt_lookup(amp_rank_t *rank, MPI_Datatype h);
amp_req_t *amp_req_lookup(amp_rank_t *rank, MPI_Request h);
int amp_comm_world_rank(const amp_comm_t *comm, int r);
const char *amp_comm_label(const amp_comm_t *comm, char *buf, size_t len);
/* The collective view of comm for one collective call: takes the call's
 * sequence number (comm->coll_seq++), so call it once per call, on every
 * member, whatever the algorithm. */
void amp_coll_comm_of(amp_rank_t *rank, amp_comm_t *comm, amp_coll_comm_t *c);

/* Argument checks shared by the calls; each returns MPI_SUCCESS or the
 * code from amp_mpi_error. */
int amp_check_comm(amp_rank_t *rank, MPI_Comm h, const char *call,
                   amp_comm_t **comm);
int amp_check_dt(amp_rank_t *rank, amp_comm_t *comm, MPI_Datatype h,
                 const char *call, const char *arg, const amp_dt_t **dt);
int amp_check_count(amp_rank_t *rank, amp_comm_t *comm, int count,
                    const char *call, const char *arg);
int amp_check_buf(amp_rank_t *rank, amp_comm_t *comm, const void *buf,
                  int count, const amp_dt_t *dt, const char *call,
                  const char *arg);
/* collective.c: root is a rank of comm; op (a valid handle) is defined on
 * dt (handle dtype) and resolved into *out. */
int amp_check_root(amp_rank_t *rank, amp_comm_t *comm, int root,
                   const char *call);
int amp_check_op(amp_rank_t *rank, amp_comm_t *comm, MPI_Op op,
                 MPI_Datatype dtype, const amp_dt_t *dt, const char *call,
                 amp_coll_op_t *out);
/* coll_calls.c: runs schedule s (built with status st) to the end, or,
 * when request is not NULL, hands it out as *request (kind AMP_REQ_COLL on
 * comm_h).  Takes s over; returns the MPI code (errors through comm). */
int amp_coll_launch(amp_rank_t *rank, amp_comm_t *comm, MPI_Comm comm_h,
                    amp_status_t st, struct amp_nbc *s, MPI_Request *request,
                    const char *call);

/* ---- process topologies (topology.c) ---- */

/* A copy of t for MPI_Comm_dup (*copy NULL when t is NULL). */
AMP_MUST_USE amp_status_t amp_topology_dup(const struct amp_topology *t,
                                           struct amp_topology **copy);
void amp_topology_free(struct amp_topology *t);

/* ---- communicators (comm.c) ---- */

/* Whether the size ranks of world (comm rank -> world rank, NULL: the
 * identity) all run in this process: only then do collectives go through
 * its shared memory (coll/shm.c). */
int amp_comm_members_local(int size, const int *world);

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
/* Releases everything the communicator holds and its handle. */
void amp_comm_destroy(amp_rank_t *rank, amp_comm_t *comm);
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
 * detaches and attaches again, mpi/move.c).  Fails with AMP_ERR_NOMEM. */
AMP_MUST_USE amp_status_t amp_comm_coll_attach(amp_comm_t *c);
void amp_comm_coll_detach(amp_comm_t *c);
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

/* World rank of rank r of the group comm's messages go to: the remote
 * group of an inter-communicator, comm's own group otherwise. */
static inline int amp_comm_peer_world(const amp_comm_t *comm, int r)
{
    if (comm->is_inter)
        return comm->remote_world[r];
    return comm->world ? comm->world[r] : r;
}

/* Size of that group: the valid destinations and sources on comm. */
static inline int amp_comm_peer_size(const amp_comm_t *comm)
{
    return comm->is_inter ? comm->remote_size : comm->size;
}

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
AMP_MUST_USE amp_status_t amp_group_init(amp_rank_t *rank);

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
/* The view of inter-communicator ic for one collective call, for the
 * schedules of coll/inter.h: takes the call's sequence number
 * (amp_coll_comm_of), so call it once per call (intercoll_calls.c). */
void amp_intercoll_view(amp_rank_t *rank, amp_comm_t *ic, amp_coll_inter_t *v);
/* Collectives on an inter-communicator (intercoll_calls.c): each checks its
 * own arguments beyond comm (reduce_scatter's are checked), then runs the
 * call to the end or, when request is not NULL, hands it out as *request
 * (on comm_h); returns the MPI code.  reduce: all for allreduce (root
 * unused). */
int amp_intercoll_barrier(amp_rank_t *rank, amp_comm_t *comm, MPI_Comm comm_h,
                          MPI_Request *request, const char *call);
int amp_intercoll_bcast(amp_rank_t *rank, amp_comm_t *comm, MPI_Comm comm_h,
                        void *buffer, int count, MPI_Datatype datatype,
                        int root, MPI_Request *request, const char *call);
int amp_intercoll_reduce(amp_rank_t *rank, amp_comm_t *comm, MPI_Comm comm_h,
                         const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype datatype, MPI_Op op, int root, int all,
                         MPI_Request *request, const char *call);
/* Reduce_scatter(_block): counts over the local group, total their sum
 * (the same in both groups). */
int amp_intercoll_reduce_scatter(amp_rank_t *rank, amp_comm_t *comm,
                                 MPI_Comm comm_h, const void *sendbuf,
                                 void *recvbuf, const int *counts, int total,
                                 const amp_dt_t *dt, const amp_coll_op_t *op,
                                 MPI_Request *request, const char *call);
/* root of a rooted collective on an inter-communicator: MPI_ROOT,
 * MPI_PROC_NULL or a rank of the remote group. */
int amp_check_inter_root(amp_rank_t *rank, amp_comm_t *comm, int root,
                         const char *call);

/* ---- sessions (session.c) ---- */
AMP_MUST_USE amp_status_t amp_session_rank_init(amp_rank_t *rank);

/* ---- windows (win.c) ---- */
AMP_MUST_USE amp_status_t amp_win_rank_init(amp_rank_t *rank);
amp_win_t *amp_win_lookup(amp_rank_t *rank, MPI_Win h);
/* Looks up h, answering MPI_ERR_WIN (through MPI_COMM_WORLD's handler)
 * when it is no window. */
int amp_check_win(amp_rank_t *rank, MPI_Win h, const char *call,
                  amp_win_t **win);
/* amp_mpi_error through the window's error handler. */
int amp_win_error(amp_rank_t *rank, amp_win_t *win, int errclass,
                  const char *call, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The predefined attributes MPI_WIN_BASE .. MPI_WIN_MODEL: 1 (and the
 * value through attribute_val, *flag 1) when keyval is one. */
int amp_win_predefined_attr(amp_win_t *w, int keyval, void *attribute_val,
                            int *flag);

/* ---- attributes (attr.c) ---- */
AMP_MUST_USE amp_status_t amp_attr_rank_init(amp_rank_t *rank);
/* Copies old's attributes onto newcomm through their copy callbacks
 * (MPI_Comm_dup and its kin); on failure none is left on newcomm and the
 * error (through old's handler) is returned. */
int amp_attr_comm_copy(amp_rank_t *rank, amp_comm_t *old, amp_comm_t *newcomm,
                       const char *call);
/* Deletes comm's attributes through their delete callbacks, newest first;
 * stops at the first that fails and returns its error (MPI_Comm_free, and
 * MPI_Finalize for MPI_COMM_SELF). */
int amp_attr_comm_delete_all(amp_rank_t *rank, amp_comm_t *comm,
                             const char *call);
/* Deletes win's attributes through their delete callbacks, newest first;
 * stops at the first that fails (MPI_Win_free). */
int amp_attr_win_delete_all(amp_rank_t *rank, amp_win_t *win, const char *call);
/* Deletes whatever attributes comm still has (amp_comm_destroy). */
void amp_attr_comm_clear(amp_rank_t *rank, amp_comm_t *comm);
/* The same for datatypes: old (predefined or derived) to newdt on
 * MPI_Type_dup, and all of h's attributes on MPI_Type_free. */
int amp_attr_type_copy(amp_rank_t *rank, MPI_Datatype old, amp_dt_t *newdt,
                       const char *call);
int amp_attr_type_delete_all(amp_rank_t *rank, MPI_Datatype h,
                             const char *call);

/* ---- info objects (info.c) ---- */
AMP_MUST_USE amp_status_t amp_info_rank_init(amp_rank_t *rank);
/* The hints behind info handle h, or NULL (MPI_INFO_NULL, invalid). */
struct amp_info *amp_info_lookup(amp_rank_t *rank, MPI_Info h);
/* MPI_SUCCESS when h is MPI_INFO_NULL or an info object, else
 * MPI_ERR_INFO through comm's handler. */
int amp_check_info(amp_rank_t *rank, amp_comm_t *comm, MPI_Info h,
                   const char *call);
/* Adds hints (may be NULL) to comm's: comm->info keeps a copy, and
 * comm->asserts the AMP_ASSERT_* bits of the mpi_assert_* keys set to
 * "true" ("false" clears one).  MPI_Comm_dup passes the old comm->info,
 * MPI_Comm_dup_with_info amp_info_lookup(rank, info). */
AMP_MUST_USE amp_status_t amp_comm_info_apply(amp_rank_t *rank,
                                              amp_comm_t *comm,
                                              const struct amp_info *hints);
void amp_info_destroy(struct amp_info *info);
/* A window's hints: amp_win_info_apply keeps in *set (created on first
 * use) the standard's window hints found in hints, ignoring other keys;
 * amp_win_info_get hands out a new info object with every window hint, its
 * value from set or else its default (MPI_Win_get_info). */
AMP_MUST_USE amp_status_t amp_win_info_apply(struct amp_info **set,
                                             const struct amp_info *hints);
int amp_win_info_get(amp_rank_t *rank, const struct amp_info *set,
                     MPI_Info *info_used, const char *call);

/* ---- attributes from Fortran (attr.c, for fortran_attr.c) ----
 * kind: AMP_ATTR_COMM, _TYPE or _WIN.  A value set from Fortran
 * (INTEGER(KIND=MPI_ADDRESS_KIND), or with is_int the INTEGER of
 * MPI_ATTR_PUT) stays in the attribute: C gets a pointer to it (MPI 3.1
 * section 17.2.7), Fortran the value; a value set from C comes to Fortran
 * as the pointer's integer.  A keyval made by the Fortran binding has its
 * callbacks called with Fortran's values (amp_attr_keyval_fortran). */
enum { AMP_ATTR_COMM = 1, AMP_ATTR_TYPE, AMP_ATTR_WIN };
int amp_attr_fortran_set(int kind, int obj, int keyval, MPI_Aint value,
                         int is_int, const char *call);
int amp_attr_fortran_get(int kind, int obj, int keyval, MPI_Aint *value,
                         int *flag, const char *call);
void amp_attr_keyval_fortran(int keyval, int is_int);

/* ---- data representations (datarep.c) ---- */

/* A data representation registered with MPI_Register_datarep.  Each rank
 * has its own registry, as each MPI process would: a legacy program
 * registers the same name in every rank. */
typedef struct amp_datarep {
    struct amp_datarep *next;
    char name[MPI_MAX_DATAREP_STRING];
    MPI_Datarep_conversion_function *read_fn, *write_fn; /* may be NULL */
    MPI_Datarep_extent_function *extent_fn;
    void *extra_state;
    int fortran; /* the functions are Fortran's (called by fortran.c) */
} amp_datarep_t;

/* The representation rank registered under name, or NULL. */
amp_datarep_t *amp_datarep_lookup(amp_rank_t *rank, const char *name);
/* Registers r (copied) under name for the calling rank: the
 * MPI_Register_datarep of C and of Fortran (r->fortran set); returns the
 * MPI code. */
int amp_datarep_register(const char *name, const amp_datarep_t *r,
                         const char *call);
/* The extent in the file of predefined type dtype (through the program's
 * extent function); returns the MPI code of the function (or
 * MPI_ERR_CONVERSION when it gives a negative extent). */
int amp_datarep_extent(amp_rank_t *rank, const amp_datarep_t *r,
                       MPI_Datatype dtype, MPI_Aint *extent);
/* The program's conversion of count basic values between userbuf (laid
 * out as dtype tiled, from value position on) and filebuf (contiguous, the
 * file's representation); write: user to file.  MPI_SUCCESS without a
 * call when the representation has no such function (the caller copies
 * the bytes as they are).  Returns the function's code. */
int amp_datarep_convert(amp_rank_t *rank, const amp_datarep_t *r, int write,
                        void *userbuf, MPI_Datatype dtype, int count,
                        void *filebuf, MPI_Offset position);
/* Frees rank's registry (MPI_Finalize). */
void amp_datarep_cleanup(amp_rank_t *rank);

/* ---- files (file.c) ---- */
AMP_MUST_USE amp_status_t amp_file_rank_init(amp_rank_t *rank);
/* Where the error handler of file handle fh lives: the file's, or
 * MPI_FILE_NULL's; NULL when fh is no file. */
MPI_Errhandler *amp_file_errh_slot(amp_rank_t *rank, MPI_File fh);
/* Records an error of a call on file fh (MPI_FILE_NULL too) and applies
 * handler eh (the file's) to it; msg says what is wrong (call included).
 * Returns the code. */
int amp_mpi_error_file(amp_rank_t *rank, MPI_Errhandler eh, MPI_File fh,
                       int errclass, const char *msg);
/* The first open file of rank (for checkpoints), its path in *path, or
 * MPI_FILE_NULL. */
MPI_File amp_file_first_open(amp_rank_t *rank, const char **path);
/* A nonblocking file operation's part of request req (file_rw.c): freed
 * with the request. */
struct amp_file_op;
void amp_file_op_release(amp_rank_t *rank, struct amp_file_op *op);
/* Wait and Test found the file request of op failed: its error through
 * the file's handler (request.c). */
int amp_file_req_error(amp_rank_t *rank, struct amp_file_op *op,
                       const char *call);

/* ---- datatypes (datatype.c) ---- */

/* Keeps a derived type alive (MPI_Type_free only drops the user's handle)
 * while a pending operation uses it; no-ops on predefined types. */
void amp_type_hold(const amp_dt_t *dt);
void amp_type_drop(amp_rank_t *rank, const amp_dt_t *dt);

/* ---- persistent collectives (pcoll.c) ---- */
typedef struct amp_pcoll amp_pcoll_t;
/* The sequence number every start of p's collective takes. */
unsigned amp_pcoll_seq(const amp_pcoll_t *p);
/* amp_coll_launch of a persistent collective being set up (schedule s
 * dropped) or started (s completes its request); g: its device buffers. */
AMP_MUST_USE amp_status_t amp_pcoll_launch(amp_rank_t *rank, amp_pcoll_t *p,
                                           struct amp_nbc *s,
                                           struct amp_gpu_op *g);
/* MPI_Start of persistent collective request r. */
int amp_pcoll_start(amp_rank_t *rank, amp_req_t *r, const char *call);
void amp_pcoll_free(amp_rank_t *rank, amp_pcoll_t *p);

/* ---- partitioned communication (part.c) ---- */
/* MPI_Start of partitioned request r. */
int amp_part_start(amp_rank_t *rank, amp_req_t *r, const char *call);
void amp_part_free(struct amp_part *part);

/* ---- requests (request.c) ---- */
/* A polling call (MPI_Test, MPI_Iprobe, MPI_Win_flush...) that found
 * nothing to complete: lets the other ranks of the PE run, and after many
 * such polls in a row while nothing happens anywhere parks the rank as a
 * poller until its PE's next poll round (sched/sched.h), where the
 * deadlock report finds it.  Re-read the rank after. */
void amp_mpi_poll(amp_rank_t *rank, const char *call);
amp_req_t *amp_req_new(amp_rank_t *rank, int kind);
void amp_req_release(amp_rank_t *rank, amp_req_t *req);
/* Starts the operation req describes (fresh or persistent). */
int amp_req_start(amp_rank_t *rank, amp_req_t *req, const char *call);
void amp_req_status(const amp_req_t *req, MPI_Status *status);
/* Generalized requests (grequest.c): MPI_Cancel calls cancel_fn, and
 * MPI_Request_get_status query_fn into *status (status may be
 * MPI_STATUS_IGNORE); each returns MPI_SUCCESS or the callback's error
 * through the error handler. */
int amp_greq_cancel(amp_rank_t *rank, amp_req_t *r);
int amp_greq_query(amp_rank_t *rank, amp_req_t *r, MPI_Status *status,
                   const char *call);
/* MPI_Get_count (elements 0) and MPI_Get_elements of status for datatype
 * as a long long, -1 when they are not a whole number. */
int amp_status_count(const MPI_Status *status, MPI_Datatype datatype,
                     long long *count, int elements, const char *call);

/* ---- CUDA device buffers (gpu.c; only when amp_proc.gpu is set) ---- */

/* A device buffer's host copy for one call (host NULL: not staged). */
typedef struct amp_stage {
    char *host; /* pinned copy of the span, cap bytes */
    char *dev;  /* the span's start in device memory */
    size_t bytes, cap, elem;
    int dense;
} amp_stage_t;

/* For count elements of dt at buf, used in role (enum amp_gpu_role): when
 * buf is device memory, a host copy of their span (filled from the device
 * when the role needs it, the rank waiting without blocking its PE) and
 * *view, buf's place in it; otherwise *view = buf and s->host = NULL. */
int amp_stage_begin(amp_rank_t *rank, amp_comm_t *comm, const void *buf,
                    int count, const amp_dt_t *dt, int role, amp_stage_t *s,
                    void **view, const char *call);
/* Copies bytes of the span back to the device (0: none) and releases the
 * host copy; nothing when s is not staged. */
int amp_stage_end(amp_rank_t *rank, amp_comm_t *comm, amp_stage_t *s,
                  size_t bytes, const char *call);
/* The bytes to copy back after receiving received bytes into s. */
size_t amp_stage_bytes(const amp_stage_t *s, size_t received);
/* amp_req_start of a send or receive: *view is the buffer to move and *p
 * the p2p request to start (r's own, or, when r's buffer is staged device
 * memory, one that completes r once the data is back on the device);
 * dev->gpu set (dev->gpu NULL on entry): device memory that p2p moves
 * itself (amp_p2p_isend_dev / amp_p2p_irecv_dev, the peer in this
 * process). */
int amp_gpu_req_stage(amp_rank_t *rank, amp_comm_t *comm, amp_req_t *r,
                      const char *call, void **view, amp_p2p_req_t **p,
                      amp_p2p_dev_t *dev);
/* Blocking calls whose buffers may be device memory: each returns 0 when
 * none is staged (the caller goes on, with p2p moving the device memory
 * itself when dev->gpu is set, as for amp_gpu_req_stage), else 1 with
 * *rc, the call made again on host copies. */
int amp_gpu_send(amp_rank_t *rank, amp_comm_t *comm, const void *buf, int count,
                 const amp_dt_t *dt, MPI_Datatype dtype, int dest, int tag,
                 MPI_Comm comm_h, int mode, const char *call,
                 amp_p2p_dev_t *dev, int *rc);
int amp_gpu_recv(amp_rank_t *rank, amp_comm_t *comm, void *buf, int count,
                 const amp_dt_t *dt, MPI_Datatype dtype, int source, int tag,
                 MPI_Comm comm_h, MPI_Status *status, amp_p2p_dev_t *dev,
                 int *rc);
int amp_gpu_bcast(amp_rank_t *rank, amp_comm_t *comm, void *buf, int count,
                  const amp_dt_t *dt, MPI_Datatype dtype, int root,
                  MPI_Comm comm_h, int *rc);
int amp_gpu_reduce(amp_rank_t *rank, amp_comm_t *comm, const void *sendbuf,
                   void *recvbuf, int count, const amp_dt_t *dt,
                   MPI_Datatype dtype, MPI_Op op, int root, int all,
                   MPI_Comm comm_h, int *rc);

/* The buffers of one operation staged together (up to AMP_GPU_OP_BUFS),
 * with what to copy back to the device when it is done.  Each caller
 * holds an amp_gpu_op_t * that stays NULL (and costs nothing) while no
 * buffer is device memory. */
#define AMP_GPU_OP_BUFS 3
typedef struct amp_gpu_op amp_gpu_op_t;

/* The span of count elements of dt (gpu.h). */
void amp_gpu_span_dt(amp_gpu_span_t *sp, int count, const amp_dt_t *dt);
/* Widens *sp (start with bytes 0) by count elements of dt at disp bytes
 * from the buffer; a span of several blocks is not dense. */
void amp_gpu_span_add(amp_gpu_span_t *sp, ptrdiff_t disp, int count,
                      const amp_dt_t *dt);
/* When buf's span sp is device memory, stages it into *op (made on the
 * first device buffer) for role (enum amp_gpu_role) and sets *view to buf's
 * place in the host copy; otherwise *view = buf.  On an error *op is
 * released and NULL. */
int amp_gpu_op_stage(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t **op,
                     const void *buf, const amp_gpu_span_t *sp, int role,
                     void **view, const char *call);
/* The same for count elements of dt at buf. */
int amp_gpu_op_stage_dt(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t **op,
                        const void *buf, int count, const amp_dt_t *dt,
                        int role, void **view, const char *call);
/* amp_gpu_op_stage_dt for a point-to-point half of a send-receive (send:
 * a send in mode to peer, else a receive from peer; ranks of comm): a
 * device buffer that p2p moves itself (the direct path,
 * amp_gpu_path_choose) is not staged but *dev says its device, and
 * *view = buf. */
int amp_gpu_op_stage_p2p(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t **op,
                         const void *buf, int count, const amp_dt_t *dt,
                         int send, int mode, int peer, void **view,
                         amp_p2p_dev_t *dev, const char *call);
/* Asynchronous end: outer is made pending and the returned request (op's
 * own) is the one to hand to the operation; when it completes, what was
 * received is copied back (by_status: the bytes its status counts, else
 * whole spans), its status goes to outer and outer completes.  op NULL:
 * returns outer untouched. */
amp_p2p_req_t *amp_gpu_op_start(amp_rank_t *rank, amp_gpu_op_t *op,
                                amp_p2p_req_t *outer, int by_status);
/* Blocking end: copies back what was received (*received bytes, or whole
 * spans when received is NULL), waiting without blocking the PE, and
 * releases op.  op NULL: nothing. */
int amp_gpu_op_finish(amp_rank_t *rank, amp_comm_t *comm, amp_gpu_op_t *op,
                      const size_t *received, const char *call);
/* Releases op without copying anything back (op NULL: nothing). */
void amp_gpu_op_drop(amp_gpu_op_t *op);
/* MPI_Pack / MPI_Unpack and their external32 forms: count elements of dt
 * at *typed and the bytes [pos, pos + bytes) of *packed, each replaced by
 * a host copy when it is device memory (packing reads typed and writes
 * packed, unpacking the reverse). */
int amp_gpu_pack_stage(amp_rank_t *rank, amp_comm_t *comm, void **typed,
                       int count, const amp_dt_t *dt, void **packed, size_t pos,
                       size_t bytes, int packing, amp_gpu_op_t **op,
                       const char *call);
/* Whether buf is device memory (amp_proc.gpu set). */
int amp_gpu_is_device_buf(const void *buf);
/* MPI_ERR_BUFFER naming call and arg when buf is device memory, where the
 * call cannot stage it (why says so); MPI_SUCCESS otherwise. */
int amp_gpu_refuse(amp_rank_t *rank, amp_comm_t *comm, const void *buf,
                   const char *call, const char *arg, const char *why);

/* ---- sending (pt2pt.c, bsend.c) ---- */
/* Fills a status (nothing for MPI_STATUS_IGNORE), leaving MPI_ERROR
 * alone: only the calls that return several statuses set it. */
void amp_status_set(MPI_Status *st, int source, int tag, size_t bytes,
                    int cancelled);
void amp_status_empty(MPI_Status *st);
int amp_truncate_error(amp_rank_t *rank, amp_comm_t *comm, const char *call,
                       int source, int tag, size_t capacity);
/* Copies a message into the attached buffer and sends it from there;
 * stand_in (a request of the caller's, or NULL) completes at once and
 * stands for that send (amp_p2p_req_init_sent), also when it fails. */
int amp_bsend_start(amp_rank_t *rank, amp_comm_t *comm, const void *buf,
                    int count, const amp_dt_t *dt, int dest, int tag,
                    const char *call, amp_p2p_req_t *stand_in);

#endif
