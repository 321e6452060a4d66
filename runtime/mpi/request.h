/*
 * Requests (request.c): the object behind MPI_Request handles, of every
 * kind: point-to-point, nonblocking and persistent collective, file
 * operation, partitioned, generalized.  The chapter that makes a request
 * fills it and keeps its own part; the completion calls (MPI_Wait...) are
 * pt2pt/'s.  Statuses are filled here too.
 */
#ifndef AMP_MPI_REQUEST_H
#define AMP_MPI_REQUEST_H

#include "mpi/handles.h"

#include <limits.h>

enum amp_req_kind {
    AMP_REQ_SEND,
    AMP_REQ_RECV,
    AMP_REQ_DONE,  /* complete at creation: MPI_PROC_NULL, Ibsend */
    AMP_REQ_COLL,  /* nonblocking collective: p2p completes with it */
    AMP_REQ_IO,    /* file operation (file/file_rw.c): io/ completes it */
    AMP_REQ_GREQ,  /* generalized request (pt2pt/grequest.c) */
    AMP_REQ_FLUSH, /* MPI_Buffer_iflush and the like (pt2pt/bsend.c) */
};

typedef struct amp_req {
    amp_obj_t obj;
    amp_p2p_req_t p2p;
    unsigned char kind, persistent, active, freed;
    unsigned char iget; /* AMPI_Iget's (win/iget.c): pack holds its data */
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
    /* A device buffer staged (pt2pt/device.c, made by p2p/stage.c): the
     * request that moves the host copy, which MPI_Cancel cancels; NULL
     * otherwise. */
    amp_p2p_req_t *staged;
    struct amp_file_op *fop; /* AMP_REQ_IO: the operation (file/) */
    /* The owner's part of the completion, run once by the completion call
     * (Wait, Test, ...) that finishes the request, before its status is
     * filled: what must run in the owner's context (the communicator of
     * MPI_Comm_idup, a generalized request's query).  Returns an MPI error
     * class, 0 for success.  NULL: none. */
    int (*finish_fn)(struct amp_rank *rank, struct amp_req *r);
    void *finish_arg;
    int errclass;            /* what finish_fn returned */
    struct amp_greq *greq;   /* AMP_REQ_GREQ: its callbacks (pt2pt/) */
    struct amp_pcoll *pcoll; /* coll/pcoll.c: a persistent collective */
    struct amp_part *part;   /* pt2pt/part.c: a partitioned transfer */
    /* What the chapter that made the request does with it (NULL: a plain
     * send or receive, or a nonblocking collective: nothing). */
    const struct amp_req_ops *ops;
} amp_req_t;

/* A chapter's calls for the requests it makes and keeps a part of (a
 * persistent collective, a file operation, a partitioned or generalized
 * request, a persistent send or receive that holds its communicator):
 * each request points to its chapter's table. */
typedef struct amp_req_ops {
    /* Frees the chapter's part of r; amp_req_release calls it first. */
    void (*release)(struct amp_rank *rank, struct amp_req *r);
    /* MPI_Start of persistent r (NULL: point-to-point's own start). */
    int (*start)(struct amp_rank *rank, struct amp_req *r, const char *call);
    /* r failed: its error through the handler of its object (NULL: the
     * communicator's, which pt2pt/completion.c applies). */
    int (*fail)(struct amp_rank *rank, const struct amp_req *r,
                const char *call);
} amp_req_ops_t;

static inline amp_req_t *amp_req_lookup(amp_rank_t *rank, MPI_Request h)
{
    if (AMP_HANDLE_KIND(h) != AMPI_HANDLE_REQUEST)
        return NULL;
    return amp_table_lookup(&rank->reqs, AMP_HANDLE_INDEX(h));
}

/* A new request of kind (enum amp_req_kind), zeroed, or NULL. */
amp_req_t *amp_req_new(amp_rank_t *rank, int kind);
/* Frees the request: its chapter's part (ops->release), its packed copy,
 * its hold on dt, its handle. */
void amp_req_release(amp_rank_t *rank, amp_req_t *req);
/* The status of completed request r (nothing for MPI_STATUS_IGNORE). */
void amp_req_status(const amp_req_t *r, MPI_Status *status);
/* A polling call (MPI_Test, MPI_Iprobe, MPI_Win_flush...) that found
 * nothing to complete: lets the other ranks of the PE run, and after many
 * such polls in a row while nothing happens anywhere parks the rank as a
 * poller until its PE's next poll round (sched/sched.h), where the
 * deadlock report finds it.  Re-read the rank after. */
static inline void amp_mpi_poll(amp_rank_t *rank, const char *call)
{
    unsigned long act = amp_sched_activity_sum(&amp_proc.sched);
    if (act != rank->poll_act) { /* something happened since: start over */
        rank->poll_act = act;
        rank->polls = 0;
    }
    rank->call = call;
    amp_sched_poll_wait(++rank->polls);
}

/* Waits until every message sent from buffer b (rank's, or of one of its
 * communicators or sessions) is sent, and frees the blocks of an automatic
 * one; returns the rank re-read.  MPI_Buffer_detach and the like, and the
 * freeing of a communicator or session with a buffer attached. */
amp_rank_t *amp_bsend_drain(amp_rank_t *rank, amp_bsend_t *b, const char *call);
/* Frees the blocks of automatic buffer b whose messages are sent. */
void amp_bsend_reclaim(amp_bsend_t *b);

/* Fills a status (nothing for MPI_STATUS_IGNORE), leaving MPI_ERROR
 * alone: only the calls that return several statuses set it.  comm is the
 * message's communicator (MPI_COMM_NULL: none), which with the length
 * (MPI_LENGTH) programs written for Charm++'s AMPI read (mpi.h). */
static inline void amp_status_set(MPI_Status *st, MPI_Comm comm, int source,
                                  int tag, size_t bytes, int cancelled)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = source;
    st->MPI_TAG = tag;
    st->amp_bytes = (long long)bytes;
    st->amp_cancelled = cancelled;
    st->MPI_COMM = comm;
    st->MPI_LENGTH = bytes > (size_t)INT_MAX ? INT_MAX : (int)bytes;
}

/* +trace: rank received p (a receive on communicator comm_h, complete),
 * recorded on its PE with the sender's world rank; nothing for a
 * cancelled receive or one from MPI_PROC_NULL. */
void amp_trace_recv_put(amp_rank_t *rank, MPI_Comm comm_h,
                        const amp_p2p_req_t *p);
static inline void amp_trace_recv(amp_rank_t *rank, MPI_Comm comm_h,
                                  const amp_p2p_req_t *p)
{
    if (__builtin_expect(amp_sched_lending & AMP_SCHED_TRACED, 0))
        amp_trace_recv_put(rank, comm_h, p);
}

/* The standard's empty status (MPI-3.1 3.7.3) has error MPI_SUCCESS too:
 * the one status a single-completion call writes MPI_ERROR of. */
static inline void amp_status_empty(MPI_Status *st)
{
    amp_status_set(st, MPI_COMM_NULL, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
    if (st != MPI_STATUS_IGNORE)
        st->MPI_ERROR = MPI_SUCCESS;
}

#endif
