/*
 * The collectives beyond barrier, bcast, reduce and allreduce (which are in
 * collective.c), and every nonblocking collective.  Each call checks its
 * arguments, builds a schedule (coll/nbc.h) and either waits for it
 * (blocking) or hands it out as a request of kind AMP_REQ_COLL.
 */
#include "mpi/impl.h"

#include "coll/nbc.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- starting and finishing ---- */

static int status_error(amp_rank_t *rank, amp_comm_t *comm, amp_status_t st,
                        const char *call)
{
    if (st == AMP_OK)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, comm, amp_mpi_class_of(st), call, "%s",
                         amp_status_str(st));
}

/* Completion of a collective request's schedule. */
static void coll_req_done(amp_p2p_req_t *p)
{
    amp_req_t *r = AMP_CONTAINER_OF(p, amp_req_t, p2p);
    r->nbc = NULL;
}

/* Runs schedule s (built with status st) to the end, or hands it out as
 * *request (nonblocking calls: request not NULL). */
static int launch(amp_rank_t *rank, amp_comm_t *comm, MPI_Comm comm_h,
                  amp_status_t st, amp_nbc_t *s, MPI_Request *request,
                  const char *call)
{
    if (st != AMP_OK)
        return status_error(rank, comm, st, call);
    if (request) {
        amp_req_t *r = amp_req_new(rank, AMP_REQ_COLL);
        if (!r) {
            amp_nbc_destroy(s);
            return status_error(rank, comm, AMP_ERR_NOMEM, call);
        }
        r->comm = comm_h;
        r->active = 1;
        r->nbc = s;
        r->p2p.on_done = coll_req_done;
        st = amp_nbc_start(s, &r->p2p);
        if (st != AMP_OK) {
            amp_req_release(rank, r);
            return status_error(rank, comm, st, call);
        }
        *request = AMPI_HANDLE(AMPI_HANDLE_REQUEST, r->obj.idx);
        return MPI_SUCCESS;
    }
    amp_p2p_req_t done;
    done.on_done = NULL;
    rank->call = call;
    st = amp_nbc_start(s, &done);
    if (st == AMP_OK && !done.done) {
        amp_p2p_req_t *p = &done;
        amp_p2p_wait_all(&rank->ep, &p, 1);
        rank = amp_rank_self();
    }
    if (st == AMP_OK)
        st = done.error;
    return status_error(rank, comm, st, call);
}

/* ---- argument checks ---- */

/* MPI_Init'ed caller, valid comm, and for nonblocking calls a place for
 * the request. */
static int begin(MPI_Comm comm_h, MPI_Request *request, int nb,
                 const char *call, amp_rank_t **rank, amp_comm_t **comm)
{
    int rc = amp_mpi_enter(rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(*rank, comm_h, call, comm);
    if (rc == MPI_SUCCESS && nb && !request)
        rc = amp_mpi_error(*rank, *comm, MPI_ERR_ARG, call,
                           "NULL pointer (argument request)");
    return rc;
}

/* The single place each call hands inter-communicators to (intercomm.c
 * may provide amp_intercoll_* later). */
static int inter_unsupported(amp_rank_t *rank, amp_comm_t *comm,
                             const char *call)
{
    return amp_mpi_error(rank, comm, MPI_ERR_COMM, call,
                         "not supported on inter-communicators (argument "
                         "comm)");
}

/* count elements of type h at buf: count, datatype, buffer. */
static int check_part(amp_rank_t *rank, amp_comm_t *comm, const void *buf,
                      int count, MPI_Datatype h, const char *call,
                      const char *bufarg, const char *countarg,
                      const char *typearg, const amp_dt_t **dt)
{
    int rc = amp_check_count(rank, comm, count, call, countarg);
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, comm, h, call, typearg, dt);
    if (rc == MPI_SUCCESS && buf == MPI_IN_PLACE)
        rc = amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                           "MPI_IN_PLACE is not allowed here (argument %s)",
                           bufarg);
    if (rc == MPI_SUCCESS)
        rc = amp_check_buf(rank, comm, buf, count, *dt, call, bufarg);
    return rc;
}

/* counts[i] (and displs) for the n ranks: present and not negative; the
 * buffer is not NULL if any count is positive. */
