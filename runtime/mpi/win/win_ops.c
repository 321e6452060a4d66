/*
 * One-sided operations (MPI chapter 11.3): put, get, the accumulate
 * family and their request-based forms.  On a target of this process an
 * operation is done at the call, straight on the target's memory
 * (rma/rma.h): it is complete when the call returns, and a request-based
 * operation's request is complete at once.  On a target of another
 * process the call sends the operation (rma/remote.c) and returns; the
 * window's origin record counts it until the target answers, which the
 * synchronization calls wait for (win_sync.c), and a request-based
 * operation's request completes with the answer.
 */
#include "mpi/comm/comm.h"
#include "mpi/win/win.h"
#include "mpi/stage.h"
#include "rma/rma.h"

#include <string.h>

enum op_kind { OP_PUT, OP_GET, OP_ACC, OP_GET_ACC };

/* One operation's arguments: origin (o), result (r) and target (t)
 * triples, each used as kind says (compare-and-swap: all three). */
typedef struct rma_args {
    int kind;
    const void *oaddr; /* origin (put, accumulates) */
    int ocount;
    MPI_Datatype otype;
    void *raddr; /* result (get, get_accumulate) */
    int rcount;
    MPI_Datatype rtype;
    int target;
    MPI_Aint disp;
    int tcount;
    MPI_Datatype ttype;
    MPI_Op op;
    const char *call;
    int any_epoch; /* request-based, in any access epoch (AMPI_Iget) */
} rma_args_t;

/* count elements of type h (arguments named cname, tname); c is the
 * window's communicator. */
static int check_side(amp_rank_t *rank, amp_comm_t *c, int count,
                      MPI_Datatype h, const char *cname, const char *tname,
                      const char *call, const amp_dt_t **dt)
{
    int rc = amp_check_count(rank, c, count, call, cname);
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, c, h, call, tname, dt);
    return rc;
}

/* Whether operations on target t travel to its process as messages: a
 * member of another process whose memory is not mapped here (rma.h). */
static int far(const amp_win_t *w, int t)
{
    return amp_rma_is_remote(w->shared, t) &&
           !amp_rma_direct(w->shared, t, amp_rma_seg(w->shared, t)->base);
}

/* Whether this rank may access target t now. */
static int in_epoch(const amp_win_t *w, int t)
{
    return w->fence || w->lock_all || w->locks[t] || w->acc[t];
}

/* The address in the target's memory of tcount elements of tdt at disp,
 * after the epoch and range checks; *is_far: whether the operation
 * travels as a message (far()). */
static int target_addr(amp_rank_t *rank, amp_win_t *w, const rma_args_t *a,
                       const amp_dt_t *tdt, char **addr, int *is_far)
{
    if (a->target < 0 || a->target >= w->size)
        return amp_win_error(rank, w, MPI_ERR_RANK, a->call,
                             "rank %d is not in the window's group of %d "
                             "(argument target_rank)",
                             a->target, w->size);
    if (!in_epoch(w, a->target))
        return amp_win_error(rank, w, MPI_ERR_RMA_SYNC, a->call,
                             "no access epoch to rank %d is open on the "
                             "window; open one with MPI_Win_fence, "
                             "MPI_Win_start or MPI_Win_lock(_all)",
                             a->target);
    size_t span = amp_dt_span(tdt, a->tcount);
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        *addr = (char *)a->disp;
        *is_far = far(w, a->target);
        /* The target's process checks its own regions (remote.c). */
        if (span && !*is_far &&
            !amp_rma_attached(w->shared, a->target, *addr + tdt->true_lb, span))
            return amp_win_error(rank, w, MPI_ERR_RMA_RANGE, a->call,
                                 "%zu bytes at address %#tx are not in a "
                                 "region rank %d has attached",
                                 span, a->disp, a->target);
        return MPI_SUCCESS;
    }
    if (a->disp < 0)
        return amp_win_error(rank, w, MPI_ERR_DISP, a->call,
                             "negative displacement %td (argument "
                             "target_disp)",
                             a->disp);
    const amp_rma_seg_t *seg = amp_rma_seg(w->shared, a->target);
    ptrdiff_t start, off = 0;
    int wraps =
        __builtin_mul_overflow(a->disp, (ptrdiff_t)seg->disp_unit, &start) ||
        __builtin_add_overflow(start, tdt->true_lb, &off);
    if (span && (wraps || off < 0 || (size_t)off > seg->size ||
                 span > seg->size - (size_t)off))
        return amp_win_error(rank, w, MPI_ERR_RMA_RANGE, a->call,
                             "%zu bytes at displacement %td are outside "
                             "rank %d's window of %zu bytes",
                             span, a->disp, a->target, seg->size);
    *addr = seg->base + (wraps ? 0 : start); /* wraps: nothing moves */
    char *here = amp_rma_direct(w->shared, a->target, *addr);
    if (here) /* another process's memory, mapped here */
        *addr = here;
    *is_far = !here && amp_rma_is_remote(w->shared, a->target);
    return MPI_SUCCESS;
}

