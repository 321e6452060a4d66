/*
 * The completion of requests of every kind (the Wait and Test families),
 * persistent starts, cancellation and freeing; the counts of a status.
 * What a request's chapter does with it goes through its ops
 * (../request.h): a file operation's error, a persistent collective's
 * start.
 */
#include "mpi/comm/comm.h"
#include "mpi/pt2pt/request.h"

#include <stdlib.h>

/* Looks up *h; *r is NULL for MPI_REQUEST_NULL and inactive persistent
 * requests (which complete at once with an empty status). */
static int get_req(amp_rank_t *rank, const MPI_Request *h, const char *call,
                   amp_req_t **r)
{
    *r = NULL;
    if (!h)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument request)");
    if (*h == MPI_REQUEST_NULL)
        return MPI_SUCCESS;
    amp_req_t *req = amp_req_lookup(rank, *h);
    if (!req)
        return amp_mpi_error(rank, NULL, MPI_ERR_REQUEST, call,
                             "invalid request handle %#x", (unsigned)*h);
    if (req->active)
        *r = req;
    return MPI_SUCCESS;
}

/* Runs the owner's part of a completed request's completion (once) and
 * returns its error class (0 when it succeeded). */
static int req_class(amp_rank_t *rank, amp_req_t *r)
{
    if (r->finish_fn) {
        int (*fn)(amp_rank_t *, amp_req_t *) = r->finish_fn;
        r->finish_fn = NULL;
        r->errclass = fn(rank, r);
    }
    return r->errclass ? r->errclass : amp_mpi_class_of(r->p2p.error);
}

/* Finishes a completed request: fills the status, frees or deactivates it,
 * and returns its error class (0 when it succeeded). */
static int finish(amp_rank_t *rank, MPI_Request *h, amp_req_t *r,
                  MPI_Status *status, int *errclass)
{
    *errclass = req_class(rank, r);
    if (r->kind == AMP_REQ_RECV)
        amp_trace_recv(rank, r->comm, &r->p2p);
    amp_req_status(r, status);
    if (r->persistent) {
        r->active = 0;
    } else {
        amp_req_release(rank, r);
        *h = MPI_REQUEST_NULL;
    }
    return *errclass;
}

static int report(amp_rank_t *rank, MPI_Comm comm_h, int errclass,
                  const amp_req_t *r, const char *call)
{
    amp_comm_t *comm = amp_comm_lookup(rank, comm_h);
    if (r->ops && r->ops->fail) /* a file operation: the file's handler */
        return r->ops->fail(rank, r, call);
    if (r->errclass && r->kind == AMP_REQ_GREQ)
        return amp_mpi_error(rank, comm, errclass, call,
                             "the query or free function of the generalized "
                             "request returned an error");
    if (r->errclass)
        return amp_mpi_error(rank, comm, errclass, call,
                             "completing the request failed");
    if (r->kind == AMP_REQ_COLL)
        return amp_mpi_error(rank, comm, errclass, call,
                             "nonblocking collective failed: %s",
                             amp_status_str(r->p2p.error));
    if (errclass == MPI_ERR_TRUNCATE)
        return amp_truncate_error(rank, comm, call, r->p2p.st_source,
                                  r->p2p.st_tag,
                                  r->dt->size * (size_t)r->count);
    return amp_mpi_error(rank, comm, errclass, call, "request failed");
}

/* Finishes one completed request for the single-completion calls (which
 * leave status.MPI_ERROR alone); a failure goes through the handler. */
static int finish_one(amp_rank_t *rank, MPI_Request *h, amp_req_t *r,
                      MPI_Status *status, const char *call)
{
    int errclass = req_class(rank, r);
    int rc = errclass ? report(rank, r->comm, errclass, r, call) : MPI_SUCCESS;
    finish(rank, h, r, status, &errclass);
    return rc;
}

