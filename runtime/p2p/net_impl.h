/*
 * The transport between processes, private to p2p/net.c (UCX, control
 * messages and counts for the layers above, the count exchanges of rank
 * moves) and p2p/netnode.c (the rings
 * between the PEs of processes of one node, in shared memory).
 *
 * A message to a PE of another process of this node goes through the ring
 * of that pair of PEs when it fits there (small messages with their data;
 * larger ones as their address, which the receiver copies from with
 * cross-memory attach); anything else goes through UCX.  Both carry the
 * same header and the same sequence number per pair of PEs, so the
 * receiver delivers them in order whichever way each came.
 */
#ifndef AMP_P2P_NET_IMPL_H
#define AMP_P2P_NET_IMPL_H

#include "p2p/net.h"
#include "p2p/pe.h"
#include "p2p/shmring.h"

#include <stdatomic.h>
#include <stddef.h>
#include <ucp/api/ucp.h>

#define NET_AM_ID 17          /* our one active-message handler */
#define NET_KEY "ampi.net"    /* what each process publishes (boot) */
#define NET_HOST_MAX 64       /* bytes of host name compared for nodes */
#define NET_BOOT_MAX 40       /* bytes of the kernel's boot id */
#define NET_MAGIC 0x414d4e36u /* "AMN6": a blob of this version */
/* With every process on this node, UCX is progressed every so many polls
 * (a power of two). */
#define NET_UCX_EVERY 16
/* With other threads of the PE ready to run, UCX is progressed at most once
 * in so many nanoseconds (over TCP a progress is a system call or more, and
 * a PE whose ranks switch often would spend its time there). */
#define NET_UCX_GAP_NS 5000L

/* What every message carries ahead of its data.  A plain eager message
 * (kind EAGER) carries only the fields before bytes (NET_HDR_SHORT bytes):
 * its bytes are its data's length and it has no sreq, so that a small one
 * takes a single line of a ring (p2p/shmring.h). */
typedef struct net_hdr {
    uint8_t kind; /* enum amp_net_kind */
    uint8_t flag; /* CANCEL_ANSWER: the message was withdrawn */
    uint16_t from_pe;
    int32_t from_proc;
    int32_t ctx, src, tag, dst;
    uint32_t seq;      /* per pair of PEs, for the order */
    int32_t from_rank; /* the sender's world rank (acknowledgements) */
    uint32_t sid;      /* the send's number (amp_p2p_req_t), for a cancel */
    uint32_t am;       /* UPPER, CONTROL: the handler's amp_p2p_am_id_t */
    uint64_t bytes;
    uint64_t sreq; /* sync: the sender's request, echoed by the ack */
} net_hdr_t;

#define NET_HDR_SHORT offsetof(net_hdr_t, bytes)

/* Slots of the count exchanges of rank moves (a process is at most one
 * step ahead of another). */
#define NET_MOVE_SLOTS 4

/* The count exchanges of rank moves (amp_p2p_net_quiesce): one thread of
 * the process runs a step while the handlers of PE 0 fill in what the
 * other processes send for it. */
typedef struct net_move {
    int step; /* the last step begun (the running thread's) */
    /* By step % NET_MOVE_SLOTS: [proc][its PE][PE here], how many messages
     * that PE had sent to this one; the sum of the processes' totals; how
     * many processes have reported. */
    uint32_t *counts[NET_MOVE_SLOTS];
    uint64_t totals[NET_MOVE_SLOTS];
    _Atomic int got[NET_MOVE_SLOTS];
} net_move_t;

/* The transport of the whole process (the world's slot AMP_P2P_TP_NET):
 * read-only once set up, except the move state. */
typedef struct amp_net {
    ucp_context_h ctx;
    int nprocs, proc, maxpes, nranks;
    void **addr;  /* [proc * maxpes + pe]: worker addresses */
    size_t eager; /* the eager limit */
    /* Larger messages to a process no ring reaches (another node, or
     * AMPI_NODE_SHM=0) go eagerly through UCX up to this size too: a
     * rendezvous costs UCX a round trip more, over TCP tens of µs.  One
     * that waits unexpected is kept in a block of its own. */
    size_t eager_far;
    int cuda;     /* this process's UCX moves CUDA memory (gpu/ucx.c) */
    unsigned char *proc_cuda; /* by process: the same, as it published */
    amp_sched_t *sched;
    net_move_t move;
    /* The processes of this node (netnode.c). */
    const amp_node_t *node; /* the world's */
    int *proc_npes;         /* by process: its PEs */
    uint64_t probe;         /* AMP_NODE_PROBE, read by the node's others */
    char *shm;              /* the node's rings, flags; NULL: none */
    size_t shm_bytes;
    uint32_t ring_size; /* bytes of lines per ring */
    size_t rings_off;   /* where the rings start in shm */
    int fence_asym;     /* registered for asymmetric fences (shmring.h) */
    size_t split_min;   /* AMPI_NODE_SPLIT_COPY: shared copies from here */
    int all_local;      /* every process of the job is on this node */
    const struct amp_net_node_ops *node_ops; /* net.c's, for netnode.c */
} amp_net_t;

