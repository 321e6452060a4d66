/*
 * Process topologies (MPI chapter 7): Cartesian grids, graphs and
 * distributed graphs and their constructors.  The queries and
 * MPI_Dims_create are in topology_query.c, the neighborhood collectives
 * that use the topologies in neighbor.c.
 *
 * reorder is ignored: rank i of a new topology communicator is rank i of
 * the old one (ranks are threads that the load balancer moves anyway).
 */
#include "mpi/comm/topology.h"
#include "mpi/attr/attr.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

amp_topology_t *amp_topology_new(int kind, size_t nints)
{
    amp_topology_t *t = calloc(1, sizeof(*t) + nints * sizeof(int));
    if (!t)
        return NULL;
    t->kind = kind;
    t->nints = nints;
    return t;
}

static int *rebase(int *p, const amp_topology_t *from, amp_topology_t *to)
{
    return p ? to->data + (p - from->data) : NULL;
}

amp_status_t amp_topology_dup(const amp_topology_t *t, amp_topology_t **copy)
{
    *copy = NULL;
    if (!t)
        return AMP_OK;
    size_t bytes = sizeof(*t) + t->nints * sizeof(int);
    amp_topology_t *c = malloc(bytes);
    if (!c)
        return AMP_ERR_NOMEM;
    memcpy(c, t, bytes);
    c->dims = rebase(t->dims, t, c);
    c->periods = rebase(t->periods, t, c);
    c->coords = rebase(t->coords, t, c);
    c->index = rebase(t->index, t, c);
    c->edges = rebase(t->edges, t, c);
    c->in = rebase(t->in, t, c);
    c->out = rebase(t->out, t, c);
    c->inw = rebase(t->inw, t, c);
    c->outw = rebase(t->outw, t, c);
    *copy = c;
    return AMP_OK;
}

void amp_topology_free(amp_topology_t *t)
{
    free(t);
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case MPI_CART: return "a Cartesian";
    case MPI_GRAPH: return "a graph";
    }
    return "a distributed graph";
}

