/*
 * Neighborhood collectives (MPI 3.1 §7.6-7.7), blocking and nonblocking:
 * each call is one round of a collective schedule (coll/nbc.h) that
 * receives block i from in-neighbor i and sends block i to out-neighbor i
 * of the communicator's topology (topology.h gives the order).  A blocking
 * call starts the schedule and waits for it.
 *
 * An MPI_PROC_NULL neighbor (off the edge of a non-periodic Cartesian
 * dimension) keeps its block in the buffers but exchanges nothing, so its
 * receive block is left as it was.
 *
 * Matching: on a graph or distributed graph, all messages of a call carry
 * one tag and match in order between each pair of ranks.  On a Cartesian
 * grid, a message carries the number of the sender's out-slot (2d for the
 * negative direction of dimension d, 2d + 1 for the positive one), and the
 * receiver expects at in-slot j the sender's out-slot j ^ 1; that tells
 * the two neighbors of a periodic dimension of size 1 or 2 apart, which
 * are one rank.
 */
#include "coll/nbc.h"
#include "mpi/comm/topology.h"
#include "mpi/stage.h"

#include <stdlib.h>

/* How the blocks of one side (send or receive) lie in its buffer. */
enum nb_layout {
    NB_SAME,    /* every block is the whole buffer (allgather's send) */
    NB_REGULAR, /* block i at i * count extents */
    NB_V,       /* counts[i] at displs[i] extents */
    NB_W,       /* counts[i] of dts[i] at bdispls[i] bytes */
};

typedef struct nb_side {
    int layout; /* enum nb_layout */
    char *buf;
    int count;               /* NB_SAME, NB_REGULAR */
    const amp_dt_t *dt;      /* all but NB_W */
    const int *counts;       /* NB_V, NB_W */
    const int *displs;       /* NB_V */
    const MPI_Aint *bdispls; /* NB_W */
    const amp_dt_t **dts;    /* NB_W: resolved types, freed by the caller */
} nb_side_t;

static void nb_block(const nb_side_t *side, int i, char **buf, int *count,
                     const amp_dt_t **dt)
{
    switch (side->layout) {
    case NB_SAME:
        *buf = side->buf;
        *count = side->count;
        *dt = side->dt;
        return;
    case NB_REGULAR:
        *buf = side->buf + (ptrdiff_t)i * side->count * side->dt->extent;
        *count = side->count;
        *dt = side->dt;
        return;
    case NB_V:
        *buf = side->buf + (ptrdiff_t)side->displs[i] * side->dt->extent;
        *count = side->counts[i];
        *dt = side->dt;
        return;
    }
    *buf = side->buf + side->bdispls[i];
    *count = side->counts[i];
    *dt = side->dts[i];
}

/* The tag step of the message from out-slot k (see the top). */
static int nb_step(const amp_topology_t *t, int k)
{
    return t->kind == MPI_CART ? k % 4096 : 0;
}

/* The schedule of one neighborhood exchange. */
static amp_status_t nb_build(const amp_coll_comm_t *c, const amp_topology_t *t,
                             const nb_side_t *snd, const nb_side_t *rcv,
                             amp_nbc_t **out)
{
    char *buf;
    int count;
    const amp_dt_t *dt;
    amp_nbc_t *s = amp_nbc_create(c, t->nin + t->nout, 0);
    if (!s)
        return AMP_ERR_NOMEM;
    /* Receives first, in the order of the senders' slots. */
    for (int k = 0; k < t->nin; k++) {
        int j = amp_topology_recv_slot(t, k);
        if (t->in[j] == MPI_PROC_NULL)
            continue;
        nb_block(rcv, j, &buf, &count, &dt);
        amp_nbc_tag(s, nb_step(t, k));
        amp_nbc_recv_typed(s, buf, count, dt, t->in[j]);
    }
    for (int k = 0; k < t->nout; k++) {
        if (t->out[k] == MPI_PROC_NULL)
            continue;
        nb_block(snd, k, &buf, &count, &dt);
        amp_nbc_tag(s, nb_step(t, k));
        amp_nbc_send_typed(s, buf, count, dt, t->out[k]);
    }
    *out = s;
    return AMP_OK;
}