/* What goes out as UCX's header: ours, then an upper layer's (kind
 * AMP_NET_UPPER only). */
typedef struct net_wire {
    net_hdr_t hdr;
    unsigned char upper[AMP_P2P_AM_HDR_MAX];
} net_wire_t;

/* A send in flight; header and temporary kept until UCX is done. */
typedef struct net_op {
    struct net_op *next;
    net_wire_t wire;
    size_t hlen;               /* bytes of wire sent */
    int cuda;                  /* the data is CUDA device memory */
    amp_p2p_req_t *req;        /* completes with the UCX send, or NULL */
    void *temp;                /* packed copy of a non-contiguous buffer */
    amp_p2p_am_done_fn_t done; /* upper layer's send: told when sent */
    void *arg;
    int counted; /* a message of the program's (not a control message) */
    int ucx;     /* through UCX even where a ring would take it (wakes) */
    struct amp_net_pe *np;
} net_op_t;

/* A rendezvous message being fetched into a receive (r), or for an upper
 * layer into a buffer (into, then done). */
typedef struct net_fetch {
    struct net_fetch *next;
    int discard;
    amp_p2p_req_t *r;
    void *into;
    amp_p2p_am_done_fn_t done;
    void *arg;
    struct amp_net_pe *np;
    void *desc, *temp;
    size_t bytes;
    int src, tag;
} net_fetch_t;

/* A message that arrived before its turn. */
typedef struct net_held {
    struct net_held *next;
    net_wire_t wire;
    size_t hlen;
    void *data; /* rendezvous: UCX's descriptor; else our copy */
    size_t length;
    int rndv;
} net_held_t;

/* One PE's end (the PE's slot AMP_P2P_TP_NET): only that PE touches
 * it. */
typedef struct amp_net_pe {
    ucp_worker_h worker;
    int efd;
    amp_pe_t *pe;
    amp_net_t *net;
    ucp_ep_h *eps; /* [proc * maxpes + pe], made on first use */
    /* Same index: the next number to send there, and expected from there
     * (written by this PE only, read by any while ranks move). */
    _Atomic uint32_t *send_seq;
    _Atomic uint32_t *recv_seq;
    net_held_t *held;     /* early arrivals */
    net_fetch_t *fetches; /* matched inside a UCX callback: start after */
    net_op_t *free_ops;
    int in_progress; /* inside ucp_worker_progress */
    /* Written by this PE only, read by any (amp_p2p_net_traffic): messages
     * sent and received, and sends, fetches and held arrivals not done. */
    _Atomic uint64_t sent, recvd;
    _Atomic long busy;
    _Atomic long fetching; /* fetches not done (rank moves) */
    /* The rings of the node (netnode.c): out of this PE by channel (r NULL:
     * none), and into it, with the channel each comes from. */
    amp_shr_tx_t *tx;
    amp_shr_rx_t *rx;
    unsigned *rx_chan;
    int nrx;
    int in_rings;               /* delivering from them */
    unsigned ticks;             /* calls of amp_net_progress */
    long ucx_last;              /* when UCX was progressed with work ready */
    _Atomic uint32_t *sleeping; /* this PE's flag in the node's memory */
    uint32_t split_gen;         /* its shared copies so far (netnode.c) */
} amp_net_pe_t;

/* Adds d to a counter only its PE writes (no locked instruction). */
static inline void bump_u64(_Atomic uint64_t *c, uint64_t d)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + d,
                          memory_order_relaxed);
}

static inline void bump(_Atomic long *c, long d)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + d,
                          memory_order_relaxed);
}

/* The next number of a counter only its PE writes; counts it. */
static inline uint32_t seq_next(_Atomic uint32_t *c)
{
    uint32_t v = atomic_load_explicit(c, memory_order_relaxed);
    atomic_store_explicit(c, v + 1, memory_order_relaxed);
    return v;
}

static inline uint32_t seq_of(_Atomic uint32_t *c)
{
    return atomic_load_explicit(c, memory_order_relaxed);
}

