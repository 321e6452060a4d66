/*
 * Process topologies (MPI chapter 7): the queries on a topology
 * communicator and MPI_Dims_create.  The constructors are in topology.c.
 */
#include "mpi/comm/topology.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A query: the caller, its communicator and the communicator's topology. */
typedef struct query {
    const char *call;
    amp_rank_t *rank;
    amp_comm_t *comm;
    amp_topology_t *t;
} query_t;

/* Enters call with comm_h, which must have a topology of kind (0: any). */
static int enter(query_t *q, MPI_Comm comm_h, int kind, const char *call)
{
    q->call = call;
    return amp_topology_enter(&q->rank, comm_h, kind, call, &q->comm, &q->t);
}

static int null_arg(const query_t *q, const char *arg)
{
    return amp_mpi_error(q->rank, q->comm, MPI_ERR_ARG, q->call,
                         "NULL pointer (argument %s)", arg);
}

/* ---- Cartesian grids ---- */

int PMPI_Cartdim_get(MPI_Comm comm_h, int *ndims)
{
    query_t q;
    int rc = enter(&q, comm_h, MPI_CART, "MPI_Cartdim_get");
    if (rc == MPI_SUCCESS && !ndims)
        rc = null_arg(&q, "ndims");
    if (rc == MPI_SUCCESS)
        *ndims = q.t->ndims;
    return rc;
}
AMP_WEAK_ALIAS(Cartdim_get)

/* maxdims, the length of the caller's arrays, holds the grid's ndims. */
static int check_maxdims(const query_t *q, int maxdims)
{
    if (maxdims >= q->t->ndims)
        return MPI_SUCCESS;
    return amp_mpi_error(q->rank, q->comm, MPI_ERR_ARG, q->call,
                         "maxdims %d is less than the grid's %d dimensions "
                         "(argument maxdims)",
                         maxdims, q->t->ndims);
}

int PMPI_Cart_get(MPI_Comm comm_h, int maxdims, int dims[], int periods[],
                  int coords[])
{
    query_t q;
    int rc = enter(&q, comm_h, MPI_CART, "MPI_Cart_get");
    if (rc == MPI_SUCCESS)
        rc = check_maxdims(&q, maxdims);
    if (rc == MPI_SUCCESS && q.t->ndims > 0 && (!dims || !periods || !coords))
        rc = null_arg(&q, !dims ? "dims" : !periods ? "periods" : "coords");
    if (rc != MPI_SUCCESS)
        return rc;
    for (int d = 0; d < q.t->ndims; d++) {
        dims[d] = q.t->dims[d];
        periods[d] = q.t->periods[d];
        coords[d] = q.t->coords[d];
    }
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Cart_get)

int PMPI_Cart_rank(MPI_Comm comm_h, const int coords[], int *rank_out)
{
    query_t q;
    int rc = enter(&q, comm_h, MPI_CART, "MPI_Cart_rank");
    if (rc == MPI_SUCCESS && ((q.t->ndims > 0 && !coords) || !rank_out))
        rc = null_arg(&q, rank_out ? "coords" : "rank");
    if (rc != MPI_SUCCESS)
        return rc;
    int r = 0;
    for (int d = 0; d < q.t->ndims; d++) {
        int n = q.t->dims[d], c = coords[d];
        if (q.t->periods[d])
            c = ((c % n) + n) % n;
        else if (c < 0 || c >= n)
            return amp_mpi_error(q.rank, q.comm, MPI_ERR_RANK, q.call,
                                 "coords[%d] is %d, outside 0..%d of a "
                                 "non-periodic dimension (argument coords)",
                                 d, coords[d], n - 1);
        r = r * n + c;
    }
    *rank_out = r;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Cart_rank)

int PMPI_Cart_coords(MPI_Comm comm_h, int r, int maxdims, int coords[])
{
    query_t q;
    int rc = enter(&q, comm_h, MPI_CART, "MPI_Cart_coords");
    if (rc == MPI_SUCCESS && (r < 0 || r >= q.comm->size))
        rc = amp_mpi_error(q.rank, q.comm, MPI_ERR_RANK, q.call,
                           "invalid rank %d (argument rank): the communicator "
                           "has %d ranks",
                           r, q.comm->size);
    if (rc == MPI_SUCCESS)
        rc = check_maxdims(&q, maxdims);
    if (rc == MPI_SUCCESS && q.t->ndims > 0 && !coords)
        rc = null_arg(&q, "coords");
    if (rc != MPI_SUCCESS)
        return rc;
    for (int d = 0; d < q.t->ndims; d++)
        coords[d] = amp_topology_cart_coord(q.t, r, d);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Cart_coords)

