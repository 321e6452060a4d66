/*
 * trace: +trace DIR, a record of what every PE did, written as OTF2.
 *
 * Each PE appends fixed-size records (amp_trace_rec_t, 32 bytes) to a
 * buffer of its own: a thread began or stopped running on it (and the MPI
 * call it stopped in), the PE idled, a rank entered or left an MPI call,
 * sent a message, a load-balancing step decided where ranks go.  Nothing
 * on that path locks, allocates or makes a system call: a record is a
 * time stamp (the cycle counter) and a few stores.  The buffer has two
 * halves; a full half is handed to the process's flusher thread (woken
 * through a futex, once per half: the only system call of a traced PE),
 * which writes it to the PE's raw file under DIR/raw/ while the PE fills
 * the other.  When the flusher has not caught up, the PE first lets it
 * run (it yields the CPU, up to AMP_TRACE_WAIT_NS: PEs that trace hard can
 * starve the flusher of a core); after that, records are dropped and
 * counted until a half is free again (memory stays bounded: two halves
 * per PE).
 *
 * At the end (amp_trace_finish) every process closes its raw files; after
 * a fence of the job's processes (boot/), process 0 reads them all, sorts
 * them by time and writes one OTF2 archive, DIR/traces.otf2: a location per
 * PE (what ran on it, idle, balancing) and one per rank (its MPI calls,
 * its sends, its loads at each balancing step).  docs/tracing.md describes
 * what the archive holds.  The raw files are removed once it is written.
 *
 * When tracing is off a PE's trace pointer is NULL: every hook is one
 * test of that pointer.
 */
#ifndef AMP_TRACE_H
#define AMP_TRACE_H

#include "base/base.h"
#include "boot/boot.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* What a record says; a..d as listed. */
typedef enum amp_trace_kind {
    AMP_TRACE_RUN = 1,    /* a thread began running: a = id */
    AMP_TRACE_STOP,       /* ... stopped: a = id, b = name of the call it
                             is in (0: none), x = amp_trace_stop_t */
    AMP_TRACE_IDLE,       /* the PE began idling */
    AMP_TRACE_BUSY,       /* ... and stopped */
    AMP_TRACE_ENTER,      /* rank a entered the call named b */
    AMP_TRACE_LEAVE,      /* ... and left it */
    AMP_TRACE_SEND,       /* rank a sent d bytes to rank b, tag c; x:
                             amp_trace_via_t */
    AMP_TRACE_LB_BEGIN,   /* balancing step c (of this process) begins */
    AMP_TRACE_LB_RANK,    /* rank a, load d (a double, seconds), PE b ->
                             PE c of process x */
    AMP_TRACE_LB_END,     /* the step is decided */
    AMP_TRACE_LB_SHIP,    /* step c: this process sent a ranks to others,
                             d bytes of their memory */
    AMP_TRACE_RECV,       /* rank a received d bytes from rank b, tag c (as
                             the program learns it: its receive completed) */
    AMP_TRACE_COMM,       /* rank a is member c of the communicator of
                             context b and size d >> 32 whose member 0 is
                             world rank d & 0xffffffff (made at this rank) */
    AMP_TRACE_INTER,      /* ... that communicator (context b) of rank a is
                             an inter-communicator: not defined */
    AMP_TRACE_ON_COMM,    /* rank a's next record (a SEND or RECV) is on
                             the communicator of context b at rank a (none:
                             MPI_COMM_WORLD) */
    AMP_TRACE_COLL_BEGIN, /* rank a begins a blocking collective (x as
                             below) on the communicator of context b (-1:
                             one the archive does not define) */
    AMP_TRACE_COLL_END,   /* ... ends it: x = amp_trace_coll_t, on the
                             communicator of context b, root c (-1: none),
                             d bytes sent */
    AMP_TRACE_COLL_RECV   /* ... and received d bytes (right after END) */
} amp_trace_kind_t;

/* The blocking collectives (AMP_TRACE_COLL_END's x). */
typedef enum amp_trace_coll {
    AMP_TRACE_COLL_BARRIER = 1,
    AMP_TRACE_COLL_BCAST,
    AMP_TRACE_COLL_GATHER,
    AMP_TRACE_COLL_GATHERV,
    AMP_TRACE_COLL_SCATTER,
    AMP_TRACE_COLL_SCATTERV,
    AMP_TRACE_COLL_ALLGATHER,
    AMP_TRACE_COLL_ALLGATHERV,
    AMP_TRACE_COLL_ALLTOALL,
    AMP_TRACE_COLL_ALLTOALLV,
    AMP_TRACE_COLL_ALLTOALLW,
    AMP_TRACE_COLL_ALLREDUCE,
    AMP_TRACE_COLL_REDUCE,
    AMP_TRACE_COLL_REDUCE_SCATTER,
    AMP_TRACE_COLL_REDUCE_SCATTER_BLOCK,
    AMP_TRACE_COLL_SCAN,
    AMP_TRACE_COLL_EXSCAN
} amp_trace_coll_t;

typedef enum amp_trace_stop {
    AMP_TRACE_STOP_BLOCK, /* waits for something (a message, a peer) */
    AMP_TRACE_STOP_YIELD, /* let others run, stays ready */
    AMP_TRACE_STOP_MOVE,  /* leaves the PE (a move, a lend, going home) */
    AMP_TRACE_STOP_DONE   /* ended */
} amp_trace_stop_t;

typedef enum amp_trace_via {
    AMP_TRACE_VIA_PE,      /* to a rank of the same PE */
    AMP_TRACE_VIA_PROCESS, /* to another PE of the process */
    AMP_TRACE_VIA_NET,     /* to another process */
    AMP_TRACE_VIA_DEVICE   /* a device buffer to another process */
} amp_trace_via_t;