int amp_topology_enter(amp_rank_t **rank, MPI_Comm comm_h, int kind,
                       const char *call, amp_comm_t **comm, amp_topology_t **t)
{
    int rc = amp_mpi_enter(rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(*rank, comm_h, call, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    *t = (*comm)->topo;
    if (*t && (kind == 0 || (*t)->kind == kind))
        return MPI_SUCCESS;
    if (!*t)
        return amp_mpi_error(*rank, *comm, MPI_ERR_TOPOLOGY, call,
                             "the communicator has no process topology "
                             "(argument comm)");
    return amp_mpi_error(*rank, *comm, MPI_ERR_TOPOLOGY, call,
                         "the communicator has %s topology, not %s one "
                         "(argument comm)",
                         kind_name((*t)->kind), kind_name(kind));
}

static int null_arg(amp_rank_t *rank, amp_comm_t *comm, const char *call,
                    const char *arg)
{
    return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                         "NULL pointer (argument %s)", arg);
}

/* Enters call with an intra-communicator to build a topology on. */
static int enter_old(amp_rank_t **rank, MPI_Comm comm_h, const char *call,
                     amp_comm_t **comm)
{
    int rc = amp_mpi_enter(rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(*rank, comm_h, call, comm);
    if (rc == MPI_SUCCESS && (*comm)->is_inter)
        rc = amp_mpi_error(*rank, *comm, MPI_ERR_COMM, call,
                           "an inter-communicator cannot have a topology "
                           "(argument comm_old)");
    return rc;
}

/* ---- new communicators ---- */

/* Collective over comm_h, once the other arguments are checked: checks out
 * (named outarg) and agrees on the new communicator's context.  On return
 * *rank and *comm are re-read (the agreement may block). */
static int agree_ctx(amp_rank_t **rank, MPI_Comm comm_h, amp_comm_t **comm,
                     const char *call, MPI_Comm *out, const char *outarg,
                     int *ctx)
{
    if (!out)
        return null_arg(*rank, *comm, call, outarg);
    (*rank)->call = call;
    amp_status_t st = amp_comm_agree_ctx(*rank, *comm, ctx);
    *rank = amp_rank_self();
    *comm = amp_comm_lookup(*rank, comm_h);
    if (st == AMP_OK)
        return MPI_SUCCESS;
    return amp_mpi_error(*rank, *comm, amp_mpi_class_of(st), call, "%s",
                         amp_status_str(st));
}

/* The communicator of the first n ranks of comm, on context ctx, with
 * topology t (which it takes over; NULL means building it ran out of
 * memory).  Ranks from n on get MPI_COMM_NULL and must pass t NULL. */
static int attach(amp_rank_t *rank, amp_comm_t *comm, int ctx, int n,
                  amp_topology_t *t, const char *call, MPI_Comm *out)
{
    if (comm->rank >= n) {
        *out = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    int *world = NULL;
    if (t && comm->world) {
        world = malloc((size_t)n * sizeof(int));
        if (world)
            memcpy(world, comm->world, (size_t)n * sizeof(int));
    }
    amp_comm_t *c = t && (world || !comm->world)
                        ? amp_comm_new(rank, ctx, comm->rank, n, world)
                        : NULL;
    if (!c) {
        free(world);
        amp_topology_free(t);
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    c->errh = comm->errh;
    c->session_memkinds = comm->session_memkinds;
    c->topo = t;
    *out = AMPI_HANDLE(AMPI_HANDLE_COMM, c->obj.idx);
    return MPI_SUCCESS;
}

/* MPI_Cart_map and MPI_Graph_map, once the other arguments are checked:
 * rank i keeps rank i in a topology of nodes ranks. */
static int map_rank(amp_rank_t *rank, amp_comm_t *comm, int nodes, int *newrank,
                    const char *call)
{
    if (!newrank)
        return null_arg(rank, comm, call, "newrank");
    *newrank = comm->rank < nodes ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* ---- Cartesian grids ---- */

/* The grid of the dimensions d < n of dims and periods that keep[d] marks
 * (keep NULL: all of them), with this rank at r.  The neighbor lists are,
 * per dimension, the neighbor in the negative and then in the positive
 * direction. */
static amp_topology_t *cart_new(int n, const int *dims, const int *periods,
                                const int *keep, int r)
{
    int ndims = 0;
    for (int d = 0; d < n; d++)
        ndims += !keep || keep[d];
    amp_topology_t *t = amp_topology_new(MPI_CART, 5 * (size_t)ndims);
    if (!t)
        return NULL;
    t->ndims = ndims;
    t->dims = t->data;
    t->periods = t->data + ndims;
    t->coords = t->data + 2 * ndims;
    t->in = t->out = t->data + 3 * ndims;
    t->nin = t->nout = 2 * ndims;
    for (int d = 0, k = 0; d < n; d++) {
        if (keep && !keep[d])
            continue;
        t->dims[k] = dims[d];
        t->periods[k++] = periods[d] != 0;
    }
    for (int d = 0; d < ndims; d++) {
        t->coords[d] = amp_topology_cart_coord(t, r, d);
        t->in[2 * d] = amp_topology_cart_step(t, r, d, -1);
        t->in[2 * d + 1] = amp_topology_cart_step(t, r, d, 1);
    }
    return t;
}

/* Checks a grid description; *nodes is the product of dims. */
static int check_grid(amp_rank_t *rank, amp_comm_t *comm, int ndims,
                      const int *dims, const int *periods, const char *call,
                      int *nodes)
{
    if (ndims < 0)
        return amp_mpi_error(rank, comm, MPI_ERR_DIMS, call,
                             "negative number of dimensions %d (argument "
                             "ndims)",
                             ndims);
    if (ndims > 0 && (!dims || !periods))
        return null_arg(rank, comm, call, dims ? "periods" : "dims");
    long long n = 1;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] <= 0)
            return amp_mpi_error(rank, comm, MPI_ERR_DIMS, call,
                                 "dims[%d] is %d; every dimension needs at "
                                 "least one rank (argument dims)",
                                 d, dims[d]);
        n *= dims[d];
        if (n > comm->size)
            return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                                 "the grid needs more ranks than the "
                                 "communicator's %d (argument dims)",
                                 comm->size);
    }
    *nodes = (int)n;
    return MPI_SUCCESS;
}

int PMPI_Cart_create(MPI_Comm comm_h, int ndims, const int dims[],
                     const int periods[], int reorder, MPI_Comm *comm_cart)
{
    (void)reorder;
    amp_rank_t *rank;
    amp_comm_t *comm;
    const char *call = "MPI_Cart_create";
    int nodes = 0, ctx;
    int rc = enter_old(&rank, comm_h, call, &comm);
    if (rc == MPI_SUCCESS)
        rc = check_grid(rank, comm, ndims, dims, periods, call, &nodes);
    if (rc == MPI_SUCCESS)
        rc =
            agree_ctx(&rank, comm_h, &comm, call, comm_cart, "comm_cart", &ctx);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_topology_t *t = NULL;
    if (comm->rank < nodes)
        t = cart_new(ndims, dims, periods, NULL, comm->rank);
    return attach(rank, comm, ctx, nodes, t, call, comm_cart);
}
AMP_WEAK_ALIAS(Cart_create)

int PMPI_Cart_map(MPI_Comm comm_h, int ndims, const int dims[],
                  const int periods[], int *newrank)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const char *call = "MPI_Cart_map";
    int nodes = 0;
    int rc = enter_old(&rank, comm_h, call, &comm);
    if (rc == MPI_SUCCESS)
        rc = check_grid(rank, comm, ndims, dims, periods, call, &nodes);
    if (rc == MPI_SUCCESS)
        rc = map_rank(rank, comm, nodes, newrank, call);
    return rc;
}
AMP_WEAK_ALIAS(Cart_map)