/* ---- argument checks ---- */

/* The arguments every neighborhood collective shares. */
typedef struct nb_call {
    const char *name;
    amp_rank_t *rank;
    MPI_Comm comm_h;
    amp_comm_t *comm;
    amp_topology_t *topo;
    MPI_Request *request; /* NULL: blocking */
} nb_call_t;

static int nb_enter(nb_call_t *nc, MPI_Comm comm_h, MPI_Request *request,
                    int nonblocking, const char *name)
{
    nc->name = name;
    nc->comm_h = comm_h;
    nc->request = request;
    int rc = amp_mpi_enter(&nc->rank, name);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(nc->rank, comm_h, name, &nc->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    nc->topo = nc->comm->topo;
    if (!nc->topo)
        return amp_mpi_error(nc->rank, nc->comm, MPI_ERR_TOPOLOGY, name,
                             "the communicator has no process topology "
                             "(argument comm)");
    if (nonblocking && !request)
        return amp_mpi_error(nc->rank, nc->comm, MPI_ERR_ARG, name,
                             "NULL pointer (argument request)");
    return MPI_SUCCESS;
}

/* The buffer of a side: not MPI_IN_PLACE, which no neighborhood collective
 * takes, and not NULL where data goes (count elements of dt). */
static int nb_check_buf(const nb_call_t *nc, const void *buf, int count,
                        const amp_dt_t *dt, const char *arg)
{
    if (buf == MPI_IN_PLACE)
        return amp_mpi_error(nc->rank, nc->comm, MPI_ERR_BUFFER, nc->name,
                             "MPI_IN_PLACE is not allowed in a neighborhood "
                             "collective (argument %s)",
                             arg);
    return amp_check_buf(nc->rank, nc->comm, buf, count, dt, nc->name, arg);
}

/* One side's arguments as the call gives them: buf with count and type
 * (one count and one type for all blocks), counts, displs (in extents) and
 * type (v forms), or counts, bdispls (in bytes) and types (w forms). */
typedef struct nb_args {
    const void *buf;
    int count;
    const int *counts;
    const int *displs;
    const MPI_Aint *bdispls;
    MPI_Datatype type;
    const MPI_Datatype *types;
} nb_args_t;

/* The names of a side's arguments, for errors: buf, count(s), displs,
 * type(s). */
typedef struct nb_names {
    const char *buf, *count, *displs, *type;
} nb_names_t;

static const nb_names_t send_regular = {"sendbuf", "sendcount", NULL,
                                        "sendtype"};
static const nb_names_t recv_regular = {"recvbuf", "recvcount", NULL,
                                        "recvtype"};
static const nb_names_t send_v = {"sendbuf", "sendcounts", "sdispls",
                                  "sendtype"};
static const nb_names_t recv_v = {"recvbuf", "recvcounts", "rdispls",
                                  "recvtype"};
static const nb_names_t recv_allgatherv = {"recvbuf", "recvcounts", "displs",
                                           "recvtype"};
static const nb_names_t send_w = {"sendbuf", "sendcounts", "sdispls",
                                  "sendtypes"};
static const nb_names_t recv_w = {"recvbuf", "recvcounts", "rdispls",
                                  "recvtypes"};

/* One count and one type for all blocks. */
static int nb_check_regular(const nb_call_t *nc, nb_side_t *side, int layout,
                            const nb_args_t *a, const nb_names_t *nm)
{
    side->layout = layout;
    side->buf = (char *)a->buf;
    side->count = a->count;
    int rc = amp_check_count(nc->rank, nc->comm, a->count, nc->name, nm->count);
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(nc->rank, nc->comm, a->type, nc->name, nm->type,
                          &side->dt);
    if (rc == MPI_SUCCESS)
        rc = nb_check_buf(nc, a->buf, a->count, side->dt, nm->buf);
    return rc;
}

static int nb_null_array(const nb_call_t *nc, const char *arg)
{
    return amp_mpi_error(nc->rank, nc->comm, MPI_ERR_ARG, nc->name,
                         "NULL pointer (argument %s)", arg);
}

/* Per-block counts and displacements (in extents) of one type, n blocks. */
static int nb_check_v(const nb_call_t *nc, nb_side_t *side, int n,
                      const nb_args_t *a, const nb_names_t *nm)
{
    const void *buf = a->buf;
    const int *counts = a->counts, *displs = a->displs;
    const char *bufarg = nm->buf, *countsarg = nm->count;
    const char *displsarg = nm->displs, *typearg = nm->type;
    side->layout = NB_V;
    side->buf = (char *)buf;
    side->counts = counts;
    side->displs = displs;
    int rc =
        amp_check_dt(nc->rank, nc->comm, a->type, nc->name, typearg, &side->dt);
    if (rc == MPI_SUCCESS && n > 0 && (!counts || !displs))
        rc = nb_null_array(nc, counts ? displsarg : countsarg);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
        rc =
            amp_check_count(nc->rank, nc->comm, counts[i], nc->name, countsarg);
        if (rc == MPI_SUCCESS)
            rc = nb_check_buf(nc, buf, counts[i], side->dt, bufarg);
    }
    return rc;
}

