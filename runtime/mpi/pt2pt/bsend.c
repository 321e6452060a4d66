/*
 * Buffered sends and the buffers they use.  A buffer is the rank's
 * (MPI_Buffer_attach: MPI's "process" buffer), a communicator's
 * (MPI_Comm_attach_buffer) or a session's (attached in ../init/session.c
 * through the calls here); a buffered send uses its communicator's, else
 * that of the session the communicator derives from, else the rank's.
 *
 * An attached buffer is carved into segments, first fit, kept in a list by
 * address.  Each segment starts with its header (../proc.h's amp_bseg_t),
 * which also holds the p2p request of the send from it, then the packed
 * data.  A segment goes back to the free space when its send completes.
 * An automatic buffer (MPI_BUFFER_AUTOMATIC) takes each segment from the
 * heap instead; a spent one is freed by the rank's next call on the buffer.
 * A flush waits for the segments made before it (their numbers, seq, are
 * below the buffer's count at the call); a nonblocking flush's request
 * completes when the last of them does.
 */
#include "mpi/comm/comm.h"
#include "mpi/pt2pt/request.h"
#include "mpi/stage.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A nonblocking flush waiting for the segments numbered below before. */
typedef struct amp_bflush {
    struct amp_bflush *next;
    unsigned long before;
    amp_p2p_req_t *done;
} amp_bflush_t;

#define HDR AMP_ROUND_UP(sizeof(amp_bseg_t), 16)
_Static_assert(AMP_ROUND_UP(sizeof(amp_bseg_t), 16) + 16 <= MPI_BSEND_OVERHEAD,
               "MPI_BSEND_OVERHEAD must cover a segment header");

/* The lowest number of b's live segments (ULONG_MAX: none). */
static unsigned long oldest_seq(const amp_bsend_t *b)
{
    unsigned long min = ULONG_MAX;
    for (const amp_bseg_t *s = b->segs; s; s = s->next)
        if (s->seq < min)
            min = s->seq;
    return min;
}

/* Completes the nonblocking flushes of b that wait for nothing now. */
static void flushes_check(amp_bsend_t *b)
{
    unsigned long oldest = oldest_seq(b);
    amp_bflush_t **link = &b->flushes;
    while (*link) {
        amp_bflush_t *f = *link;
        if (f->before > oldest) {
            link = &f->next;
            continue;
        }
        *link = f->next;
        amp_p2p_req_complete(f->done);
        free(f);
    }
}

static void seg_done(amp_p2p_req_t *p)
{
    amp_bseg_t *seg = AMP_CONTAINER_OF(p, amp_bseg_t, req);
    amp_bsend_t *b = seg->owner;
    amp_bseg_t **link = &b->segs;
    while (*link != seg)
        link = &(*link)->next;
    *link = seg->next;
    if (b->automatic) { /* freed later, by the rank (amp_bsend_reclaim) */
        seg->next = b->spent;
        b->spent = seg;
    }
    if (b->flushes)
        flushes_check(b);
}

/* First gap of len bytes, 16-aligned, or NULL; *link is where it goes. */
static char *find_gap(amp_bsend_t *b, size_t len, amp_bseg_t ***link)
{
    char *end = b->buf + b->size;
    char *pos = (char *)AMP_ROUND_UP((uintptr_t)b->buf, 16);
    amp_bseg_t **l = &b->segs;
    for (;;) {
        char *limit = *l ? (char *)*l : end;
        if (limit >= pos && (size_t)(limit - pos) >= len) {
            *link = l;
            return pos;
        }
        if (!*l)
            return NULL;
        pos = (char *)AMP_ROUND_UP((uintptr_t)((char *)*l + (*l)->len), 16);
        l = &(*l)->next;
    }
}

