/*
 * The MPI layer's API for the layers above it (rank/, libc/, start/): the
 * process-wide struct, the per-rank struct, and the calls that start and
 * end ranks make into the MPI layer.  rank/ also uses the objects behind
 * handles (impl.h); everything else of the layer is private to it.
 */
#ifndef AMP_MPI_PROC_H
#define AMP_MPI_PROC_H

#include "mpi.h"

#include "base/base.h"
#include "base/table.h"
#include "boot/boot.h"
#include "coll/coll.h"
#include "coll/shm.h"
#include "dt/dt.h"
#include "gpu/gpu.h"
#include "io/io.h"
#include "lb/lb.h"
#include "mem/mem.h"
#include "p2p/p2p.h"
#include "pie/pie.h"
#include "sched/sched.h"
#include "topo/topo.h"

#include <stdatomic.h>
#include <stdint.h>

enum amp_mapping { AMP_MAP_BLOCK, AMP_MAP_RR, AMP_MAP_RANDOM, AMP_MAP_LIST };

typedef struct amp_opts {
    int vp;                 /* virtual ranks */
    int p;                  /* PEs (0: one per core, at most vp) */
    size_t stacksize;       /* bytes of stack per rank */
    size_t isomalloc_slot;  /* bytes of a rank's slot (0: the default) */
    int isomalloc_guard;    /* AMPI_ISOMALLOC_GUARD: guard pages always */
    int mapping;            /* enum amp_mapping */
    unsigned long map_seed; /* random: the permutation's seed */
    int *map_list;          /* list: PE of rank i (repeated cyclically) */
    int map_nlist;
    const char *map_flag;  /* where the mapping came from, for errors */
    size_t eager;          /* eager/rendezvous threshold in bytes */
    int pin;               /* pin PEs to cores */
    int stats;             /* print per-rank scheduling counts at exit */
    long poll_deadlock_ns; /* AMPI_POLL_DEADLOCK (sched.h); 0: default */
    int showmap;           /* print the placement of PEs and ranks at start */
    const char *gpumap;    /* +gpumap: PEs to CUDA devices (gpu/gpu.h) */
    int balancer;          /* +balancer: amp_lb_kind_t (lb/lb.h) */
    int lbdebug;           /* +lbdebug: report load-balancing moves */
    const char *restart;   /* +restart DIR: checkpoint to resume from */
    const char *gather;    /* +ckptgather DIR (rank/checkpoint.h) */
    int iothreads;         /* +iothreads: io/'s helper threads (0: default) */
    int node_shm;          /* AMPI_NODE_SHM: processes of a node share memory */
    int node_membarrier;   /* AMPI_NODE_MEMBARRIER: asymmetric fences there */
    size_t node_split;     /* AMPI_NODE_SPLIT_COPY: shared copies from here */
    size_t net_eager;      /* AMPI_NET_EAGER: eager through UCX up to here */
    int yield_idle;        /* AMPI_YIELD_WHEN_IDLE: 1, 0, -1 (crowded only) */
    int term_report;       /* AMPI_TERM_REPORT: ranks' state on SIGTERM/INT */
    int steal;             /* +nosteal: 0; idle PEs run others' ranks */
    long steal_idle_ns;    /* AMPI_STEAL_IDLE: idle so long before asking */
    int pinmap;            /* +pinmap: placed ranks are never lent */
    int mapped;            /* +mapping or AMPI_MAPPING was given */
    long lbperiod_ns;      /* +lbperiod: balance so often (0: never) */
    double lbearly;        /* +lbearly: the early look, part of a period */
    int lbpredict;         /* +lbpredict: balance the loads to come */
    double lbmingain;      /* +lbmingain: the least gain a step moves for */
    const char *trace;     /* +trace DIR: write an OTF2 trace there */
    long ckptperiod_ns;    /* +ckptperiod: checkpoint so often (0: never) */
    const char *ckptdir;   /* +ckptdir DIR: where +ckptperiod writes */
} amp_opts_t;

enum { AMP_CKPT_MEMORY_NODES = 2 };

typedef int (*amp_main_fn_t)(int argc, char **argv, char **envp);

/* The C library's waits that a rank's own thread makes through
 * mpi/threads/ (waits.c, syncs.c), which calls on them. */