/* Per-block counts, byte displacements and types, n blocks; side->dts is
 * allocated (the caller frees it). */
static int nb_check_w(const nb_call_t *nc, nb_side_t *side, int n,
                      const nb_args_t *a, const nb_names_t *nm)
{
    const void *buf = a->buf;
    const int *counts = a->counts;
    const MPI_Aint *bdispls = a->bdispls;
    const MPI_Datatype *types = a->types;
    const char *bufarg = nm->buf, *countsarg = nm->count;
    const char *displsarg = nm->displs, *typesarg = nm->type;
    side->layout = NB_W;
    side->buf = (char *)buf;
    side->counts = counts;
    side->bdispls = bdispls;
    side->dts = NULL;
    if (n > 0 && (!counts || !bdispls || !types))
        return nb_null_array(nc, !counts    ? countsarg
                                 : !bdispls ? displsarg
                                            : typesarg);
    side->dts = malloc(n > 0 ? (size_t)n * sizeof(*side->dts) : 1);
    if (!side->dts)
        return amp_mpi_error(nc->rank, nc->comm, MPI_ERR_NO_MEM, nc->name,
                             "out of memory");
    int rc = MPI_SUCCESS;
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
        rc =
            amp_check_count(nc->rank, nc->comm, counts[i], nc->name, countsarg);
        if (rc == MPI_SUCCESS)
            rc = amp_check_dt(nc->rank, nc->comm, types[i], nc->name, typesarg,
                              &side->dts[i]);
        if (rc == MPI_SUCCESS)
            rc = nb_check_buf(nc, buf, counts[i], side->dts[i], bufarg);
    }
    return rc;
}

/* ---- running ---- */

/* Builds the exchange and starts it: as the request of a nonblocking call,
 * or to completion for a blocking one. */
/* Device memory (../stage.h): side's n blocks on a host copy for amp_coll_launch,
 * in role (receive blocks of MPI_PROC_NULL neighbors keep their values,
 * so received data is fetched first). */
static int nb_stage(const nb_call_t *nc, nb_side_t *side, int n, int role)
{
    amp_gpu_span_t sp = {0, 0, 1};
    for (int i = 0; i < (side->layout == NB_SAME ? 1 : n); i++) {
        char *b;
        int count;
        const amp_dt_t *dt;
        nb_block(side, i, &b, &count, &dt);
        amp_gpu_span_add(&sp, b - side->buf, count, dt);
    }
    void *v;
    int rc = amp_gpu_op_stage(nc->rank, nc->comm, &nc->rank->gpu_coll,
                              amp_gpu_stage_span(side->buf, &sp, role), &v,
                              nc->name);
    side->buf = v;
    return rc;
}