/* Collective: the subgrids along the dimensions kept, by MPI_Comm_split
 * with the coordinates dropped as color and those kept as key. */
int PMPI_Cart_sub(MPI_Comm comm_h, const int remain_dims[], MPI_Comm *newcomm)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    amp_topology_t *t;
    const char *call = "MPI_Cart_sub";
    int rc = amp_topology_enter(&rank, comm_h, MPI_CART, call, &comm, &t);
    if (rc == MPI_SUCCESS && ((t->ndims > 0 && !remain_dims) || !newcomm))
        rc = null_arg(rank, comm, call, newcomm ? "remain_dims" : "newcomm");
    if (rc != MPI_SUCCESS)
        return rc;
    int color = 0, key = 0;
    for (int d = 0; d < t->ndims; d++) {
        if (remain_dims[d])
            key = key * t->dims[d] + t->coords[d];
        else
            color = color * t->dims[d] + t->coords[d];
    }
    rc = PMPI_Comm_split(comm_h, color, key, newcomm);
    if (rc != MPI_SUCCESS)
        return rc;
    rank = amp_rank_self();
    comm = amp_comm_lookup(rank, comm_h);
    t = comm->topo;
    amp_comm_t *sub = amp_comm_lookup(rank, *newcomm);
    sub->topo = cart_new(t->ndims, t->dims, t->periods, remain_dims, key);
    if (sub->topo)
        return MPI_SUCCESS;
    PMPI_Comm_free(newcomm);
    return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call, "out of memory");
}
AMP_WEAK_ALIAS(Cart_sub)

/* ---- graphs ---- */