/* Room for a segment of len bytes in b, linked in at *link, or NULL. */
static char *seg_room(amp_bsend_t *b, size_t len, amp_bseg_t ***link)
{
    if (!b->automatic)
        return b->buf ? find_gap(b, len, link) : NULL;
    amp_bsend_reclaim(b);
    char *pos = aligned_alloc(16, AMP_ROUND_UP(len, 16));
    *link = &b->segs;
    return pos;
}

static int attached(const amp_bsend_t *b)
{
    return b && (b->buf || b->automatic);
}

/* The buffer a buffered send on comm uses. */
static amp_bsend_t *buffer_of(amp_rank_t *rank, const amp_comm_t *comm)
{
    if (attached(comm->bsend))
        return comm->bsend;
    if (attached(comm->session_bsend))
        return comm->session_bsend;
    return &rank->bsend;
}

static int no_room(amp_rank_t *rank, amp_comm_t *comm, const amp_bsend_t *b,
                   size_t bytes, const char *call)
{
    const char *whose = b == comm->bsend           ? "MPI_Comm_attach_buffer"
                        : b == comm->session_bsend ? "MPI_Session_attach_buffer"
                                                   : "MPI_Buffer_attach";
    if (b->automatic)
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call,
                             "out of memory for a %zu-byte message in the "
                             "automatic buffer of %s",
                             bytes, whose);
    return amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                         "no room for a %zu-byte message in the buffer "
                         "attached with %s (%zu bytes%s)",
                         bytes, whose, b->size,
                         b->buf ? "" : ": none attached");
}