static int nb_run(const nb_call_t *nc, const nb_side_t *snd,
                  const nb_side_t *rcv)
{
    amp_coll_comm_t c;
    amp_nbc_t *s = NULL;
    nb_side_t sv = *snd, rv = *rcv;
    if (amp_proc.gpu) { /* device memory: host copies */
        int rc = nb_stage(nc, &sv, nc->topo->nout, AMP_GPU_SEND);
        if (rc == MPI_SUCCESS)
            rc = nb_stage(nc, &rv, nc->topo->nin, AMP_GPU_INOUT);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    amp_coll_comm_of(nc->rank, nc->comm, &c);
    amp_status_t st = nb_build(&c, nc->topo, &sv, &rv, &s);
    return amp_coll_launch(nc->rank, nc->comm, nc->comm_h, st, s, nc->request,
                           nc->name);
}

/* ---- the calls ---- */

/* Allgather (send layout NB_SAME) or alltoall (NB_REGULAR): one count and
 * one type per side. */
static int regular(const nb_args_t *sa, const nb_args_t *ra, int send_layout,
                   MPI_Comm comm_h, MPI_Request *request, int nonblocking,
                   const char *name)
{
    nb_call_t nc;
    nb_side_t snd, rcv;
    int rc = nb_enter(&nc, comm_h, request, nonblocking, name);
    if (rc == MPI_SUCCESS)
        rc = nb_check_regular(&nc, &snd, send_layout, sa, &send_regular);
    if (rc == MPI_SUCCESS)
        rc = nb_check_regular(&nc, &rcv, NB_REGULAR, ra, &recv_regular);
    if (rc != MPI_SUCCESS)
        return rc;
    return nb_run(&nc, &snd, &rcv);
}

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm)
{
    return regular(
        &(nb_args_t){.buf = sendbuf, .count = sendcount, .type = sendtype},
        &(nb_args_t){.buf = recvbuf, .count = recvcount, .type = recvtype},
        NB_SAME, comm, NULL, 0, "MPI_Neighbor_allgather");
}
AMP_WEAK_ALIAS(Neighbor_allgather)

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             int recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request *request)
{
    return regular(
        &(nb_args_t){.buf = sendbuf, .count = sendcount, .type = sendtype},
        &(nb_args_t){.buf = recvbuf, .count = recvcount, .type = recvtype},
        NB_SAME, comm, request, 1, "MPI_Ineighbor_allgather");
}
AMP_WEAK_ALIAS(Ineighbor_allgather)

static int allgatherv(const nb_args_t *sa, const nb_args_t *ra, MPI_Comm comm_h,
                      MPI_Request *request, int nonblocking, const char *name)
{
    nb_call_t nc;
    nb_side_t snd, rcv;
    int rc = nb_enter(&nc, comm_h, request, nonblocking, name);
    if (rc == MPI_SUCCESS)
        rc = nb_check_regular(&nc, &snd, NB_SAME, sa, &send_regular);
    if (rc == MPI_SUCCESS)
        rc = nb_check_v(&nc, &rcv, nc.topo->nin, ra, &recv_allgatherv);
    if (rc != MPI_SUCCESS)
        return rc;
    return nb_run(&nc, &snd, &rcv);
}

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgatherv(
        &(nb_args_t){.buf = sendbuf, .count = sendcount, .type = sendtype},
        &(nb_args_t){.buf = recvbuf,
                     .counts = recvcounts,
                     .displs = displs,
                     .type = recvtype},
        comm, NULL, 0, "MPI_Neighbor_allgatherv");
}
AMP_WEAK_ALIAS(Neighbor_allgatherv)

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request *request)
{
    return allgatherv(
        &(nb_args_t){.buf = sendbuf, .count = sendcount, .type = sendtype},
        &(nb_args_t){.buf = recvbuf,
                     .counts = recvcounts,
                     .displs = displs,
                     .type = recvtype},
        comm, request, 1, "MPI_Ineighbor_allgatherv");
}
AMP_WEAK_ALIAS(Ineighbor_allgatherv)

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm)
{
    return regular(
        &(nb_args_t){.buf = sendbuf, .count = sendcount, .type = sendtype},
        &(nb_args_t){.buf = recvbuf, .count = recvcount, .type = recvtype},
        NB_REGULAR, comm, NULL, 0, "MPI_Neighbor_alltoall");
}
AMP_WEAK_ALIAS(Neighbor_alltoall)

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    return regular(
        &(nb_args_t){.buf = sendbuf, .count = sendcount, .type = sendtype},
        &(nb_args_t){.buf = recvbuf, .count = recvcount, .type = recvtype},
        NB_REGULAR, comm, request, 1, "MPI_Ineighbor_alltoall");
}
AMP_WEAK_ALIAS(Ineighbor_alltoall)

