/*
 * The objects behind handles that the chapters share (communicators,
 * windows), their lookup, and (handles.c) the argument checks every call
 * makes and the references that keep a derived datatype alive.  Requests are
 * request.h's; each chapter's header adds what it alone does with them.
 */
#ifndef AMP_MPI_HANDLES_H
#define AMP_MPI_HANDLES_H

#include "mpi/call.h"

/* A communicator (comm/). */
typedef struct amp_comm {
    amp_obj_t obj;
    int ctx; /* p2p context; ctx + 1 is the collective one */
    int rank, size;
    const int *world; /* comm rank -> world rank; NULL: identity */
    /* the shared map world points into, dropped with the communicator */
    amp_world_map_t *owned_world;
    MPI_Errhandler errh;
    char name[MPI_MAX_OBJECT_NAME];
    /* Each of the following belongs to the file named (of comm/, but
     * attr.c and info.c: attr/'s); amp_comm_new zeroes them and
     * amp_comm_destroy asks each owner to release its part. */
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
    /* pt2pt/bsend.c: the buffer attached to it (MPI_Comm_attach_buffer),
     * and that of the session it derives from (init/session.c), or NULL */
    struct amp_bsend *bsend, *session_bsend;
    /* init/session.c: the memory allocation kinds of the session it
     * derives from ("mpi_memory_alloc_kinds"), or NULL: the World Model's */
    const char *session_memkinds;
} amp_comm_t;

/* Bits of amp_comm_t.asserts: the MPI-4 assertions set to "true" in the
 * communicator's info hints (attr/info.c). */
enum {
    AMP_ASSERT_NO_ANY_TAG = 1u << 0,      /* mpi_assert_no_any_tag */
    AMP_ASSERT_NO_ANY_SOURCE = 1u << 1,   /* mpi_assert_no_any_source */
    AMP_ASSERT_EXACT_LENGTH = 1u << 2,    /* mpi_assert_exact_length */
    AMP_ASSERT_ALLOW_OVERTAKING = 1u << 3 /* mpi_assert_allow_overtaking */
};

/* A window (win/win.c): this rank's view of a window; the memory and the
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
    struct amp_attr *attrs; /* attr/attr.c */
    struct amp_info *hints; /* attr/info.c: the window hints set, or NULL */
    char name[MPI_MAX_OBJECT_NAME];
    /* Epochs (win/win_sync.c). */
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

/* ---- lookups (NULL when the handle is no such object) ---- */

static inline amp_comm_t *amp_comm_lookup(amp_rank_t *rank, MPI_Comm h)
{
    if (AMP_HANDLE_KIND(h) != AMPI_HANDLE_COMM)
        return NULL;
    return amp_table_lookup(&rank->comms, AMP_HANDLE_INDEX(h));
}

/* The derived type behind h, freed by the program or not (NULL for a
 * predefined type). */
static inline amp_dt_t *amp_dt_derived(amp_rank_t *rank, MPI_Datatype h)
{
    if (AMP_HANDLE_KIND(h) != AMPI_HANDLE_DATATYPE_DERIVED)
        return NULL;
    return amp_table_lookup(&rank->dts, AMP_HANDLE_INDEX(h));
}

static inline const amp_dt_t *amp_dt_lookup(amp_rank_t *rank, MPI_Datatype h)
{
    unsigned kind = AMP_HANDLE_KIND(h);
    if (kind == AMPI_HANDLE_DATATYPE)
        return amp_dt_predefined(AMP_HANDLE_INDEX(h));
    if (kind == AMPI_HANDLE_DATATYPE_DERIVED)
        return amp_table_lookup(&rank->dts, AMP_HANDLE_INDEX(h));
    return NULL;
}

static inline amp_win_t *amp_win_lookup(amp_rank_t *rank, MPI_Win h)
{
    if (AMP_HANDLE_KIND(h) != AMPI_HANDLE_WIN)
        return NULL;
    return amp_table_lookup(&rank->wins, AMP_HANDLE_INDEX(h));
}

/* ---- argument checks: each returns MPI_SUCCESS or the code from
 * amp_mpi_error ---- */
/* The checks pass inline (every send and receive makes five of them);
 * the reports of the failures are out of line (handles.c). */