static int same_size(amp_rank_t *rank, amp_win_t *w, const char *call,
                     const char *side, size_t a, size_t b)
{
    if (a == b)
        return MPI_SUCCESS;
    return amp_win_error(rank, w, MPI_ERR_TYPE, call,
                         "the %s data (%zu bytes) and the target data (%zu "
                         "bytes) differ in type signature",
                         side, a, b);
}

/* The accumulate family: op predefined and defined on the target type,
 * every side made of the target's basic type. */
static int check_acc(amp_rank_t *rank, amp_win_t *w, const rma_args_t *a,
                     const amp_dt_t *odt, const amp_dt_t *tdt,
                     const amp_dt_t *rdt, amp_coll_op_t *cop)
{
    amp_comm_t *c = amp_comm_lookup(rank, w->comm);
    if (AMP_HANDLE_KIND(a->op) != AMPI_HANDLE_OP)
        return amp_win_error(rank, w, MPI_ERR_OP, a->call,
                             "one-sided accumulates take predefined "
                             "operations only (argument op %#x)",
                             (unsigned)a->op);
    if (a->op == MPI_NO_OP && a->kind == OP_ACC)
        return amp_win_error(rank, w, MPI_ERR_OP, a->call,
                             "MPI_NO_OP is for the fetching accumulates only "
                             "(argument op)");
    int rc = amp_check_op(rank, c, a->op, a->ttype, tdt, a->call, cop);
    if (rc != MPI_SUCCESS || (size_t)a->tcount * tdt->size == 0)
        return rc; /* no data: no types to match */
    int base = tdt->base_id;
    if (!base || (odt && a->op != MPI_NO_OP && odt->base_id != base) ||
        (rdt && rdt->base_id != base))
        return amp_win_error(rank, w, MPI_ERR_TYPE, a->call,
                             "the origin, result and target types of an "
                             "accumulate must hold values of one and the "
                             "same predefined type");
    return MPI_SUCCESS;
}

/* a on a target of another process; req completes with it (or NULL). */
static int remote_op(amp_rank_t *rank, amp_win_t *w, const rma_args_t *a,
                     amp_rma_rop_t *op, amp_p2p_req_t *req)
{
    static const int kinds[] = {[OP_PUT] = AMP_RMA_PUT,
                                [OP_GET] = AMP_RMA_GET,
                                [OP_ACC] = AMP_RMA_ACC,
                                [OP_GET_ACC] = AMP_RMA_GET_ACC};
    op->kind = kinds[a->kind];
    op->target = a->target;
    op->dynamic = w->flavor == MPI_WIN_FLAVOR_DYNAMIC;
    op->req = req;
    if (amp_rma_remote_op(w->shared, &w->origin, op) != AMP_OK)
        return amp_win_error(rank, w, MPI_ERR_NO_MEM, a->call,
                             "out of memory for staging the operation");
    return MPI_SUCCESS;
}

/* A put or get on a member of another process of this node by one
 * cross-memory copy, done at the call (a message when the target layout
 * has too many pieces for one). */