static int check_graph(amp_rank_t *rank, amp_comm_t *comm, int nnodes,
                       const int *index, const int *edges, const char *call)
{
    if (nnodes < 0 || nnodes > comm->size)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                             "nnodes %d is outside 0..%d, the size of the "
                             "communicator (argument nnodes)",
                             nnodes, comm->size);
    if (nnodes > 0 && !index)
        return null_arg(rank, comm, call, "index");
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                                 "index[%d] is %d, less than the entry "
                                 "before; index holds running totals of "
                                 "degrees (argument index)",
                                 i, index[i]);
    int nedges = nnodes ? index[nnodes - 1] : 0;
    if (nedges > 0 && !edges)
        return null_arg(rank, comm, call, "edges");
    for (int i = 0; i < nedges; i++)
        if (edges[i] < 0 || edges[i] >= nnodes)
            return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                                 "edges[%d] is %d, not a node 0..%d "
                                 "(argument edges)",
                                 i, edges[i], nnodes - 1);
    return MPI_SUCCESS;
}

static amp_topology_t *graph_new(int nnodes, const int *index, const int *edges,
                                 int r)
{
    int nedges = index[nnodes - 1];
    amp_topology_t *t =
        amp_topology_new(MPI_GRAPH, (size_t)nnodes + (size_t)nedges);
    if (!t)
        return NULL;
    t->nnodes = nnodes;
    t->nedges = nedges;
    t->index = t->data;
    t->edges = t->data + nnodes;
    memcpy(t->index, index, (size_t)nnodes * sizeof(int));
    memcpy(t->edges, edges, (size_t)nedges * sizeof(int));
    int first = r ? index[r - 1] : 0;
    t->in = t->out = t->edges + first;
    t->nin = t->nout = index[r] - first;
    return t;
}

int PMPI_Graph_create(MPI_Comm comm_h, int nnodes, const int index[],
                      const int edges[], int reorder, MPI_Comm *comm_graph)
{
    (void)reorder;
    amp_rank_t *rank;
    amp_comm_t *comm;
    const char *call = "MPI_Graph_create";
    int ctx;
    int rc = enter_old(&rank, comm_h, call, &comm);
    if (rc == MPI_SUCCESS)
        rc = check_graph(rank, comm, nnodes, index, edges, call);
    if (rc == MPI_SUCCESS)
        rc = agree_ctx(&rank, comm_h, &comm, call, comm_graph, "comm_graph",
                       &ctx);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_topology_t *t = NULL;
    if (comm->rank < nnodes)
        t = graph_new(nnodes, index, edges, comm->rank);
    return attach(rank, comm, ctx, nnodes, t, call, comm_graph);
}
AMP_WEAK_ALIAS(Graph_create)

int PMPI_Graph_map(MPI_Comm comm_h, int nnodes, const int index[],
                   const int edges[], int *newrank)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const char *call = "MPI_Graph_map";
    int rc = enter_old(&rank, comm_h, call, &comm);
    if (rc == MPI_SUCCESS)
        rc = check_graph(rank, comm, nnodes, index, edges, call);
    if (rc == MPI_SUCCESS)
        rc = map_rank(rank, comm, nnodes, newrank, call);
    return rc;
}
AMP_WEAK_ALIAS(Graph_map)

/* ---- distributed graphs ---- */

/* n ranks of comm in array (named arg), n counted by degarg. */
static int check_ranks(amp_rank_t *rank, amp_comm_t *comm, int n,
                       const int *array, const char *call, const char *degarg,
                       const char *arg)
{
    if (n < 0)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                             "negative %s %d (argument %s)", degarg, n, degarg);
    if (n > 0 && !array)
        return null_arg(rank, comm, call, arg);
    for (int i = 0; i < n; i++)
        if (array[i] < 0 || array[i] >= comm->size)
            return amp_mpi_error(rank, comm, MPI_ERR_RANK, call,
                                 "%s[%d] is %d, not a rank of the "
                                 "communicator's %d (argument %s)",
                                 arg, i, array[i], comm->size, arg);
    return MPI_SUCCESS;
}