static int check_counts(amp_rank_t *rank, amp_comm_t *comm, const void *buf,
                        const int *counts, const int *displs, int n,
                        const amp_dt_t *dt, const char *call,
                        const char *bufarg, const char *countarg,
                        const char *displarg)
{
    if (!counts || (displarg && !displs))
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                             "NULL pointer (argument %s)",
                             counts ? displarg : countarg);
    for (int i = 0; i < n; i++) {
        char arg[64];
        snprintf(arg, sizeof(arg), "%s[%d]", countarg, i);
        int rc = amp_check_count(rank, comm, counts[i], call, arg);
        if (rc == MPI_SUCCESS && buf != MPI_IN_PLACE)
            rc = amp_check_buf(rank, comm, buf, counts[i], dt, call, bufarg);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

static int check_distinct(amp_rank_t *rank, amp_comm_t *comm,
                          const void *sendbuf, const void *recvbuf,
                          const char *call)
{
    if (sendbuf != recvbuf || sendbuf == NULL)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                         "sendbuf and recvbuf are the same buffer (use "
                         "MPI_IN_PLACE instead)");
}

/* The send and receive parts of one rank's own block agree in size. */
static int check_sizes(amp_rank_t *rank, amp_comm_t *comm, int scount,
                       const amp_dt_t *sdt, int rcount, const amp_dt_t *rdt,
                       const char *call)
{
    size_t sb = sdt->size * (size_t)scount, rb = rdt->size * (size_t)rcount;
    if (sb == rb)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, comm, sb > rb ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT,
                         call,
                         "this rank sends %zu bytes to itself but receives "
                         "%zu (arguments sendcount, sendtype, recvcount, "
                         "recvtype)",
                         sb, rb);
}

/* ---- barrier, bcast, reduce, allreduce: the nonblocking forms ---- */

int PMPI_Ibarrier(MPI_Comm comm_h, MPI_Request *request)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    amp_coll_comm_t c;
    amp_nbc_t *s = NULL;
    const char *call = "MPI_Ibarrier";
    int rc = begin(comm_h, request, 1, call, &rank, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->is_inter) /* inter-communicators: dispatch point */
        return inter_unsupported(rank, comm, call);
    amp_coll_comm_of(rank, comm, &c);
    amp_status_t st = amp_coll_sched_barrier(&c, &s);
    return launch(rank, comm, comm_h, st, s, request, call);
}
AMP_WEAK_ALIAS(Ibarrier)

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
                MPI_Comm comm_h, MPI_Request *request)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const amp_dt_t *dt;
    amp_coll_comm_t c;
    amp_nbc_t *s = NULL;
    const char *call = "MPI_Ibcast";
    int rc = begin(comm_h, request, 1, call, &rank, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->is_inter) /* inter-communicators: dispatch point */
        return inter_unsupported(rank, comm, call);
    rc = check_part(rank, comm, buffer, count, datatype, call, "buffer",
                    "count", "datatype", &dt);
    if (rc == MPI_SUCCESS)
        rc = amp_check_root(rank, comm, root, call);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_coll_comm_of(rank, comm, &c);
    amp_status_t st = amp_coll_sched_bcast(&c, buffer, count, dt, root, &s);
    return launch(rank, comm, comm_h, st, s, request, call);
}
AMP_WEAK_ALIAS(Ibcast)