static int cma_op(amp_rank_t *rank, amp_win_t *w, const rma_args_t *a,
                  amp_rma_rop_t *op, amp_p2p_req_t *req)
{
    amp_status_t st = a->kind == OP_PUT
                          ? amp_rma_cma_put(w->shared, a->target, &op->d)
                          : amp_rma_cma_get(w->shared, a->target, &op->d);
    if (st == AMP_ERR_UNSUPPORTED)
        return remote_op(rank, w, a, op, req);
    if (st != AMP_OK)
        return amp_win_error(
            rank, w, st == AMP_ERR_NOMEM ? MPI_ERR_NO_MEM : MPI_ERR_OTHER,
            a->call,
            "cannot copy %s rank %d's memory in another "
            "process: %s",
            a->kind == OP_PUT ? "into" : "from", a->target, amp_status_str(st));
    if (req)
        amp_p2p_req_complete(req);
    return MPI_SUCCESS;
}

/* An accumulate of a on acc (its buffers and types), in this process or,
 * is_far, another. */
static int do_acc(amp_rank_t *rank, amp_win_t *w, const rma_args_t *a,
                  const amp_rma_acc_t *acc, int is_far, amp_p2p_req_t *req)
{
    amp_coll_op_t cop;
    int rc = check_acc(rank, w, a, acc->odt, acc->tdt, acc->rdt, &cop);
    size_t tbytes = (size_t)a->tcount * acc->tdt->size;
    if (rc == MPI_SUCCESS && a->op != MPI_NO_OP)
        rc = same_size(rank, w, a->call, "origin",
                       (size_t)a->ocount * acc->odt->size, tbytes);
    if (rc == MPI_SUCCESS && acc->rdt)
        rc = same_size(rank, w, a->call, "result",
                       (size_t)a->rcount * acc->rdt->size, tbytes);
    if (rc != MPI_SUCCESS)
        return rc;
    if (is_far) {
        amp_rma_rop_t op = {.d = *acc, .op_id = cop.op_id};
        return remote_op(rank, w, a, &op, req);
    }
    if (amp_rma_accumulate(w->shared, a->target, acc, &cop) != AMP_OK)
        return amp_win_error(rank, w, MPI_ERR_NO_MEM, a->call,
                             "out of memory for staging the operation");
    return MPI_SUCCESS;
}

/* The origin, result and target triples of a, each as its kind uses it. */
static int check_sides(amp_rank_t *rank, amp_win_t *w, const rma_args_t *a,
                       const amp_dt_t **odt, const amp_dt_t **rdt,
                       const amp_dt_t **tdt)
{
    amp_comm_t *c = amp_comm_lookup(rank, w->comm);
    int get = a->kind == OP_GET;
    int rc = MPI_SUCCESS;
    if (!get && !(a->kind == OP_GET_ACC && a->op == MPI_NO_OP))
        rc = check_side(rank, c, a->ocount, a->otype, "origin_count",
                        "origin_datatype", a->call, odt);
    if (rc == MPI_SUCCESS && (get || a->kind == OP_GET_ACC))
        rc = check_side(
            rank, c, a->rcount, a->rtype, get ? "origin_count" : "result_count",
            get ? "origin_datatype" : "result_datatype", a->call, rdt);
    if (rc == MPI_SUCCESS)
        rc = check_side(rank, c, a->tcount, a->ttype, "target_count",
                        "target_datatype", a->call, tdt);
    return rc;
}

/* Runs a; on a target of another process req (or NULL) completes with
 * it, else the operation is done when this returns. */
