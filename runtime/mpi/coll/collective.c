/* Collective calls and user-defined reduction operations. */
#include "mpi/coll/device.h"

static int check_root(amp_rank_t *rank, amp_comm_t *comm, int root,
                      const char *call)
{
    if (root >= 0 && root < comm->size)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, comm, MPI_ERR_ROOT, call,
                         "invalid root %d (argument root): the communicator "
                         "has %d ranks",
                         root, comm->size);
}

static int coll_status(amp_rank_t *rank, amp_comm_t *comm, amp_status_t st,
                       const char *call)
{
    if (st == AMP_OK)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, comm, amp_mpi_class_of(st), call, "%s",
                         amp_status_str(st));
}

int PMPI_Barrier(MPI_Comm comm_h)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    amp_coll_comm_t c;
    int rc = amp_mpi_enter(&rank, "MPI_Barrier");
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm_h, "MPI_Barrier", &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->is_inter) /* intercoll_calls.c */
        return amp_intercoll_barrier(rank, comm, comm_h, NULL, "MPI_Barrier");
    amp_coll_comm_of(rank, comm, &c);
    rank->call = "MPI_Barrier";
    if (!comm->is_inter && (comm->shm || comm->size == 1)) /* coll/shm.c */
        return coll_status(rank, comm, amp_coll_shm_barrier(comm->shm, &c),
                           "MPI_Barrier");
    if (comm->hier) /* coll/hier.c */
        return coll_status(rank, comm, amp_coll_hier_barrier(comm->hier, &c),
                           "MPI_Barrier");
    return coll_status(rank, comm, amp_coll_barrier(&c), "MPI_Barrier");
}
AMP_WEAK_ALIAS(Barrier)

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
               MPI_Comm comm_h)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const amp_dt_t *dt;
    amp_coll_comm_t c;
    const char *call = "MPI_Bcast";
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm_h, call, &comm);
    if (rc == MPI_SUCCESS && comm->is_inter) /* intercoll_calls.c */
        return amp_intercoll_bcast(rank, comm,
                                   &(amp_xfer_t){.buf = buffer,
                                                 .count = count,
                                                 .dtype = datatype,
                                                 .peer = root,
                                                 .comm_h = comm_h},
                                   NULL, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_count(rank, comm, count, call, "count");
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, comm, datatype, call, "datatype", &dt);
    if (rc == MPI_SUCCESS)
        rc = check_root(rank, comm, root, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_buf(rank, comm, buffer, count, dt, call, "buffer");
    if (rc != MPI_SUCCESS)
        return rc;
    if (amp_proc.gpu && amp_gpu_bcast(rank, comm,
                                      &(amp_xfer_t){.buf = buffer,
                                                    .count = count,
                                                    .dtype = datatype,
                                                    .dt = dt,
                                                    .peer = root,
                                                    .comm_h = comm_h},
                                      &rc))
        return rc; /* device memory: on host copies (device.c) */
    amp_coll_comm_of(rank, comm, &c);
    rank->call = call;
    if (!comm->is_inter && (comm->shm || comm->size == 1)) /* coll/shm.c */
        return coll_status(
            rank, comm,
            amp_coll_shm_bcast(comm->shm, &c, buffer, count, dt, root), call);
    if (comm->hier) /* coll/hier.c */
        return coll_status(
            rank, comm,
            amp_coll_hier_bcast(comm->hier, &c, buffer, count, dt, root), call);
    return coll_status(rank, comm, amp_coll_bcast(&c, buffer, count, dt, root),
                       call);
}
AMP_WEAK_ALIAS(Bcast)