/* Weights of n edges: MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY (n == 0 only), or
 * n non-negative values. */
static int check_weights(amp_rank_t *rank, amp_comm_t *comm, long long n,
                         const int *w, const char *call, const char *arg)
{
    if (w == MPI_UNWEIGHTED)
        return MPI_SUCCESS;
    if (w == MPI_WEIGHTS_EMPTY && n > 0)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                             "MPI_WEIGHTS_EMPTY for %lld edges; it stands for "
                             "no edges (argument %s)",
                             n, arg);
    if (w == MPI_WEIGHTS_EMPTY)
        return MPI_SUCCESS;
    if (n > 0 && !w)
        return null_arg(rank, comm, call, arg);
    for (long long i = 0; i < n; i++)
        if (w[i] < 0)
            return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                                 "%s[%lld] is %d; weights are non-negative "
                                 "(argument %s)",
                                 arg, i, w[i], arg);
    return MPI_SUCCESS;
}

/* One side of a distributed graph's edges: n ranks (named ranksarg, n
 * counted by degarg) and their weights (named weightsarg). */
typedef struct edges {
    long long n;
    const int *ranks, *weights;
    const char *degarg, *ranksarg, *weightsarg;
} edges_t;

static int check_adjacency(amp_rank_t *rank, amp_comm_t *comm, const edges_t *e,
                           const char *call)
{
    int rc = check_ranks(rank, comm, (int)e->n, e->ranks, call, e->degarg,
                         e->ranksarg);
    if (rc == MPI_SUCCESS)
        rc = check_weights(rank, comm, e->n, e->weights, call, e->weightsarg);
    return rc;
}

/* A distributed graph with room for nin in- and nout out-neighbors (and
 * their weights when weighted); the lists are the caller's to fill. */
/* n ints from from (NULL when n is 0: the program may pass it then). */
static void copy_ints(int *to, const int *from, int n)
{
    if (n > 0)
        memcpy(to, from, (size_t)n * sizeof(int));
}

static amp_topology_t *dist_new(int nin, int nout, int weighted)
{
    size_t n = (size_t)nin + (size_t)nout;
    amp_topology_t *t = amp_topology_new(MPI_DIST_GRAPH, weighted ? 2 * n : n);
    if (!t)
        return NULL;
    t->weighted = weighted;
    t->nin = nin;
    t->nout = nout;
    t->in = t->data;
    t->out = t->data + nin;
    if (weighted) {
        t->inw = t->data + n;
        t->outw = t->inw + nin;
    }
    return t;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_h, int indegree,
                                    const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[],
                                    const int destweights[], MPI_Info info,
                                    int reorder, MPI_Comm *comm_dist_graph)
{
    (void)reorder;
    amp_rank_t *rank;
    amp_comm_t *comm;
    const char *call = "MPI_Dist_graph_create_adjacent";
    int ctx;
    int rc = enter_old(&rank, comm_h, call, &comm);
    if (rc == MPI_SUCCESS)
        rc = check_adjacency(rank, comm,
                             &(edges_t){.n = indegree,
                                        .ranks = sources,
                                        .weights = sourceweights,
                                        .degarg = "indegree",
                                        .ranksarg = "sources",
                                        .weightsarg = "sourceweights"},
                             call);
    if (rc == MPI_SUCCESS)
        rc = check_adjacency(rank, comm,
                             &(edges_t){.n = outdegree,
                                        .ranks = destinations,
                                        .weights = destweights,
                                        .degarg = "outdegree",
                                        .ranksarg = "destinations",
                                        .weightsarg = "destweights"},
                             call);
    if (rc == MPI_SUCCESS) /* no hints apply, but the handle must be one */
        rc = amp_check_info(rank, comm, info, call);
    if (rc == MPI_SUCCESS)
        rc = agree_ctx(&rank, comm_h, &comm, call, comm_dist_graph,
                       "comm_dist_graph", &ctx);
    if (rc != MPI_SUCCESS)
        return rc;
    int weighted = sourceweights != MPI_UNWEIGHTED;
    amp_topology_t *t = dist_new(indegree, outdegree, weighted);
    if (t) {
        copy_ints(t->in, sources, indegree);
        copy_ints(t->out, destinations, outdegree);
    }
    if (t && weighted) {
        copy_ints(t->inw, sourceweights, indegree);
        copy_ints(t->outw, destweights, outdegree);
    }
    return attach(rank, comm, ctx, comm->size, t, call, comm_dist_graph);
}
AMP_WEAK_ALIAS(Dist_graph_create_adjacent)

