/*
 * Partitioned communication (MPI-4.0: MPI_Psend_init, MPI_Precv_init,
 * MPI_Pready, MPI_Pready_range, MPI_Pready_list, MPI_Parrived).
 *
 * A partitioned request is a persistent send or receive request whose
 * message is the whole buffer (partitions * count elements).  A start of
 * the receive posts its receive at once; a start of the send waits until
 * the program has marked every partition ready, and the last MPI_Pready
 * sends the message.  So MPI_Parrived says true for every partition when
 * the whole message is there (the standard allows an implementation to
 * move the partitions together).  The message travels on the
 * communicator's collective context with its tag and a negative source
 * (part_src): no message of the program or of a collective has a negative
 * source there (the negative tags on that context are
 * MPI_Comm_create_group's, comm_create.c), so nothing else matches it.
 * A send and a receive pair in the order of their _init calls, as the
 * standard says: the k-th MPI_Psend_init of a rank to (comm, dest, tag)
 * with the k-th MPI_Precv_init of dest from (comm, source, tag), whatever
 * order they are started in.  Each side counts its inits per (context,
 * peer, tag) and the message's source carries k (modulo a bound, far
 * above the number of such requests a program keeps at once) next to the
 * sender's rank.  The outer request completes when its inner send or
 * receive does, so a thread may wait on it while others mark partitions
 * ready.
 */
#include "mpi/comm/comm.h"
#include "mpi/attr/attr.h"
#include "mpi/stage.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct amp_part {
    int seq; /* its place in the init order, modulo part_seq_mod */
    int partitions;
    int count;            /* elements per partition */
    int nready;           /* partitions marked ready in this start (send) */
    amp_p2p_req_t inner;  /* the message's send or receive */
    amp_req_t *outer;     /* the partitioned request */
    unsigned char *ready; /* by partition (send) */
} amp_part_t;

/* Partitioned inits of a rank so far, per (context, peer, tag) and
 * direction, kept with the rank (its heap travels with it). */
typedef struct amp_part_seq {
    int ctx, peer, tag, recv;
    unsigned n;
    struct amp_part_seq *next;
} amp_part_seq_t;

/* How many init-order places the sources of a group of size senders can
 * tell apart. */
static int part_seq_mod(int size)
{
    int m = (INT_MAX - 3) / (size > 0 ? size : 1);
    return m < 1024 ? m : 1024;
}

/* This init's place among the rank's inits of (ctx, peer, tag, recv),
 * modulo mod; -1 when out of memory. */
static int part_next_seq(amp_rank_t *rank, int ctx, int peer, int tag, int recv,
                         int mod)
{
    amp_part_seq_t *q = rank->part_seqs;
    while (q && !(q->ctx == ctx && q->peer == peer && q->tag == tag &&
                  q->recv == recv))
        q = q->next;
    if (!q) {
        if (!(q = calloc(1, sizeof(*q))))
            return -1;
        *q = (amp_part_seq_t){ctx, peer, tag, recv, 0, rank->part_seqs};
        rank->part_seqs = q;
    }
    return (int)(q->n++ % (unsigned)mod);
}

/* The source of a partitioned message from rank r of a group of size
 * senders, at init-order place seq, on the collective context: below -2. */
static int part_src(int r, int size, int seq)
{
    return -3 - (seq * size + r);
}

static void part_free(amp_part_t *part)
{
    if (part)
        free(part->ready);
    free(part);
}

static void part_release(amp_rank_t *rank, amp_req_t *r)
{
    (void)rank;
    part_free(r->part);
    r->part = NULL;
}

/* MPI_Start is point-to-point's own (amp_part_start). */
static const amp_req_ops_t part_ops = {.release = part_release};

/* The inner operation completed: so does the partitioned request. */
static void inner_done(amp_p2p_req_t *in)
{
    amp_part_t *part = AMP_CONTAINER_OF(in, amp_part_t, inner);
    amp_req_t *r = part->outer;
    r->p2p.st_source = r->peer;
    r->p2p.st_tag = r->tag;
    r->p2p.st_bytes = in->st_bytes;
    r->p2p.error = in->error;
    amp_p2p_req_complete(&r->p2p);
}