/* Ids: a thread's id is its world rank + 1 (0: not a rank, not traced
 * as one). */
typedef struct amp_trace_rec {
    uint64_t t; /* cycle counter */
    uint16_t kind, x;
    int32_t a, b, c;
    uint64_t d;
} amp_trace_rec_t;

/* Records in a half of a PE's buffer (1 MiB). */
#define AMP_TRACE_HALF_RECS 32768
/* Distinct names (MPI calls) a PE can tell apart; more read as "other". */
#define AMP_TRACE_NAMES 512

typedef struct amp_trace amp_trace_t;

/* How long a PE with both halves full waits for the flusher. */
#define AMP_TRACE_WAIT_NS 50000000L

typedef struct amp_trace_pe {
    amp_trace_rec_t *cur, *end; /* the half being filled */
    amp_trace_rec_t *half[2];
    int filling;            /* the half cur is in */
    _Atomic size_t full[2]; /* records of a half handed to the
                               flusher, 0: free */
    uint64_t dropped;       /* records the flusher had no room for */
    int behind;             /* waited for the flusher in vain: drop until
                               a half is free (amp_trace_swap) */
    const char *names[AMP_TRACE_NAMES]; /* id i + 1 */
    int nnames;
    int fd, id;
    int names_written; /* the flusher's: names in the names file */
    amp_trace_t *trace;
} amp_trace_pe_t;

struct amp_trace {
    char *dir;          /* +trace DIR */
    int proc;           /* this process's index in the job */
    int nprocs, nranks; /* the job's */
    int npes;
    amp_trace_pe_t **pes;
    uint64_t c0; /* cycle counter and CLOCK_REALTIME (ns) at start */
    int64_t ns0;
    _Atomic int stop;
    _Atomic int kick; /* futex word: bumped when a half is full */
    int flusher_on;
    unsigned long flusher; /* pthread_t */
    long clock_written;    /* the flusher's: when it last wrote the clock */
    _Atomic int abandoned; /* amp_trace_abandon ran */
    _Atomic int dying;     /* amp_trace_signal: 1 asked, 2 written */
};

/* Sets tracing up for npes PEs of process proc of a job of nprocs
 * processes and nranks ranks: DIR (made if missing) and DIR/raw, a buffer
 * and a raw file per PE, the flusher thread.  Logs the cause and returns
 * an error when DIR cannot be used.
 *
 * While the job runs, the flusher keeps DIR/raw readable on its own: each
 * PE's names and the process's clock are rewritten as records go to disk
 * (about every AMP_TRACE_CLOCK_NS), so that a job that never reaches
 * amp_trace_finish (killed) leaves raw files that amp_trace_convert reads,
 * less the records still in the PEs' buffers. */
AMP_MUST_USE amp_status_t amp_trace_init(amp_trace_t *t, const char *dir,
                                         int proc, int nprocs, int nranks,
                                         int npes);
/* Ends the recording (the PEs have stopped), writes what the buffers
 * hold, and, after boot's fence, has process 0 write the OTF2 archive of
 * the job's ranks.  Frees everything. */
AMP_MUST_USE amp_status_t amp_trace_finish(amp_trace_t *t, amp_boot_t *boot);

/* The job ends abnormally in this process (MPI_Abort, an error handler
 * that aborts, a deadlock report, exit before MPI_Finalize): the flusher stops
 * and what the PEs' buffers hold goes to disk (the last record of each, perhaps
 * half written by a PE still running, is left out); in a job of one
 * process the archive is written at once, else the raw files stay for
 * `ampitrace DIR` (amp_trace_convert_dir).  Once per process; the buffers
 * stay allocated, since PEs may still record. */
void amp_trace_abandon(amp_trace_t *t);

/* From the handler of a terminating signal (SIGTERM, SIGINT: mpirun ending
 * the job, a time limit, Ctrl-C): has the flusher write what the PEs'
 * buffers hold (less the last record of each), the names and the clock,
 * and waits for it up to AMP_TRACE_SIGNAL_WAIT_MS; whether it did.  Only
 * async-signal-safe calls here: the flusher does the writing (it never
 * takes the signal itself). */
int amp_trace_signal(amp_trace_t *t);
#define AMP_TRACE_SIGNAL_WAIT_MS 500

/* While it has nothing else to write, the flusher rewrites the process's
 * clock file once in so long (ns). */
#define AMP_TRACE_CLOCK_NS 100000000L

/* The cycle counter the records are stamped with (sched's). */
static inline uint64_t amp_trace_now(void)
{
    return amp_cycles();
}

/* The next free record, or NULL when the flusher is behind (counted):
 * the current half is full. */
amp_trace_rec_t *amp_trace_swap(amp_trace_pe_t *tp);

/* Appends a record of kind with x, a, b, c, d to PE tp's buffer; only
 * tp's PE calls it. */
static inline void amp_trace_put(amp_trace_pe_t *tp, int kind, int x, int a,
                                 int b, int c, uint64_t d)
{
    amp_trace_rec_t *r = tp->cur;
    if (__builtin_expect(r == tp->end, 0) && !(r = amp_trace_swap(tp)))
        return;
    tp->cur = r + 1;
    r->t = amp_trace_now();
    r->kind = (uint16_t)kind;
    r->x = (uint16_t)x;
    r->a = a;
    r->b = b;
    r->c = c;
    r->d = d;
}

/* The id of name on PE tp (1, 2, ...; 0 for NULL; the last id for
 * names beyond AMP_TRACE_NAMES); name must live until amp_trace_finish
 * (a string literal). */
int amp_trace_name_id(amp_trace_pe_t *tp, const char *name);

#endif