static int run_op(amp_rank_t *rank, amp_win_t *w, const rma_args_t *a,
                  amp_p2p_req_t *req)
{
    const amp_dt_t *odt = NULL, *rdt = NULL, *tdt;
    int rc = check_sides(rank, w, a, &odt, &rdt, &tdt);
    if (rc != MPI_SUCCESS || a->target == MPI_PROC_NULL)
        return rc;
    /* A rank that moves data makes progress: its flushes that follow are
     * no fruitless polls (a loop of gets and flushes is neither slowed
     * down nor a deadlock).  The reads a spin on a flag uses (get-
     * accumulate and fetch-and-op with MPI_NO_OP, compare-and-swap) keep
     * counting. */
    if (a->kind != OP_GET_ACC || a->op != MPI_NO_OP)
        rank->polls = 0;
    char *taddr;
    int is_far;
    rc = target_addr(rank, w, a, tdt, &taddr, &is_far);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t tbytes = (size_t)a->tcount * tdt->size;
    if (a->kind == OP_PUT || a->kind == OP_GET)
        rc = a->kind == OP_PUT
                 ? same_size(rank, w, a->call, "origin",
                             (size_t)a->ocount * odt->size, tbytes)
                 : same_size(rank, w, a->call, "origin",
                             (size_t)a->rcount * rdt->size, tbytes);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_rma_acc_t d = {taddr,     tdt,      a->tcount, a->oaddr, odt,
                       a->ocount, a->raddr, rdt,       a->rcount};
    if ((a->kind == OP_PUT || a->kind == OP_GET) && is_far) {
        amp_rma_rop_t op = {.d = d};
        if (amp_rma_cma(w->shared, a->target))
            return cma_op(rank, w, a, &op, req);
        return remote_op(rank, w, a, &op, req);
    }
    switch (a->kind) {
    case OP_PUT:
        amp_dt_copy_typed(odt, a->oaddr, tdt, taddr, tbytes);
        amp_sched_activity(amp_pe_self()); /* may end a poll (sched.h) */
        return rc;
    case OP_GET:
        amp_dt_copy_typed(tdt, taddr, rdt, a->raddr, tbytes);
        return rc;
    default: return do_acc(rank, w, a, &d, is_far, req);
    }
}

/* Whether a goes to a member of another process. */
static int goes_remote(const amp_win_t *w, const rma_args_t *a)
{
    return a->target >= 0 && a->target < w->size && far(w, a->target);
}

/* run_op with origin and result buffers in device memory (../stage.h): on a
 * target of this process the operation runs on host copies, done when
 * this returns; a target of another process reads and writes them later,
 * so device buffers are refused there. */
static int run_op_gpu(amp_rank_t *rank, amp_win_t *w, const rma_args_t *a,
                      amp_p2p_req_t *req)
{
    const amp_dt_t *odt = NULL, *rdt = NULL, *tdt;
    int rc = check_sides(rank, w, a, &odt, &rdt, &tdt);
    if (rc != MPI_SUCCESS || a->target == MPI_PROC_NULL ||
        (!amp_gpu_is_device_buf(a->oaddr) && !amp_gpu_is_device_buf(a->raddr)))
        return run_op(rank, w, a, req); /* the host path, or its error */
    const char *oname = a->kind == OP_GET ? "origin_addr" : "result_addr";
    if (goes_remote(w, a))
        return amp_win_error(
            rank, w, MPI_ERR_BUFFER, a->call,
            "a CUDA device buffer (argument %s) cannot be used with a target "
            "in another process (rank %d): stage it in host memory",
            amp_gpu_is_device_buf(a->oaddr) ? "origin_addr" : oname, a->target);
    amp_comm_t *c = amp_comm_lookup(rank, w->comm);
    amp_gpu_op_t *g = NULL;
    rma_args_t h = *a;
    void *v = NULL;
    if (odt)
        rc = amp_gpu_op_stage(
            rank, c, &g,
            amp_gpu_stage_dt(a->oaddr, a->ocount, odt, AMP_GPU_SEND), &v,
            a->call);
    h.oaddr = odt ? v : a->oaddr;
    if (rc == MPI_SUCCESS && rdt)
        rc = amp_gpu_op_stage(
            rank, c, &g,
            amp_gpu_stage_dt(a->raddr, a->rcount, rdt, AMP_GPU_RECV), &h.raddr,
            a->call);
    if (rc == MPI_SUCCESS)
        rc = run_op(rank, w, &h, req);
    if (rc != MPI_SUCCESS) {
        amp_gpu_op_drop(g);
        return rc;
    }
    return amp_gpu_op_finish(rank, c, g, NULL, a->call);
}