/* Reduce or (all) allreduce, nonblocking. */
static int ireduce(const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, int root, int all,
                   MPI_Comm comm_h, MPI_Request *request, const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const amp_dt_t *dt;
    amp_coll_op_t cop;
    amp_coll_comm_t c;
    amp_nbc_t *s = NULL;
    int rc = begin(comm_h, request, 1, call, &rank, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->is_inter) /* inter-communicators: dispatch point */
        return inter_unsupported(rank, comm, call);
    rc = amp_check_count(rank, comm, count, call, "count");
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, comm, datatype, call, "datatype", &dt);
    if (rc == MPI_SUCCESS)
        rc = amp_check_op(rank, comm, op, datatype, dt, call, &cop);
    if (rc == MPI_SUCCESS && !all)
        rc = amp_check_root(rank, comm, root, call);
    if (rc != MPI_SUCCESS)
        return rc;
    int gets = all || comm->rank == root; /* recvbuf matters */
    if (sendbuf == MPI_IN_PLACE && !gets)
        return amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is only allowed at the root "
                             "(argument sendbuf)");
    if (sendbuf != MPI_IN_PLACE)
        rc = amp_check_buf(rank, comm, sendbuf, count, dt, call, "sendbuf");
    if (rc == MPI_SUCCESS && gets && recvbuf == MPI_IN_PLACE)
        rc = amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                           "MPI_IN_PLACE is not allowed here (argument "
                           "recvbuf)");
    if (rc == MPI_SUCCESS && gets)
        rc = amp_check_buf(rank, comm, recvbuf, count, dt, call, "recvbuf");
    if (rc == MPI_SUCCESS && gets && count > 0)
        rc = check_distinct(rank, comm, sendbuf, recvbuf, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (sendbuf == MPI_IN_PLACE)
        sendbuf = recvbuf;
    amp_coll_comm_of(rank, comm, &c);
    amp_status_t st = amp_coll_sched_reduce(&c, sendbuf, recvbuf, count, dt,
                                            &cop, all ? 0 : root, all, &s);
    return launch(rank, comm, comm_h, st, s, request, call);
}

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    return ireduce(sendbuf, recvbuf, count, datatype, op, root, 0, comm,
                   request, "MPI_Ireduce");
}
AMP_WEAK_ALIAS(Ireduce)

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Request *request)
{
    return ireduce(sendbuf, recvbuf, count, datatype, op, 0, 1, comm, request,
                   "MPI_Iallreduce");
}
AMP_WEAK_ALIAS(Iallreduce)

/* ---- gather and scatter ---- */

/* Gather (rcounts NULL) and gatherv, both forms.  The receive arguments
 * matter at the root only. */
static int gather(const void *sendbuf, int scount, MPI_Datatype stype,
                  void *recvbuf, int rcount, const int *rcounts,
                  const int *displs, MPI_Datatype rtype, int root,
                  MPI_Comm comm_h, int v, int nb, MPI_Request *request,
                  const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const amp_dt_t *sdt = NULL, *rdt = NULL;
    amp_coll_comm_t c;
    amp_nbc_t *s = NULL;
    int rc = begin(comm_h, request, nb, call, &rank, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->is_inter) /* inter-communicators: dispatch point */
        return inter_unsupported(rank, comm, call);
    rc = amp_check_root(rank, comm, root, call);
    if (rc != MPI_SUCCESS)
        return rc;
    int at_root = comm->rank == root;
    int in_place = at_root && sendbuf == MPI_IN_PLACE;
    if (!in_place)
        rc = check_part(rank, comm, sendbuf, scount, stype, call, "sendbuf",
                        "sendcount", "sendtype", &sdt);
    if (rc == MPI_SUCCESS && at_root) {
        rc = amp_check_dt(rank, comm, rtype, call, "recvtype", &rdt);
        if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
            rc = check_part(rank, comm, recvbuf, 0, rtype, call, "recvbuf",
                            "recvcount", "recvtype", &rdt);
        if (rc == MPI_SUCCESS && v)
            rc = check_counts(rank, comm, recvbuf, rcounts, displs, comm->size,
                              rdt, call, "recvbuf", "recvcounts", "displs");
        else if (rc == MPI_SUCCESS)
            rc = check_part(rank, comm, recvbuf, rcount, rtype, call, "recvbuf",
                            "recvcount", "recvtype", &rdt);
        if (rc == MPI_SUCCESS && !in_place)
            rc = check_sizes(rank, comm, scount, sdt,
                             v ? rcounts[root] : rcount, rdt, call);
        if (rc == MPI_SUCCESS && !in_place && scount > 0)
            rc = check_distinct(rank, comm, sendbuf, recvbuf, call);
    }
    if (rc != MPI_SUCCESS)
        return rc;
    amp_coll_comm_of(rank, comm, &c);
    amp_status_t st = amp_coll_sched_gather(
        &c, sendbuf, scount, sdt, recvbuf, rcount, v ? rcounts : NULL,
        v ? displs : NULL, rdt, root, in_place, &s);
    return launch(rank, comm, comm_h, st, s, request, call);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    return gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL,
                  recvtype, root, comm, 0, 0, NULL, "MPI_Gather");
}
AMP_WEAK_ALIAS(Gather)

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    return gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL,
                  recvtype, root, comm, 0, 1, request, "MPI_Igather");
}
AMP_WEAK_ALIAS(Igather)

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, const int recvcounts[], const int displs[],
                 MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gather(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs,
                  recvtype, root, comm, 1, 0, NULL, "MPI_Gatherv");
}
AMP_WEAK_ALIAS(Gatherv)

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int displs[],
                  MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    return gather(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs,
                  recvtype, root, comm, 1, 1, request, "MPI_Igatherv");
}
AMP_WEAK_ALIAS(Igatherv)