int amp_check_comm_fail(amp_rank_t *rank, MPI_Comm h, const char *call);
int amp_check_dt_fail(amp_rank_t *rank, amp_comm_t *comm, MPI_Datatype h,
                      const amp_dt_t *dt, const char *call, const char *arg);
int amp_check_count_fail(amp_rank_t *rank, amp_comm_t *comm, int count,
                         const char *call, const char *arg);
int amp_check_buf_fail(amp_rank_t *rank, amp_comm_t *comm, int count,
                       const char *call, const char *arg);

static inline int amp_check_comm(amp_rank_t *rank, MPI_Comm h,
                                 const char *call, amp_comm_t **comm)
{
    amp_comm_t *c = amp_comm_lookup(rank, h);
    *comm = c && !c->freed ? c : NULL;
    if (__builtin_expect(*comm != NULL, 1))
        return MPI_SUCCESS;
    return amp_check_comm_fail(rank, h, call);
}

static inline int amp_check_dt(amp_rank_t *rank, amp_comm_t *comm,
                               MPI_Datatype h, const char *call,
                               const char *arg, const amp_dt_t **dt)
{
    *dt = amp_dt_lookup(rank, h);
    if (__builtin_expect(*dt && (*dt)->committed, 1))
        return MPI_SUCCESS;
    return amp_check_dt_fail(rank, comm, h, *dt, call, arg);
}

/* amp_check_dt of the type of count elements: with count 0,
 * MPI_DATATYPE_NULL passes too (a buffer of no elements needs no type, as
 * MPI-4.1 lets point-to-point calls and MPI_Alltoallw say), as MPI_BYTE. */
static inline int amp_check_dt_count(amp_rank_t *rank, amp_comm_t *comm,
                                     MPI_Datatype h, long long count,
                                     const char *call, const char *arg,
                                     const amp_dt_t **dt)
{
    if (count != 0 || h != MPI_DATATYPE_NULL)
        return amp_check_dt(rank, comm, h, call, arg, dt);
    *dt = amp_dt_predefined(AMPI_DTID_MPI_BYTE);
    return MPI_SUCCESS;
}

static inline int amp_check_count(amp_rank_t *rank, amp_comm_t *comm,
                                  int count, const char *call, const char *arg)
{
    if (__builtin_expect(count >= 0, 1))
        return MPI_SUCCESS;
    return amp_check_count_fail(rank, comm, count, call, arg);
}

static inline int amp_check_buf(amp_rank_t *rank, amp_comm_t *comm,
                                const void *buf, int count, const amp_dt_t *dt,
                                const char *call, const char *arg)
{
    if (__builtin_expect(buf || count == 0 || dt->size == 0 || dt->true_lb != 0,
                         1))
        return MPI_SUCCESS;
    return amp_check_buf_fail(rank, comm, count, call, arg);
}
/* h must be a window: MPI_ERR_WIN through MPI_COMM_WORLD's handler if
 * not. */
int amp_check_win(amp_rank_t *rank, MPI_Win h, const char *call,
                  amp_win_t **win);

/* ---- communicators ---- */
int amp_comm_world_rank(const amp_comm_t *comm, int r);
const char *amp_comm_label(const amp_comm_t *comm, char *buf, size_t len);
/* The collective view of comm for one collective call: takes the call's
 * sequence number (comm->coll_seq++, or the persistent collective's being
 * set up or started: amp_call_ctx_t.pcoll), so call it once per call, on
 * every member, whatever the algorithm. */
void amp_coll_comm_of(amp_rank_t *rank, amp_comm_t *comm, amp_coll_comm_t *c);
/* The same of inter-communicator ic, for the schedules of coll/inter.h. */
void amp_intercoll_view(amp_rank_t *rank, amp_comm_t *ic, amp_coll_inter_t *v);

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

/* ---- derived datatypes ---- */

/* Keeps a derived type alive (MPI_Type_free only drops the user's handle)
 * while a pending operation uses it; no-ops on predefined types.  The last
 * drop frees the type and drops the types it was made of. */
void amp_type_hold(const amp_dt_t *dt);
void amp_type_drop(amp_rank_t *rank, const amp_dt_t *dt);

#endif
