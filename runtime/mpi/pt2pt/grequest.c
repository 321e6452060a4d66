/*
 * Generalized requests and the status setters (MPI chapter 12.2, 12.3).
 *
 * A generalized request is a request of the rank's table whose p2p part
 * stays pending until MPI_Grequest_complete completes it; every completion
 * call (Wait, Test, the Any/All/Some forms) then waits for it or tests it
 * as any other.  When one of them finishes it, the owner's part of the
 * completion (amp_req_t.finish_fn) calls query_fn for the status and then
 * free_fn; MPI_Request_free before completion leaves free_fn for
 * MPI_Grequest_complete.  The callbacks run in the rank that started the
 * request, which is the one that may complete it (its handle is its own).
 */
#include "mpi/pt2pt/request.h"

#include <stdlib.h>

typedef struct amp_greq {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free;
    MPI_Grequest_cancel_function *cancel;
    void *extra_state;
} amp_greq_t;

/* The class of a callback's error code, MPI_ERR_OTHER when it is none. */
static int class_of(amp_rank_t *rank, int rc)
{
    int cls = amp_mpi_class_of_code(rank, rc);
    return cls > 0 ? cls : MPI_ERR_OTHER;
}

/* query_fn into st; its code. */
static int call_query(amp_rank_t *rank, const amp_greq_t *g, MPI_Status *st)
{
    amp_status_set(st, MPI_COMM_NULL, MPI_UNDEFINED, MPI_UNDEFINED, 0, 0);
    MPI_Grequest_query_function *fn = amp_pie_to_rank(rank, (void *)g->query);
    return fn(g->extra_state, st);
}

static int call_free(amp_rank_t *rank, amp_greq_t *g)
{
    MPI_Grequest_free_function *fn = amp_pie_to_rank(rank, (void *)g->free);
    int rc = fn(g->extra_state);
    free(g);
    return rc;
}

/* The owner's part of the completion: the status from query_fn, then
 * free_fn; the first error of the two is the request's. */
static int greq_finish(amp_rank_t *rank, amp_req_t *r)
{
    amp_greq_t *g = r->greq;
    MPI_Status st;
    r->greq = NULL;
    int rc = call_query(rank, g, &st);
    r->p2p.st_source = st.MPI_SOURCE;
    r->p2p.st_tag = st.MPI_TAG;
    r->p2p.st_bytes = (size_t)st.amp_bytes;
    r->p2p.cancelled = (unsigned char)(st.amp_cancelled != 0);
    int frc = call_free(rank, g);
    if (rc != MPI_SUCCESS)
        return class_of(rank, rc);
    return frc == MPI_SUCCESS ? 0 : class_of(rank, frc);
}

/* Completion after MPI_Request_free: only free_fn is left to call. */
static void greq_done(amp_p2p_req_t *p)
{
    amp_req_t *r = AMP_CONTAINER_OF(p, amp_req_t, p2p);
    if (!r->freed)
        return;
    amp_rank_t *rank = AMP_CONTAINER_OF(p->owner, amp_rank_t, ep);
    call_free(rank, r->greq);
    r->greq = NULL;
    amp_req_release(rank, r);
}

/* A generalized request that never finished keeps its callbacks. */
static void greq_release(amp_rank_t *rank, amp_req_t *r)
{
    (void)rank;
    free(r->greq);
    r->greq = NULL;
}

static const amp_req_ops_t greq_ops = {.release = greq_release};

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn,
                        void *extra_state, MPI_Request *request)
{
    const char *call = "MPI_Grequest_start";
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!query_fn || !free_fn || !cancel_fn || !request)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument %s)",
                             !query_fn    ? "query_fn"
                             : !free_fn   ? "free_fn"
                             : !cancel_fn ? "cancel_fn"
                                          : "request");
    amp_greq_t *g = malloc(sizeof(*g));
    amp_req_t *r = g ? amp_req_new(rank, AMP_REQ_GREQ) : NULL;
    if (!r) {
        free(g);
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call,
                             "out of memory for a request");
    }
    *g = (amp_greq_t){query_fn, free_fn, cancel_fn, extra_state};
    r->greq = g;
    r->ops = &greq_ops;
    r->comm = MPI_COMM_WORLD;
    r->active = 1;
    r->finish_fn = greq_finish;
    amp_p2p_req_init_pending(&rank->ep, &r->p2p);
    r->p2p.on_done = greq_done;
    *request = AMPI_HANDLE(AMPI_HANDLE_REQUEST, r->obj.idx);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Grequest_start)