int PMPI_Cart_shift(MPI_Comm comm_h, int direction, int disp, int *source,
                    int *dest)
{
    query_t q;
    int rc = enter(&q, comm_h, MPI_CART, "MPI_Cart_shift");
    if (rc == MPI_SUCCESS && (direction < 0 || direction >= q.t->ndims))
        rc = amp_mpi_error(q.rank, q.comm, MPI_ERR_ARG, q.call,
                           "direction %d is not a dimension of the %d-"
                           "dimensional grid (argument direction)",
                           direction, q.t->ndims);
    if (rc == MPI_SUCCESS && (!source || !dest))
        rc = null_arg(&q, source ? "rank_dest" : "rank_source");
    if (rc != MPI_SUCCESS)
        return rc;
    *source = amp_topology_cart_step(q.t, q.comm->rank, direction, -disp);
    *dest = amp_topology_cart_step(q.t, q.comm->rank, direction, disp);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Cart_shift)

/* ---- MPI_Dims_create ----
 *
 * The standard asks for dimensions "as close to each other as possible"
 * and leaves ties open.  The rule here: among the factorizations of m into
 * k non-increasing factors, the one with the smallest difference between
 * the largest and the smallest factor; among those, the one whose
 * smallest factor is largest, then whose second smallest is largest, and
 * so on.  It gives what MPICH gives (its test suite's table of 75,000
 * cases: 5616 over 4 dimensions is 13x9x8x6, not 13x12x6x6), and what
 * Open MPI gives wherever Open MPI's greedy assignment reaches the
 * smallest difference (11,900 of the 12,000 cases n <= 3000, 2 to 5
 * dimensions; for the others, such as 72 over 2 dimensions, Open MPI's
 * 12x6 is less balanced than 9x8). */
typedef struct dims_search {
    int k;
    const int *divs; /* divisors of m, ascending */
    int ndivs;
    int *cur, *best;
    int found;
} dims_search_t;

/* d^e >= r, without overflow. */
static int pow_reaches(long long d, int e, long long r)
{
    long long p = 1;
    for (int i = 0; i < e && p < r; i++)
        p *= d;
    return p >= r;
}

/* Whether s->cur (complete) beats s->best under the rule above. */
static int dims_better(const dims_search_t *s)
{
    int k = s->k;
    if (!s->found)
        return 1;
    long long a = (long long)s->cur[0] - s->cur[k - 1],
              b = (long long)s->best[0] - s->best[k - 1];
    if (a != b)
        return a < b;
    for (int i = k - 1; i >= 0; i--)
        if (s->cur[i] != s->best[i])
            return s->cur[i] > s->best[i];
    return 0;
}

static void dims_offer(dims_search_t *s)
{
    if (!dims_better(s))
        return;
    memcpy(s->best, s->cur, (size_t)s->k * sizeof(int));
    s->found = 1;
}

/* The best spread so far, or more than any when none. */
static long long best_spread(const dims_search_t *s)
{
    return s->found ? (long long)s->best[0] - s->best[s->k - 1] : LLONG_MAX;
}

/* Chooses factors level.. of r, each at most prev. */
static void dims_search(dims_search_t *s, int level, int r, int prev)
{
    if (r == 1) { /* the rest are ones: no need to recurse once per dim */
        for (int i = level; i < s->k; i++)
            s->cur[i] = 1;
        dims_offer(s);
        return;
    }
    if (level == s->k - 1) {
        if (r > prev)
            return;
        s->cur[level] = r;
        dims_offer(s);
        return;
    }
    for (int i = s->ndivs - 1; i >= 0; i--) {
        int d = s->divs[i];
        if (d > prev || r % d)
            continue;
        /* Smaller d: the rest cannot all fit under it, or the spread is
         * already worse than the best (equal ones may still win a tie). */
        if (!pow_reaches(d, s->k - level, r))
            break;
        if ((level ? s->cur[0] : d) - d > best_spread(s))
            break;
        s->cur[level] = d;
        dims_search(s, level + 1, r / d, d);
    }
}

