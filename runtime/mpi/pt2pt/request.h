/*
 * Point-to-point's part of requests: the completion calls (completion.c)
 * and starts of persistent ones, partitioned (part.c) and generalized
 * (grequest.c) requests, message handles (MPI_Mprobe), sending (pt2pt.c,
 * bsend.c).  The request object itself is ../request.h's.
 */
#ifndef AMP_MPI_PT2PT_REQUEST_H
#define AMP_MPI_PT2PT_REQUEST_H

#include "mpi/request.h"

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
 * (coll/device.c), peer being the root. */
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
    MPI_Comm comm; /* where it was probed (a status's MPI_COMM) */
} amp_msg_handle_t;

/* ---- partitioned communication (part.c) ---- */
/* MPI_Start of partitioned request r. */
int amp_part_start(amp_rank_t *rank, amp_req_t *r, const char *call);

/* ---- requests ---- */
/* Starts the send or receive req describes (fresh or persistent:
 * pt2pt.c). */
int amp_req_start(amp_rank_t *rank, amp_req_t *req, const char *call);
/* Generalized requests (grequest.c): MPI_Cancel calls cancel_fn, and
 * MPI_Request_get_status query_fn into *status (status may be
 * MPI_STATUS_IGNORE); each returns MPI_SUCCESS or the callback's error
 * through the error handler. */
int amp_greq_cancel(amp_rank_t *rank, amp_req_t *r);
int amp_greq_query(amp_rank_t *rank, amp_req_t *r, MPI_Status *status,
                   const char *call);
/* MPI_Get_count (elements 0) and MPI_Get_elements of status for datatype
 * as a long long, -1 when they are not a whole number (completion.c). */
int amp_status_count(const MPI_Status *status, MPI_Datatype datatype,
                     long long *count, int elements, const char *call);

/* ---- sending (pt2pt.c, bsend.c) ---- */
int amp_truncate_error(amp_rank_t *rank, amp_comm_t *comm, const char *call,
                       int source, int tag, size_t capacity);
/* Copies the message of the checked send x (x->dt resolved) into the
 * attached buffer and sends it from there; stand_in (a request of the
 * caller's, or NULL) completes at once and stands for that send
 * (amp_p2p_req_init_sent), also when it fails. */
int amp_bsend_start(amp_rank_t *rank, amp_comm_t *comm, const amp_xfer_t *x,
                    const char *call, amp_p2p_req_t *stand_in);

/* ---- buffers of buffered sends (bsend.c), of every kind ---- */
/* Attaches buffer (size bytes, or MPI_BUFFER_AUTOMATIC) to b: MPI_SUCCESS,
 * or an error class with *why saying what is wrong. */
int amp_bsend_attach(amp_bsend_t *b, void *buffer, long long size,
                     const char **why);
/* Waits for b's messages, then detaches it: what was attached goes to
 * *(void **)buffer_addr and *size (none: NULL and 0).  Returns the rank
 * re-read. */
amp_rank_t *amp_bsend_detach(amp_rank_t *rank, amp_bsend_t *b,
                             void *buffer_addr, int *size, const char *call);
/* Waits for the messages in b now (MPI_Buffer_flush and the like). */
amp_rank_t *amp_bsend_flush(amp_rank_t *rank, amp_bsend_t *b, const char *call);
/* A request, *request, that completes when they are sent: MPI_SUCCESS or
 * MPI_ERR_NO_MEM. */
int amp_bsend_iflush(amp_rank_t *rank, amp_bsend_t *b, MPI_Request *request);

#endif
