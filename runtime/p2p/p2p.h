/*
 * p2p: MPI point-to-point matching and the in-process protocols.
 *
 * Every rank has an endpoint with a posted-receive queue and an
 * unexpected-message queue.  Matching for a rank happens only on the rank's
 * own PE, so the queues need no lock.  The protocols (DESIGN.md §6):
 *
 *  - same PE, receive posted: the sender copies straight into the receive
 *    buffer; no envelope, no queue;
 *  - small messages (<= eager limit) otherwise: the data is copied into a
 *    pooled envelope, and the send completes at once;
 *  - larger (and synchronous) messages: rendezvous.  The envelope carries
 *    the sender's buffer address; the receiver copies straight from it (one
 *    copy) and then completes the send.
 *
 * Everything for another PE travels through the ring of that pair of PEs
 * (p2p/ring.h), small messages inline in the ring's slots; one ordered
 * channel per pair keeps MPI's non-overtaking rule.  Every request
 * completes on its owner's PE.
 */
#ifndef AMP_P2P_H
#define AMP_P2P_H

#include "base/base.h"
#include "boot/boot.h"
#include "dt/dt.h"
#include "node/node.h"
#include "sched/sched.h"

#define AMP_P2P_ANY (-2) /* wildcard source or tag */

enum amp_p2p_mode { AMP_P2P_STANDARD = 0, AMP_P2P_SYNC = 1 };

struct amp_p2p_ep;
struct amp_msg;

typedef struct amp_p2p_req amp_p2p_req_t;

/* Where a request's buffer is: host memory, or CUDA device memory (plain
 * layout) of one device, which the world's GPU layer moves (p2p/dev.c). */
typedef enum amp_p2p_mem_kind {
    AMP_P2P_MEM_HOST,
    AMP_P2P_MEM_DEVICE
} amp_p2p_mem_kind_t;
typedef struct amp_p2p_mem {
    amp_p2p_mem_kind_t kind;
    int device; /* AMP_P2P_MEM_DEVICE: its CUDA device */
} amp_p2p_mem_t;
typedef void (*amp_p2p_done_fn_t)(amp_p2p_req_t *req);

/* A thread blocked in amp_p2p_wait_all / _any (on its stack): the
 * requests it waits for point to it, and the last of them to complete
 * wakes it.  Any thread of a rank may wait (the rank's own, or one running
 * a call of another thread of the rank: mpi/threads/threads.c), each for its
 * own requests. */
typedef struct amp_p2p_waiter {
    amp_thread_t *thr;
    int pending;
} amp_p2p_waiter_t;

/* A thread blocked in a probe: any arrival wakes every such thread of the
 * endpoint, and each looks again. */
typedef struct amp_p2p_prober {
    amp_thread_t *thr;
    struct amp_p2p_prober *next;
} amp_p2p_prober_t;

struct amp_p2p_req {
    amp_p2p_req_t *next, *prev; /* posted queue */
    struct amp_p2p_ep *owner;
    void *buf;          /* send: data; receive: where data goes */
    size_t bytes;       /* send: length; receive: capacity */
    int ctx, peer, tag; /* receive: wanted source and tag; send: dest */
    unsigned char is_send, done, cancelled, posted;
    unsigned char in_bucket;  /* posted in a bucket (exact context) */
    amp_p2p_waiter_t *waiter; /* the thread waiting for it, or NULL */
    /* Send: a cancellation asked the receiver's PE whether it withdrew the
     * message and awaits the answer (cancel_wait), before which the
     * request does not complete; sent: the transport has finished with it
     * meanwhile (amp_p2p_cancel). */
    unsigned char cancel_wait, sent;
    amp_status_t error;
    int st_source, st_tag;
    size_t st_bytes;
    /* Send: the sender's rank in the communicator, and the message's
     * number among the sender's sends (never 0), which with ctx and src
     * name it for a cancellation. */
    int src;
    uint32_t sid;
    const amp_dt_t *dt; /* non-contiguous layout of buf, or NULL: plain */
    amp_p2p_done_fn_t on_done; /* runs after completion; may free req */
    amp_p2p_mem_t mem;         /* where buf is */
};