/* Scatter (scounts NULL) and scatterv.  The send arguments matter at the
 * root only. */
static int scatter(const void *sendbuf, int scount, const int *scounts,
                   const int *displs, MPI_Datatype stype, void *recvbuf,
                   int rcount, MPI_Datatype rtype, int root, MPI_Comm comm_h,
                   int v, int nb, MPI_Request *request, const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const amp_dt_t *sdt = NULL, *rdt = NULL;
    amp_coll_comm_t c;
    amp_nbc_t *s = NULL;
    int rc = begin(comm_h, request, nb, call, &rank, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->is_inter) /* inter-communicators: dispatch point */
        return inter_unsupported(rank, comm, call);
    rc = amp_check_root(rank, comm, root, call);
    if (rc != MPI_SUCCESS)
        return rc;
    int at_root = comm->rank == root;
    int in_place = at_root && recvbuf == MPI_IN_PLACE;
    if (!in_place)
        rc = check_part(rank, comm, recvbuf, rcount, rtype, call, "recvbuf",
                        "recvcount", "recvtype", &rdt);
    if (rc == MPI_SUCCESS && at_root) {
        rc = amp_check_dt(rank, comm, stype, call, "sendtype", &sdt);
        if (rc == MPI_SUCCESS && sendbuf == MPI_IN_PLACE)
            rc = check_part(rank, comm, sendbuf, 0, stype, call, "sendbuf",
                            "sendcount", "sendtype", &sdt);
        if (rc == MPI_SUCCESS && v)
            rc = check_counts(rank, comm, sendbuf, scounts, displs, comm->size,
                              sdt, call, "sendbuf", "sendcounts", "displs");
        else if (rc == MPI_SUCCESS)
            rc = check_part(rank, comm, sendbuf, scount, stype, call, "sendbuf",
                            "sendcount", "sendtype", &sdt);
        if (rc == MPI_SUCCESS && !in_place)
            rc = check_sizes(rank, comm, v ? scounts[root] : scount, sdt,
                             rcount, rdt, call);
        if (rc == MPI_SUCCESS && !in_place && rcount > 0)
            rc = check_distinct(rank, comm, sendbuf, recvbuf, call);
    }
    if (rc != MPI_SUCCESS)
        return rc;
    amp_coll_comm_of(rank, comm, &c);
    amp_status_t st = amp_coll_sched_scatter(
        &c, sendbuf, scount, v ? scounts : NULL, v ? displs : NULL, sdt,
        recvbuf, rcount, rdt, root, in_place, &s);
    return launch(rank, comm, comm_h, st, s, request, call);
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    return scatter(sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount,
                   recvtype, root, comm, 0, 0, NULL, "MPI_Scatter");
}
AMP_WEAK_ALIAS(Scatter)

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    return scatter(sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount,
                   recvtype, root, comm, 0, 1, request, "MPI_Iscatter");
}
AMP_WEAK_ALIAS(Iscatter)

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[],
                  const int displs[], MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return scatter(sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount,
                   recvtype, root, comm, 1, 0, NULL, "MPI_Scatterv");
}
AMP_WEAK_ALIAS(Scatterv)

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[],
                   const int displs[], MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root,
                   MPI_Comm comm, MPI_Request *request)
{
    return scatter(sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount,
                   recvtype, root, comm, 1, 1, request, "MPI_Iscatterv");
}
AMP_WEAK_ALIAS(Iscatterv)

/* ---- allgather ---- */