static int alltoallv(const nb_args_t *sa, const nb_args_t *ra, MPI_Comm comm_h,
                     MPI_Request *request, int nonblocking, const char *name)
{
    nb_call_t nc;
    nb_side_t snd, rcv;
    int rc = nb_enter(&nc, comm_h, request, nonblocking, name);
    if (rc == MPI_SUCCESS)
        rc = nb_check_v(&nc, &snd, nc.topo->nout, sa, &send_v);
    if (rc == MPI_SUCCESS)
        rc = nb_check_v(&nc, &rcv, nc.topo->nin, ra, &recv_v);
    if (rc != MPI_SUCCESS)
        return rc;
    return nb_run(&nc, &snd, &rcv);
}

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                            const int sdispls[], MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm)
{
    return alltoallv(&(nb_args_t){.buf = sendbuf,
                                  .counts = sendcounts,
                                  .displs = sdispls,
                                  .type = sendtype},
                     &(nb_args_t){.buf = recvbuf,
                                  .counts = recvcounts,
                                  .displs = rdispls,
                                  .type = recvtype},
                     comm, NULL, 0, "MPI_Neighbor_alltoallv");
}
AMP_WEAK_ALIAS(Neighbor_alltoallv)

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                             const int sdispls[], MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request *request)
{
    return alltoallv(&(nb_args_t){.buf = sendbuf,
                                  .counts = sendcounts,
                                  .displs = sdispls,
                                  .type = sendtype},
                     &(nb_args_t){.buf = recvbuf,
                                  .counts = recvcounts,
                                  .displs = rdispls,
                                  .type = recvtype},
                     comm, request, 1, "MPI_Ineighbor_alltoallv");
}
AMP_WEAK_ALIAS(Ineighbor_alltoallv)

static int alltoallw(const nb_args_t *sa, const nb_args_t *ra, MPI_Comm comm_h,
                     MPI_Request *request, int nonblocking, const char *name)
{
    nb_call_t nc;
    nb_side_t snd = {.dts = NULL}, rcv = {.dts = NULL};
    int rc = nb_enter(&nc, comm_h, request, nonblocking, name);
    if (rc == MPI_SUCCESS)
        rc = nb_check_w(&nc, &snd, nc.topo->nout, sa, &send_w);
    if (rc == MPI_SUCCESS)
        rc = nb_check_w(&nc, &rcv, nc.topo->nin, ra, &recv_w);
    if (rc == MPI_SUCCESS)
        rc = nb_run(&nc, &snd, &rcv);
    free(snd.dts);
    free(rcv.dts);
    return rc;
}

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                            const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf,
                            const int recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return alltoallw(&(nb_args_t){.buf = sendbuf,
                                  .counts = sendcounts,
                                  .bdispls = sdispls,
                                  .types = sendtypes},
                     &(nb_args_t){.buf = recvbuf,
                                  .counts = recvcounts,
                                  .bdispls = rdispls,
                                  .types = recvtypes},
                     comm, NULL, 0, "MPI_Neighbor_alltoallw");
}
AMP_WEAK_ALIAS(Neighbor_alltoallw)

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                             const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf,
                             const int recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request *request)
{
    return alltoallw(&(nb_args_t){.buf = sendbuf,
                                  .counts = sendcounts,
                                  .bdispls = sdispls,
                                  .types = sendtypes},
                     &(nb_args_t){.buf = recvbuf,
                                  .counts = recvcounts,
                                  .bdispls = rdispls,
                                  .types = recvtypes},
                     comm, request, 1, "MPI_Ineighbor_alltoallw");
}
AMP_WEAK_ALIAS(Ineighbor_alltoallw)