static inline int amp_p2p_on_device(const amp_p2p_req_t *r)
{
    return r->mem.kind == AMP_P2P_MEM_DEVICE;
}

typedef struct amp_p2p_world amp_p2p_world_t;

/* Room for the state of the transports that keep some, per process and
 * per PE (p2p/transport.h: enum amp_p2p_tp_slot). */
#define AMP_P2P_TP_SLOTS 4

/* ---- active messages between processes, for p2p and the layers above --
 * A message of a layer's own header (at most AMP_P2P_AM_HDR_MAX bytes)
 * and data, from this PE to PE rpe of process proc, for the handler
 * registered under its id.  It travels in order with everything else this
 * PE sends there, and the receiving PE runs the handler inside its
 * progress.  Small data comes with the header (valid during the call
 * only); larger data stays with the sender until the handler fetches it
 * (amp_p2p_am_fetch, zero-copy where UCX can). */
#define AMP_P2P_AM_HDR_MAX 192
typedef enum amp_p2p_am_id {
    AMP_P2P_AM_RMA,  /* one-sided operations and their answers (rma/) */
    AMP_P2P_AM_MOVE, /* a rank that moves between processes (rank/move.c) */
    AMP_P2P_AM_GPU,  /* p2p's device protocol (p2p/dev.c) */
    AMP_P2P_AM_IO,   /* the shared file pointer (io/shared.c) */
    /* Control messages (amp_p2p_am_control): */
    AMP_P2P_AM_DETECT, /* deadlock detection across processes (start/) */
    AMP_P2P_AM_PLACES, /* loads and places of moves (rank/move_exchange.c) */
    AMP_P2P_AM_NIDS
} amp_p2p_am_id_t;
typedef struct amp_p2p_am {
    const void *hdr;
    size_t hlen;
    const void *data; /* the data, or NULL: fetch it through desc */
    size_t bytes;
    void *desc;
    int from_proc, from_pe; /* where replies go */
} amp_p2p_am_t;
typedef void (*amp_p2p_am_fn_t)(amp_pe_t *pe, const amp_p2p_am_t *m);
/* ok: whether the transfer succeeded. */
typedef void (*amp_p2p_am_done_fn_t)(void *arg, int ok);

/* An active message to send: its id, the PE pe of process proc it goes
 * to, its header (hlen bytes at hdr) and data (bytes at data), and what
 * runs once the data may change again (done(arg), done may be NULL; a
 * control message has no done: its data is copied before the call
 * returns). */
typedef struct amp_p2p_am_out {
    amp_p2p_am_id_t id;
    int proc, pe;
    const void *hdr;
    size_t hlen;
    const void *data;
    size_t bytes;
    amp_p2p_am_done_fn_t done;
    void *arg;
} amp_p2p_am_out_t;

/* Makes fn the handler of the messages of id in world w (once, at
 * startup, before any can arrive). */
void amp_p2p_am_register(amp_p2p_world_t *w, amp_p2p_am_id_t id,
                         amp_p2p_am_fn_t fn);
/* Sends am from pe; am->data must stay as it is until am->done(am->arg)
 * runs, which may be before the call returns (am itself need not). */
void amp_p2p_am_send(amp_pe_t *pe, const amp_p2p_am_out_t *am);
/* Fetches the bytes of an arrival's desc into into; done(arg) follows. */
void amp_p2p_am_fetch(amp_pe_t *pe, void *desc, void *into, size_t bytes,
                      amp_p2p_am_done_fn_t done, void *arg);
/* A control message of the layers that coordinate the processes (deadlock
 * detection, rank moves): not one of the program's messages (not in
 * amp_p2p_net_traffic's counts, nor in the rounds of amp_p2p_net_quiesce),
 * outside the per-pair order, data always with the header (copied before
 * the call returns; am->done is not used).  Any thread may send one from
 * a PE not running, naming it as pe (once the PEs have stopped). */