/* The general constructor's exchange: every edge s -> d that some rank
 * names travels as a record to s (an out-edge to d) and to d (an in-edge
 * from s).  The records go on the new communicator's point-to-point
 * context, which nothing else uses before every member has returned from
 * the constructor, under a negative tag no user message can carry; each
 * rank learns from an allreduce how many messages to expect. */
enum { TAG_DIST_GRAPH_EDGES = -16 };
enum { REC_DIR, REC_PEER, REC_WEIGHT, REC_INTS };
enum { EDGE_OUT, EDGE_IN };

typedef struct dist_edges {
    int n;
    const int *sources, *degrees, *dests, *weights;
    int weighted;
} dist_edges_t;

/* The records this rank sends, grouped by target: target t's cnt[t]
 * records start at recs + REC_INTS * off[t]. */
typedef struct dist_out {
    int *cnt, *off, *recs;
} dist_out_t;

static void put_rec(dist_out_t *o, int *pos, int target, int dir, int peer,
                    int weight)
{
    int *r = o->recs + REC_INTS * (size_t)pos[target]++;
    r[REC_DIR] = dir;
    r[REC_PEER] = peer;
    r[REC_WEIGHT] = weight;
}

static amp_status_t dist_out_build(const dist_edges_t *e, int size,
                                   dist_out_t *o)
{
    long long total = 0;
    o->cnt = calloc(2 * (size_t)size, sizeof(int));
    if (!o->cnt)
        return AMP_ERR_NOMEM;
    o->off = o->cnt + size;
    for (int i = 0, k = 0; i < e->n; i++)
        for (int j = 0; j < e->degrees[i]; j++, k++) {
            o->cnt[e->sources[i]]++;
            o->cnt[e->dests[k]]++;
        }
    for (int t = 0; t < size; t++) {
        o->off[t] = (int)total;
        total += o->cnt[t];
    }
    size_t bytes = REC_INTS * (size_t)total * sizeof(int);
    o->recs = malloc(bytes ? bytes : 1);
    int *pos = malloc((size_t)size * sizeof(int));
    if (!o->recs || !pos) {
        free(pos);
        return AMP_ERR_NOMEM;
    }
    memcpy(pos, o->off, (size_t)size * sizeof(int));
    for (int i = 0, k = 0; i < e->n; i++)
        for (int j = 0; j < e->degrees[i]; j++, k++) {
            int s = e->sources[i], d = e->dests[k];
            int w = e->weighted ? e->weights[k] : 1;
            put_rec(o, pos, s, EDGE_OUT, d, w);
            put_rec(o, pos, d, EDGE_IN, s, w);
        }
    free(pos);
    return AMP_OK;
}

static void dist_out_free(dist_out_t *o)
{
    free(o->cnt);
    free(o->recs);
}

/* What this rank received: from each rank, its records (or NULL). */
typedef struct dist_in {
    int **recs;
    int *nrecs;
} dist_in_t;

/* Sends the records and receives those for this rank on the new context
 * ctx of comm's members. */