int amp_bsend_start(amp_rank_t *rank, amp_comm_t *comm, const amp_xfer_t *x,
                    const char *call, amp_p2p_req_t *stand_in)
{
    const void *buf = x->buf;
    int count = x->count, dest = x->peer, tag = x->tag;
    const amp_dt_t *dt = x->dt;
    if (stand_in) /* until the send has started */
        amp_p2p_req_init_done(&rank->ep, stand_in, dest, tag);
    amp_bsend_t *b = buffer_of(rank, comm);
    size_t bytes = dt->size * (size_t)count;
    size_t len = HDR + AMP_ROUND_UP(bytes, 16);
    amp_bseg_t **link;
    amp_gpu_op_t *g = NULL;
    void *v = (void *)buf;
    if (amp_proc
            .gpu) { /* device memory: packed from a host copy (../stage.h) */
        int rc = amp_gpu_op_stage(
            rank, comm, &g, amp_gpu_stage_dt(buf, count, dt, AMP_GPU_SEND), &v,
            call);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    char *pos = seg_room(b, len, &link);
    if (!pos && g)
        amp_gpu_op_drop(g);
    if (!pos)
        return no_room(rank, comm, b, bytes, call);
    amp_bseg_t *seg = (amp_bseg_t *)pos;
    seg->len = len;
    seg->owner = b;
    seg->seq = b->seq++;
    seg->next = *link;
    *link = seg;
    amp_dt_pack(dt, count, v, pos + HDR);
    if (g)
        amp_gpu_op_drop(g);
    seg->req.on_done = seg_done;
    amp_p2p_isend(&rank->ep, pos + HDR, bytes,
                  (amp_p2p_env_t){.ctx = comm->ctx,
                                  .src = comm->rank,
                                  .dst = amp_comm_peer_world(comm, dest),
                                  .tag = tag},
                  AMP_P2P_STANDARD, &seg->req);
    if (stand_in) /* the segment may be gone already; its send's name not */
        amp_p2p_req_init_sent(&rank->ep, stand_in, &seg->req);
    return MPI_SUCCESS;
}

/* ---- attaching, detaching, flushing: the calls of every kind of buffer */

int amp_bsend_attach(amp_bsend_t *b, void *buffer, long long size,
                     const char **why)
{
    if (attached(b)) {
        *why = "a buffer is already attached; detach it first";
        return MPI_ERR_BUFFER;
    }
    if (buffer == MPI_BUFFER_AUTOMATIC) {
        *b = (amp_bsend_t){.automatic = 1};
        return MPI_SUCCESS;
    }
    if (size < 0 || (!buffer && size > 0)) {
        *why = "invalid buffer (arguments buffer, size)";
        return size < 0 ? MPI_ERR_ARG : MPI_ERR_BUFFER;
    }
    *b = (amp_bsend_t){.buf = buffer, .size = (size_t)size};
    return MPI_SUCCESS;
}

amp_rank_t *amp_bsend_detach(amp_rank_t *rank, amp_bsend_t *b,
                             void *buffer_addr, int *size, const char *call)
{
    rank = amp_bsend_drain(rank, b, call);
    *(void **)buffer_addr = b->automatic ? MPI_BUFFER_AUTOMATIC : b->buf;
    *size = (int)b->size;
    *b = (amp_bsend_t){0};
    return rank;
}

amp_rank_t *amp_bsend_flush(amp_rank_t *rank, amp_bsend_t *b, const char *call)
{
    unsigned long before = b->seq;
    while (oldest_seq(b) < before) {
        amp_p2p_req_t *p = NULL;
        for (amp_bseg_t *s = b->segs; s && !p; s = s->next)
            if (s->seq < before)
                p = &s->req;
        rank->call = call;
        amp_p2p_wait_all(&rank->ep, &p, 1);
        rank = amp_rank_self();
    }
    amp_bsend_reclaim(b);
    return rank;
}

/* Completion hook of a flush's request: free it if MPI_Request_free
 * dropped the handle. */
static void flush_req_done(amp_p2p_req_t *p)
{
    amp_req_t *r = AMP_CONTAINER_OF(p, amp_req_t, p2p);
    if (r->freed)
        amp_req_release(AMP_CONTAINER_OF(p->owner, amp_rank_t, ep), r);
}

int amp_bsend_iflush(amp_rank_t *rank, amp_bsend_t *b, MPI_Request *request)
{
    amp_bflush_t *f = malloc(sizeof(*f));
    amp_req_t *r = f ? amp_req_new(rank, AMP_REQ_FLUSH) : NULL;
    if (!r) {
        free(f);
        return MPI_ERR_NO_MEM;
    }
    r->comm = MPI_COMM_WORLD;
    r->active = 1;
    amp_bsend_reclaim(b);
    if (oldest_seq(b) >= b->seq) { /* nothing to wait for */
        free(f);
        amp_p2p_req_init_done(&rank->ep, &r->p2p, MPI_ANY_SOURCE, MPI_ANY_TAG);
    } else {
        amp_p2p_req_init_pending(&rank->ep, &r->p2p);
        r->p2p.on_done = flush_req_done;
        *f = (amp_bflush_t){b->flushes, b->seq, &r->p2p};
        b->flushes = f;
    }
    *request = AMPI_HANDLE(AMPI_HANDLE_REQUEST, r->obj.idx);
    return MPI_SUCCESS;
}

/* ---- the process's buffer (the rank's) ---- */

int PMPI_Buffer_attach(void *buffer, int size)
{
    const char *call = "MPI_Buffer_attach", *why = NULL;
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (amp_proc.gpu && buffer != MPI_BUFFER_AUTOMATIC) /* ../stage.h */
        rc = amp_gpu_refuse(rank, NULL, buffer, call, "buffer",
                            "the attached buffer must be host memory");
    if (rc != MPI_SUCCESS)
        return rc;
    rc = amp_bsend_attach(&rank->bsend, buffer, size, &why);
    if (rc != MPI_SUCCESS)
        return amp_mpi_error(rank, NULL, rc, call, "%s", why);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Buffer_attach)

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    const char *call = "MPI_Buffer_detach";
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!buffer_addr || !size)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument %s)",
                             buffer_addr ? "size" : "buffer_addr");
    /* The rank's struct does not move while it waits. */
    amp_bsend_detach(rank, &rank->bsend, buffer_addr, size, call);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Buffer_detach)