static int allgather(const void *sendbuf, int scount, MPI_Datatype stype,
                     void *recvbuf, int rcount, const int *rcounts,
                     const int *displs, MPI_Datatype rtype, MPI_Comm comm_h,
                     int v, int nb, MPI_Request *request, const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const amp_dt_t *sdt = NULL, *rdt = NULL;
    amp_coll_comm_t c;
    amp_nbc_t *s = NULL;
    int rc = begin(comm_h, request, nb, call, &rank, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->is_inter) /* inter-communicators: dispatch point */
        return inter_unsupported(rank, comm, call);
    int in_place = sendbuf == MPI_IN_PLACE;
    if (!in_place)
        rc = check_part(rank, comm, sendbuf, scount, stype, call, "sendbuf",
                        "sendcount", "sendtype", &sdt);
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, comm, rtype, call, "recvtype", &rdt);
    if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
        rc = check_part(rank, comm, recvbuf, 0, rtype, call, "recvbuf",
                        "recvcount", "recvtype", &rdt);
    if (rc == MPI_SUCCESS && v)
        rc = check_counts(rank, comm, recvbuf, rcounts, displs, comm->size, rdt,
                          call, "recvbuf", "recvcounts", "displs");
    else if (rc == MPI_SUCCESS)
        rc = check_part(rank, comm, recvbuf, rcount, rtype, call, "recvbuf",
                        "recvcount", "recvtype", &rdt);
    if (rc == MPI_SUCCESS && !in_place)
        rc = check_sizes(rank, comm, scount, sdt,
                         v ? rcounts[comm->rank] : rcount, rdt, call);
    if (rc == MPI_SUCCESS && !in_place && scount > 0)
        rc = check_distinct(rank, comm, sendbuf, recvbuf, call);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_coll_comm_of(rank, comm, &c);
    amp_status_t st = amp_coll_sched_allgather(
        &c, sendbuf, scount, sdt, recvbuf, rcount, v ? rcounts : NULL,
        v ? displs : NULL, rdt, in_place, &s);
    return launch(rank, comm, comm_h, st, s, request, call);
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   MPI_Comm comm)
{
    return allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                     NULL, recvtype, comm, 0, 0, NULL, "MPI_Allgather");
}
AMP_WEAK_ALIAS(Allgather)

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request)
{
    return allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                     NULL, recvtype, comm, 0, 1, request, "MPI_Iallgather");
}
AMP_WEAK_ALIAS(Iallgather)

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], const int displs[],
                    MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                     displs, recvtype, comm, 1, 0, NULL, "MPI_Allgatherv");
}
AMP_WEAK_ALIAS(Allgatherv)

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return allgather(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                     displs, recvtype, comm, 1, 1, request, "MPI_Iallgatherv");
}
AMP_WEAK_ALIAS(Iallgatherv)

/* ---- alltoall ---- */

/* One side (send or receive) of an alltoall in the general (w) form. */
typedef struct a2a_side {
    int *counts;
    ptrdiff_t *displs; /* bytes */
    const amp_dt_t **dts;
} a2a_side_t;

/* Which form: regular, v (element displacements, one type) or w. */
enum { A2A, A2AV, A2AW };

typedef struct a2a_args {
    const void *buf;
    int count;                 /* A2A */
    const int *counts;         /* A2AV, A2AW */
    const int *displs;         /* A2AV, A2AW */
    MPI_Datatype type;         /* A2A, A2AV */
    const MPI_Datatype *types; /* A2AW */
} a2a_args_t;

/* Checks one side's arguments and expands them into the w form. */
static int a2a_side(amp_rank_t *rank, amp_comm_t *comm, int form,
                    const a2a_args_t *a, a2a_side_t *out, int is_send,
                    const char *call)
{
    const char *bufarg = is_send ? "sendbuf" : "recvbuf";
    const char *cntarg = is_send ? "sendcounts" : "recvcounts";
    const char *disarg = is_send ? "sdispls" : "rdispls";
    const char *typarg = is_send ? "sendtype" : "recvtype";
    int n = comm->size, rc = MPI_SUCCESS;
    const amp_dt_t *dt = NULL;
    if (form != A2AW)
        rc = amp_check_dt(rank, comm, a->type, call, typarg, &dt);
    if (rc == MPI_SUCCESS && form == A2A)
        rc = amp_check_count(rank, comm, a->count, call,
                             is_send ? "sendcount" : "recvcount");
    if (rc == MPI_SUCCESS && form != A2A && (!a->counts || !a->displs))
        rc = amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                           "NULL pointer (argument %s)",
                           a->counts ? disarg : cntarg);
    if (rc == MPI_SUCCESS && form == A2AW && !a->types)
        rc = amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                           "NULL pointer (argument %s)",
                           is_send ? "sendtypes" : "recvtypes");
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        char arg[64];
        if (form == A2AW) {
            snprintf(arg, sizeof(arg), "%ss[%d]", typarg, i);
            rc = amp_check_dt(rank, comm, a->types[i], call, arg, &dt);
            if (rc != MPI_SUCCESS)
                break;
        }
        out->dts[i] = dt;
        out->counts[i] = form == A2A ? a->count : a->counts[i];
        snprintf(arg, sizeof(arg), "%s[%d]", cntarg, i);
        if (form != A2A)
            rc = amp_check_count(rank, comm, out->counts[i], call, arg);
        if (rc == MPI_SUCCESS)
            rc = amp_check_buf(rank, comm, a->buf, out->counts[i], dt, call,
                               bufarg);
        if (form == A2A)
            out->displs[i] = (ptrdiff_t)i * a->count * dt->extent;
        else if (form == A2AV)
            out->displs[i] = (ptrdiff_t)a->displs[i] * dt->extent;
        else
            out->displs[i] = a->displs[i];
    }
    return rc;
}