static amp_status_t dist_trade(amp_rank_t *rank, amp_comm_t *comm, int ctx,
                               const dist_out_t *o, dist_in_t *in)
{
    int size = comm->size, me = comm->rank, nsend = 0;
    amp_coll_comm_t c;
    amp_coll_op_t sum = {.op_id = AMP_HANDLE_INDEX(MPI_SUM)};
    int *has = malloc(2 * (size_t)size * sizeof(int));
    amp_p2p_req_t *sreqs = malloc((size_t)size * sizeof(*sreqs));
    amp_p2p_req_t **sp = malloc((size_t)size * sizeof(*sp));
    if (!has || !sreqs || !sp) {
        free(has);
        free(sreqs);
        free(sp);
        return AMP_ERR_NOMEM;
    }
    for (int t = 0; t < size; t++)
        has[t] = o->cnt[t] > 0;
    amp_coll_comm_of(rank, comm, &c);
    amp_status_t st = amp_coll_allreduce(
        &c, has, has + size, size, amp_dt_predefined(AMPI_DTID_MPI_INT), &sum);
    rank = amp_rank_self();
    for (int t = 0; st == AMP_OK && t < size; t++) {
        if (!o->cnt[t])
            continue;
        sreqs[nsend].on_done = NULL;
        sp[nsend] = &sreqs[nsend];
        amp_p2p_isend(&rank->ep, o->recs + REC_INTS * (size_t)o->off[t],
                      REC_INTS * (size_t)o->cnt[t] * sizeof(int),
                      (amp_p2p_env_t){.ctx = ctx,
                                      .src = me,
                                      .dst = amp_comm_world_rank(comm, t),
                                      .tag = TAG_DIST_GRAPH_EDGES},
                      AMP_P2P_STANDARD, &sreqs[nsend]);
        nsend++;
    }
    for (int i = 0; st == AMP_OK && i < has[size + me]; i++) {
        amp_p2p_probe_info_t info;
        amp_p2p_req_t req = {.on_done = NULL};
        amp_p2p_req_t *rp = &req;
        amp_p2p_probe(&rank->ep, ctx, AMP_P2P_ANY, TAG_DIST_GRAPH_EDGES, &info);
        rank = amp_rank_self();
        int *buf = malloc(info.bytes);
        if (!buf)
            amp_fatal("out of memory receiving %zu bytes of graph edges",
                      info.bytes);
        amp_p2p_irecv(&rank->ep, buf, info.bytes,
                      (amp_p2p_env_t){.ctx = ctx,
                                      .src = info.source,
                                      .tag = TAG_DIST_GRAPH_EDGES},
                      &req);
        amp_p2p_wait_all(&rank->ep, &rp, 1);
        rank = amp_rank_self();
        in->recs[info.source] = buf;
        in->nrecs[info.source] = (int)(info.bytes / (REC_INTS * sizeof(int)));
    }
    amp_p2p_wait_all(&rank->ep, sp, nsend);
    free(has);
    free(sreqs);
    free(sp);
    return st;
}

/* The topology from the records received, in the order of the ranks that
 * named the edges and, within one rank, its order. */
static amp_topology_t *dist_from_records(const dist_in_t *in, int size,
                                         int weighted)
{
    int nin = 0, nout = 0;
    for (int s = 0; s < size; s++)
        for (int i = 0; i < in->nrecs[s]; i++) {
            if (in->recs[s][REC_INTS * i + REC_DIR] == EDGE_IN)
                nin++;
            else
                nout++;
        }
    amp_topology_t *t = dist_new(nin, nout, weighted);
    if (!t)
        return NULL;
    int ki = 0, ko = 0;
    for (int s = 0; s < size; s++)
        for (int i = 0; i < in->nrecs[s]; i++) {
            const int *r = in->recs[s] + REC_INTS * i;
            int is_in = r[REC_DIR] == EDGE_IN, k = is_in ? ki++ : ko++;
            (is_in ? t->in : t->out)[k] = r[REC_PEER];
            if (weighted)
                (is_in ? t->inw : t->outw)[k] = r[REC_WEIGHT];
        }
    return t;
}