/* A committed type whose count elements are count * size bytes from its
 * start (NULL: not such a type, or an invalid handle or count). */
static const amp_dt_t *flat_type(amp_rank_t *rank, MPI_Datatype h, int count)
{
    const amp_dt_t *dt = amp_dt_lookup(rank, h);
    return dt && count >= 0 && dt->committed && dt->contig && dt->true_lb == 0
               ? dt
               : NULL;
}

/* The common put or get, done here without the general path's steps: a
 * plain call, host memory, flat types of the same size on both sides, a
 * target in an open epoch whose memory this process reaches (its own, or
 * mapped from another process of the node), in range.  Returns -1 when a
 * is not such an operation: run_op then does it, or reports what is wrong
 * with it. */
static int quick_op(amp_rank_t *rank, amp_win_t *w, const rma_args_t *a)
{
    int put = a->kind == OP_PUT;
    void *local = put ? (void *)a->oaddr : a->raddr;
    const amp_dt_t *ldt =
        flat_type(rank, put ? a->otype : a->rtype, put ? a->ocount : a->rcount);
    const amp_dt_t *tdt = flat_type(rank, a->ttype, a->tcount);
    int t = a->target;
    if (!ldt || !tdt || t < 0 || t >= w->size || !in_epoch(w, t) ||
        w->flavor == MPI_WIN_FLAVOR_DYNAMIC || a->disp < 0 ||
        (amp_proc.gpu && amp_gpu_is_device_buf(local)))
        return -1;
    size_t bytes = tdt->size * (size_t)a->tcount;
    const amp_rma_seg_t *seg = amp_rma_seg(w->shared, t);
    size_t off;
    if (ldt->size * (size_t)(put ? a->ocount : a->rcount) != bytes ||
        (bytes && !local) ||
        __builtin_mul_overflow((size_t)a->disp, (size_t)seg->disp_unit, &off) ||
        off > seg->size || bytes > seg->size - off)
        return -1;
    char *addr = amp_rma_direct(w->shared, t, seg->base + off);
    if (!addr && amp_rma_is_remote(w->shared, t))
        return -1;
    if (!addr)
        addr = seg->base + off;
    rank->polls = 0; /* as run_op */
    if (!bytes)
        return MPI_SUCCESS;
    if (put) {
        memcpy(addr, local, bytes);
        amp_sched_activity(amp_pe_self()); /* may end a poll (sched.h) */
    } else {
        memcpy(local, addr, bytes);
    }
    return MPI_SUCCESS;
}

/* Runs a (request NULL: a plain call); a request-based call also needs a
 * passive-target epoch and hands out a request that is complete. */