int PMPI_Buffer_flush(void)
{
    const char *call = "MPI_Buffer_flush";
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_bsend_flush(rank, &rank->bsend, call);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Buffer_flush)

int PMPI_Buffer_iflush(MPI_Request *request)
{
    const char *call = "MPI_Buffer_iflush";
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS && !request)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument request)");
    if (rc != MPI_SUCCESS)
        return rc;
    rc = amp_bsend_iflush(rank, &rank->bsend, request);
    if (rc != MPI_SUCCESS)
        return amp_mpi_error(rank, NULL, rc, call, "out of memory");
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Buffer_iflush)

/* ---- a communicator's buffer ---- */

/* Enters call on communicator comm_h. */
static int comm_enter(MPI_Comm comm_h, const char *call, amp_rank_t **rank,
                      amp_comm_t **comm)
{
    int rc = amp_mpi_enter(rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(*rank, comm_h, call, comm);
    return rc;
}

int PMPI_Comm_attach_buffer(MPI_Comm comm_h, void *buffer, int size)
{
    const char *call = "MPI_Comm_attach_buffer", *why = NULL;
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = comm_enter(comm_h, call, &rank, &comm);
    if (rc == MPI_SUCCESS && amp_proc.gpu && buffer != MPI_BUFFER_AUTOMATIC)
        rc = amp_gpu_refuse(rank, comm, buffer, call, "buffer",
                            "the attached buffer must be host memory");
    if (rc != MPI_SUCCESS)
        return rc;
    amp_bsend_t *b = comm->bsend ? comm->bsend : calloc(1, sizeof(*b));
    if (!b)
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call, "out of memory");
    comm->bsend = b;
    rc = amp_bsend_attach(b, buffer, size, &why);
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    if (!attached(b)) { /* made for this call: none is attached */
        free(b);
        comm->bsend = NULL;
    }
    return amp_mpi_error(rank, comm, rc, call, "%s", why);
}
AMP_WEAK_ALIAS(Comm_attach_buffer)

int PMPI_Comm_detach_buffer(MPI_Comm comm_h, void *buffer_addr, int *size)
{
    const char *call = "MPI_Comm_detach_buffer";
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = comm_enter(comm_h, call, &rank, &comm);
    if (rc == MPI_SUCCESS && (!buffer_addr || !size))
        rc = amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                           "NULL pointer (argument %s)",
                           buffer_addr ? "size" : "buffer_addr");
    if (rc != MPI_SUCCESS)
        return rc;
    amp_bsend_t none = {0};
    amp_bsend_detach(rank, comm->bsend ? comm->bsend : &none, buffer_addr, size,
                     call);
    free(comm->bsend); /* the communicator's object does not move */
    comm->bsend = NULL;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_detach_buffer)

int PMPI_Comm_flush_buffer(MPI_Comm comm_h)
{
    const char *call = "MPI_Comm_flush_buffer";
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = comm_enter(comm_h, call, &rank, &comm);
    if (rc == MPI_SUCCESS && comm->bsend)
        amp_bsend_flush(rank, comm->bsend, call);
    return rc;
}
AMP_WEAK_ALIAS(Comm_flush_buffer)

int PMPI_Comm_iflush_buffer(MPI_Comm comm_h, MPI_Request *request)
{
    const char *call = "MPI_Comm_iflush_buffer";
    amp_rank_t *rank;
    amp_comm_t *comm;
    amp_bsend_t none = {0};
    int rc = comm_enter(comm_h, call, &rank, &comm);
    if (rc == MPI_SUCCESS && !request)
        rc = amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                           "NULL pointer (argument request)");
    if (rc != MPI_SUCCESS)
        return rc;
    rc = amp_bsend_iflush(rank, comm->bsend ? comm->bsend : &none, request);
    if (rc != MPI_SUCCESS)
        return amp_mpi_error(rank, comm, rc, call, "out of memory");
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_iflush_buffer)