/* The exchange and the topology it gives this rank: *t (NULL when out of
 * memory after the exchange). */
static amp_status_t dist_build(amp_rank_t *rank, amp_comm_t *comm, int ctx,
                               const dist_edges_t *e, amp_topology_t **t)
{
    int size = comm->size;
    dist_out_t o = {0};
    dist_in_t in;
    *t = NULL;
    in.recs = calloc((size_t)size, sizeof(*in.recs));
    in.nrecs = calloc((size_t)size, sizeof(int));
    amp_status_t st =
        in.recs && in.nrecs ? dist_out_build(e, size, &o) : AMP_ERR_NOMEM;
    if (st == AMP_OK)
        st = dist_trade(rank, comm, ctx, &o, &in);
    if (st == AMP_OK)
        *t = dist_from_records(&in, size, e->weighted);
    dist_out_free(&o);
    for (int s = 0; in.recs && s < size; s++)
        free(in.recs[s]);
    free(in.recs);
    free(in.nrecs);
    return st;
}

/* The n sources' degrees: *nedges edges in all, at most INT_MAX. */
static int count_edges(amp_rank_t *rank, amp_comm_t *comm, int n,
                       const int *degrees, const char *call, long long *nedges)
{
    *nedges = 0;
    if (n > 0 && !degrees)
        return null_arg(rank, comm, call, "degrees");
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                                 "degrees[%d] is %d (argument degrees)", i,
                                 degrees[i]);
        *nedges += degrees[i];
    }
    if (*nedges > INT_MAX)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                             "%lld edges; at most INT_MAX (argument degrees)",
                             *nedges);
    return MPI_SUCCESS;
}

int PMPI_Dist_graph_create(MPI_Comm comm_h, int n, const int sources[],
                           const int degrees[], const int destinations[],
                           const int weights[], MPI_Info info, int reorder,
                           MPI_Comm *comm_dist_graph)
{
    (void)reorder;
    amp_rank_t *rank;
    amp_comm_t *comm;
    const char *call = "MPI_Dist_graph_create";
    long long nedges = 0;
    int ctx;
    int rc = enter_old(&rank, comm_h, call, &comm);
    if (rc == MPI_SUCCESS)
        rc = check_ranks(rank, comm, n, sources, call, "n", "sources");
    if (rc == MPI_SUCCESS)
        rc = count_edges(rank, comm, n, degrees, call, &nedges);
    if (rc == MPI_SUCCESS)
        rc = check_adjacency(rank, comm,
                             &(edges_t){.n = nedges,
                                        .ranks = destinations,
                                        .weights = weights,
                                        .degarg = "sum of degrees",
                                        .ranksarg = "destinations",
                                        .weightsarg = "weights"},
                             call);
    if (rc == MPI_SUCCESS) /* no hints apply, but the handle must be one */
        rc = amp_check_info(rank, comm, info, call);
    if (rc == MPI_SUCCESS)
        rc = agree_ctx(&rank, comm_h, &comm, call, comm_dist_graph,
                       "comm_dist_graph", &ctx);
    if (rc != MPI_SUCCESS)
        return rc;
    dist_edges_t e = {
        n, sources, degrees, destinations, weights, weights != MPI_UNWEIGHTED};
    amp_topology_t *t;
    rank->call = call;
    amp_status_t st = dist_build(rank, comm, ctx, &e, &t);
    rank = amp_rank_self();
    comm = amp_comm_lookup(rank, comm_h);
    if (st != AMP_OK)
        return amp_mpi_error(rank, comm, amp_mpi_class_of(st), call, "%s",
                             amp_status_str(st));
    return attach(rank, comm, ctx, comm->size, t, call, comm_dist_graph);
}
AMP_WEAK_ALIAS(Dist_graph_create)