/* Resolves op for datatype dt into *out. */
static int check_op(amp_rank_t *rank, amp_comm_t *comm, MPI_Op op,
                    MPI_Datatype dtype, const amp_dt_t *dt, const char *call,
                    amp_coll_op_t *out)
{
    unsigned kind = AMP_HANDLE_KIND(op);
    int idx = AMP_HANDLE_INDEX(op);
    out->dt_handle = dtype;
    out->user = NULL;
    out->large = 0;
    out->op_id = 0;
    out->unit = 1;
    out->unit_extent = dt->extent;
    if (dt->large_of) { /* a large count's type (large/large.c) */
        out->dt_handle = dt->large_of;
        out->unit = dt->large_count;
        out->unit_extent = dt->large_extent;
    }
    if (kind == AMPI_HANDLE_OP && idx > 0 && idx < AMPI_OP_COUNT) {
        out->op_id = idx;
        if (amp_op_defined(idx, dt))
            return MPI_SUCCESS;
        return amp_mpi_error(rank, comm, MPI_ERR_OP, call,
                             "%s is not defined for datatype %s (arguments "
                             "op, datatype)",
                             amp_op_name(idx),
                             dt->name ? dt->name : "(derived)");
    }
    amp_op_obj_t *user =
        kind == AMPI_HANDLE_OP_USER ? amp_table_lookup(&rank->ops, idx) : NULL;
    if (user) {
        /* Under pie privatization: the function in this rank's copy of the
         * program, whichever copy it was created from. */
        out->user = (amp_coll_user_fn_t)amp_pie_to_rank(rank, user->fn);
        out->large = user->large;
        return MPI_SUCCESS;
    }
    return amp_mpi_error(rank, comm, MPI_ERR_OP, call,
                         "invalid operation handle %#x (argument op)",
                         (unsigned)op);
}

static int check_reduce(amp_rank_t *rank, MPI_Comm comm_h,
                        const amp_reduce_args_t *a, const char *call,
                        amp_comm_t **comm, const amp_dt_t **dt,
                        amp_coll_op_t *cop)
{
    const void *sendbuf = a->sendbuf;
    int count = a->count;
    MPI_Datatype dtype = a->dtype;
    MPI_Op op = a->op;
    int rc = amp_check_comm(rank, comm_h, call, comm);
    if (rc == MPI_SUCCESS)
        rc = amp_check_count(rank, *comm, count, call, "count");
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, *comm, dtype, call, "datatype", dt);
    if (rc == MPI_SUCCESS)
        rc = check_op(rank, *comm, op, dtype, *dt, call, cop);
    if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE)
        rc = amp_check_buf(rank, *comm, sendbuf, count, *dt, call, "sendbuf");
    return rc;
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm_h)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const amp_dt_t *dt;
    amp_coll_op_t cop;
    amp_coll_comm_t c;
    const char *call = "MPI_Reduce";
    amp_reduce_args_t a = {.sendbuf = sendbuf,
                           .recvbuf = recvbuf,
                           .count = count,
                           .dtype = datatype,
                           .op = op,
                           .root = root};
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS && (comm = amp_comm_lookup(rank, comm_h)) &&
        comm->is_inter) /* intercoll_calls.c */
        return amp_intercoll_reduce(rank, comm, comm_h, &a, NULL, call);
    if (rc == MPI_SUCCESS)
        rc = check_reduce(rank, comm_h, &a, call, &comm, &dt, &cop);
    if (rc == MPI_SUCCESS)
        rc = check_root(rank, comm, root, call);
    if (rc != MPI_SUCCESS)
        return rc;
    int at_root = comm->rank == root;
    if (at_root)
        rc = amp_check_buf(rank, comm, recvbuf, count, dt, call, "recvbuf");
    if (rc == MPI_SUCCESS && sendbuf == MPI_IN_PLACE && !at_root)
        rc = amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                           "MPI_IN_PLACE is only allowed at the root "
                           "(argument sendbuf)");
    if (rc != MPI_SUCCESS)
        return rc;
    if (amp_proc.gpu && amp_gpu_reduce(rank, comm, &a, dt, comm_h, &rc))
        return rc; /* device memory: on host copies (device.c) */
    if (sendbuf == MPI_IN_PLACE)
        sendbuf = recvbuf;
    amp_coll_comm_of(rank, comm, &c);
    rank->call = call;
    if (!comm->is_inter && (comm->shm || comm->size == 1) &&
        amp_coll_shm_reduce_ok(dt, count, &cop, comm->size)) /* coll/shm.c */
        return coll_status(rank, comm,
                           amp_coll_shm_reduce(comm->shm, &c, sendbuf, recvbuf,
                                               count, dt, &cop, root),
                           call);
    if (comm->hier &&
        amp_coll_shm_reduce_ok(dt, count, &cop, comm->size)) /* coll/levels.c */
        return coll_status(rank, comm,
                           amp_coll_levels_reduce(comm->hier, &c, sendbuf,
                                                  recvbuf, count, dt, &cop,
                                                  root),
                           call);
    return coll_status(
        rank, comm,
        amp_coll_reduce_typed(&c, sendbuf, recvbuf, count, dt, &cop, root),
        call);
}
AMP_WEAK_ALIAS(Reduce)

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm_h)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const amp_dt_t *dt;
    amp_coll_op_t cop;
    amp_coll_comm_t c;
    const char *call = "MPI_Allreduce";
    amp_reduce_args_t a = {.sendbuf = sendbuf,
                           .recvbuf = recvbuf,
                           .count = count,
                           .dtype = datatype,
                           .op = op,
                           .all = 1};
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS && (comm = amp_comm_lookup(rank, comm_h)) &&
        comm->is_inter) /* intercoll_calls.c */
        return amp_intercoll_reduce(rank, comm, comm_h, &a, NULL, call);
    if (rc == MPI_SUCCESS)
        rc = check_reduce(rank, comm_h, &a, call, &comm, &dt, &cop);
    if (rc == MPI_SUCCESS)
        rc = amp_check_buf(rank, comm, recvbuf, count, dt, call, "recvbuf");
    if (rc != MPI_SUCCESS)
        return rc;
    if (amp_proc.gpu && amp_gpu_reduce(rank, comm, &a, dt, comm_h, &rc))
        return rc; /* device memory: on host copies (device.c) */
    if (sendbuf == MPI_IN_PLACE)
        sendbuf = recvbuf;
    amp_coll_comm_of(rank, comm, &c);
    rank->call = call;
    if (!comm->is_inter && (comm->shm || comm->size == 1) &&
        amp_coll_shm_reduce_ok(dt, count, &cop, comm->size)) /* coll/shm.c */
        return coll_status(rank, comm,
                           amp_coll_shm_allreduce(comm->shm, &c, sendbuf,
                                                  recvbuf, count, dt, &cop),
                           call);
    if (comm->hier &&
        amp_coll_shm_reduce_ok(dt, count, &cop, comm->size)) /* coll/hier.c */
        return coll_status(rank, comm,
                           amp_coll_hier_allreduce(comm->hier, &c, sendbuf,
                                                   recvbuf, count, dt, &cop),
                           call);
    return coll_status(
        rank, comm,
        amp_coll_allreduce_typed(&c, sendbuf, recvbuf, count, dt, &cop), call);
}
AMP_WEAK_ALIAS(Allreduce)

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "MPI_Op_create");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!user_fn || !op)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Op_create",
                             "NULL pointer (argument %s)",
                             user_fn ? "op" : "user_fn");
    amp_op_obj_t *o = amp_table_alloc(&rank->ops);
    if (!o)
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, "MPI_Op_create",
                             "out of memory");
    o->fn = user_fn;
    o->commute = commute;
    *op = AMPI_HANDLE(AMPI_HANDLE_OP_USER, o->obj.idx);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Op_create)