void amp_p2p_am_control(amp_pe_t *pe, const amp_p2p_am_out_t *am);

/* FIFO queues of posted receives and of unexpected messages. */
typedef struct amp_p2p_rq {
    amp_p2p_req_t *head, *tail;
} amp_p2p_rq_t;
typedef struct amp_p2p_mq {
    struct amp_msg *head, *tail;
} amp_p2p_mq_t;

#define AMP_P2P_BUCKETS 64  /* hashed queues of the exact contexts */
#define AMP_P2P_EXACT_MAX 8 /* exact contexts per endpoint; more: linear */

typedef struct amp_p2p_ep {
    amp_p2p_rq_t posted;
    amp_p2p_mq_t unexp;
    unsigned seq; /* arrivals so far: orders messages across buckets */
    /* Contexts matched exactly (amp_p2p_ep_set_exact), their buckets. */
    int exact[AMP_P2P_EXACT_MAX];
    int nexact;
    amp_p2p_rq_t posted_b[AMP_P2P_BUCKETS];
    amp_p2p_mq_t unexp_b[AMP_P2P_BUCKETS];
    /* Device transfers under way whose end completes a request of this
     * rank on its PE (GPU events, chunks between processes: p2p/dev.c,
     * p2p/stage.c): the rank must not change PE before they are done. */
    int dev_busy;
    amp_p2p_prober_t *probers; /* threads blocked in a probe */
    /* What the rank's own thread waits for, for the deadlock report. */
    int probe_waiting;
    amp_p2p_req_t **wait_reqs;
    int wait_nreqs;
    int probe_ctx, probe_src, probe_tag;
    uint32_t last_sid; /* the number of the last send (amp_p2p_req_t) */
    /* Read by the senders of every message, written once: on a cache
     * line of their own, which the rank's calls never write (a send's
     * last_sid beside them cost every message to the rank a miss). */
    _Alignas(64) amp_thread_t *thr;
    amp_p2p_world_t *world;
    int world_rank;
} amp_p2p_ep_t;

struct amp_p2p_world {
    amp_p2p_ep_t **eps; /* by world rank; NULL: a rank of another process */
    int nranks;         /* in the whole job */
    size_t eager_limit;
    /* The job's processes (p2p/net.c); a job of one process has nprocs 1,
     * NULL maps and no net. */
    int nprocs, proc; /* processes in the job, this one's index */
    int *rank_proc;   /* world rank -> its process */
    int *rank_pe;     /* world rank -> its PE in that process */
    /* Changes each time a rank is placed in another process
     * (amp_p2p_net_place): layouts computed from rank_proc before are
     * stale. */
    _Atomic unsigned long placed;
    int *proc_node; /* process -> node (first process on it) */
    /* This process among the job's processes that share its kernel (the
     * same boot id), whatever their host names: they share the machine's
     * cores (containers, network namespaces).  0 before amp_p2p_net_init. */
    int machine_index, machine_size;
    /* The processes of this node that share memory (node/node.h): every
     * process on it, or this one alone with node_shm off. */
    amp_node_t node;
    int node_shm;        /* AMPI_NODE_SHM: share memory between processes */
    int node_membarrier; /* AMPI_NODE_MEMBARRIER: asymmetric fences there */
    size_t node_split;   /* AMPI_NODE_SPLIT_COPY: shared copies (0: none) */
    size_t net_eager;    /* AMPI_NET_EAGER: eager through UCX (net.c) */
    /* The transports to other processes (p2p/transport.h), for host and
     * for device memory; NULL in a job of one process. */
    const struct amp_p2p_tp *between, *device;
    /* Each transport's state of the process, by its slot (transport.h:
     * enum amp_p2p_tp_slot), its own to read; NULL: none. */
    void *tp[AMP_P2P_TP_SLOTS];
    struct amp_gpu *gpu; /* CUDA (gpu/gpu.h), NULL: host-only */
    /* The handlers of active messages, by id (amp_p2p_am_register). */
    amp_p2p_am_fn_t am_fns[AMP_P2P_AM_NIDS];
};