/* The divisors of m, ascending, in a new array; NULL when out of memory. */
static int *divisors(int m, int *n)
{
    int count = 0;
    for (long long i = 1; i * i <= m; i++)
        if (m % i == 0)
            count += i * i == m ? 1 : 2;
    int *divs = malloc((size_t)count * sizeof(int));
    if (!divs)
        return NULL;
    int lo = 0, hi = count - 1;
    for (long long i = 1; i * i <= m; i++) {
        if (m % i)
            continue;
        divs[lo++] = (int)i;
        if (i * i != m)
            divs[hi--] = (int)(m / i);
    }
    *n = count;
    return divs;
}

/* Splits m over the k free entries of dims (the zeros), non-increasing. */
static amp_status_t dims_fill(int m, int k, int ndims, int *dims)
{
    if (k == 0)
        return AMP_OK;
    dims_search_t s = {.k = k};
    int *divs = divisors(m, &s.ndivs);
    int *cur = malloc(2 * (size_t)k * sizeof(int));
    if (!divs || !cur) {
        free(divs);
        free(cur);
        return AMP_ERR_NOMEM;
    }
    s.divs = divs;
    s.cur = cur;
    s.best = cur + k;
    dims_search(&s, 0, m, m);
    for (int d = 0, j = 0; d < ndims; d++)
        if (dims[d] == 0)
            dims[d] = s.best[j++];
    free(divs);
    free(cur);
    return AMP_OK;
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    amp_rank_t *rank;
    const char *call = "MPI_Dims_create";
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (nnodes <= 0)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "nnodes is %d; it must be positive (argument "
                             "nnodes)",
                             nnodes);
    if (ndims < 0)
        return amp_mpi_error(rank, NULL, MPI_ERR_DIMS, call,
                             "negative number of dimensions %d (argument "
                             "ndims)",
                             ndims);
    if (ndims > 0 && !dims)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument dims)");
    long long fixed = 1;
    int free_dims = 0;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] < 0)
            return amp_mpi_error(rank, NULL, MPI_ERR_DIMS, call,
                                 "dims[%d] is %d; entries must be 0 (free) "
                                 "or positive (argument dims)",
                                 d, dims[d]);
        if (dims[d] == 0)
            free_dims++;
        else if ((fixed *= dims[d]) > nnodes)
            fixed = (long long)nnodes + 1; /* cannot divide; stop growing */
    }
    if (nnodes % fixed || (free_dims == 0 && fixed != nnodes))
        return amp_mpi_error(rank, NULL, MPI_ERR_DIMS, call,
                             "no grid of %d nodes has the fixed entries of "
                             "dims (argument dims)",
                             nnodes);
    if (dims_fill(nnodes / (int)fixed, free_dims, ndims, dims) != AMP_OK)
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call, "out of memory");
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Dims_create)

/* ---- graphs ---- */

int PMPI_Graphdims_get(MPI_Comm comm_h, int *nnodes, int *nedges)
{
    query_t q;
    int rc = enter(&q, comm_h, MPI_GRAPH, "MPI_Graphdims_get");
    if (rc == MPI_SUCCESS && (!nnodes || !nedges))
        rc = null_arg(&q, nnodes ? "nedges" : "nnodes");
    if (rc != MPI_SUCCESS)
        return rc;
    *nnodes = q.t->nnodes;
    *nedges = q.t->nedges;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Graphdims_get)

/* An output array of length max (named maxarg) for n values, named arg. */
static int check_out_array(const query_t *q, int max, int n, const void *array,
                           const char *maxarg, const char *arg)
{
    if (max < n)
        return amp_mpi_error(q->rank, q->comm, MPI_ERR_ARG, q->call,
                             "%s is %d, but %d values are to be returned "
                             "(argument %s)",
                             maxarg, max, n, maxarg);
    if (n > 0 && !array)
        return null_arg(q, arg);
    return MPI_SUCCESS;
}

int PMPI_Graph_get(MPI_Comm comm_h, int maxindex, int maxedges, int index[],
                   int edges[])
{
    query_t q;
    int rc = enter(&q, comm_h, MPI_GRAPH, "MPI_Graph_get");
    if (rc == MPI_SUCCESS)
        rc = check_out_array(&q, maxindex, q.t->nnodes, index, "maxindex",
                             "index");
    if (rc == MPI_SUCCESS)
        rc = check_out_array(&q, maxedges, q.t->nedges, edges, "maxedges",
                             "edges");
    if (rc != MPI_SUCCESS)
        return rc;
    memcpy(index, q.t->index, (size_t)q.t->nnodes * sizeof(int));
    memcpy(edges, q.t->edges, (size_t)q.t->nedges * sizeof(int));
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Graph_get)

