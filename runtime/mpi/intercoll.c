/*
 * Collectives on inter-communicators.  MPI_Barrier, MPI_Bcast, MPI_Reduce,
 * MPI_Allreduce (collective.c hands them here) and MPI_Reduce_scatter(_block)
 * (coll_calls.c) are blocking and work in three steps: a collective inside the
 * local group (over the hidden local_comm, intercomm.c), a message between the
 * groups' leaders on the inter-communicator's collective context, and a
 * collective inside the receiving group.  Data crosses between the groups
 * packed.  The gathers, scatters and all-to-alls (coll_calls.c checks them) are
 * a schedule of one round: every rank exchanges its blocks with the remote
 * ranks directly (amp_intercoll_sched), so they have nonblocking forms too.
 */
#include "mpi/impl.h"

#include "coll/nbc.h"

#include <stdlib.h>

/* Tags on the collective context (intercomm.c uses 100 and up); the
 * collectives on one communicator are ordered, so one per kind does. */
enum {
    TAG_BARRIER = 1,
    TAG_BCAST = 2,
    TAG_REDUCE = 3,
    TAG_ALLREDUCE = 4,
    TAG_REDUCE_SCATTER = 5
};

/* Sends bytes to remote rank to and/or receives into in from remote rank
 * from (-1: none of either), on ic's collective context, and waits. */
static amp_status_t leader_xfer(amp_rank_t *rank, const amp_comm_t *ic, int to,
                                const void *out, size_t outbytes, int from,
                                void *in, size_t inbytes, int tag)
{
    amp_p2p_req_t sreq, rreq;
    amp_p2p_req_t *reqs[2] = {NULL, NULL};
    sreq.on_done = rreq.on_done = NULL;
    if (from >= 0) {
        amp_p2p_irecv(&rank->ep, in, inbytes, ic->ctx + 1, from, tag, &rreq);
        reqs[0] = &rreq;
    }
    if (to >= 0) {
        amp_p2p_isend(&rank->ep, out, outbytes, ic->remote_world[to],
                      ic->ctx + 1, ic->rank, tag, AMP_P2P_STANDARD, &sreq);
        reqs[1] = &sreq;
    }
    amp_p2p_wait_all(&rank->ep, reqs, 2);
    if (from >= 0 && rreq.error != AMP_OK)
        return rreq.error;
    return to >= 0 ? sreq.error : AMP_OK;
}

static void local_of(amp_rank_t *rank, const amp_comm_t *ic, amp_coll_comm_t *c)
{
    amp_coll_comm_of(rank, amp_comm_lookup(rank, ic->local_comm), c);
}

static int finish(amp_rank_t *rank, amp_comm_t *comm, amp_status_t st,
                  const char *call)
{
    if (st == AMP_OK)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, comm, amp_mpi_class_of(st), call, "%s",
                         amp_status_str(st));
}

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

int amp_intercoll_barrier(amp_rank_t *rank, amp_comm_t *comm)
{
    amp_coll_comm_t c;
    local_of(rank, comm, &c);
    rank->call = "MPI_Barrier";
    /* Everyone local is in; the leaders swap that; everyone may leave. */
    amp_status_t st = amp_coll_barrier(&c);
    if (st == AMP_OK && comm->rank == 0)
        leader_xfer(rank, comm, 0, NULL, 0, 0, NULL, 0, TAG_BARRIER);
    if (st == AMP_OK)
        st = amp_coll_barrier(&c);
    return finish(amp_rank_self(), comm, st, "MPI_Barrier");
}

/* A packing buffer for count elements of dt: *bytes long. */
static void *packed_new(const amp_dt_t *dt, int count, size_t *bytes)
{
    *bytes = dt->size * (size_t)count;
    return malloc(*bytes ? *bytes : 1);
}

int amp_intercoll_bcast(amp_rank_t *rank, amp_comm_t *comm, void *buffer,
                        int count, MPI_Datatype datatype, int root)
{
    const char *call = "MPI_Bcast";
    const amp_dt_t *dt;
    int rc = amp_check_count(rank, comm, count, call, "count");
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, comm, datatype, call, "datatype", &dt);
    if (rc == MPI_SUCCESS)
        rc = amp_check_inter_root(rank, comm, root, call);
    if (rc == MPI_SUCCESS && root != MPI_PROC_NULL)
        rc = amp_check_buf(rank, comm, buffer, count, dt, call, "buffer");
    if (rc != MPI_SUCCESS || root == MPI_PROC_NULL)
        return rc;
    size_t bytes;
    void *packed = packed_new(dt, count, &bytes);
    if (!packed)
        return finish(rank, comm, AMP_ERR_NOMEM, call);
    rank->call = call;
    amp_status_t st = AMP_OK;
    if (root == MPI_ROOT) {
        amp_dt_pack(dt, count, buffer, packed);
        leader_xfer(rank, comm, 0, packed, bytes, -1, NULL, 0, TAG_BCAST);
    } else {
        amp_coll_comm_t c;
        local_of(rank, comm, &c);
        if (comm->rank == 0) {
            leader_xfer(rank, comm, -1, NULL, 0, root, packed, bytes,
                        TAG_BCAST);
            amp_dt_unpack(dt, count, buffer, packed, bytes);
        }
        st = amp_coll_bcast(&c, buffer, count, dt, 0);
    }
    free(packed);
    return finish(amp_rank_self(), comm, st, call);
}