typedef enum {
    AMP_MT_LIBC_COND_WAIT,
    AMP_MT_LIBC_COND_TIMEDWAIT,
    AMP_MT_LIBC_COND_CLOCKWAIT,
    AMP_MT_LIBC_SEM_WAIT,
    AMP_MT_LIBC_SEM_TIMEDWAIT,
    AMP_MT_LIBC_SEM_CLOCKWAIT,
    AMP_MT_LIBC_SEM_TRYWAIT,
    AMP_MT_LIBC_RWLOCK_RDLOCK,
    AMP_MT_LIBC_RWLOCK_WRLOCK,
    AMP_MT_LIBC_RWLOCK_TIMEDRDLOCK,
    AMP_MT_LIBC_RWLOCK_TIMEDWRLOCK,
    AMP_MT_LIBC_RWLOCK_CLOCKRDLOCK,
    AMP_MT_LIBC_RWLOCK_CLOCKWRLOCK,
    AMP_MT_LIBC_RWLOCK_TRYRDLOCK,
    AMP_MT_LIBC_RWLOCK_TRYWRLOCK,
    AMP_MT_LIBC_RWLOCK_UNLOCK,
    AMP_MT_LIBC_BARRIER_WAIT,
    AMP_MT_LIBC_COUNT
} amp_mt_libc_t;

/* The one process-wide struct: written at startup, read afterwards. */
/* The world maps of communicators, one a process for all the members
 * that hold the same (mpi/comm/world_map.c). */
typedef struct amp_world_map amp_world_map_t;
typedef struct amp_world_maps {
    _Atomic int lock;
    amp_world_map_t **buckets; /* by hash, a power of two of them */
    size_t nbuckets, count;
} amp_world_maps_t;

/* The boards where the members of a communicator split in this process
 * meet (mpi/comm/split.c). */
typedef struct amp_split_board amp_split_board_t;
typedef struct amp_split_boards {
    _Atomic int lock;
    amp_split_board_t *head;
} amp_split_boards_t;

typedef struct amp_proc {
    amp_opts_t opts;
    amp_boot_t boot; /* the job's processes (PMIx), this one's index */
    amp_topo_t topo;
    amp_mem_t mem;
    amp_tls_image_t tls; /* static TLS layout each rank gets a copy of */
    amp_pie_image_t pie; /* the program image each rank gets a copy of */
    amp_sched_t sched;
    amp_p2p_world_t world;
    struct amp_rank **ranks;          /* by world rank */
    int *rank_pe;                     /* world rank -> PE it was placed on */
    amp_coll_shm_registry_t coll_shm; /* coll/shm.c: shared collectives */
    amp_world_maps_t world_maps;      /* mpi/comm/world_map.c */
    amp_split_boards_t split_boards;  /* mpi/comm/split.c */
    int nranks;
    int nhere; /* ranks in this process now (rank/slot.c) */
    amp_main_fn_t main_fn;
    int argc;
    char **argv;
    char **envp;
    _Atomic int exit_status;  /* first non-zero status a rank returned */
    uintptr_t exe_lo, exe_hi; /* the executable's loaded range */
    /* Registered with AMPI_Register_rank_init before the ranks start. */
    void (**rank_inits)(void);
    int nrank_inits;
    double wtime_base;
    /* Core slot of PE 0 (topo): processes of one node that may use the
     * same cores take turns, process k of the node starting at k * PEs. */
    int pin_base;
    struct amp_nbc_pe *nbc_pes; /* coll/nbc.c: by PE id */
    amp_lb_t lb;                /* lb/: moving ranks between PEs */
    amp_trace_t trace;          /* trace/: +trace's buffers */
    /* rank/period.c: +lbperiod's and +ckptperiod's check at a blocking
     * collective over MPI_COMM_WORLD, or NULL; when their next periods
     * end (ns; LONG_MAX: never). */
    void (*lb_periodic)(void);
    /* rank/period.c: +lbearly's window of each PE (by PE id), or NULL */
    struct amp_period_pe *period_pes;
    _Atomic long lb_deadline;
    _Atomic long ckpt_deadline;
    struct amp_move *move; /* move.c: ranks between processes, or NULL */
    /* move_exchange.c: loads and places around moves, or NULL */
    struct amp_move_exchange *move_exchange;
    /* start/detect.c: deadlock detection across processes, or NULL */
    struct amp_detect *detect;
    struct amp_gpu *gpu; /* gpu/gpu.h: CUDA devices, or NULL: host-only */
    amp_io_t *io;        /* io/io.h: the helper threads of file I/O */
    /* +restart: the checkpoint's manifest (rank/checkpoint.h), else NULL */
    struct amp_ckpt_manifest *restart;
    /* rank/migrate.c: a rank of this process checkpointed in memory (the
     * checkpoint is removed at the job's normal end, start.c);
     * AMP_CKPT_MEMORY_NODES: with copies on several nodes
     * (rank/ckpt_copy.h) */
    _Atomic int ckpt_in_memory;
    /* rank/checkpoint.c: what the process's first rank to join the last
     * checkpoint's directory found, which its other ranks take over, or
     * NULL; rank/slot.c: whether address-space randomization is off (0:
     * not asked yet, 1: off, 2: on). */
    _Atomic(struct amp_ckpt_joined *) ckpt_joined;
    _Atomic int aslr_off;
    struct amp_mt *mt; /* threads.c: helpers and runners, made at startup */
    /* mpi/threads/: the C library's own waits that waits.c and syncs.c
     * interpose, by amp_mt_libc_t, looked up at their first use. */
    _Atomic(void *) libc_waits[AMP_MT_LIBC_COUNT];
    /* start/fortran_io.c: who is in a Fortran I/O statement of flang's
     * runtime (a rank's thread, or a kernel thread's id), and how deep. */
    _Atomic(void *) fortran_io_owner;
    int fortran_io_depth;
} amp_proc_t;