static void wait_reqs(amp_rank_t *rank, amp_p2p_req_t **p, int n, int any,
                      const char *call)
{
    rank->call = call;
    if (any)
        amp_p2p_wait_any(&rank->ep, p, n);
    else
        amp_p2p_wait_all(&rank->ep, p, n);
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    amp_rank_t *rank;
    amp_req_t *r;
    int rc = amp_mpi_enter(&rank, "MPI_Wait");
    if (rc == MPI_SUCCESS)
        rc = get_req(rank, request, "MPI_Wait", &r);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!r) {
        amp_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!r->p2p.done) {
        amp_p2p_req_t *p = &r->p2p;
        wait_reqs(rank, &p, 1, 0, "MPI_Wait");
    }
    return finish_one(rank, request, r, status, "MPI_Wait");
}
AMP_WEAK_ALIAS(Wait)

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    amp_rank_t *rank;
    amp_req_t *r;
    int rc = amp_mpi_enter(&rank, "MPI_Test");
    if (rc == MPI_SUCCESS)
        rc = get_req(rank, request, "MPI_Test", &r);
    if (rc == MPI_SUCCESS && !flag)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Test",
                           "NULL pointer (argument flag)");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!r) {
        *flag = 1;
        amp_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!r->p2p.done) {
        amp_mpi_poll(rank, "MPI_Test");
        rank = amp_rank_self();
    }
    *flag = r->p2p.done;
    if (!*flag)
        return MPI_SUCCESS;
    return finish_one(rank, request, r, status, "MPI_Test");
}
AMP_WEAK_ALIAS(Test)

/* The active requests of an array, as p2p pointers (NULL elsewhere).
 * Returns how many are active, or -1 after reporting a bad handle. */
static int collect(amp_rank_t *rank, int count, MPI_Request *reqs,
                   amp_req_t **r, amp_p2p_req_t **p, const char *call, int *rc)
{
    int active = 0;
    for (int i = 0; i < count; i++) {
        *rc = get_req(rank, &reqs[i], call, &r[i]);
        if (*rc != MPI_SUCCESS)
            return -1;
        p[i] = r[i] ? &r[i]->p2p : NULL;
        active += r[i] != NULL;
    }
    return active;
}

/* Arrays for up to this many requests live on the stack. */
#define STACK_REQS 32

typedef struct req_arrays {
    amp_req_t *sr[STACK_REQS];
    amp_p2p_req_t *sp[STACK_REQS];
    amp_req_t **r;
    amp_p2p_req_t **p;
} req_arrays_t;

static int arrays_init(req_arrays_t *a, int count)
{
    a->r = a->sr;
    a->p = a->sp;
    if (count <= STACK_REQS)
        return 1;
    a->r = malloc((size_t)count * sizeof(*a->r));
    a->p = malloc((size_t)count * sizeof(*a->p));
    return a->r && a->p;
}

static void arrays_free(req_arrays_t *a)
{
    if (a->r != a->sr)
        free(a->r);
    if (a->p != a->sp)
        free(a->p);
}

static int check_array(amp_rank_t *rank, int count, const void *reqs,
                       const char *call)
{
    if (count < 0)
        return amp_mpi_error(rank, NULL, MPI_ERR_COUNT, call,
                             "negative count %d (argument count)", count);
    if (count > 0 && !reqs)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument array_of_requests)");
    return MPI_SUCCESS;
}

/* Finishes every completed request in the array.  Returns MPI_SUCCESS or,
 * when one failed, MPI_ERR_IN_STATUS through the error handler. */
static int finish_all(amp_rank_t *rank, int count, MPI_Request *reqs,
                      amp_req_t **r, MPI_Status *statuses, const char *call)
{
    int failed = 0;
    MPI_Comm comm = MPI_COMM_WORLD;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? NULL : &statuses[i];
        if (!r[i]) {
            amp_status_empty(st);
            if (st)
                st->MPI_ERROR = MPI_SUCCESS;
            continue;
        }
        int errclass;
        MPI_Comm c = r[i]->comm;
        finish(rank, &reqs[i], r[i], st, &errclass);
        if (st)
            st->MPI_ERROR = errclass;
        if (errclass) {
            failed = 1;
            comm = c;
        }
    }
    if (!failed)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, amp_comm_lookup(rank, comm), MPI_ERR_IN_STATUS,
                         call,
                         "at least one request failed; see the "
                         "MPI_ERROR field of the statuses");
}

int PMPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    amp_rank_t *rank;
    req_arrays_t a;
    int rc = amp_mpi_enter(&rank, "MPI_Waitall");
    if (rc == MPI_SUCCESS)
        rc = check_array(rank, count, reqs, "MPI_Waitall");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!arrays_init(&a, count))
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, "MPI_Waitall",
                             "out of memory");
    if (collect(rank, count, reqs, a.r, a.p, "MPI_Waitall", &rc) > 0)
        wait_reqs(rank, a.p, count, 0, "MPI_Waitall");
    if (rc == MPI_SUCCESS)
        rc = finish_all(rank, count, reqs, a.r, statuses, "MPI_Waitall");
    arrays_free(&a);
    return rc;
}
AMP_WEAK_ALIAS(Waitall)

int PMPI_Testall(int count, MPI_Request reqs[], int *flag,
                 MPI_Status statuses[])
{
    amp_rank_t *rank;
    req_arrays_t a;
    int rc = amp_mpi_enter(&rank, "MPI_Testall");
    if (rc == MPI_SUCCESS)
        rc = check_array(rank, count, reqs, "MPI_Testall");
    if (rc == MPI_SUCCESS && !flag)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Testall",
                           "NULL pointer (argument flag)");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!arrays_init(&a, count))
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, "MPI_Testall",
                             "out of memory");
    *flag = 0;
    if (collect(rank, count, reqs, a.r, a.p, "MPI_Testall", &rc) >= 0) {
        int all = 1;
        for (int i = 0; i < count && all; i++)
            all = !a.p[i] || a.p[i]->done;
        if (!all) {
            amp_mpi_poll(rank, "MPI_Testall");
            rank = amp_rank_self();
            all = 1;
            for (int i = 0; i < count && all; i++)
                all = !a.p[i] || a.p[i]->done;
        }
        *flag = all;
        if (all)
            rc = finish_all(rank, count, reqs, a.r, statuses, "MPI_Testall");
    }
    arrays_free(&a);
    return rc;
}
AMP_WEAK_ALIAS(Testall)

/* First completed index, or -1. */
static int first_done(int count, amp_p2p_req_t **p)
{
    for (int i = 0; i < count; i++)
        if (p[i] && p[i]->done)
            return i;
    return -1;
}

static int any_common(int count, MPI_Request reqs[], int *index, int *flag,
                      MPI_Status *status, int block, const char *call)
{
    amp_rank_t *rank;
    req_arrays_t a;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = check_array(rank, count, reqs, call);
    if (rc == MPI_SUCCESS && (!index || (!block && !flag)))
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument %s)",
                           index ? "flag" : "index");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!arrays_init(&a, count))
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call, "out of memory");
    int active = collect(rank, count, reqs, a.r, a.p, call, &rc);
    if (active < 0) {
        arrays_free(&a);
        return rc;
    }
    if (flag)
        *flag = 1;
    *index = MPI_UNDEFINED;
    if (active == 0) {
        amp_status_empty(status);
        arrays_free(&a);
        return MPI_SUCCESS;
    }
    int i = first_done(count, a.p);
    if (i < 0 && block) {
        wait_reqs(rank, a.p, count, 1, call);
        i = first_done(count, a.p);
    } else if (i < 0) {
        amp_mpi_poll(rank, call);
        rank = amp_rank_self();
        i = first_done(count, a.p);
    }
    if (i < 0) {
        *flag = 0;
        arrays_free(&a);
        return MPI_SUCCESS;
    }
    *index = i;
    rc = finish_one(rank, &reqs[i], a.r[i], status, call);
    arrays_free(&a);
    return rc;
}

int PMPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
    return any_common(count, reqs, index, NULL, status, 1, "MPI_Waitany");
}
AMP_WEAK_ALIAS(Waitany)

int PMPI_Testany(int count, MPI_Request reqs[], int *index, int *flag,
                 MPI_Status *status)
{
    return any_common(count, reqs, index, flag, status, 0, "MPI_Testany");
}
AMP_WEAK_ALIAS(Testany)

