/*
 * AMPI_Iget and its companions, the split get of Charm++'s AMPI (ampi.h):
 * a get into a buffer the library allocates, which the program copies out
 * once the data is there.
 *
 * AMPI_Iget starts the get (win_ops.c, amp_win_get_start) into a block of
 * the rank's heap that the request keeps as its packed copy (r->pack, so
 * that freeing the request frees it too, whichever call does that).
 * AMPI_Iget_wait waits without freeing the request and names it in the
 * status (MPI_TAG: a get has no tag), which AMPI_Iget_data reads to copy
 * the data into an origin buffer of orgcnt elements of orgtype (the bytes
 * from the first to the last of the data, holes of orgtype included);
 * AMPI_Iget_free frees both.  MPI_Wait and MPI_Test on the request work
 * too, and free it as they do any request.
 */
#include "mpi/win/win.h"
#include "mpi/handles.h"
#include "mpi/request.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The Iget request behind handle h, or an error naming call and arg. */
static int iget_of(amp_rank_t *rank, MPI_Request h, const char *call,
                   const char *arg, amp_req_t **out)
{
    amp_req_t *r = amp_req_lookup(rank, h);
    if (!r || !r->iget)
        return amp_mpi_error(rank, NULL, MPI_ERR_REQUEST, call,
                             "%#x is not a request of AMPI_Iget (argument "
                             "%s)",
                             (unsigned)h, arg);
    *out = r;
    return MPI_SUCCESS;
}

int AMPI_Iget(MPI_Aint orgdisp, int orgcnt, MPI_Datatype orgtype, int rank,
              MPI_Aint targdisp, int targcnt, MPI_Datatype targtype,
              MPI_Win win, MPI_Request *request)
{
    static const char call[] = "AMPI_Iget";
    amp_rank_t *me;
    const amp_dt_t *dt;
    (void)orgdisp; /* there is no origin buffer to place the data in */
    int rc = amp_mpi_enter(&me, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_count(me, NULL, orgcnt, call, "orgcnt");
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(me, NULL, orgtype, call, "orgtype", &dt);
    if (rc == MPI_SUCCESS && !request)
        rc = amp_mpi_error(me, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument request)");
    if (rc != MPI_SUCCESS)
        return rc;
    size_t span = amp_dt_span(dt, orgcnt);
    if (span > INT_MAX || dt->true_lb < INT_MIN || dt->true_lb > INT_MAX)
        return amp_mpi_error(me, NULL, MPI_ERR_COUNT, call,
                             "%zu bytes (orgcnt %d of orgtype) are more "
                             "than an Iget holds (INT_MAX)",
                             span, orgcnt);
    char *data = malloc(span ? span : 1);
    if (!data)
        return amp_mpi_error(me, NULL, MPI_ERR_NO_MEM, call,
                             "out of memory for %zu bytes", span);
    amp_win_get_t g = {.buf = data - dt->true_lb,
                       .count = orgcnt,
                       .type = orgtype,
                       .target = rank,
                       .disp = targdisp,
                       .tcount = targcnt,
                       .ttype = targtype,
                       .call = call};
    rc = amp_win_get_start(&g, win, request);
    if (rc != MPI_SUCCESS) {
        free(data);
        return rc;
    }
    amp_req_t *r = amp_req_lookup(amp_rank_self(), *request);
    r->iget = 1;
    r->pack = data;
    r->count = (int)span;
    r->tag = (int)dt->true_lb; /* where the data begins in an origin buffer */
    r->peer = rank;
    return MPI_SUCCESS;
}

int AMPI_Iget_wait(MPI_Request *request, MPI_Status *status, MPI_Win win)
{
    static const char call[] = "AMPI_Iget_wait";
    amp_rank_t *rank;
    amp_req_t *r;
    (void)win;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS && !request)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument request)");
    if (rc == MPI_SUCCESS)
        rc = iget_of(rank, *request, call, "request", &r);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!r->p2p.done) {
        amp_p2p_req_t *p = &r->p2p;
        amp_p2p_wait_all(&rank->ep, &p, 1);
    }
    amp_status_set(status, MPI_COMM_NULL, r->peer, (int)*request,
                   (size_t)r->count, 0);
    if (status != MPI_STATUS_IGNORE)
        status->MPI_ERROR = MPI_SUCCESS;
    return MPI_SUCCESS;
}

int AMPI_Iget_data(void *data, MPI_Status status)
{
    static const char call[] = "AMPI_Iget_data";
    amp_rank_t *rank;
    amp_req_t *r;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = iget_of(rank, (MPI_Request)status.MPI_TAG, call,
                     "status: not one of AMPI_Iget_wait", &r);
    if (rc == MPI_SUCCESS && !r->p2p.done)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_REQUEST, call,
                           "the get is not complete: call AMPI_Iget_wait "
                           "first (argument status)");
    if (rc == MPI_SUCCESS && !data && r->count > 0)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_BUFFER, call,
                           "NULL pointer (argument data)");
    if (rc != MPI_SUCCESS)
        return rc;
    if (r->count > 0)
        memcpy((char *)data + r->tag, r->pack, (size_t)r->count);
    return MPI_SUCCESS;
}

int AMPI_Iget_free(MPI_Request *request, MPI_Status *status, MPI_Win win)
{
    static const char call[] = "AMPI_Iget_free";
    amp_rank_t *rank;
    amp_req_t *r;
    (void)status;
    (void)win;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS && !request)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument request)");
    if (rc == MPI_SUCCESS)
        rc = iget_of(rank, *request, call, "request", &r);
    if (rc == MPI_SUCCESS && !r->p2p.done)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_REQUEST, call,
                           "the get is not complete: call AMPI_Iget_wait "
                           "first (argument request)");
    if (rc != MPI_SUCCESS)
        return rc;
    amp_req_release(rank, r);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}