/* Completion of the partitioned request itself. */
static void outer_done(amp_p2p_req_t *p)
{
    amp_req_t *r = AMP_CONTAINER_OF(p, amp_req_t, p2p);
    if (r->freed)
        amp_req_release(AMP_CONTAINER_OF(p->owner, amp_rank_t, ep), r);
}

/* The arguments of MPI_Psend_init (recv 0) or MPI_Precv_init: partitions
 * partitions of count elements of dtype each at buf, to or from peer with
 * tag on comm_h, with info. */
typedef struct part_args {
    const void *buf;
    int partitions;
    MPI_Count count;
    MPI_Datatype dtype;
    int peer, tag;
    MPI_Comm comm_h;
    MPI_Info info;
    int recv;
} part_args_t;

/* The checks of a's partitions, count, peer, tag and buffer (of dt). */
static int check_part_args(amp_rank_t *rank, amp_comm_t *comm,
                           const part_args_t *a, const amp_dt_t *dt,
                           const char *call)
{
    int partitions = a->partitions, peer = a->peer, tag = a->tag;
    MPI_Count count = a->count;
    const char *arg = a->recv ? "source" : "dest";
    if (partitions < 1)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                             "partitions is %d (argument partitions): at "
                             "least 1",
                             partitions);
    if (count < 0)
        return amp_mpi_error(rank, comm, MPI_ERR_COUNT, call,
                             "negative count %lld (argument count)",
                             (long long)count);
    if ((long long)partitions * count > INT_MAX)
        return amp_mpi_error(rank, comm, MPI_ERR_UNSUPPORTED_OPERATION, call,
                             "%d partitions of %lld elements: at most %d "
                             "elements in all (arguments partitions, count)",
                             partitions, (long long)count, INT_MAX);
    if (peer != MPI_PROC_NULL && (peer < 0 || peer >= amp_comm_peer_size(comm)))
        return amp_mpi_error(rank, comm, MPI_ERR_RANK, call,
                             "invalid rank %d (argument %s): the communicator "
                             "has %d ranks (no wildcard here)",
                             peer, arg, amp_comm_peer_size(comm));
    if (tag < 0 || tag > MPI_TAG_UB_VALUE)
        return amp_mpi_error(rank, comm, MPI_ERR_TAG, call,
                             "invalid tag %d (argument tag): tags are 0..%d "
                             "(no wildcard here)",
                             tag, MPI_TAG_UB_VALUE);
    int rc = amp_check_buf(rank, comm, a->buf, partitions * (int)count, dt,
                           call, "buf");
    if (rc == MPI_SUCCESS && amp_proc.gpu)
        rc = amp_gpu_refuse(rank, comm, a->buf, call, "buf",
                            "partitioned communication moves host memory");
    return rc;
}

static int part_init(const part_args_t *a, MPI_Request *request,
                     const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const amp_dt_t *dt;
    int partitions = a->partitions, peer = a->peer, tag = a->tag;
    int recv = a->recv;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, a->comm_h, call, &comm);
    if (rc == MPI_SUCCESS)
        rc = amp_check_info(rank, comm, a->info, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, comm, a->dtype, call, "datatype", &dt);
    if (rc == MPI_SUCCESS)
        rc = check_part_args(rank, comm, a, dt, call);
    if (rc != MPI_SUCCESS)
        return rc;
    int total = partitions * (int)a->count;
    if (!request)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                             "NULL pointer (argument request)");
    amp_req_t *r = amp_req_new(rank, recv ? AMP_REQ_RECV : AMP_REQ_SEND);
    amp_part_t *part = r ? calloc(1, sizeof(*part)) : NULL;
    if (part && !recv)
        part->ready = calloc((size_t)partitions, 1);
    if (!part || (!recv && !part->ready)) {
        part_free(part);
        if (r)
            amp_req_release(rank, r);
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call,
                             "out of memory for a request");
    }
    int senders = recv ? amp_comm_peer_size(comm) : comm->size;
    part->seq = peer == MPI_PROC_NULL
                    ? 0
                    : part_next_seq(rank, comm->ctx, peer, tag, recv,
                                    part_seq_mod(senders));
    if (part->seq < 0) {
        part_free(part);
        amp_req_release(rank, r);
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call,
                             "out of memory for a request");
    }
    part->partitions = partitions;
    part->count = (int)a->count;
    part->outer = r;
    r->part = part;
    r->ops = &part_ops;
    r->buf = (void *)a->buf;
    r->count = total;
    r->dtype = a->dtype;
    r->dt = dt;
    amp_type_hold(dt);
    r->dt_held = 1;
    r->peer = peer;
    r->tag = tag;
    r->comm = a->comm_h;
    r->persistent = 1;
    *request = AMPI_HANDLE(AMPI_HANDLE_REQUEST, r->obj.idx);
    return MPI_SUCCESS;
}