static int some_common(int count, MPI_Request reqs[], int *outcount,
                       int indices[], MPI_Status statuses[], int block,
                       const char *call)
{
    amp_rank_t *rank;
    req_arrays_t a;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = check_array(rank, count, reqs, call);
    if (rc == MPI_SUCCESS && (!outcount || (count > 0 && !indices)))
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument %s)",
                           outcount ? "array_of_indices" : "outcount");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!arrays_init(&a, count))
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call, "out of memory");
    int active = collect(rank, count, reqs, a.r, a.p, call, &rc);
    if (active <= 0) {
        *outcount = active == 0 ? MPI_UNDEFINED : 0;
        arrays_free(&a);
        return rc;
    }
    if (first_done(count, a.p) < 0) {
        if (block) {
            wait_reqs(rank, a.p, count, 1, call);
        } else {
            amp_mpi_poll(rank, call);
            rank = amp_rank_self();
        }
    }
    int n = 0, failed = 0;
    MPI_Comm comm = MPI_COMM_WORLD;
    for (int i = 0; i < count; i++) {
        if (!a.p[i] || !a.p[i]->done)
            continue;
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? NULL : &statuses[n];
        MPI_Comm c = a.r[i]->comm;
        int errclass;
        finish(rank, &reqs[i], a.r[i], st, &errclass);
        if (st)
            st->MPI_ERROR = errclass;
        if (errclass) {
            failed = 1;
            comm = c;
        }
        indices[n++] = i;
    }
    *outcount = n;
    arrays_free(&a);
    if (failed)
        return amp_mpi_error(rank, amp_comm_lookup(rank, comm),
                             MPI_ERR_IN_STATUS, call,
                             "at least one request failed; see the "
                             "MPI_ERROR field of the statuses");
    return MPI_SUCCESS;
}

int PMPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                  MPI_Status statuses[])
{
    return some_common(incount, reqs, outcount, indices, statuses, 1,
                       "MPI_Waitsome");
}
AMP_WEAK_ALIAS(Waitsome)

int PMPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                  MPI_Status statuses[])
{
    return some_common(incount, reqs, outcount, indices, statuses, 0,
                       "MPI_Testsome");
}
AMP_WEAK_ALIAS(Testsome)

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    amp_rank_t *rank;
    amp_req_t *r;
    int rc = amp_mpi_enter(&rank, "MPI_Request_get_status");
    if (rc == MPI_SUCCESS)
        rc = get_req(rank, &request, "MPI_Request_get_status", &r);
    if (rc == MPI_SUCCESS && !flag)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Request_get_status",
                           "NULL pointer (argument flag)");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!r) {
        *flag = 1;
        amp_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!r->p2p.done) {
        amp_mpi_poll(rank, "MPI_Request_get_status");
        rank = amp_rank_self();
    }
    *flag = r->p2p.done;
    if (*flag && r->kind == AMP_REQ_GREQ && r->greq)
        return amp_greq_query(rank, r, status, "MPI_Request_get_status");
    if (*flag)
        amp_req_status(r, status);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Request_get_status)

/* ---- MPI-4.1: the status of several requests, none freed ---- */

/* The status of completed request r, as MPI_Request_get_status gives it. */
static int peek_status(amp_rank_t *rank, amp_req_t *r, MPI_Status *st,
                       const char *call)
{
    if (r->kind == AMP_REQ_GREQ && r->greq)
        return amp_greq_query(rank, r, st, call);
    amp_req_status(r, st);
    return MPI_SUCCESS;
}

/* The requests of reqs into a (NULL: null or inactive), *active of them;
 * polled once when none is complete.  On failure a is freed. */
static int peek(amp_rank_t **rank, int count, const MPI_Request *reqs,
                req_arrays_t *a, int *active, const char *call)
{
    int rc = MPI_SUCCESS;
    if (!arrays_init(a, count)) {
        arrays_free(a);
        return amp_mpi_error(*rank, NULL, MPI_ERR_NO_MEM, call,
                             "out of memory");
    }
    *active = collect(*rank, count, (MPI_Request *)reqs, a->r, a->p, call, &rc);
    if (*active < 0) {
        arrays_free(a);
        return rc;
    }
    if (*active > 0 && first_done(count, a->p) < 0) {
        amp_mpi_poll(*rank, call);
        *rank = amp_rank_self();
    }
    return MPI_SUCCESS;
}

/* Enters call on the array of count requests reqs, with out (argument
 * arg) not NULL. */
static int peek_enter(amp_rank_t **rank, int count, const MPI_Request *reqs,
                      const void *out, const char *arg, const char *call)
{
    int rc = amp_mpi_enter(rank, call);
    if (rc == MPI_SUCCESS)
        rc = check_array(*rank, count, reqs, call);
    if (rc == MPI_SUCCESS && !out)
        rc = amp_mpi_error(*rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument %s)", arg);
    return rc;
}

