/*
 * MPI_Bcast, MPI_Reduce and MPI_Allreduce on CUDA device buffers
 * (device.h, docs/gpu.md): made again on pinned host copies.
 */
#include "mpi/coll/device.h"

static int first_error(int a, int b)
{
    return a != MPI_SUCCESS ? a : b;
}

int amp_gpu_bcast(amp_rank_t *rank, amp_comm_t *comm, const amp_xfer_t *x,
                  int *rc)
{
    amp_gpu_stage_t s;
    void *v;
    int root = x->peer, at_root = comm->rank == root;
    amp_stage_buf_t b = {
        amp_gpu_stage_dt(x->buf, x->count, x->dt,
                         at_root ? AMP_GPU_SEND : AMP_GPU_RECV),
        AMP_P2P_STAGE_NO_PEER};
    *rc = amp_stage_begin(rank, comm, &b, &s, &v, NULL, "MPI_Bcast");
    if (*rc != MPI_SUCCESS || !s.host)
        return *rc != MPI_SUCCESS;
    *rc = PMPI_Bcast(v, x->count, x->dtype, root, x->comm_h);
    *rc = first_error(
        *rc, amp_stage_end(rank, comm, &s, at_root ? 0 : s.bytes, "MPI_Bcast"));
    return 1;
}

/* MPI_Reduce (at_root: this rank's recvbuf counts) and MPI_Allreduce. */
int amp_gpu_reduce(amp_rank_t *rank, amp_comm_t *comm,
                   const amp_reduce_args_t *a, const amp_dt_t *dt,
                   MPI_Comm comm_h, int *rc)
{
    const void *sendbuf = a->sendbuf;
    void *recvbuf = a->recvbuf;
    int count = a->count, root = a->root, all = a->all;
    MPI_Datatype dtype = a->dtype;
    MPI_Op op = a->op;
    const char *call = all ? "MPI_Allreduce" : "MPI_Reduce";
    int has_recv = all || comm->rank == root;
    amp_gpu_stage_t ss, rs;
    void *sv, *rv = recvbuf;
    rs.host = NULL;
    amp_stage_buf_t b = {amp_gpu_stage_dt(sendbuf, count, dt, AMP_GPU_SEND),
                         AMP_P2P_STAGE_NO_PEER};
    *rc = amp_stage_begin(rank, comm, &b, &ss, &sv, NULL, call);
    if (*rc == MPI_SUCCESS && has_recv) {
        b.d = amp_gpu_stage_dt(recvbuf, count, dt,
                               sendbuf == MPI_IN_PLACE ? AMP_GPU_INOUT
                                                       : AMP_GPU_RECV);
        *rc = amp_stage_begin(rank, comm, &b, &rs, &rv, NULL, call);
    }
    if (*rc != MPI_SUCCESS || (!ss.host && !rs.host)) {
        amp_stage_end(rank, comm, &ss, 0, call);
        return *rc != MPI_SUCCESS;
    }
    if (all)
        *rc = PMPI_Allreduce(sv, rv, count, dtype, op, comm_h);
    else
        *rc = PMPI_Reduce(sv, rv, count, dtype, op, root, comm_h);
    *rc = first_error(*rc, amp_stage_end(rank, comm, &ss, 0, call));
    *rc = first_error(*rc, amp_stage_end(rank, comm, &rs, rs.bytes, call));
    return 1;
}