int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count,
                    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    return part_init(&(part_args_t){.buf = buf,
                                    .partitions = partitions,
                                    .count = count,
                                    .dtype = datatype,
                                    .peer = dest,
                                    .tag = tag,
                                    .comm_h = comm,
                                    .info = info},
                     request, "MPI_Psend_init");
}
AMP_WEAK_ALIAS(Psend_init)

int PMPI_Precv_init(void *buf, int partitions, MPI_Count count,
                    MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    return part_init(&(part_args_t){.buf = buf,
                                    .partitions = partitions,
                                    .count = count,
                                    .dtype = datatype,
                                    .peer = source,
                                    .tag = tag,
                                    .comm_h = comm,
                                    .info = info,
                                    .recv = 1},
                     request, "MPI_Precv_init");
}
AMP_WEAK_ALIAS(Precv_init)

/* Sends the whole buffer: every partition is ready. */
static void send_all(amp_rank_t *rank, amp_comm_t *comm, amp_req_t *r)
{
    amp_part_t *part = r->part;
    part->inner.on_done = inner_done;
    amp_p2p_isend_typed(
        &rank->ep, r->buf, r->count, r->dt,
        (amp_p2p_env_t){.ctx = comm->ctx + 1,
                        .src = part_src(comm->rank, comm->size, part->seq),
                        .dst = amp_comm_peer_world(comm, r->peer),
                        .tag = r->tag},
        AMP_P2P_STANDARD, &part->inner);
}

int amp_part_start(amp_rank_t *rank, amp_req_t *r, const char *call)
{
    amp_part_t *part = r->part;
    amp_comm_t *comm = amp_comm_lookup(rank, r->comm);
    if (!comm)
        return amp_mpi_error(rank, NULL, MPI_ERR_COMM, call,
                             "the request's communicator has been freed");
    r->active = 1;
    amp_p2p_req_init_pending(&rank->ep, &r->p2p);
    r->p2p.on_done = outer_done;
    if (r->peer == MPI_PROC_NULL) {
        amp_p2p_req_init_done(&rank->ep, &r->p2p, MPI_PROC_NULL, MPI_ANY_TAG);
        return MPI_SUCCESS;
    }
    if (r->kind == AMP_REQ_RECV) {
        part->inner.on_done = inner_done;
        amp_p2p_irecv_typed(
            &rank->ep, r->buf, r->count, r->dt,
            (amp_p2p_env_t){
                .ctx = comm->ctx + 1,
                .src = part_src(r->peer, amp_comm_peer_size(comm), part->seq),
                .tag = r->tag},
            &part->inner);
        return MPI_SUCCESS;
    }
    part->nready = 0;
    memset(part->ready, 0, (size_t)part->partitions);
    return MPI_SUCCESS;
}

/* The partitioned request behind h, which must be a send (send) or a
 * receive; *r NULL after an error (returned). */