static int rma_call(const rma_args_t *a, MPI_Win win, MPI_Request *request)
{
    amp_rank_t *rank;
    amp_win_t *w;
    int rc = amp_mpi_enter(&rank, a->call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_win(rank, win, a->call, &w);
    if (rc != MPI_SUCCESS)
        return rc;
    if (request && !a->any_epoch && a->target != MPI_PROC_NULL &&
        a->target >= 0 && a->target < w->size && !w->lock_all &&
        !w->locks[a->target])
        return amp_win_error(rank, w, MPI_ERR_RMA_SYNC, a->call,
                             "request-based operations need a passive "
                             "target epoch (MPI_Win_lock or "
                             "MPI_Win_lock_all) on rank %d",
                             a->target);
    if (!request && (a->kind == OP_PUT || a->kind == OP_GET) &&
        (rc = quick_op(rank, w, a)) >= 0)
        return rc;
    if (!request)
        return amp_proc.gpu ? run_op_gpu(rank, w, a, NULL)
                            : run_op(rank, w, a, NULL);
    amp_req_t *r = amp_req_new(rank, AMP_REQ_DONE);
    if (!r)
        return amp_win_error(rank, w, MPI_ERR_NO_MEM, a->call,
                             "out of memory for the request");
    r->comm = w->comm;
    r->active = 1;
    if (goes_remote(w, a))
        amp_p2p_req_init_pending(&rank->ep, &r->p2p);
    else
        amp_p2p_req_init_done(&rank->ep, &r->p2p, MPI_ANY_SOURCE, MPI_ANY_TAG);
    rc = amp_proc.gpu ? run_op_gpu(rank, w, a, &r->p2p)
                      : run_op(rank, w, a, &r->p2p);
    if (rc != MPI_SUCCESS) {
        amp_req_release(rank, r);
        return rc;
    }
    *request = AMPI_HANDLE(AMPI_HANDLE_REQUEST, r->obj.idx);
    return MPI_SUCCESS;
}

/* ---- the calls: each plain call and its request-based form share one
 * body (request NULL for the plain call) ---- */

int PMPI_Put(const void *origin_addr, int origin_count,
             MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    rma_args_t a = {.kind = OP_PUT,
                    .oaddr = origin_addr,
                    .ocount = origin_count,
                    .otype = origin_datatype,
                    .rtype = MPI_DATATYPE_NULL,
                    .target = target_rank,
                    .disp = target_disp,
                    .tcount = target_count,
                    .ttype = target_datatype,
                    .op = MPI_OP_NULL,
                    .call = "MPI_Put"};
    return rma_call(&a, win, NULL);
}
AMP_WEAK_ALIAS(Put)

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    rma_args_t a = {.kind = OP_GET,
                    .otype = MPI_DATATYPE_NULL,
                    .raddr = origin_addr,
                    .rcount = origin_count,
                    .rtype = origin_datatype,
                    .target = target_rank,
                    .disp = target_disp,
                    .tcount = target_count,
                    .ttype = target_datatype,
                    .op = MPI_OP_NULL,
                    .call = "MPI_Get"};
    return rma_call(&a, win, NULL);
}
AMP_WEAK_ALIAS(Get)

int PMPI_Accumulate(const void *origin_addr, int origin_count,
                    MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    rma_args_t a = {.kind = OP_ACC,
                    .oaddr = origin_addr,
                    .ocount = origin_count,
                    .otype = origin_datatype,
                    .rtype = MPI_DATATYPE_NULL,
                    .target = target_rank,
                    .disp = target_disp,
                    .tcount = target_count,
                    .ttype = target_datatype,
                    .op = op,
                    .call = "MPI_Accumulate"};
    return rma_call(&a, win, NULL);
}
AMP_WEAK_ALIAS(Accumulate)

int PMPI_Get_accumulate(const void *origin_addr, int origin_count,
                        MPI_Datatype origin_datatype, void *result_addr,
                        int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    rma_args_t a = {.kind = OP_GET_ACC,
                    .oaddr = origin_addr,
                    .ocount = origin_count,
                    .otype = origin_datatype,
                    .raddr = result_addr,
                    .rcount = result_count,
                    .rtype = result_datatype,
                    .target = target_rank,
                    .disp = target_disp,
                    .tcount = target_count,
                    .ttype = target_datatype,
                    .op = op,
                    .call = "MPI_Get_accumulate"};
    return rma_call(&a, win, NULL);
}
AMP_WEAK_ALIAS(Get_accumulate)

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr,
                      MPI_Datatype datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    rma_args_t a = {.kind = OP_GET_ACC,
                    .oaddr = origin_addr,
                    .ocount = 1,
                    .otype = datatype,
                    .raddr = result_addr,
                    .rcount = 1,
                    .rtype = datatype,
                    .target = target_rank,
                    .disp = target_disp,
                    .tcount = 1,
                    .ttype = datatype,
                    .op = op,
                    .call = "MPI_Fetch_and_op"};
    return rma_call(&a, win, NULL);
}
AMP_WEAK_ALIAS(Fetch_and_op)

/* Compare-and-swap with device buffers (../stage.h): on host copies for a
 * target of this process, refused for one of another process. */