extern amp_proc_t amp_proc;

/* The job ends abnormally here (MPI_Abort, a deadlock report, exit before
 * MPI_Finalize, a fatal error): +trace keeps what it recorded (trace.h),
 * and the node's shared objects that peers were still to open are
 * removed (node.h). */
static inline void amp_proc_abandon(void)
{
    amp_node_abandon(&amp_proc.world.node);
    if (!amp_proc.opts.trace)
        return;
    amp_sys_alloc_enter();
    amp_trace_abandon(&amp_proc.trace);
    amp_sys_alloc_leave();
}

enum amp_mpi_state { AMP_MPI_NOT_INIT, AMP_MPI_ACTIVE, AMP_MPI_FINALIZED };

/* A buffer of buffered sends (pt2pt/bsend.c): the process's
 * (MPI_Buffer_attach; each rank has its own), a communicator's or a
 * session's (MPI-4.1). */
typedef struct amp_bsend {
    char *buf; /* NULL: none attached (but automatic) */
    size_t size;
    int automatic; /* MPI_BUFFER_AUTOMATIC: a segment of the heap each */
    struct amp_bseg *segs;      /* live segments, by address in buf */
    struct amp_bseg *spent;     /* automatic: segments sent, to free */
    unsigned long seq;          /* segments made so far */
    struct amp_bflush *flushes; /* nonblocking flushes waiting */
} amp_bsend_t;

/* A message being sent from a buffer of buffered sends: its header, before
 * the packed data, in the buffer (or, automatic, in a block of the heap).
 * It holds the p2p request of the send (pt2pt/bsend.c). */
typedef struct amp_bseg {
    struct amp_bseg *next;
    size_t len; /* bytes of the buffer it covers, header included */
    amp_bsend_t *owner;
    unsigned long seq; /* its number among owner's segments */
    amp_p2p_req_t req;
} amp_bseg_t;

/* State of one thread while it runs an MPI call for a rank: the rank's own
 * thread (amp_rank_t.ctx), or a helper running a call of another thread of
 * the rank.  Reached through amp_call_ctx(). */
typedef struct amp_call_ctx {
    /* Errors of call alias_of are reported as alias's (a "_c" call runs
     * its int form: large/large.c). */
    const char *alias_of, *alias;
    struct amp_pcoll *pcoll; /* pcoll.c: the persistent collective being
                                set up or started, or NULL */
    unsigned pcoll_seq;      /* ... the sequence number its collective
                                takes (handles.c: amp_coll_comm_of) */
} amp_call_ctx_t;

#define AMP_ERRMSG_RING 16
#define AMP_ERRMSG_LEN 256