/* The reduction of the local group's sendbufs, packed, at local rank 0
 * (*packed, *bytes); NULL elsewhere. */
static amp_status_t reduce_local(amp_rank_t *rank, amp_comm_t *comm,
                                 const void *sendbuf, int count,
                                 const amp_dt_t *dt, const amp_coll_op_t *op,
                                 void **packed, size_t *bytes)
{
    size_t span = amp_dt_span(dt, count);
    size_t whole = (size_t)count * (size_t)dt->extent;
    char *mem = malloc(whole > span ? whole : span ? span : 1);
    *packed = packed_new(dt, count, bytes);
    if (!mem || !*packed) {
        free(mem);
        free(*packed);
        *packed = NULL;
        return AMP_ERR_NOMEM;
    }
    amp_coll_comm_t c;
    local_of(rank, comm, &c);
    char *acc = mem - dt->true_lb;
    amp_status_t st = amp_coll_reduce_typed(&c, sendbuf, acc, count, dt, op, 0);
    if (st == AMP_OK && comm->rank == 0)
        amp_dt_pack(dt, count, acc, *packed);
    free(mem);
    return st;
}

static int check_reduction(amp_rank_t *rank, amp_comm_t *comm,
                           const void *sendbuf, int count,
                           MPI_Datatype datatype, MPI_Op op, const char *call,
                           const amp_dt_t **dt, amp_coll_op_t *cop)
{
    int rc = amp_check_count(rank, comm, count, call, "count");
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, comm, datatype, call, "datatype", dt);
    if (rc == MPI_SUCCESS)
        rc = amp_check_op(rank, comm, op, datatype, *dt, call, cop);
    if (rc == MPI_SUCCESS && sendbuf == MPI_IN_PLACE)
        rc = in_place_error(rank, comm, call, "sendbuf");
    return rc;
}

int amp_intercoll_reduce(amp_rank_t *rank, amp_comm_t *comm,
                         const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype datatype, MPI_Op op, int root)
{
    const char *call = "MPI_Reduce";
    const amp_dt_t *dt;
    amp_coll_op_t cop;
    int rc = check_reduction(rank, comm, sendbuf, count, datatype, op, call,
                             &dt, &cop);
    if (rc == MPI_SUCCESS)
        rc = amp_check_inter_root(rank, comm, root, call);
    if (rc == MPI_SUCCESS && root == MPI_ROOT)
        rc = amp_check_buf(rank, comm, recvbuf, count, dt, call, "recvbuf");
    if (rc == MPI_SUCCESS && root >= 0)
        rc = amp_check_buf(rank, comm, sendbuf, count, dt, call, "sendbuf");
    if (rc != MPI_SUCCESS || root == MPI_PROC_NULL)
        return rc;
    rank->call = call;
    size_t bytes;
    void *packed;
    amp_status_t st = AMP_OK;
    if (root == MPI_ROOT) {
        packed = packed_new(dt, count, &bytes);
        if (!packed)
            return finish(rank, comm, AMP_ERR_NOMEM, call);
        leader_xfer(rank, comm, -1, NULL, 0, 0, packed, bytes, TAG_REDUCE);
        amp_dt_unpack(dt, count, recvbuf, packed, bytes);
    } else {
        st =
            reduce_local(rank, comm, sendbuf, count, dt, &cop, &packed, &bytes);
        if (st == AMP_OK && comm->rank == 0)
            leader_xfer(rank, comm, root, packed, bytes, -1, NULL, 0,
                        TAG_REDUCE);
    }
    free(packed);
    return finish(amp_rank_self(), comm, st, call);
}

int amp_intercoll_allreduce(amp_rank_t *rank, amp_comm_t *comm,
                            const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype datatype, MPI_Op op)
{
    const char *call = "MPI_Allreduce";
    const amp_dt_t *dt;
    amp_coll_op_t cop;
    int rc = check_reduction(rank, comm, sendbuf, count, datatype, op, call,
                             &dt, &cop);
    if (rc == MPI_SUCCESS)
        rc = amp_check_buf(rank, comm, sendbuf, count, dt, call, "sendbuf");
    if (rc == MPI_SUCCESS)
        rc = amp_check_buf(rank, comm, recvbuf, count, dt, call, "recvbuf");
    if (rc != MPI_SUCCESS)
        return rc;
    rank->call = call;
    size_t bytes;
    void *packed;
    /* Each group gets the reduction of the other group's data. */
    amp_status_t st =
        reduce_local(rank, comm, sendbuf, count, dt, &cop, &packed, &bytes);
    void *in = st == AMP_OK ? malloc(bytes ? bytes : 1) : NULL;
    if (st == AMP_OK && !in)
        st = AMP_ERR_NOMEM;
    if (st == AMP_OK && comm->rank == 0) {
        leader_xfer(rank, comm, 0, packed, bytes, 0, in, bytes, TAG_ALLREDUCE);
        amp_dt_unpack(dt, count, recvbuf, in, bytes);
    }
    if (st == AMP_OK) {
        amp_coll_comm_t c;
        local_of(rank, comm, &c);
        st = amp_coll_bcast(&c, recvbuf, count, dt, 0);
    }
    free(in);
    free(packed);
    return finish(amp_rank_self(), comm, st, call);
}

