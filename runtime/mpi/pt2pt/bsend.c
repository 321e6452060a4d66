/*
 * Buffered sends.  The attached buffer is carved into segments, first fit,
 * kept in a list by address.  Each segment starts with its header, which
 * also holds the p2p request of the send from it, then the packed data.
 * A segment goes back to the free space when its send completes.
 */
#include "mpi/comm/comm.h"
#include "mpi/pt2pt/request.h"
#include "mpi/stage.h"

#include <stdint.h>
#include <string.h>

typedef struct amp_bseg {
    struct amp_bseg *next;
    size_t len; /* bytes of the buffer it covers, header included */
    amp_rank_t *rank;
    amp_p2p_req_t req;
} amp_bseg_t;

#define HDR AMP_ROUND_UP(sizeof(amp_bseg_t), 16)
_Static_assert(AMP_ROUND_UP(sizeof(amp_bseg_t), 16) + 16 <= MPI_BSEND_OVERHEAD,
               "MPI_BSEND_OVERHEAD must cover a segment header");

static void seg_done(amp_p2p_req_t *p)
{
    amp_bseg_t *seg = AMP_CONTAINER_OF(p, amp_bseg_t, req);
    amp_bsend_t *b = &seg->rank->bsend;
    amp_bseg_t **link = &b->segs;
    while (*link != seg)
        link = &(*link)->next;
    *link = seg->next;
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

int amp_bsend_start(amp_rank_t *rank, amp_comm_t *comm, const amp_xfer_t *x,
                    const char *call, amp_p2p_req_t *stand_in)
{
    const void *buf = x->buf;
    int count = x->count, dest = x->peer, tag = x->tag;
    const amp_dt_t *dt = x->dt;
    if (stand_in) /* until the send has started */
        amp_p2p_req_init_done(&rank->ep, stand_in, dest, tag);
    amp_bsend_t *b = &rank->bsend;
    size_t bytes = dt->size * (size_t)count;
    size_t len = HDR + AMP_ROUND_UP(bytes, 16);
    amp_bseg_t **link;
    amp_gpu_op_t *g = NULL;
    void *v = (void *)buf;
    if (amp_proc.gpu) { /* device memory: packed from a host copy (../stage.h) */
        int rc = amp_gpu_op_stage(
            rank, comm, &g, amp_gpu_stage_dt(buf, count, dt, AMP_GPU_SEND), &v,
            call);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    char *pos = b->buf ? find_gap(b, len, &link) : NULL;
    if (!pos && g)
        amp_gpu_op_drop(g);
    if (!pos)
        return amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                             "no room for a %zu-byte message in the buffer "
                             "attached with MPI_Buffer_attach (%zu bytes%s)",
                             bytes, b->size, b->buf ? "" : ": none attached");
    amp_bseg_t *seg = (amp_bseg_t *)pos;
    seg->len = len;
    seg->rank = rank;
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

int PMPI_Buffer_attach(void *buffer, int size)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "MPI_Buffer_attach");
    if (rc != MPI_SUCCESS)
        return rc;
    if (rank->bsend.buf)
        return amp_mpi_error(rank, NULL, MPI_ERR_BUFFER, "MPI_Buffer_attach",
                             "a buffer is already attached; detach it first");
    if (size < 0 || (!buffer && size > 0))
        return amp_mpi_error(rank, NULL,
                             size < 0 ? MPI_ERR_ARG : MPI_ERR_BUFFER,
                             "MPI_Buffer_attach",
                             "invalid buffer of %d bytes "
                             "(arguments buffer, size)",
                             size);
    if (amp_proc.gpu) /* gpu.c */
        rc = amp_gpu_refuse(rank, NULL, buffer, "MPI_Buffer_attach", "buffer",
                            "the attached buffer must be host memory");
    if (rc != MPI_SUCCESS)
        return rc;
    rank->bsend.buf = buffer;
    rank->bsend.size = (size_t)size;
    rank->bsend.segs = NULL;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Buffer_attach)

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "MPI_Buffer_detach");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!buffer_addr || !size)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Buffer_detach",
                             "NULL pointer (argument %s)",
                             buffer_addr ? "size" : "buffer_addr");
    amp_bsend_t *b = &rank->bsend;
    /* Wait for the messages still being sent from the buffer. */
    while (b->segs) {
        amp_p2p_req_t *p = &b->segs->req;
        rank->call = "MPI_Buffer_detach";
        amp_p2p_wait_all(&rank->ep, &p, 1);
        rank = amp_rank_self();
        b = &rank->bsend;
    }
    *(void **)buffer_addr = b->buf;
    *size = (int)b->size;
    b->buf = NULL;
    b->size = 0;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Buffer_detach)