static int alltoall(int form, const a2a_args_t *sa, const a2a_args_t *ra,
                    MPI_Comm comm_h, int nb, MPI_Request *request,
                    const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    amp_coll_comm_t c;
    amp_nbc_t *s = NULL;
    int rc = begin(comm_h, request, nb, call, &rank, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->is_inter) /* inter-communicators: dispatch point */
        return inter_unsupported(rank, comm, call);
    int n = comm->size, in_place = sa->buf == MPI_IN_PLACE;
    if (ra->buf == MPI_IN_PLACE)
        return amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is not allowed here (argument "
                             "recvbuf)");
    size_t one = 2 * sizeof(int) + 2 * sizeof(ptrdiff_t) + 2 * sizeof(void *);
    char *mem = malloc((size_t)n * one);
    if (!mem)
        return status_error(rank, comm, AMP_ERR_NOMEM, call);
    a2a_side_t sd = {(int *)mem, (ptrdiff_t *)(mem + n * 2 * sizeof(int)),
                     (const amp_dt_t **)(mem + n * (2 * sizeof(int) +
                                                    2 * sizeof(ptrdiff_t)))};
    a2a_side_t rd = {sd.counts + n, sd.displs + n, sd.dts + n};
    rc = a2a_side(rank, comm, form, ra, &rd, 0, call);
    if (rc == MPI_SUCCESS && !in_place)
        rc = a2a_side(rank, comm, form, sa, &sd, 1, call);
    if (rc == MPI_SUCCESS && !in_place)
        rc = check_sizes(rank, comm, sd.counts[comm->rank], sd.dts[comm->rank],
                         rd.counts[comm->rank], rd.dts[comm->rank], call);
    if (rc == MPI_SUCCESS && !in_place)
        rc = check_distinct(rank, comm, sa->buf, ra->buf, call);
    if (rc == MPI_SUCCESS) {
        amp_coll_comm_of(rank, comm, &c);
        amp_status_t st = amp_coll_sched_alltoall(
            &c, sa->buf, sd.counts, sd.displs, (const amp_dt_t *const *)sd.dts,
            (void *)ra->buf, rd.counts, rd.displs,
            (const amp_dt_t *const *)rd.dts, in_place, &s);
        free(mem);
        return launch(rank, comm, comm_h, st, s, request, call);
    }
    free(mem);
    return rc;
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm)
{
    a2a_args_t sa = {.buf = sendbuf, .count = sendcount, .type = sendtype};
    a2a_args_t ra = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return alltoall(A2A, &sa, &ra, comm, 0, NULL, "MPI_Alltoall");
}
AMP_WEAK_ALIAS(Alltoall)

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   MPI_Comm comm, MPI_Request *request)
{
    a2a_args_t sa = {.buf = sendbuf, .count = sendcount, .type = sendtype};
    a2a_args_t ra = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return alltoall(A2A, &sa, &ra, comm, 1, request, "MPI_Ialltoall");
}
AMP_WEAK_ALIAS(Ialltoall)

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[],
                   const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int rdispls[],
                   MPI_Datatype recvtype, MPI_Comm comm)
{
    a2a_args_t sa = {.buf = sendbuf,
                     .counts = sendcounts,
                     .displs = sdispls,
                     .type = sendtype};
    a2a_args_t ra = {.buf = recvbuf,
                     .counts = recvcounts,
                     .displs = rdispls,
                     .type = recvtype};
    return alltoall(A2AV, &sa, &ra, comm, 0, NULL, "MPI_Alltoallv");
}
AMP_WEAK_ALIAS(Alltoallv)

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[],
                    const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int rdispls[],
                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    a2a_args_t sa = {.buf = sendbuf,
                     .counts = sendcounts,
                     .displs = sdispls,
                     .type = sendtype};
    a2a_args_t ra = {.buf = recvbuf,
                     .counts = recvcounts,
                     .displs = rdispls,
                     .type = recvtype};
    return alltoall(A2AV, &sa, &ra, comm, 1, request, "MPI_Ialltoallv");
}
AMP_WEAK_ALIAS(Ialltoallv)

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[],
                   const int sdispls[], const MPI_Datatype sendtypes[],
                   void *recvbuf, const int recvcounts[], const int rdispls[],
                   const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    a2a_args_t sa = {.buf = sendbuf,
                     .counts = sendcounts,
                     .displs = sdispls,
                     .types = sendtypes};
    a2a_args_t ra = {.buf = recvbuf,
                     .counts = recvcounts,
                     .displs = rdispls,
                     .types = recvtypes};
    return alltoall(A2AW, &sa, &ra, comm, 0, NULL, "MPI_Alltoallw");
}
AMP_WEAK_ALIAS(Alltoallw)

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[],
                    const int sdispls[], const MPI_Datatype sendtypes[],
                    void *recvbuf, const int recvcounts[], const int rdispls[],
                    const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    a2a_args_t sa = {.buf = sendbuf,
                     .counts = sendcounts,
                     .displs = sdispls,
                     .types = sendtypes};
    a2a_args_t ra = {.buf = recvbuf,
                     .counts = recvcounts,
                     .displs = rdispls,
                     .types = recvtypes};
    return alltoall(A2AW, &sa, &ra, comm, 1, request, "MPI_Ialltoallw");
}
AMP_WEAK_ALIAS(Ialltoallw)