/* The remote group's view of ic for one collective call: peers are remote
 * ranks, messages go out under this rank's local rank. */
static void remote_of(amp_rank_t *rank, amp_comm_t *ic, amp_coll_comm_t *c)
{
    amp_coll_comm_of(rank, ic, c);
    c->size = ic->remote_size;
    c->world = ic->remote_world;
}

amp_status_t amp_intercoll_sched(amp_rank_t *rank, amp_comm_t *ic,
                                 const void *sendbuf, const amp_coll_side_t *sd,
                                 void *recvbuf, const amp_coll_side_t *rd,
                                 amp_nbc_t **out)
{
    amp_coll_comm_t c;
    remote_of(rank, ic, &c);
    amp_nbc_t *s = amp_nbc_create(&c, sd->n + rd->n, 0);
    if (!s)
        return AMP_ERR_NOMEM;
    for (int i = 0; i < rd->n; i++)
        amp_nbc_recv_typed(s, (char *)recvbuf + rd->displs[i], rd->counts[i],
                           rd->dts[i], rd->first + i);
    for (int i = 0; i < sd->n; i++)
        amp_nbc_send_typed(s, (const char *)sendbuf + sd->displs[i],
                           sd->counts[i], sd->dts[i], sd->first + i);
    *out = s;
    return AMP_OK;
}

/* At local rank 0: swaps the local group's reduction (packed, bytes) for
 * the remote group's, unpacked into *base (total elements of dt in their
 * layout; *mem is what to free). */
static amp_status_t leaders_swap(amp_rank_t *rank, amp_comm_t *comm,
                                 const void *packed, size_t bytes, int total,
                                 const amp_dt_t *dt, char **mem, char **base)
{
    size_t span = amp_dt_span(dt, total);
    size_t whole = (size_t)total * (size_t)dt->extent;
    void *in = malloc(bytes ? bytes : 1);
    *mem = malloc(whole > span ? whole : span ? span : 1);
    amp_status_t st = in && *mem ? AMP_OK : AMP_ERR_NOMEM;
    if (st == AMP_OK)
        st = leader_xfer(rank, comm, 0, packed, bytes, 0, in, bytes,
                         TAG_REDUCE_SCATTER);
    *base = *mem ? *mem - dt->true_lb : NULL;
    if (st == AMP_OK)
        amp_dt_unpack(dt, total, *base, in, bytes);
    free(in);
    return st;
}

/* Scatters total elements of dt at base (local rank 0) over the local
 * group by counts, into recvbuf; waits. */
static int scatter_local(amp_rank_t *rank, amp_comm_t *comm, const char *base,
                         const int *counts, void *recvbuf, const amp_dt_t *dt,
                         const char *call)
{
    amp_comm_t *lc = amp_comm_lookup(rank, comm->local_comm);
    int *displs = malloc((size_t)lc->size * sizeof(int));
    if (!displs)
        return finish(rank, comm, AMP_ERR_NOMEM, call);
    for (int i = 0, at = 0; i < lc->size; at += counts[i++])
        displs[i] = at;
    amp_coll_comm_t c;
    amp_nbc_t *s = NULL;
    amp_coll_comm_of(rank, lc, &c);
    amp_status_t st =
        amp_coll_sched_scatter(&c, base, 0, counts, displs, dt, recvbuf,
                               counts[lc->rank], dt, 0, 0, &s);
    free(displs);
    /* Blocking (no request): the communicator handle is not used. */
    return amp_coll_launch(rank, comm, MPI_COMM_NULL, st, s, NULL, call);
}

int amp_intercoll_reduce_scatter(amp_rank_t *rank, amp_comm_t *comm,
                                 const void *sendbuf, void *recvbuf,
                                 const int *counts, int total,
                                 const amp_dt_t *dt, const amp_coll_op_t *op,
                                 const char *call)
{
    rank->call = call;
    size_t bytes;
    void *packed;
    char *mem = NULL, *base = NULL;
    /* Each group gets the reduction of the other group's data. */
    amp_status_t st =
        reduce_local(rank, comm, sendbuf, total, dt, op, &packed, &bytes);
    if (st == AMP_OK && comm->rank == 0)
        st = leaders_swap(rank, comm, packed, bytes, total, dt, &mem, &base);
    free(packed);
    rank = amp_rank_self();
    /* The local group waits for the scatter even when the leader failed
     * (mismatched counts): it scatters what it has. */
    int rc = MPI_SUCCESS;
    if (comm->rank != 0 || base)
        rc = scatter_local(rank, comm, base, counts, recvbuf, dt, call);
    free(mem);
    return st != AMP_OK ? finish(rank, comm, st, call) : rc;
}