static int cas_gpu(amp_rank_t *rank, amp_win_t *w, const rma_args_t *a,
                   char *taddr, const void *origin, const void *compare,
                   void *result, const amp_dt_t *dt)
{
    if (far(w, a->target))
        return amp_win_error(rank, w, MPI_ERR_BUFFER, a->call,
                             "CUDA device buffers (arguments origin_addr, "
                             "compare_addr, result_addr) cannot be used with "
                             "a target in another process (rank %d)",
                             a->target);
    amp_comm_t *c = amp_comm_lookup(rank, w->comm);
    amp_gpu_op_t *g = NULL;
    void *o, *k, *r;
    int rc = amp_gpu_op_stage(rank, c, &g,
                              amp_gpu_stage_dt(origin, 1, dt, AMP_GPU_SEND), &o,
                              a->call);
    if (rc == MPI_SUCCESS)
        rc = amp_gpu_op_stage(rank, c, &g,
                              amp_gpu_stage_dt(compare, 1, dt, AMP_GPU_SEND),
                              &k, a->call);
    if (rc == MPI_SUCCESS)
        rc = amp_gpu_op_stage(rank, c, &g,
                              amp_gpu_stage_dt(result, 1, dt, AMP_GPU_RECV), &r,
                              a->call);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_rma_cas(w->shared, a->target, taddr, o, k, r, dt->size);
    return amp_gpu_op_finish(rank, c, g, NULL, a->call);
}

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
                          void *result_addr, MPI_Datatype datatype,
                          int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    const char *call = "MPI_Compare_and_swap";
    amp_rank_t *rank;
    amp_win_t *w;
    const amp_dt_t *dt;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_win(rank, win, call, &w);
    if (rc == MPI_SUCCESS)
        rc = check_side(rank, amp_comm_lookup(rank, w->comm), 1, datatype,
                        "count", "datatype", call, &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!dt->predefined ||
        !(dt->flags & (AMP_DT_INTEGER | AMP_DT_LOGICAL | AMP_DT_BYTE)))
        return amp_win_error(rank, w, MPI_ERR_TYPE, call,
                             "compare-and-swap takes one predefined integer, "
                             "logical or byte type (argument datatype)");
    if (!origin_addr || !compare_addr || !result_addr)
        return amp_win_error(rank, w, MPI_ERR_BUFFER, call,
                             "NULL buffer (argument %s)",
                             !origin_addr    ? "origin_addr"
                             : !compare_addr ? "compare_addr"
                                             : "result_addr");
    if (target_rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    rma_args_t a = {.target = target_rank,
                    .disp = target_disp,
                    .tcount = 1,
                    .ttype = datatype,
                    .call = call};
    char *taddr;
    int is_far;
    rc = target_addr(rank, w, &a, dt, &taddr, &is_far);
    if (rc != MPI_SUCCESS)
        return rc;
    if (amp_proc.gpu && (amp_gpu_is_device_buf(origin_addr) ||
                         amp_gpu_is_device_buf(compare_addr) ||
                         amp_gpu_is_device_buf(result_addr)))
        return cas_gpu(rank, w, &a, taddr, origin_addr, compare_addr,
                       result_addr, dt);
    if (!is_far) {
        amp_rma_cas(w->shared, target_rank, taddr, origin_addr, compare_addr,
                    result_addr, dt->size);
        return MPI_SUCCESS;
    }
    amp_rma_rop_t op = {
        .kind = AMP_RMA_CAS,
        .target = target_rank,
        .dynamic = w->flavor == MPI_WIN_FLAVOR_DYNAMIC,
        .d = {taddr, dt, 1, origin_addr, dt, 1, result_addr, dt, 1},
        .compare = compare_addr};
    if (amp_rma_remote_op(w->shared, &w->origin, &op) != AMP_OK)
        return amp_win_error(rank, w, MPI_ERR_NO_MEM, call,
                             "out of memory for staging the operation");
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Compare_and_swap)

int PMPI_Rput(const void *origin_addr, int origin_count,
              MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    rma_args_t a = {.kind = OP_PUT,
                    .oaddr = origin_addr,
                    .ocount = origin_count,
                    .otype = origin_datatype,
                    .rtype = MPI_DATATYPE_NULL,
                    .target = target_rank,
                    .disp = target_disp,
                    .tcount = target_count,
                    .ttype = target_datatype,
                    .op = MPI_OP_NULL,
                    .call = "MPI_Rput"};
    return rma_call(&a, win, request);
}
AMP_WEAK_ALIAS(Rput)