int PMPI_Request_get_status_any(int count, const MPI_Request reqs[], int *index,
                                int *flag, MPI_Status *status)
{
    const char *call = "MPI_Request_get_status_any";
    amp_rank_t *rank;
    req_arrays_t a;
    int active;
    int rc = peek_enter(&rank, count, reqs, index, "index", call);
    if (rc == MPI_SUCCESS && !flag)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument flag)");
    if (rc == MPI_SUCCESS)
        rc = peek(&rank, count, reqs, &a, &active, call);
    if (rc != MPI_SUCCESS)
        return rc;
    int i = first_done(count, a.p);
    *flag = active == 0 || i >= 0;
    *index = i >= 0 ? i : MPI_UNDEFINED;
    if (active == 0)
        amp_status_empty(status);
    else if (i >= 0)
        rc = peek_status(rank, a.r[i], status, call);
    arrays_free(&a);
    return rc;
}
AMP_WEAK_ALIAS(Request_get_status_any)

int PMPI_Request_get_status_all(int count, const MPI_Request reqs[], int *flag,
                                MPI_Status statuses[])
{
    const char *call = "MPI_Request_get_status_all";
    amp_rank_t *rank;
    req_arrays_t a;
    int active;
    int rc = peek_enter(&rank, count, reqs, flag, "flag", call);
    if (rc == MPI_SUCCESS)
        rc = peek(&rank, count, reqs, &a, &active, call);
    if (rc != MPI_SUCCESS)
        return rc;
    *flag = 1;
    for (int i = 0; i < count; i++)
        if (a.p[i] && !a.p[i]->done)
            *flag = 0;
    for (int i = 0; *flag && i < count && rc == MPI_SUCCESS; i++) {
        MPI_Status *st =
            statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
        if (a.r[i])
            rc = peek_status(rank, a.r[i], st, call);
        else
            amp_status_empty(st);
    }
    arrays_free(&a);
    return rc;
}
AMP_WEAK_ALIAS(Request_get_status_all)

int PMPI_Request_get_status_some(int incount, const MPI_Request reqs[],
                                 int *outcount, int indices[],
                                 MPI_Status statuses[])
{
    const char *call = "MPI_Request_get_status_some";
    amp_rank_t *rank;
    req_arrays_t a;
    int active;
    int rc = peek_enter(&rank, incount, reqs, outcount, "outcount", call);
    if (rc == MPI_SUCCESS && incount > 0 && !indices)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument array_of_indices)");
    if (rc == MPI_SUCCESS)
        rc = peek(&rank, incount, reqs, &a, &active, call);
    if (rc != MPI_SUCCESS)
        return rc;
    int n = 0;
    for (int i = 0; i < incount && rc == MPI_SUCCESS; i++) {
        if (!a.p[i] || !a.p[i]->done)
            continue;
        MPI_Status *st =
            statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[n];
        rc = peek_status(rank, a.r[i], st, call);
        indices[n++] = i;
    }
    *outcount = active == 0 ? MPI_UNDEFINED : n;
    arrays_free(&a);
    return rc;
}
AMP_WEAK_ALIAS(Request_get_status_some)

/* ---- persistent requests, cancel, free ---- */

static int start_one(amp_rank_t *rank, MPI_Request *h, const char *call)
{
    amp_req_t *r = h ? amp_req_lookup(rank, *h) : NULL;
    if (!r || !r->persistent)
        return amp_mpi_error(rank, NULL, MPI_ERR_REQUEST, call,
                             "not a persistent request (argument request)");
    if (r->active)
        return amp_mpi_error(rank, NULL, MPI_ERR_REQUEST, call,
                             "the persistent request is already active");
    if (r->ops && r->ops->start) /* a persistent collective */
        return r->ops->start(rank, r, call);
    if (r->part)
        return amp_part_start(rank, r, call);
    return amp_req_start(rank, r, call);
}

int PMPI_Start(MPI_Request *request)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "MPI_Start");
    if (rc != MPI_SUCCESS)
        return rc;
    return start_one(rank, request, "MPI_Start");
}
AMP_WEAK_ALIAS(Start)

int PMPI_Startall(int count, MPI_Request reqs[])
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "MPI_Startall");
    if (rc == MPI_SUCCESS)
        rc = check_array(rank, count, reqs, "MPI_Startall");
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++)
        rc = start_one(rank, &reqs[i], "MPI_Startall");
    return rc;
}
AMP_WEAK_ALIAS(Startall)

