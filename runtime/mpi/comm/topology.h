/*
 * Process topologies (MPI chapter 7): what a communicator created by
 * MPI_Cart_create, MPI_Graph_create or MPI_Dist_graph_create[_adjacent]
 * remembers about its shape, and the neighbor lists the neighborhood
 * collectives (neighbor.c) walk.  Private to the mpi module.
 */
#ifndef AMP_MPI_TOPOLOGY_H
#define AMP_MPI_TOPOLOGY_H

#include "mpi/comm/comm.h"

#include <stddef.h>

/* One allocation: the struct, then every array in data[].  The pointers
 * point into data (or are NULL), so a copy is a memcpy plus rebasing. */
typedef struct amp_topology {
    int kind; /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    /* Cartesian: the grid and this rank's place in it. */
    int ndims;
    int *dims, *periods, *coords;
    /* Graph: the whole graph, as MPI_Graph_create took it. */
    int nnodes, nedges;
    int *index, *edges;
    /* Distributed graph: whether weights were given. */
    int weighted;
    /* This rank's neighbors in the order of the neighborhood collectives:
     * in[] it receives from, out[] it sends to.  A Cartesian neighbor off
     * a non-periodic edge is MPI_PROC_NULL.  Weights: distributed graphs
     * only (NULL otherwise). */
    int nin, nout;
    int *in, *out, *inw, *outw;
    size_t nints; /* ints in data */
    int data[];
} amp_topology_t;

/* A new topology of kind with room for nints ints in data (pointers NULL,
 * counts 0); NULL when out of memory. */
amp_topology_t *amp_topology_new(int kind, size_t nints);

/* The in-slot whose message is the k-th a neighbor sends: receives posted
 * for slots in this order match in order between each pair of ranks.  On
 * a graph that is slot k.  On a grid, the message that arrives from the
 * negative direction of dimension d (in-slot 2d) left its sender toward
 * the positive direction (its out-slot 2d + 1), and the other way round;
 * this keeps the two neighbors of a periodic dimension of size 1 or 2,
 * which are one rank, apart. */
static inline int amp_topology_recv_slot(const amp_topology_t *t, int k)
{
    return t->kind == MPI_CART ? k ^ 1 : k;
}

/* Enters call with comm_h, which must have a topology of kind (0: any):
 * *comm and *t are the communicator and its topology. */
int amp_topology_enter(amp_rank_t **rank, MPI_Comm comm_h, int kind,
                       const char *call, amp_comm_t **comm, amp_topology_t **t);

/* Ranks between neighbors along dimension d of a grid: the product of the
 * later dimensions (rank order is row-major, the last dimension fastest). */
static inline int amp_topology_cart_stride(const amp_topology_t *t, int d)
{
    int s = 1;
    for (int i = d + 1; i < t->ndims; i++)
        s *= t->dims[i];
    return s;
}

/* Coordinate d of rank r of a grid. */
static inline int amp_topology_cart_coord(const amp_topology_t *t, int r, int d)
{
    return r / amp_topology_cart_stride(t, d) % t->dims[d];
}

/* The rank disp steps from r along dimension d of a grid, or MPI_PROC_NULL
 * off a non-periodic edge. */
static inline int amp_topology_cart_step(const amp_topology_t *t, int r, int d,
                                         int disp)
{
    int n = t->dims[d], c = amp_topology_cart_coord(t, r, d);
    long long to = (long long)c + disp;
    if (t->periods[d])
        to = ((to % n) + n) % n;
    else if (to < 0 || to >= n)
        return MPI_PROC_NULL;
    return r + (int)(to - c) * amp_topology_cart_stride(t, d);
}

#endif