int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    rma_args_t a = {.kind = OP_GET,
                    .otype = MPI_DATATYPE_NULL,
                    .raddr = origin_addr,
                    .rcount = origin_count,
                    .rtype = origin_datatype,
                    .target = target_rank,
                    .disp = target_disp,
                    .tcount = target_count,
                    .ttype = target_datatype,
                    .op = MPI_OP_NULL,
                    .call = "MPI_Rget"};
    return rma_call(&a, win, request);
}
AMP_WEAK_ALIAS(Rget)

/* A complete request for a get done under a lock of its own. */
static int done_request(MPI_Win win, const char *call, MPI_Request *request)
{
    amp_rank_t *rank;
    amp_win_t *w;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_win(rank, win, call, &w);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_req_t *r = amp_req_new(rank, AMP_REQ_DONE);
    if (!r)
        return amp_win_error(rank, w, MPI_ERR_NO_MEM, call,
                             "out of memory for the request");
    r->comm = w->comm;
    r->active = 1;
    amp_p2p_req_init_done(&rank->ep, &r->p2p, MPI_ANY_SOURCE, MPI_ANY_TAG);
    *request = AMPI_HANDLE(AMPI_HANDLE_REQUEST, r->obj.idx);
    return MPI_SUCCESS;
}

int amp_win_get_start(const amp_win_get_t *g, MPI_Win win, MPI_Request *request)
{
    rma_args_t a = {.kind = OP_GET,
                    .otype = MPI_DATATYPE_NULL,
                    .raddr = g->buf,
                    .rcount = g->count,
                    .rtype = g->type,
                    .target = g->target,
                    .disp = g->disp,
                    .tcount = g->tcount,
                    .ttype = g->ttype,
                    .op = MPI_OP_NULL,
                    .call = g->call,
                    .any_epoch = 1};
    amp_rank_t *rank;
    amp_win_t *w;
    int rc = amp_mpi_enter(&rank, g->call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_win(rank, win, g->call, &w);
    if (rc != MPI_SUCCESS)
        return rc;
    if (g->target < 0 || g->target >= w->size || in_epoch(w, g->target))
        return rma_call(&a, win, request); /* its checks name the errors */
    rc = PMPI_Win_lock(MPI_LOCK_SHARED, g->target, 0, win);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = rma_call(&a, win, NULL);
    int unlocked = PMPI_Win_unlock(g->target, win);
    if (rc == MPI_SUCCESS)
        rc = unlocked;
    return rc == MPI_SUCCESS ? done_request(win, g->call, request) : rc;
}

int PMPI_Raccumulate(const void *origin_addr, int origin_count,
                     MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                     MPI_Request *request)
{
    rma_args_t a = {.kind = OP_ACC,
                    .oaddr = origin_addr,
                    .ocount = origin_count,
                    .otype = origin_datatype,
                    .rtype = MPI_DATATYPE_NULL,
                    .target = target_rank,
                    .disp = target_disp,
                    .tcount = target_count,
                    .ttype = target_datatype,
                    .op = op,
                    .call = "MPI_Raccumulate"};
    return rma_call(&a, win, request);
}
AMP_WEAK_ALIAS(Raccumulate)

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count,
                         MPI_Datatype origin_datatype, void *result_addr,
                         int result_count, MPI_Datatype result_datatype,
                         int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype,
                         MPI_Op op, MPI_Win win, MPI_Request *request)
{
    rma_args_t a = {.kind = OP_GET_ACC,
                    .oaddr = origin_addr,
                    .ocount = origin_count,
                    .otype = origin_datatype,
                    .raddr = result_addr,
                    .rcount = result_count,
                    .rtype = result_datatype,
                    .target = target_rank,
                    .disp = target_disp,
                    .tcount = target_count,
                    .ttype = target_datatype,
                    .op = op,
                    .call = "MPI_Rget_accumulate"};
    return rma_call(&a, win, request);
}
AMP_WEAK_ALIAS(Rget_accumulate)