/* Connects the PEs of this process (sched's, after amp_p2p_pe_init) with
 * those of every other process of the job through UCX: one worker per PE,
 * the workers' addresses and the ranks' places exchanged through boot.
 * This process runs world ranks first .. first + nlocal - 1, rank
 * first + i on PE local_pe[i]; fills w's maps.  Logs one line and fails
 * if UCX or the exchange does. */
AMP_MUST_USE amp_status_t amp_p2p_net_init(amp_p2p_world_t *w,
                                           amp_sched_t *sched, amp_boot_t *boot,
                                           int first, int nlocal,
                                           const int *local_pe);
/* After every PE has stopped: completes what the workers still send,
 * waits for every process to get there, and closes the transport. */
void amp_p2p_net_finish(amp_p2p_world_t *w, amp_sched_t *sched,
                        amp_boot_t *boot);
/* The scheduler's sleep and wake hooks when the job has several
 * processes: an idle PE sleeps on its worker, so that a message from
 * another process wakes it as a local one does. */
void amp_p2p_net_sleep(amp_pe_t *pe, long ns);
void amp_p2p_net_wake(amp_pe_t *pe);
/* The messages of the program's (not control messages) that this
 * process's PEs have sent to and received from other processes so far;
 * answers whether one of its PEs has a transfer under way (any thread). */
int amp_p2p_net_traffic(amp_p2p_world_t *w, uint64_t *sent, uint64_t *recv);
/* The sends the program started on pe so far and their bytes (+stats):
 * point-to-point and the collectives' own messages, in the process or
 * out of it. */
void amp_p2p_pe_sends(const amp_pe_t *pe, uint64_t *sends, uint64_t *bytes);

/* How a send went: to a rank on the same PE, to another PE of the
 * process (the rings), or to another process (its transport). */
typedef enum amp_p2p_route {
    AMP_P2P_ROUTE_SELF,
    AMP_P2P_ROUTE_RING,
    AMP_P2P_ROUTE_NET,
    AMP_P2P_NROUTES
} amp_p2p_route_t;

/* pe's counters so far (MPI_T's performance variables): sends and bytes
 * by route, messages into and out of the unexpected queues of the ranks
 * it ran, queue entries compared while matching.  Read by any thread
 * while pe writes them: each value is one that was true lately. */
typedef struct amp_p2p_counts {
    uint64_t sends[AMP_P2P_NROUTES], bytes[AMP_P2P_NROUTES];
    uint64_t unexp_in, unexp_out, match_tries;
} amp_p2p_counts_t;
void amp_p2p_pe_counts(const amp_pe_t *pe, amp_p2p_counts_t *out);
/* Takes what arrived from other processes for pe: by pe, or by one thread
 * once the PEs have stopped; returns how many events. */
unsigned amp_p2p_net_progress(amp_pe_t *pe);

/* ---- moving ranks between the PEs of their processes (net.c) ----------
 * In a job of several processes every process addresses a rank's messages
 * to the PE that runs it (rank_pe).  A move is collective over the job;
 * in every process one thread calls these, while every other rank of the
 * process waits (inside AMPI_Migrate), in this order:
 *  1. amp_p2p_net_quiesce: returns once every message any process sent
 *     before has been delivered to the PE that runs its receiver, and what
 *     those deliveries answered too (rounds of counts until nothing new);
 *  2. each rank calls amp_p2p_ep_fetch_remote (then every send to it has
 *     its data taken);
 *  3. amp_p2p_net_settle: returns once no PE of the process has a send,
 *     fetch or early arrival under way (so nothing completes on a rank's
 *     old PE after it left);
 *  4. the ranks move;
 *  5. every process tells every other the new places of its ranks (the
 *     layer above, in control messages: rank/move_exchange.c), which each
 *     sets with amp_p2p_net_place.  Only then may a rank of this process
 *     send again. */
void amp_p2p_net_quiesce(amp_p2p_world_t *w);
void amp_p2p_net_settle(amp_p2p_world_t *w);
/* World rank rank runs on PE pe of process proc from now on. */
void amp_p2p_net_place(amp_p2p_world_t *w, int rank, int proc, int pe);