/* ---- reduce_scatter, scan, exscan, reduce_local ---- */

/* The checks of the reductions below: count (the local one), datatype, op
 * and the send buffer (MPI_IN_PLACE allowed). */
static int check_reduction(amp_rank_t *rank, amp_comm_t *comm,
                           const void *sendbuf, void *recvbuf, int count,
                           int total, MPI_Datatype datatype, MPI_Op op,
                           const char *call, const amp_dt_t **dt,
                           amp_coll_op_t *cop)
{
    int rc = amp_check_dt(rank, comm, datatype, call, "datatype", dt);
    if (rc == MPI_SUCCESS)
        rc = amp_check_op(rank, comm, op, datatype, *dt, call, cop);
    if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE)
        rc = amp_check_buf(rank, comm, sendbuf, total, *dt, call, "sendbuf");
    if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
        rc = amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                           "MPI_IN_PLACE is not allowed here (argument "
                           "recvbuf)");
    if (rc == MPI_SUCCESS)
        rc = amp_check_buf(rank, comm, recvbuf,
                           sendbuf == MPI_IN_PLACE ? total : count, *dt, call,
                           "recvbuf");
    if (rc == MPI_SUCCESS && total > 0)
        rc = check_distinct(rank, comm, sendbuf, recvbuf, call);
    return rc;
}