int PMPI_Request_free(MPI_Request *request)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "MPI_Request_free");
    if (rc != MPI_SUCCESS)
        return rc;
    amp_req_t *r = request ? amp_req_lookup(rank, *request) : NULL;
    if (!r)
        return amp_mpi_error(rank, NULL, MPI_ERR_REQUEST, "MPI_Request_free",
                             "invalid request handle %#x (argument request)",
                             request ? (unsigned)*request : 0u);
    if (r->kind == AMP_REQ_COLL && r->active && !r->p2p.done)
        return amp_mpi_error(rank, amp_comm_lookup(rank, r->comm),
                             MPI_ERR_REQUEST, "MPI_Request_free",
                             "a nonblocking collective cannot be freed "
                             "before it completes (argument request)");
    *request = MPI_REQUEST_NULL;
    if (r->active && r->p2p.done)
        req_class(rank, r); /* the owner's part still runs */
    if (!r->active || r->p2p.done)
        amp_req_release(rank, r);
    else
        r->freed = 1; /* released when it completes */
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Request_free)

int PMPI_Cancel(MPI_Request *request)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "MPI_Cancel");
    if (rc != MPI_SUCCESS)
        return rc;
    amp_req_t *r = request ? amp_req_lookup(rank, *request) : NULL;
    if (!r)
        return amp_mpi_error(rank, NULL, MPI_ERR_REQUEST, "MPI_Cancel",
                             "invalid request handle %#x (argument request)",
                             request ? (unsigned)*request : 0u);
    if (r->kind == AMP_REQ_COLL || r->part)
        return amp_mpi_error(
            rank, amp_comm_lookup(rank, r->comm), MPI_ERR_REQUEST, "MPI_Cancel",
            "a %s cannot be cancelled (argument request)",
            r->part ? "partitioned request" : "nonblocking collective");
    if (r->kind == AMP_REQ_GREQ)
        return amp_greq_cancel(rank, r);
    /* A file operation under way is not cancelled: it completes. */
    if (r->active && r->kind != AMP_REQ_DONE && r->kind != AMP_REQ_IO &&
        r->kind != AMP_REQ_FLUSH) /* a flush is not cancelled either */
        amp_p2p_cancel(&rank->ep, r->staged ? r->staged : &r->p2p);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Cancel)

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "MPI_Test_cancelled");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!status || !flag)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Test_cancelled",
                             "NULL pointer (argument %s)",
                             status ? "flag" : "status");
    *flag = status->amp_cancelled;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Test_cancelled)

int amp_status_count(const MPI_Status *status, MPI_Datatype datatype,
                     long long *count, int elements, const char *call)
{
    amp_rank_t *rank;
    const amp_dt_t *dt;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, NULL, datatype, call, "datatype", &dt);
    if (rc == MPI_SUCCESS && !status)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument status)");
    if (rc != MPI_SUCCESS)
        return rc;
    size_t bytes = (size_t)status->amp_bytes;
    if (elements)
        *count = amp_dt_elements(dt, bytes);
    else if (dt->size == 0)
        *count = bytes == 0 ? 0 : -1;
    else
        *count = bytes % dt->size ? -1 : (long long)(bytes / dt->size);
    return MPI_SUCCESS;
}

static int to_int_count(long long n)
{
    return n < 0 || n > 0x7fffffff ? MPI_UNDEFINED : (int)n;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    long long n = 0;
    int rc = amp_status_count(status, datatype, &n, 0, "MPI_Get_count");
    if (rc == MPI_SUCCESS && count)
        *count = to_int_count(n);
    return rc;
}
AMP_WEAK_ALIAS(Get_count)

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype,
                      int *count)
{
    long long n = 0;
    int rc = amp_status_count(status, datatype, &n, 1, "MPI_Get_elements");
    if (rc == MPI_SUCCESS && count)
        *count = to_int_count(n);
    return rc;
}
AMP_WEAK_ALIAS(Get_elements)

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count *count)
{
    long long n = 0;
    int rc = amp_status_count(status, datatype, &n, 1, "MPI_Get_elements_x");
    if (rc == MPI_SUCCESS && count)
        *count = n < 0 ? MPI_UNDEFINED : n;
    return rc;
}
AMP_WEAK_ALIAS(Get_elements_x)