/* Enters call on a graph communicator and finds node r: its first edge and
 * its degree. */
static int enter_node(query_t *q, MPI_Comm comm_h, int r, const char *call,
                      int *first, int *degree)
{
    int rc = enter(q, comm_h, MPI_GRAPH, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (r < 0 || r >= q->t->nnodes)
        return amp_mpi_error(q->rank, q->comm, MPI_ERR_RANK, call,
                             "invalid rank %d (argument rank): the graph has "
                             "%d nodes",
                             r, q->t->nnodes);
    *first = r ? q->t->index[r - 1] : 0;
    *degree = q->t->index[r] - *first;
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm_h, int r, int *nneighbors)
{
    query_t q;
    int first, degree;
    int rc =
        enter_node(&q, comm_h, r, "MPI_Graph_neighbors_count", &first, &degree);
    if (rc == MPI_SUCCESS && !nneighbors)
        rc = null_arg(&q, "nneighbors");
    if (rc == MPI_SUCCESS)
        *nneighbors = degree;
    return rc;
}
AMP_WEAK_ALIAS(Graph_neighbors_count)

int PMPI_Graph_neighbors(MPI_Comm comm_h, int r, int maxneighbors,
                         int neighbors[])
{
    query_t q;
    int first, degree;
    int rc = enter_node(&q, comm_h, r, "MPI_Graph_neighbors", &first, &degree);
    if (rc == MPI_SUCCESS)
        rc = check_out_array(&q, maxneighbors, degree, neighbors,
                             "maxneighbors", "neighbors");
    if (rc == MPI_SUCCESS)
        memcpy(neighbors, q.t->edges + first, (size_t)degree * sizeof(int));
    return rc;
}
AMP_WEAK_ALIAS(Graph_neighbors)

int PMPI_Topo_test(MPI_Comm comm_h, int *status)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const char *call = "MPI_Topo_test";
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm_h, call, &comm);
    if (rc == MPI_SUCCESS && !status)
        rc = amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                           "NULL pointer (argument status)");
    if (rc == MPI_SUCCESS)
        *status = comm->topo ? comm->topo->kind : MPI_UNDEFINED;
    return rc;
}
AMP_WEAK_ALIAS(Topo_test)

/* ---- distributed graphs ---- */

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm_h, int *indegree,
                                    int *outdegree, int *weighted)
{
    query_t q;
    int rc =
        enter(&q, comm_h, MPI_DIST_GRAPH, "MPI_Dist_graph_neighbors_count");
    if (rc == MPI_SUCCESS && (!indegree || !outdegree || !weighted))
        rc = null_arg(&q, !indegree    ? "indegree"
                          : !outdegree ? "outdegree"
                                       : "weighted");
    if (rc != MPI_SUCCESS)
        return rc;
    *indegree = q.t->nin;
    *outdegree = q.t->nout;
    *weighted = q.t->weighted;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Dist_graph_neighbors_count)

/* Copies n neighbors and, when the graph has weights and the caller wants
 * them, their weights. */
static void copy_neighbors(int n, const int *ranks, const int *w, int *out,
                           int *outw)
{
    memcpy(out, ranks, (size_t)n * sizeof(int));
    if (w && outw != MPI_UNWEIGHTED && outw != MPI_WEIGHTS_EMPTY && outw)
        memcpy(outw, w, (size_t)n * sizeof(int));
}

int PMPI_Dist_graph_neighbors(MPI_Comm comm_h, int maxindegree, int sources[],
                              int sourceweights[], int maxoutdegree,
                              int destinations[], int destweights[])
{
    query_t q;
    int rc = enter(&q, comm_h, MPI_DIST_GRAPH, "MPI_Dist_graph_neighbors");
    if (rc == MPI_SUCCESS)
        rc = check_out_array(&q, maxindegree, q.t->nin, sources, "maxindegree",
                             "sources");
    if (rc == MPI_SUCCESS)
        rc = check_out_array(&q, maxoutdegree, q.t->nout, destinations,
                             "maxoutdegree", "destinations");
    if (rc != MPI_SUCCESS)
        return rc;
    copy_neighbors(q.t->nin, q.t->in, q.t->inw, sources, sourceweights);
    copy_neighbors(q.t->nout, q.t->out, q.t->outw, destinations, destweights);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Dist_graph_neighbors)
