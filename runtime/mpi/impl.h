/*
 * The MPI layer's private header: the process-wide struct, the per-rank
 * struct, and the objects behind MPI handles.
 */
#ifndef AMP_MPI_IMPL_H
#define AMP_MPI_IMPL_H

#include "mpi.h"

#include "base/base.h"
#include "base/table.h"
#include "coll/coll.h"
#include "dt/dt.h"
#include "mem/mem.h"
#include "p2p/p2p.h"
#include "pie/pie.h"
#include "sched/sched.h"
#include "topo/topo.h"

#include <stdatomic.h>

#define AMP_WEAK_ALIAS(name)                                                   \
    _Pragma(AMP_PRAGMA_STR(weak MPI_##name = PMPI_##name))
#define AMP_PRAGMA_STR(x) #x

#define AMP_HANDLE_KIND(h) ((unsigned)(h) >> AMPI_HANDLE_SHIFT)
#define AMP_HANDLE_INDEX(h) ((int)((unsigned)(h) & 0xffffffu))

enum amp_mapping { AMP_MAP_BLOCK, AMP_MAP_RR };

typedef struct amp_opts {
    int vp;           /* virtual ranks */
    int p;            /* PEs (0: one per core, at most vp) */
    size_t stacksize; /* bytes of stack per rank */
    int mapping;      /* enum amp_mapping */
    size_t eager;     /* eager/rendezvous threshold in bytes */
    int pin;          /* pin PEs to cores */
    int stats;        /* print per-rank scheduling counts at exit */
} amp_opts_t;

typedef int (*amp_main_fn_t)(int argc, char **argv, char **envp);

/* The one process-wide struct: written at startup, read afterwards. */
typedef struct amp_proc {
    amp_opts_t opts;
    amp_topo_t topo;
    amp_mem_t mem;
    amp_tls_image_t tls; /* static TLS layout each rank gets a copy of */
    amp_pie_image_t pie; /* the program image each rank gets a copy of */
    amp_sched_t sched;
    amp_p2p_world_t world;
    struct amp_rank **ranks; /* by world rank */
    int nranks;
    amp_main_fn_t main_fn;
    int argc;
    char **argv;
    char **envp;
    _Atomic int exit_status; /* first non-zero status a rank returned */
    /* Registered with AMPI_Register_rank_init before the ranks start. */
    void (**rank_inits)(void);
    int nrank_inits;
    double wtime_base;
} amp_proc_t;

extern amp_proc_t amp_proc;

enum amp_mpi_state { AMP_MPI_NOT_INIT, AMP_MPI_ACTIVE, AMP_MPI_FINALIZED };

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
    unsigned coll_seq;         /* coll: collectives started, for tags */
    struct amp_coll_shm *shm;  /* coll/shm.c: state its members share */
    unsigned asserts;          /* comm.c: MPI-4 mpi_assert_* hints */
} amp_comm_t;

enum amp_req_kind {
    AMP_REQ_SEND,
    AMP_REQ_RECV,
    AMP_REQ_DONE, /* complete at creation: MPI_PROC_NULL, Ibsend */
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
    void *pack; /* packed copy of non-contiguous data */
} amp_req_t;

enum amp_send_mode {
    AMP_SEND_STANDARD,
    AMP_SEND_SYNC,
    AMP_SEND_READY,
    AMP_SEND_BUFFERED
};

typedef struct amp_errh {
    amp_obj_t obj;
    MPI_Comm_errhandler_function *fn;
} amp_errh_t;

typedef struct amp_op_obj {
    amp_obj_t obj;
    MPI_User_function *fn;
    int commute;
} amp_op_obj_t;

typedef struct amp_msg_handle {
    amp_obj_t obj;
    struct amp_msg *msg;
} amp_msg_handle_t;

/* MPI_Buffer_attach state; see bsend.c. */
typedef struct amp_bsend {
    char *buf;
    size_t size;
    struct amp_bseg *segs; /* live segments, by address */
} amp_bsend_t;

#define AMP_ERRMSG_RING 16
#define AMP_ERRMSG_LEN 256

typedef struct amp_rank {
    amp_thread_t thr; /* first: the scheduler's thread is the rank */
    amp_p2p_ep_t ep;
    int world_rank;
    int slot;
    char **argv; /* the rank's own copy of the command line */
    int state;   /* enum amp_mpi_state */
    struct amp_tls_dtor *tls_dtors; /* destructors of its thread_locals */
    int thread_level;
    const char *call; /* the MPI call a blocked rank waits in */
    int next_ctx;     /* lowest context id this rank has not used */
    amp_table_t comms, dts, reqs, msgs, errhs, ops;
    amp_bsend_t bsend;
    unsigned errseq;
    int errcodes[AMP_ERRMSG_RING];
    char errmsgs[AMP_ERRMSG_RING][AMP_ERRMSG_LEN];
    uintptr_t pie_base; /* base of the rank's program copy (pie), or 0 */
    /* libgcc's record of the copy's unwind tables (pie) */
    _Alignas(16) unsigned char pie_frames[AMP_PIE_FRAME_OBJECT_SIZE];
} amp_rank_t;

/* The calling rank, or NULL outside a rank. */
static inline amp_rank_t *amp_rank_self(void)
{
    amp_pe_t *pe = amp_pe_self();
    return pe ? (amp_rank_t *)pe->current : NULL;
}

/* ---- program image copies (start/image.c) ---- */

/* addr, when it lies in a rank's copy of the program image (pie), moved to
 * the same place in the loaded original; anything else unchanged.  Safe in
 * a signal handler.  Exported for debuggers (docs/privatization-pie.md). */
AMPI_API void *amp_pie_to_original(const void *addr);

/* addr, when it lies in the original program image or any rank's copy,
 * moved to the same place in rank's copy: a function pointer that one
 * rank handed the runtime, as that rank would call it. */
void *amp_pie_to_rank(const amp_rank_t *rank, const void *addr);

/* ---- errors (errors.c) ---- */

/* Records the error message for the calling rank, applies the error
 * handler of comm (MPI_COMM_WORLD's when comm is NULL) and returns the
 * error code for the caller to return. */
int amp_mpi_error(amp_rank_t *rank, amp_comm_t *comm, int errclass,
                  const char *call, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
int amp_mpi_class_of(amp_status_t st);
/* Checks that MPI is initialized and not finalized for the caller. */
int amp_mpi_enter(amp_rank_t **rank, const char *call);
_Noreturn void amp_mpi_abort_job(int code);
int amp_mpi_unsupported(const char *call); /* see unsupported.c */

/* ---- handles (handles.c) ---- */
amp_comm_t *amp_comm_lookup(amp_rank_t *rank, MPI_Comm h);
const amp_dt_t *amp_dt_lookup(amp_rank_t *rank, MPI_Datatype h);
amp_req_t *amp_req_lookup(amp_rank_t *rank, MPI_Request h);
amp_status_t amp_rank_objects_init(amp_rank_t *rank);
int amp_comm_world_rank(const amp_comm_t *comm, int r);
const char *amp_comm_label(const amp_comm_t *comm, char *buf, size_t len);
void amp_coll_comm_of(amp_rank_t *rank, const amp_comm_t *comm,
                      amp_coll_comm_t *c);

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

/* ---- communicators (comm.c) ---- */

/* A new communicator object of this rank with context ctx (ctx and ctx + 1),
 * this rank's position myrank among size members, and world (comm rank ->
 * world rank, which the communicator takes over and frees; NULL for the
 * identity).  Error handler MPI_ERRORS_ARE_FATAL, no name.  NULL when out
 * of memory (world is freed then too). */
amp_comm_t *amp_comm_new(amp_rank_t *rank, int ctx, int myrank, int size,
                         int *world);
/* Releases everything the communicator holds and its handle. */
void amp_comm_destroy(amp_rank_t *rank, amp_comm_t *comm);
/* Collective over comm: a context id no member has used yet (two ids are
 * taken: ctx and ctx + 1).  May block; re-read rank-local pointers after. */
amp_status_t amp_comm_agree_ctx(amp_rank_t *rank, amp_comm_t *comm, int *ctx);

/* ---- requests (request.c) ---- */
amp_req_t *amp_req_new(amp_rank_t *rank, int kind);
void amp_req_release(amp_rank_t *rank, amp_req_t *req);
/* Starts the operation req describes (fresh or persistent). */
int amp_req_start(amp_rank_t *rank, amp_req_t *req, const char *call);
void amp_req_status(const amp_req_t *req, MPI_Status *status);

/* ---- sending (pt2pt.c, bsend.c) ---- */
void amp_status_set(MPI_Status *st, int source, int tag, int error,
                    size_t bytes, int cancelled);
void amp_status_empty(MPI_Status *st);
int amp_truncate_error(amp_rank_t *rank, amp_comm_t *comm, const char *call,
                       int source, int tag, size_t capacity);
/* Copies a message into the attached buffer and sends it from there. */
int amp_bsend_start(amp_rank_t *rank, amp_comm_t *comm, const void *buf,
                    int count, const amp_dt_t *dt, int dest, int tag,
                    const char *call);

#endif
