/*
 * Requests (request.h): made, looked up, released, and their statuses.
 */
#include "mpi/request.h"

#include <stdlib.h>

amp_req_t *amp_req_new(amp_rank_t *rank, int kind)
{
    amp_req_t *r = amp_table_alloc(&rank->reqs);
    if (r)
        r->kind = (unsigned char)kind;
    return r;
}

void amp_req_release(amp_rank_t *rank, amp_req_t *req)
{
    if (req->ops)
        req->ops->release(rank, req);
    req->ops = NULL;
    free(req->pack);
    req->pack = NULL;
    if (req->dt_held)
        amp_type_drop(rank, req->dt);
    req->dt_held = 0;
    amp_table_free(&rank->reqs, req);
}

amp_rank_t *amp_bsend_drain(amp_rank_t *rank, amp_bsend_t *b, const char *call)
{
    while (b->segs) {
        amp_p2p_req_t *p = &b->segs->req;
        rank->call = call;
        amp_p2p_wait_all(&rank->ep, &p, 1);
        rank = amp_rank_self();
    }
    amp_bsend_reclaim(b);
    return rank;
}

void amp_bsend_reclaim(amp_bsend_t *b)
{
    while (b->spent) {
        amp_bseg_t *s = b->spent;
        b->spent = s->next;
        free(s);
    }
}

void amp_trace_recv_put(amp_rank_t *rank, MPI_Comm comm_h,
                        const amp_p2p_req_t *p)
{
    amp_pe_t *pe = amp_pe_self();
    int s = p->st_source;
    if (!pe || !pe->trace || p->is_send || p->cancelled || s < 0)
        return;
    amp_comm_t *c = amp_comm_lookup(rank, comm_h);
    if (!c)
        return;
    int from;
    if (c->is_inter)
        from = s < c->remote_size && c->remote_world ? c->remote_world[s] : -1;
    else
        from = s < c->size ? amp_comm_world_rank(c, s) : -1;
    if (from >= 0 && c->ctx != 0)
        amp_trace_put(pe->trace, AMP_TRACE_ON_COMM, 0, rank->world_rank + 1,
                      c->ctx, 0, 0);
    if (from >= 0)
        amp_trace_put(pe->trace, AMP_TRACE_RECV, 0, rank->world_rank + 1, from,
                      p->st_tag, p->st_bytes);
}

void amp_req_status(const amp_req_t *r, MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    if (r->kind == AMP_REQ_IO) { /* a file operation: bytes moved */
        amp_status_set(status, MPI_COMM_NULL, MPI_ANY_SOURCE, MPI_ANY_TAG,
                       r->p2p.st_bytes, 0);
        return;
    }
    if (r->kind == AMP_REQ_COLL || r->kind == AMP_REQ_FLUSH) { /* empty */
        amp_status_set(status, MPI_COMM_NULL, MPI_ANY_SOURCE, MPI_ANY_TAG, 0,
                       0);
        return;
    }
    amp_status_set(status, r->comm, r->p2p.st_source, r->p2p.st_tag,
                   r->p2p.st_bytes, r->p2p.cancelled);
}