/* On the endpoint's PE, by its rank: fetches the data of every message
 * from another process that waits in ep's unexpected queues, or that the
 * rank took out of them (taken: ntaken messages of amp_p2p_improbe), with
 * its data still at the sender (the transport's handle of it belongs to
 * this PE), so that the rank may move to another PE.  Blocks until
 * done. */
void amp_p2p_ep_fetch_remote(amp_p2p_ep_t *ep, struct amp_msg *const *taken,
                             int ntaken);

/* Information about a matched-but-not-received message (probe). */
typedef struct amp_p2p_probe_info {
    int source, tag;
    size_t bytes;
} amp_p2p_probe_info_t;

/* Per-PE state: the envelope pool and the rings from the other PEs.  Set
 * up every PE (after amp_sched_init) before any runs. */
AMP_MUST_USE amp_status_t amp_p2p_pe_init(amp_pe_t *pe, size_t eager_limit,
                                          amp_p2p_world_t *world);
void amp_p2p_pe_cleanup(amp_pe_t *pe);
/* Hooks to register with the scheduler (amp_sched_hooks_t). */
void amp_p2p_handle_item(amp_pe_t *pe, amp_inbox_item_t *item);
void amp_p2p_poll(amp_pe_t *pe);
int amp_p2p_pending(amp_pe_t *pe);

void amp_p2p_ep_init(amp_p2p_ep_t *ep, amp_p2p_world_t *world, int world_rank,
                     amp_thread_t *thr);
/* The world's table of endpoints (by world rank, p2p's alone to write):
 * made for nranks, before any endpoint attaches; an endpoint becomes its
 * rank's in this process (created, restarted or arrived), or the rank
 * leaves it (gone to another process: its messages go there). */
AMP_MUST_USE amp_status_t amp_p2p_world_eps_init(amp_p2p_world_t *world,
                                                 int nranks);
void amp_p2p_ep_attach(amp_p2p_ep_t *ep);
void amp_p2p_ep_detach(amp_p2p_world_t *world, int world_rank);

/* Declares whether receives and probes on context ctx of this endpoint
 * never use a wildcard source or tag (the MPI-4 hints
 * mpi_assert_no_any_source and mpi_assert_no_any_tag).  Matching on an
 * exact context looks only at the receives and messages of the one
 * (source, tag) pair, in hashed FIFO buckets, instead of scanning every
 * posted receive or unexpected message of the rank.  Only the endpoint's
 * own rank calls it, between operations; it may be switched either way
 * with receives posted and messages waiting. */
void amp_p2p_ep_set_exact(amp_p2p_ep_t *ep, int ctx, int on);

/* The envelope of a message: its context ctx, the sender's rank src in
 * the communicator of that context, the receiver's world rank dst, and
 * its tag.  A receive names the source (or AMP_P2P_ANY) and the tag (or
 * AMP_P2P_ANY) it accepts, and leaves dst alone. */
typedef struct amp_p2p_env {
    int ctx, src, dst, tag;
} amp_p2p_env_t;

/* Starts a send of bytes at buf with envelope env. */
void amp_p2p_isend(amp_p2p_ep_t *ep, const void *buf, size_t bytes,
                   amp_p2p_env_t env, int mode, amp_p2p_req_t *req);
/* Starts a receive into buf (capacity bytes) of a message that matches
 * env. */
void amp_p2p_irecv(amp_p2p_ep_t *ep, void *buf, size_t capacity,
                   amp_p2p_env_t env, amp_p2p_req_t *req);

/* The same for count elements of dt at buf (the user's layout).  A
 * non-contiguous type is never packed on the way: a rendezvous or a
 * receive already posted on the same PE copies once, straight from the
 * sender's layout into the receiver's; eager messages are copied into the
 * envelope packed and out of it into the layout.  dt must stay valid
 * until the request completes. */