/* This transport's state of PE pe, and of the process (their slot
 * AMP_P2P_TP_NET, transport.h). */
static inline amp_net_pe_t *net_of(amp_pe_t *pe)
{
    return ((amp_p2p_pe_t *)pe->upper)->tp[AMP_P2P_TP_NET];
}

static inline amp_net_t *net_world(amp_p2p_world_t *w)
{
    return w->tp[AMP_P2P_TP_NET];
}

static inline unsigned chan(const amp_net_t *net, int proc, int pe)
{
    return (unsigned)(proc * net->maxpes + pe);
}

/* ---- net.c, for netnode.c ---------------------------------------------
 * netnode.c is a carrier under net.c: it calls no function of net.c by
 * name, only these, which net.c hands it at set-up (amp_net_node_setup)
 * and which it keeps in amp_net_t's node_ops. */
typedef struct amp_net_node_ops {
    /* A send's record (its wire header filled in), from the free list. */
    net_op_t *(*op_get)(amp_net_pe_t *np);
    /* The send is done (ok: it succeeded): its request, callback,
     * record. */
    void (*op_finish)(net_op_t *op, int ok);
    /* Sends op, a message without data (its header filled in), to PE rpe
     * of process proc: through their ring, or UCX. */
    void (*op_send)(amp_net_pe_t *np, net_op_t *op, int proc, int rpe);
    /* The same with bytes of data (copied). */
    void (*op_send_data)(amp_net_pe_t *np, net_op_t *op, int proc, int rpe,
                         const void *data, size_t bytes);
    /* An empty message through UCX to PE rpe of process proc, which ends
     * its sleep on its UCX worker (AMP_NET_WAKE). */
    void (*wake_ucx)(amp_net_pe_t *np, int proc, int rpe);
    /* A message from process from_proc's PE (as its header says), through
     * UCX or a ring: header of hlen bytes, then length bytes of data (a
     * rendezvous: data is the descriptor to fetch it with).  Delivered now
     * or held until its turn. */
    void (*receive)(amp_pe_t *pe, const void *header, size_t hlen, void *data,
                    size_t length, int rndv);
} amp_net_node_ops_t;

/* ---- netnode.c ------------------------------------------------------------
 */

/* The rings between this process's PEs and those of the other processes of
 * its node (w->node), in memory the node's first process creates and the
 * others map; ops: net.c's functions the rings call.  Logs and fails when
 * the memory cannot be had; then the job runs over UCX alone (the caller
 * decides). */
AMP_MUST_USE amp_status_t amp_net_node_setup(amp_p2p_world_t *w, amp_net_t *net,
                                             amp_sched_t *sched,
                                             const amp_net_node_ops_t *ops);
void amp_net_node_cleanup(amp_net_t *net, amp_sched_t *sched);
/* Sends op (header and data, as op_post) to PE rpe of process proc through
 * their ring: returns 0 when there is no ring to there or no room in it
 * (then UCX takes it).  Eager: the data is copied into the ring and op
 * finishes; a rendezvous: the receiver copies from data and answers, op
 * finishes then. */
int amp_net_node_post(amp_net_pe_t *np, net_op_t *op, int proc, int rpe,
                      const void *data, size_t bytes, int rndv);
/* Delivers what the rings into pe hold; returns how many messages. */
unsigned amp_net_node_progress(amp_pe_t *pe, amp_net_pe_t *np);
/* Whether a ring into np's PE holds a message (any thread may ask). */
int amp_net_node_waiting(amp_net_pe_t *np);
/* Whether desc is a rendezvous that came through a ring. */
static inline int amp_net_node_desc(const void *desc)
{
    return ((uintptr_t)desc & 1) != 0;
}
/* Copies the data of such a rendezvous (bytes of it) into into, answers
 * its sender, and frees desc; returns whether the copy succeeded. */
int amp_net_node_fetch(amp_net_pe_t *np, void *desc, void *into, size_t bytes);
/* Drops the rendezvous at desc (a withdrawn send): its sender is told, as
 * after a copy. */
void amp_net_node_discard(amp_net_pe_t *np, void *desc);
/* Around an idle PE's sleep: says it sleeps (so that a process that puts a
 * message into one of its rings wakes it), unless a ring already holds
 * one (then returns 0: do not sleep). */
/* An AMP_NET_HELP from the receiver of a rendezvous this PE sent. */
void amp_net_node_help(amp_net_pe_t *np, const net_hdr_t *h, const void *data,
                       size_t length);
int amp_net_node_sleep_begin(amp_net_pe_t *np);
void amp_net_node_sleep_end(amp_net_pe_t *np);

#endif