/* Reduce_scatter (rcounts) and reduce_scatter_block (rcounts NULL). */
static int reduce_scatter(const void *sendbuf, void *recvbuf, int rcount,
                          const int *rcounts, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm_h, int nb, MPI_Request *request,
                          const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const amp_dt_t *dt;
    amp_coll_op_t cop;
    amp_coll_comm_t c;
    amp_nbc_t *s = NULL;
    int rc = begin(comm_h, request, nb, call, &rank, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->is_inter) /* inter-communicators: dispatch point */
        return inter_unsupported(rank, comm, call);
    int n = comm->size;
    int *counts = malloc((size_t)n * sizeof(int));
    if (!counts)
        return status_error(rank, comm, AMP_ERR_NOMEM, call);
    long long total = 0;
    if (!rcounts)
        rc = amp_check_count(rank, comm, rcount, call, "recvcount");
    else
        rc = check_counts(rank, comm, MPI_IN_PLACE, rcounts, NULL, n, NULL,
                          call, "recvbuf", "recvcounts", NULL);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        counts[i] = rcounts ? rcounts[i] : rcount;
        total += counts[i];
    }
    if (rc == MPI_SUCCESS && total > 0x7fffffff)
        rc = amp_mpi_error(rank, comm, MPI_ERR_COUNT, call,
                           "the counts add up to more than an int holds "
                           "(argument recvcounts)");
    if (rc == MPI_SUCCESS)
        rc = check_reduction(rank, comm, sendbuf, recvbuf, counts[comm->rank],
                             (int)total, datatype, op, call, &dt, &cop);
    if (rc != MPI_SUCCESS) {
        free(counts);
        return rc;
    }
    amp_coll_comm_of(rank, comm, &c);
    amp_status_t st = amp_coll_sched_reduce_scatter(
        &c, sendbuf, recvbuf, counts, dt, &cop, sendbuf == MPI_IN_PLACE, &s);
    free(counts);
    return launch(rank, comm, comm_h, st, s, request, call);
}

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter(sendbuf, recvbuf, recvcount, NULL, datatype, op, comm,
                          0, NULL, "MPI_Reduce_scatter_block");
}
AMP_WEAK_ALIAS(Reduce_scatter_block)

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf,
                               int recvcount, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, MPI_Request *request)
{
    return reduce_scatter(sendbuf, recvbuf, recvcount, NULL, datatype, op, comm,
                          1, request, "MPI_Ireduce_scatter_block");
}
AMP_WEAK_ALIAS(Ireduce_scatter_block)

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
                        const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter(sendbuf, recvbuf, 0, recvcounts, datatype, op, comm,
                          0, NULL, "MPI_Reduce_scatter");
}
AMP_WEAK_ALIAS(Reduce_scatter)

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf,
                         const int recvcounts[], MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return reduce_scatter(sendbuf, recvbuf, 0, recvcounts, datatype, op, comm,
                          1, request, "MPI_Ireduce_scatter");
}
AMP_WEAK_ALIAS(Ireduce_scatter)

static int scan(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm_h,
                int exclusive, int nb, MPI_Request *request, const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const amp_dt_t *dt;
    amp_coll_op_t cop;
    amp_coll_comm_t c;
    amp_nbc_t *s = NULL;
    int rc = begin(comm_h, request, nb, call, &rank, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->is_inter) /* inter-communicators: dispatch point */
        return inter_unsupported(rank, comm, call);
    rc = amp_check_count(rank, comm, count, call, "count");
    if (rc == MPI_SUCCESS)
        rc = check_reduction(rank, comm, sendbuf, recvbuf, count, count,
                             datatype, op, call, &dt, &cop);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_coll_comm_of(rank, comm, &c);
    amp_status_t st =
        amp_coll_sched_scan(&c, sendbuf, recvbuf, count, dt, &cop, exclusive,
                            sendbuf == MPI_IN_PLACE, &s);
    return launch(rank, comm, comm_h, st, s, request, call);
}

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count,
              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return scan(sendbuf, recvbuf, count, datatype, op, comm, 0, 0, NULL,
                "MPI_Scan");
}
AMP_WEAK_ALIAS(Scan)

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
               MPI_Request *request)
{
    return scan(sendbuf, recvbuf, count, datatype, op, comm, 0, 1, request,
                "MPI_Iscan");
}
AMP_WEAK_ALIAS(Iscan)

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return scan(sendbuf, recvbuf, count, datatype, op, comm, 1, 0, NULL,
                "MPI_Exscan");
}
AMP_WEAK_ALIAS(Exscan)

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                 MPI_Request *request)
{
    return scan(sendbuf, recvbuf, count, datatype, op, comm, 1, 1, request,
                "MPI_Iexscan");
}
AMP_WEAK_ALIAS(Iexscan)

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count,
                      MPI_Datatype datatype, MPI_Op op)
{
    amp_rank_t *rank;
    const amp_dt_t *dt;
    amp_coll_op_t cop;
    const char *call = "MPI_Reduce_local";
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = check_part(rank, NULL, inbuf, count, datatype, call, "inbuf",
                        "count", "datatype", &dt);
    if (rc == MPI_SUCCESS)
        rc = check_part(rank, NULL, inoutbuf, count, datatype, call, "inoutbuf",
                        "count", "datatype", &dt);
    if (rc == MPI_SUCCESS)
        rc = amp_check_op(rank, NULL, op, datatype, dt, call, &cop);
    if (rc == MPI_SUCCESS && count > 0 && inbuf == inoutbuf)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_BUFFER, call,
                           "inbuf and inoutbuf are the same buffer");
    if (rc != MPI_SUCCESS)
        return rc;
    amp_coll_apply(&cop, dt, count, inbuf, inoutbuf);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Reduce_local)