void amp_p2p_isend_typed(amp_p2p_ep_t *ep, const void *buf, int count,
                         const amp_dt_t *dt, amp_p2p_env_t env, int mode,
                         amp_p2p_req_t *req);
void amp_p2p_irecv_typed(amp_p2p_ep_t *ep, void *buf, int count,
                         const amp_dt_t *dt, amp_p2p_env_t env,
                         amp_p2p_req_t *req);
void amp_p2p_mrecv_typed(amp_p2p_ep_t *ep, struct amp_msg *msg, void *buf,
                         int count, const amp_dt_t *dt, amp_p2p_req_t *req);

/* ---- CUDA device memory (gpu/gpu.h) ----------------------------------
 * A send or receive on a buffer of device memory with a plain layout:
 * wherever the message meets its receive (on the receiver's PE) the data
 * moves with the GPU, on that PE's stream, straight from the sender's
 * buffer to the receiver's (device to device: one copy, a peer copy
 * between two devices; device and host: through a pinned bounce buffer in
 * chunks of AMP_GPU_CHUNK).  Both requests complete when the copy's event
 * says it is done (the scheduler polls it).  A device send is always a
 * rendezvous (the data stays in the sender's buffer until the receiver has
 * it), never eager.  Between processes the data goes through CUDA IPC,
 * UCX or pipelined staging (p2p/dev.h). */
typedef struct amp_p2p_dev {
    struct amp_gpu *gpu;
    int device;
} amp_p2p_dev_t;

void amp_p2p_isend_dev(amp_p2p_ep_t *ep, const void *buf, size_t bytes,
                       const amp_p2p_dev_t *dev, amp_p2p_env_t env, int mode,
                       amp_p2p_req_t *req);
void amp_p2p_irecv_dev(amp_p2p_ep_t *ep, void *buf, size_t capacity,
                       const amp_p2p_dev_t *dev, amp_p2p_env_t env,
                       amp_p2p_req_t *req);

/* Whether a device buffer of a send to (send) or a receive from world rank
 * peer (-1: any source) may be read or written by the GPU outside this
 * process's streams: a send to another process through CUDA IPC (the
 * receiver copies in its own context) or UCX, a receive that UCX may fill
 * from another process.  The runtime's own streams follow the legacy
 * default stream (gpu/gpu.h) and need nothing; such a buffer does: the
 * MPI call first waits until the GPU has done the program's earlier work
 * (amp_p2p_stage_begin, stage.h).  pe: the caller's. */
int amp_p2p_dev_order(amp_pe_t *pe, int peer, int send);

/* ---- device buffers staged through host copies (gpu/stage.h) --------
 * p2p/stage.c: the copies back of staged buffers chained on requests, on
 * the PE where the request completes (its owner's), which counts them in
 * dev_busy until they are done. */
struct amp_gpu_stage;
struct amp_gpu_op;

/* A send (send) or a receive on s, the host copy of a device buffer of
 * g's: returns the request that moves the host copy (its on_done set: the
 * caller starts it), or NULL when out of memory (nothing done).  outer is
 * made pending and completes when that request has, a receive's data
 * (the bytes its status counts, in whole elements) being copied back to
 * the device first, with its status; s's host copy then goes back to the
 * pool.  *slot points at the inner request until outer completes (NULL
 * then), for a cancel. */
amp_p2p_req_t *amp_p2p_stage_req(amp_p2p_ep_t *ep, struct amp_gpu *g,
                                 const struct amp_gpu_stage *s, int send,
                                 amp_p2p_req_t *outer, amp_p2p_req_t **slot);
/* An empty amp_gpu_op_t for the staged buffers of one operation on g's
 * devices, or NULL when out of memory; amp_p2p_stage_op_free gives its
 * host copies back without copying anything and frees it (NULL:
 * nothing). */
struct amp_gpu_op *amp_p2p_stage_op_new(struct amp_gpu *g);
void amp_p2p_stage_op_free(struct amp_gpu_op *op);
/* The asynchronous end of op: outer is made pending and the returned
 * request (op's own) is the one to hand to the operation; when it
 * completes, what was received is copied back (by_status: the bytes its
 * status counts, else whole spans; nothing when it was cancelled), its
 * status goes to outer, op is freed and outer completes. */