static int lookup(amp_rank_t *rank, MPI_Request h, int send, const char *call,
                  amp_req_t **r)
{
    *r = amp_req_lookup(rank, h);
    const char *want = send ? "partitioned send" : "partitioned receive";
    if (!*r || !(*r)->part ||
        (*r)->kind != (send ? AMP_REQ_SEND : AMP_REQ_RECV)) {
        *r = NULL;
        return amp_mpi_error(rank, NULL, MPI_ERR_REQUEST, call,
                             "not a %s request (argument request)", want);
    }
    return MPI_SUCCESS;
}

/* Marks partitions lo..hi (list NULL) or the n of list ready; the last
 * of all sends. */
static int ready(MPI_Request h, int lo, int hi, const int *list, int n,
                 const char *call)
{
    amp_rank_t *rank;
    amp_req_t *r;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = lookup(rank, h, 1, call, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_comm_t *comm = amp_comm_lookup(rank, r->comm);
    amp_part_t *part = r->part;
    if (!r->active || r->peer == MPI_PROC_NULL)
        return r->active ? MPI_SUCCESS
                         : amp_mpi_error(rank, comm, MPI_ERR_REQUEST, call,
                                         "the request is not started");
    if (list ? n < 0 : lo > hi)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                             list ? "negative length %d (argument length)"
                                  : "empty range %d..%d of partitions",
                             list ? n : lo, hi);
    int total = list ? n : hi - lo + 1;
    for (int i = 0; i < total; i++) {
        int p = list ? list[i] : lo + i;
        if (p < 0 || p >= part->partitions || part->ready[p])
            return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                                 "partition %d is %s (partitions 0..%d)", p,
                                 p < 0 || p >= part->partitions
                                     ? "out of range"
                                     : "already ready",
                                 part->partitions - 1);
    }
    for (int i = 0; i < total; i++) {
        part->ready[list ? list[i] : lo + i] = 1;
        part->nready++;
    }
    if (part->nready == part->partitions)
        send_all(rank, comm, r);
    return MPI_SUCCESS;
}

int PMPI_Pready(int partition, MPI_Request request)
{
    return ready(request, partition, partition, NULL, 0, "MPI_Pready");
}
AMP_WEAK_ALIAS(Pready)

int PMPI_Pready_range(int partition_low, int partition_high,
                      MPI_Request request)
{
    return ready(request, partition_low, partition_high, NULL, 0,
                 "MPI_Pready_range");
}
AMP_WEAK_ALIAS(Pready_range)

int PMPI_Pready_list(int length, const int array_of_partitions[],
                     MPI_Request request)
{
    static const int none[1];
    const char *call = "MPI_Pready_list";
    if (length > 0 && !array_of_partitions) {
        amp_rank_t *rank;
        int rc = amp_mpi_enter(&rank, call);
        return rc != MPI_SUCCESS ? rc
                                 : amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                                                 "NULL pointer (argument "
                                                 "array_of_partitions)");
    }
    return ready(request, 0, 0,
                 array_of_partitions ? array_of_partitions : none, length,
                 call);
}
AMP_WEAK_ALIAS(Pready_list)

/* MPI-4.0 4.2.2: MPI_Parrived on a null request, as on an inactive one,
 * says true (whatever the partition: a null request has none). */
static int parrived_null(amp_rank_t *rank, int *flag, const char *call)
{
    if (!flag)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument flag)");
    *flag = 1;
    return MPI_SUCCESS;
}

int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
    const char *call = "MPI_Parrived";
    amp_rank_t *rank;
    amp_req_t *r;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS && request == MPI_REQUEST_NULL)
        return parrived_null(rank, flag, call);
    if (rc == MPI_SUCCESS)
        rc = lookup(rank, request, 0, call, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_comm_t *comm = amp_comm_lookup(rank, r->comm);
    if (!flag)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                             "NULL pointer (argument flag)");
    if (partition < 0 || partition >= r->part->partitions)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                             "partition %d is out of range (partitions "
                             "0..%d)",
                             partition, r->part->partitions - 1);
    if (r->active && !r->p2p.done) {
        amp_p2p_progress(&rank->ep);
        rank = amp_rank_self();
    }
    *flag = !r->active || r->p2p.done;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Parrived)