typedef struct amp_rank {
    amp_thread_t thr; /* first: the scheduler's thread is the rank */
    amp_p2p_ep_t ep;
    /* its slot's heap (mem/heap.h, start/alloc.c), NULL until its first
     * allocation (amp_rank_heap) */
    struct amp_heap *heap;
    int sys_alloc; /* > 0: its allocations go to the C library */
    int world_rank;
    int slot;
    char **argv; /* the rank's own copy of the command line */
    int state;   /* enum amp_mpi_state */
    struct amp_tls_dtor *tls_dtors; /* destructors of its thread_locals */
    struct amp_atexit *atexits;     /* start/exit.c: its exit handlers */
    struct amp_libc_rank *libc;     /* libc/: its C library state, or NULL */
    struct amp_pup_entry *pups;     /* pup.c: AMPI_Register_pup's, by index */
    struct amp_part_seq *part_seqs; /* part.c: partitioned inits counted */
    int npups;
    int thread_level;
    int placed; /* AMPI_Migrate_to_pe put it on its PE (+pinmap) */
    /* rank/period.c: blocking collectives over MPI_COMM_WORLD so far, the
     * one at which the job next asks whether a period is over, the count
     * between the last two such questions, and the count and the time
     * (CLOCK_MONOTONIC, ns) at the last one. */
    unsigned long lbp_count, lbp_next, lbp_gap, lbp_asked_count;
    long lbp_asked_ns;
    /* +lbearly (period.h): since when the period runs (CLOCK_MONOTONIC
     * ns; 0: not yet), its number (the steps before it), and whether its
     * early look is to come. */
    long lbp_mark_ns;
    unsigned long lbp_mark_gen;
    int lbp_early;
    const char *call; /* the MPI call a blocked rank waits in */
    int next_ctx;     /* lowest context id this rank has not used */
    int idup_blocks;  /* comm.c: blocks of context ids taken for idups */
    amp_table_t comms, dts, reqs, msgs, errhs, ops;
    amp_table_t groups;   /* group.c; index 0 is MPI_GROUP_EMPTY */
    amp_table_t keyvals;  /* attr.c */
    amp_table_t infos;    /* info.c; index 0 is MPI_INFO_ENV */
    amp_table_t wins;     /* win.c */
    amp_table_t files;    /* file.c */
    amp_table_t sessions; /* session.c; index 0 is MPI_SESSION_NULL */
    int nsessions;        /* session.c: sessions open (MPI may be used) */
    struct amp_datarep *datareps; /* datatype/datarep.c: the registered */
    /* attr.c: the predefined types' attribute lists, by id, in its heap
     * from the first use on (NULL until then) */
    struct amp_attr **dt_attrs;
    /* datatype.c: the names this rank gave predefined types (by id, in its
     * heap, so they move with it); NULL until it names one */
    char **dt_names;
    int attr_my_wth;                 /* attr.c: what AMPI_MY_WTH points to */
    struct amp_user_errs *user_errs; /* errors.c: added classes and codes */
    MPI_Errhandler file_errh;        /* file/: MPI_FILE_NULL's handler */
    int self_errh_set; /* attr/: the program set MPI_COMM_SELF's handler */
    amp_bsend_t bsend;
    unsigned errseq;
    /* errors.c: the codes and messages of its last errors, in its heap
     * from the first error on (4 KiB that a rank without errors never
     * touches: its state and its thread-local storage share a page) */
    struct amp_errs_seen *errs_seen;
    amp_lb_rank_t lb;   /* migrate.c: load and migration callbacks */
    uintptr_t pie_base; /* base of the rank's program copy (pie), or 0 */
    /* libgcc's record of the copy's unwind tables (pie) */
    _Alignas(16) unsigned char pie_frames[AMP_PIE_FRAME_OBJECT_SIZE];
    /* gpu.c: device buffers staged for the collective being started, taken
     * by the next amp_coll_launch (NULL between calls) */
    struct amp_gpu_op *gpu_coll;
    unsigned polls;         /* request.h: fruitless polls in a row */
    unsigned long poll_act; /* ... since the activity was this */
    amp_call_ctx_t ctx;     /* its own thread's (thr.upper) */
    struct amp_tool *tool;  /* tool/: MPI_T's handles and sessions, or NULL */
    /* threads.c: kernel threads bound to it now (it stays on its PE while
     * there are any), and its OpenMP settings (amp_omp_state). */
    _Atomic int mt_threads;
    /* threads.c: calls of those threads under way on its PE (from their
     * post until they return; waits.c lets them run). */
    _Atomic int mt_calls;
    int omp[3];
} amp_rank_t;

/* The calling rank, or NULL outside a rank. */
static inline amp_rank_t *amp_rank_self(void)
{
    amp_pe_t *pe = amp_pe_self();
    return pe && pe->current ? (amp_rank_t *)pe->current->owner : NULL;
}

/* How a kernel thread is bound to a rank (threads/threads.h: a stack of
 * them: an OpenMP region of a bound thread binds it again). */
