/*
 * Requests (request.c): point-to-point, nonblocking collective, file,
 * generalized (grequest.c), persistent collective (pcoll.c) and
 * partitioned (part.c) ones, message handles (MPI_Mprobe), sending and
 * statuses (pt2pt.c, bsend.c).
 */
#ifndef AMP_MPI_REQUEST_H
#define AMP_MPI_REQUEST_H

#include "mpi/handles.h"

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
    /* A device buffer staged (mpi/gpu.c, made by p2p/stage.c): the
     * request that moves the host copy, which MPI_Cancel cancels; NULL
     * otherwise. */
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

/* The arguments of one point-to-point call: count elements of type dtype
 * at buf (dt: its descriptor, once checked), to or from peer (a rank of
 * the communicator comm_h, MPI_ANY_SOURCE or MPI_PROC_NULL) with tag; a
 * send's mode (enum amp_send_mode).  Also MPI_Bcast's on device memory
 * (gpu.c), peer being the root. */
typedef struct amp_xfer {
    const void *buf;
    int count;
    MPI_Datatype dtype;
    const amp_dt_t *dt;
    int peer, tag;
    MPI_Comm comm_h;
    int mode;
} amp_xfer_t;

typedef struct amp_msg_handle {
    amp_obj_t obj;
    struct amp_msg *msg;
} amp_msg_handle_t;

/* ---- handles (handles.c) ---- */
amp_req_t *amp_req_lookup(amp_rank_t *rank, MPI_Request h);

/* ---- persistent collectives (pcoll.c) ---- */
typedef struct amp_pcoll amp_pcoll_t;
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

/* ---- sending (pt2pt.c, bsend.c) ---- */
/* Fills a status (nothing for MPI_STATUS_IGNORE), leaving MPI_ERROR
 * alone: only the calls that return several statuses set it. */
void amp_status_set(MPI_Status *st, int source, int tag, size_t bytes,
                    int cancelled);
void amp_status_empty(MPI_Status *st);
int amp_truncate_error(amp_rank_t *rank, amp_comm_t *comm, const char *call,
                       int source, int tag, size_t capacity);
/* Copies the message of the checked send x (x->dt resolved) into the
 * attached buffer and sends it from there; stand_in (a request of the
 * caller's, or NULL) completes at once and stands for that send
 * (amp_p2p_req_init_sent), also when it fails. */
int amp_bsend_start(amp_rank_t *rank, amp_comm_t *comm, const amp_xfer_t *x,
                    const char *call, amp_p2p_req_t *stand_in);

#endif