int PMPI_Op_free(MPI_Op *op)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "MPI_Op_free");
    if (rc != MPI_SUCCESS)
        return rc;
    amp_op_obj_t *o = op && AMP_HANDLE_KIND(*op) == AMPI_HANDLE_OP_USER
                          ? amp_table_lookup(&rank->ops, AMP_HANDLE_INDEX(*op))
                          : NULL;
    if (!o)
        return amp_mpi_error(rank, NULL, MPI_ERR_OP, "MPI_Op_free",
                             "not a user-defined operation (argument op)");
    amp_table_free(&rank->ops, o);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Op_free)

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "MPI_Op_commutative");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!commute)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Op_commutative",
                             "NULL pointer (argument commute)");
    if (AMP_HANDLE_KIND(op) == AMPI_HANDLE_OP && AMP_HANDLE_INDEX(op) > 0 &&
        AMP_HANDLE_INDEX(op) < AMPI_OP_COUNT) {
        *commute = 1;
        return MPI_SUCCESS;
    }
    amp_op_obj_t *o = AMP_HANDLE_KIND(op) == AMPI_HANDLE_OP_USER
                          ? amp_table_lookup(&rank->ops, AMP_HANDLE_INDEX(op))
                          : NULL;
    if (!o)
        return amp_mpi_error(rank, NULL, MPI_ERR_OP, "MPI_Op_commutative",
                             "invalid operation handle (argument op)");
    *commute = o->commute;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Op_commutative)

/* The checks above, for the other collectives (coll_calls.c). */
int amp_check_root(amp_rank_t *rank, amp_comm_t *comm, int root,
                   const char *call)
{
    return check_root(rank, comm, root, call);
}

int amp_check_op(amp_rank_t *rank, amp_comm_t *comm, MPI_Op op,
                 MPI_Datatype dtype, const amp_dt_t *dt, const char *call,
                 amp_coll_op_t *out)
{
    return check_op(rank, comm, op, dtype, dt, call, out);
}