amp_p2p_req_t *amp_p2p_stage_op_start(amp_p2p_ep_t *ep, struct amp_gpu_op *op,
                                      amp_p2p_req_t *outer, int by_status);

/* Request whose completion needs nothing else (MPI_PROC_NULL, ...). */
void amp_p2p_req_init_done(amp_p2p_ep_t *ep, amp_p2p_req_t *req, int source,
                           int tag);

/* Request completed later by the caller's amp_p2p_req_complete (a request
 * made of others, like MPI_Isendrecv's). */
void amp_p2p_req_init_pending(amp_p2p_ep_t *ep, amp_p2p_req_t *req);

/* Blocks until every non-NULL request in reqs is done. */
void amp_p2p_wait_all(amp_p2p_ep_t *ep, amp_p2p_req_t **reqs, int n);
/* Blocks until at least one non-NULL request in reqs is done (returns at
 * once if there is none). */
void amp_p2p_wait_any(amp_p2p_ep_t *ep, amp_p2p_req_t **reqs, int n);
/* Lets queued work run (inbox, other ranks) without blocking for long. */
void amp_p2p_progress(amp_p2p_ep_t *ep);

/* Returns 1 and fills info if a matching message has arrived. */
int amp_p2p_iprobe(amp_p2p_ep_t *ep, int ctx, int src, int tag,
                   amp_p2p_probe_info_t *info);
void amp_p2p_probe(amp_p2p_ep_t *ep, int ctx, int src, int tag,
                   amp_p2p_probe_info_t *info);
/* Like iprobe, but removes the message for a later amp_p2p_mrecv. */
struct amp_msg *amp_p2p_improbe(amp_p2p_ep_t *ep, int ctx, int src, int tag,
                                amp_p2p_probe_info_t *info);
struct amp_msg *amp_p2p_mprobe(amp_p2p_ep_t *ep, int ctx, int src, int tag,
                               amp_p2p_probe_info_t *info);
void amp_p2p_mrecv(amp_p2p_ep_t *ep, struct amp_msg *msg, void *buf,
                   size_t capacity, amp_p2p_req_t *req);

/* Tries to cancel a request: a receive still posted, or a send whose
 * message its receiver has not matched (it may have completed already:
 * an eager send, whose message waits at the receiver).  A send asks the
 * PE that runs the receiver to withdraw the message from the unexpected
 * queue, which finishes the message's transport as a match would (the
 * data is left behind); the request completes (again) once the answer is
 * back, cancelled or not, and is awaited like any other. */
void amp_p2p_cancel(amp_p2p_ep_t *ep, amp_p2p_req_t *req);

/* A completed request that stands for the send from, whose data was
 * copied (a buffered send: MPI_Ibsend): cancelling it cancels from's
 * message. */
void amp_p2p_req_init_sent(amp_p2p_ep_t *ep, amp_p2p_req_t *req,
                           const amp_p2p_req_t *from);

/* Completes req (on its owner's PE). */
void amp_p2p_req_complete(amp_p2p_req_t *req);

/* Makes thr ready on its own PE, from the calling PE pe (any PE): for the
 * layers above that block threads themselves (coll/shm.c).  The wake
 * travels through the rings in order with pe's messages; a thread may get
 * one it no longer waits for, so waiters re-check their condition. */
void amp_p2p_wake(amp_pe_t *pe, amp_thread_t *thr);

/* From the calling PE pe: wakes the PE that runs world rank r, in another
 * process of this node, if that PE sleeps (netnode.c: its flag in node
 * memory, then a message that ends its sleep); nothing otherwise.  For the
 * layers above that wait on node memory (coll/nodelevel.c): whoever
 * changes what a PE of another process may wait for calls this after the
 * change; that PE's threads poll (sched.h), and a sleep that began just
 * before the change still ends after the scheduler's polling sleep. */
void amp_p2p_wake_node_pe(amp_pe_t *pe, int r);

#endif