typedef struct amp_mt_bind {
    amp_rank_t *rank;
    void *own_tp; /* the kernel thread's own thread pointer */
    int main;     /* it runs the rank's main thread's part (the master of
                     a parallel region the rank's ULT started) */
    int inherit;  /* threads it creates are bound to the rank too */
    int counted;  /* counted in sched.outside (amp_sched_outside_begin) */
    struct amp_mt_bind *prev;
} amp_mt_bind_t;

/* The calling kernel thread's binding, or NULL (the runtime's own thread
 * pointer-relative TLS, never the rank's; proc.c, set by threads/). */
extern __thread amp_mt_bind_t *amp_mt_bound
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* n bytes in the rank's heap, so that they move with it (the C library's
 * where it has none: sanitizer builds), or NULL; free() gives them back
 * (proc.c). */
void *amp_rank_alloc(amp_rank_t *rank, size_t n);

/* Makes the rank's heap in its slot (amp_rank_heap); fatal when the slot
 * cannot hold one. */
struct amp_heap *amp_rank_heap_make(amp_rank_t *rank);

/* The rank's heap, made at its first allocation: a rank that allocates
 * nothing touches no page of its slot's heap part, nor a page of the
 * kernel's page tables for it (mem/mem.h). */
static inline struct amp_heap *amp_rank_heap(amp_rank_t *rank)
{
    return rank->heap ? rank->heap : amp_rank_heap_make(rank);
}

/* The rank the calling thread acts for: the running rank on a PE, the
 * bound rank elsewhere, or NULL (proc.c). */
amp_rank_t *amp_mt_rank(void);

/* The calling thread's call state (a thread of a rank). */
static inline amp_call_ctx_t *amp_call_ctx(void)
{
    return (amp_call_ctx_t *)amp_pe_self()->current->upper;
}

typedef struct amp_comm amp_comm_t;

/* Checks that MPI is initialized and not finalized for the caller
 * (errors.c). */
int amp_mpi_enter(amp_rank_t **rank, const char *call);
/* Enters one of the calls the standard allows at any time, before MPI is
 * initialized and after it is finalized (MPI-4.0 section 11.4.1, Table
 * 11.1; MPI-4.1 adds MPI_Add_error_class, _code and _string), and the
 * session calls, which need no MPI_Init: the caller need only be a rank,
 * whose main has begun (errors.c). */
int amp_mpi_enter_any(amp_rank_t **rank, const char *call);
/* Records the error message for the calling rank, applies the error
 * handler of comm (MPI_COMM_WORLD's when comm is NULL) and returns the
 * error code for the caller to return (errors.c). */
int amp_mpi_error(amp_rank_t *rank, amp_comm_t *comm, int errclass,
                  const char *call, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* A new rank's tables of MPI objects, with the predefined ones
 * (init/rank_objects.c): the first chunks of those that hold predefined
 * objects in space (amp_rank_objects_space bytes, zeroed, never freed by
 * the tables), or, NULL, allocated. */
AMP_MUST_USE amp_status_t amp_rank_objects_init(amp_rank_t *rank, void *space);
size_t amp_rank_objects_space(void);
/* Frees what the tables of a rank that left this process hold here, and
 * the tables, calling nothing of the program's: the rank rebuilt its
 * objects in the process it went to (init/rank_objects.c). */
void amp_rank_objects_forget(amp_rank_t *rank);

/* For the deadlock report (handles.c): the communicator of rank that p2p
 * context ctx belongs to, named into buf; and one line per communicator
 * whose shared-memory collective rank waits in. */
void amp_rank_ctx_label(amp_rank_t *rank, int ctx, char *buf, size_t len);
void amp_rank_report_coll_waits(amp_rank_t *rank);

/* The helper threads of MPI calls from a rank's kernel threads, for npes
 * PEs (threads.c). */
AMP_MUST_USE amp_status_t amp_mt_init(int npes);

/* ---- program image copies (image.c) ---- */

/* Where the copy of the program of the rank in slot starts (pie). */
uintptr_t amp_pie_slot_base(int slot);

/* addr, when it lies in a rank's copy of the program image (pie), moved to
 * the same place in the loaded original; anything else unchanged.  Safe in
 * a signal handler.  Exported for debuggers (docs/privatization-pie.md). */
AMPI_API void *amp_pie_to_original(const void *addr);

/* addr, when it lies in the original program image or any rank's copy,
 * moved to the same place in rank's copy: a function pointer that one
 * rank handed the runtime, as that rank would call it. */
void *amp_pie_to_rank(const amp_rank_t *rank, const void *addr);

#endif