int PMPI_Grequest_complete(MPI_Request request)
{
    const char *call = "MPI_Grequest_complete";
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_req_t *r = amp_req_lookup(rank, request);
    if (!r || r->kind != AMP_REQ_GREQ)
        return amp_mpi_error(rank, NULL, MPI_ERR_REQUEST, call,
                             "not a generalized request %#x (argument "
                             "request)",
                             (unsigned)request);
    if (r->p2p.done)
        return amp_mpi_error(rank, NULL, MPI_ERR_REQUEST, call,
                             "the generalized request is complete already "
                             "(argument request)");
    amp_p2p_req_complete(&r->p2p); /* may release r (freed before) */
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Grequest_complete)

int amp_greq_cancel(amp_rank_t *rank, amp_req_t *r)
{
    amp_greq_t *g = r->greq;
    if (!g)
        return MPI_SUCCESS;
    MPI_Grequest_cancel_function *fn = amp_pie_to_rank(rank, (void *)g->cancel);
    int rc = fn(g->extra_state, r->p2p.done);
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, NULL, class_of(rank, rc), "MPI_Cancel",
                         "the cancel function of the generalized request "
                         "returned error %d",
                         rc);
}

int amp_greq_query(amp_rank_t *rank, amp_req_t *r, MPI_Status *status,
                   const char *call)
{
    MPI_Status st;
    int rc = call_query(rank, r->greq, &st);
    if (status != MPI_STATUS_IGNORE) {
        amp_status_set(status, st.MPI_COMM, st.MPI_SOURCE, st.MPI_TAG,
                       (size_t)st.amp_bytes, st.amp_cancelled);
    }
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, NULL, class_of(rank, rc), call,
                         "the query function of the generalized request "
                         "returned error %d",
                         rc);
}

/* ---- status setters ---- */

static int set_elements(MPI_Status *status, MPI_Datatype datatype,
                        long long count, const char *call)
{
    amp_rank_t *rank;
    const amp_dt_t *dt;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, NULL, datatype, call, "datatype", &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!status || status == MPI_STATUS_IGNORE)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument status)");
    if (count < 0)
        return amp_mpi_error(rank, NULL, MPI_ERR_COUNT, call,
                             "negative count %lld (argument count)", count);
    long long bytes = amp_dt_elements_bytes(dt, count);
    status->amp_bytes = bytes;
    status->MPI_LENGTH = bytes > INT_MAX ? INT_MAX : (int)bytes;
    return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype,
                             int count)
{
    return set_elements(status, datatype, count, "MPI_Status_set_elements");
}
AMP_WEAK_ALIAS(Status_set_elements)

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype,
                               MPI_Count count)
{
    return set_elements(status, datatype, count, "MPI_Status_set_elements_x");
}
AMP_WEAK_ALIAS(Status_set_elements_x)

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "MPI_Status_set_cancelled");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!status || status == MPI_STATUS_IGNORE)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG,
                             "MPI_Status_set_cancelled",
                             "NULL pointer (argument status)");
    status->amp_cancelled = flag != 0;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Status_set_cancelled)

/* ---- MPI-4.1: the fields of a status ---- */

/* Enters call with status (not MPI_STATUS_IGNORE) and out, the place of
 * the value (argument arg). */
static int status_enter(const MPI_Status *status, const int *out,
                        const char *arg, const char *call)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS && (!status || status == MPI_STATUS_IGNORE || !out))
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument %s)", out ? "status" : arg);
    return rc;
}

#define STATUS_GET(name, field)                                                \
    int PMPI_Status_get_##name(const MPI_Status *status, int *name)            \
    {                                                                          \
        int rc = status_enter(status, name, #name, "MPI_Status_get_" #name);   \
        if (rc == MPI_SUCCESS)                                                 \
            *name = status->field;                                             \
        return rc;                                                             \
    }                                                                          \
    AMP_WEAK_ALIAS(Status_get_##name)

#define STATUS_SET(name, field)                                                \
    int PMPI_Status_set_##name(MPI_Status *status, int name)                   \
    {                                                                          \
        int rc = status_enter(status, &name, #name, "MPI_Status_set_" #name);  \
        if (rc == MPI_SUCCESS)                                                 \
            status->field = name;                                              \
        return rc;                                                             \
    }                                                                          \
    AMP_WEAK_ALIAS(Status_set_##name)

STATUS_GET(source, MPI_SOURCE)
STATUS_GET(tag, MPI_TAG)
STATUS_GET(error, MPI_ERROR)
STATUS_SET(source, MPI_SOURCE)
STATUS_SET(tag, MPI_TAG)
STATUS_SET(error, MPI_ERROR)
