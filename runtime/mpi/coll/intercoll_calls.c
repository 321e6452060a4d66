/*
 * Collectives on inter-communicators at the MPI boundary: the arguments
 * checked, device buffers staged, the schedule of coll/inter.c built on
 * the call's view of the inter-communicator and launched (run to the end,
 * or handed out as a request).  collective.c and coll_calls.c hand the
 * calls on inter-communicators here.
 */
#include "mpi/comm/comm.h"
#include "mpi/pt2pt/request.h"
#include "mpi/stage.h"

#include "coll/inter.h"
#include "coll/nbc.h"

int amp_check_inter_root(amp_rank_t *rank, amp_comm_t *comm, int root,
                         const char *call)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL ||
        (root >= 0 && root < comm->remote_size))
        return MPI_SUCCESS;
    return amp_mpi_error(rank, comm, MPI_ERR_ROOT, call,
                         "invalid root %d (argument root): on an "
                         "inter-communicator, MPI_ROOT, MPI_PROC_NULL or a "
                         "rank of the remote group (%d ranks)",
                         root, comm->remote_size);
}

static int in_place_error(amp_rank_t *rank, amp_comm_t *comm, const char *call,
                          const char *arg)
{
    return amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                         "MPI_IN_PLACE is not allowed on an "
                         "inter-communicator (argument %s)",
                         arg);
}

int amp_intercoll_barrier(amp_rank_t *rank, amp_comm_t *comm, MPI_Comm comm_h,
                          MPI_Request *request, const char *call)
{
    amp_coll_inter_t ic;
    amp_intercoll_view(rank, comm, &ic);
    amp_nbc_t *s = NULL;
    amp_status_t st = amp_coll_inter_barrier(&ic, &s);
    return amp_coll_launch(rank, comm, comm_h, st, s, request, call);
}

int amp_intercoll_bcast(amp_rank_t *rank, amp_comm_t *comm, const amp_xfer_t *x,
                        MPI_Request *request, const char *call)
{
    void *buffer = (void *)x->buf;
    int count = x->count, root = x->peer;
    MPI_Datatype datatype = x->dtype;
    const amp_dt_t *dt;
    int rc = amp_check_count(rank, comm, count, call, "count");
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, comm, datatype, call, "datatype", &dt);
    if (rc == MPI_SUCCESS)
        rc = amp_check_inter_root(rank, comm, root, call);
    if (rc == MPI_SUCCESS && root != MPI_PROC_NULL && buffer == MPI_IN_PLACE)
        rc = in_place_error(rank, comm, call, "buffer");
    if (rc == MPI_SUCCESS && root != MPI_PROC_NULL)
        rc = amp_check_buf(rank, comm, buffer, count, dt, call, "buffer");
    if (rc == MPI_SUCCESS && amp_proc.gpu && root != MPI_PROC_NULL) {
        void *v; /* device memory: a host copy for amp_coll_launch (../stage.h) */
        rc = amp_gpu_op_stage(
            rank, comm, &rank->gpu_coll,
            amp_gpu_stage_dt(buffer, count, dt,
                             root == MPI_ROOT ? AMP_GPU_SEND : AMP_GPU_RECV),
            &v, call);
        buffer = v;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    amp_coll_inter_t ic;
    amp_intercoll_view(rank, comm, &ic);
    amp_nbc_t *s = NULL;
    amp_status_t st = amp_coll_inter_bcast(&ic, buffer, count, dt, root, &s);
    return amp_coll_launch(rank, comm, x->comm_h, st, s, request, call);
}

int amp_intercoll_reduce(amp_rank_t *rank, amp_comm_t *comm, MPI_Comm comm_h,
                         const amp_reduce_args_t *a, MPI_Request *request,
                         const char *call)
{
    const void *sendbuf = a->sendbuf;
    void *recvbuf = a->recvbuf;
    int count = a->count, root = a->root, all = a->all;
    MPI_Datatype datatype = a->dtype;
    MPI_Op op = a->op;
    const amp_dt_t *dt = NULL;
    amp_coll_op_t cop;
    int rc = amp_check_count(rank, comm, count, call, "count");
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, comm, datatype, call, "datatype", &dt);
    if (rc == MPI_SUCCESS)
        rc = amp_check_op(rank, comm, op, datatype, dt, call, &cop);
    if (rc == MPI_SUCCESS && !all)
        rc = amp_check_inter_root(rank, comm, root, call);
    /* What this rank passes data in or gets it back in. */
    int sends = all || root >= 0, gets = all || root == MPI_ROOT;
    if (rc == MPI_SUCCESS && sends && sendbuf == MPI_IN_PLACE)
        rc = in_place_error(rank, comm, call, "sendbuf");
    if (rc == MPI_SUCCESS && sends)
        rc = amp_check_buf(rank, comm, sendbuf, count, dt, call, "sendbuf");
    if (rc == MPI_SUCCESS && gets && recvbuf == MPI_IN_PLACE)
        rc = in_place_error(rank, comm, call, "recvbuf");
    if (rc == MPI_SUCCESS && gets)
        rc = amp_check_buf(rank, comm, recvbuf, count, dt, call, "recvbuf");
    if (rc == MPI_SUCCESS && amp_proc.gpu) {
        void *sv = (void *)sendbuf, *rv = recvbuf; /* device memory: host
                                                      copies (../stage.h) */
        if (sends)
            rc = amp_gpu_op_stage(
                rank, comm, &rank->gpu_coll,
                amp_gpu_stage_dt(sendbuf, count, dt, AMP_GPU_SEND), &sv, call);
        if (rc == MPI_SUCCESS && gets)
            rc = amp_gpu_op_stage(
                rank, comm, &rank->gpu_coll,
                amp_gpu_stage_dt(recvbuf, count, dt, AMP_GPU_RECV), &rv, call);
        sendbuf = sv;
        recvbuf = rv;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    amp_coll_inter_t ic;
    amp_intercoll_view(rank, comm, &ic);
    amp_nbc_t *s = NULL;
    amp_status_t st =
        amp_coll_inter_reduce(&ic,
                              &(amp_coll_reduction_t){.sendbuf = sendbuf,
                                                      .recvbuf = recvbuf,
                                                      .count = count,
                                                      .dt = dt,
                                                      .op = &cop},
                              root, all, &s);
    return amp_coll_launch(rank, comm, comm_h, st, s, request, call);
}

int amp_intercoll_reduce_scatter(amp_rank_t *rank, amp_comm_t *comm,
                                 MPI_Comm comm_h, const amp_coll_reduction_t *r,
                                 const int *counts, MPI_Request *request,
                                 const char *call)
{
    amp_coll_inter_t ic;
    amp_intercoll_view(rank, comm, &ic);
    amp_nbc_t *s = NULL;
    amp_status_t st = amp_coll_inter_reduce_scatter(&ic, r, counts, &s);
    return amp_coll_launch(rank, comm, comm_h, st, s, request, call);
}
