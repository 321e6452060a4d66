/*
 * coll: collective operations built on p2p, on a communicator's collective
 * context, and the predefined reduction operations.
 *
 * Buffers are in the user's memory layout: count elements of a datatype
 * whose data spans amp_dt_span() bytes from buf + true_lb; collectives move
 * that span as raw bytes.  (Shared-address-space algorithms and the rest of
 * the collectives come later; these are the tree/dissemination versions.)
 */
#ifndef AMP_COLL_H
#define AMP_COLL_H

#include "coll/ops.h"
#include "dt/dt.h"
#include "p2p/p2p.h"

struct amp_nbc_pe;

typedef struct amp_coll_comm {
    amp_p2p_ep_t *ep;
    int ctx; /* the collective context */
    int rank, size;
    const int *world; /* comm rank -> world rank; NULL: the identity */
    /* The communicator's collective sequence number for this call: every
     * collective call on a communicator takes the next one (in the order
     * the members call them, which MPI makes the same everywhere), and its
     * messages carry tags amp_coll_tag(seq, step). */
    unsigned seq;
    struct amp_nbc_pe *nbc_pes; /* by PE id: see coll/nbc.h */
} amp_coll_comm_t;

/* The tag of step (0 .. 4095, taken modulo 4096) of the collective call
 * with sequence number seq: never negative.  Calls 2^19 apart share tags;
 * messages between two ranks never overtake each other, so they still
 * match right unless that many collectives are in flight at once. */
static inline int amp_coll_tag(unsigned seq, int step)
{
    return (int)(((seq & 0x7ffffu) << 12) | ((unsigned)step & 0xfffu));
}

/* amp_coll_reduce and amp_coll_allreduce for any datatype: they move
 * the span of a type's data as raw bytes, which writes the gaps of a
 * non-contiguous type; these reduce such types in scratch buffers and copy
 * only the data into recvbuf.  The MPI calls use these. */
AMP_MUST_USE amp_status_t amp_coll_reduce_typed(
    const amp_coll_comm_t *c, const void *sendbuf, void *recvbuf, int count,
    const amp_dt_t *dt, const amp_coll_op_t *op, int root);
AMP_MUST_USE amp_status_t amp_coll_allreduce_typed(const amp_coll_comm_t *c,
                                                   const void *sendbuf,
                                                   void *recvbuf, int count,
                                                   const amp_dt_t *dt,
                                                   const amp_coll_op_t *op);

/* The data of a reduction, scan or reduce-scatter, already checked:
 * count elements of dt at sendbuf combined with op into recvbuf. */
typedef struct amp_coll_reduction {
    const void *sendbuf;
    void *recvbuf;
    int count;
    const amp_dt_t *dt;
    const amp_coll_op_t *op;
} amp_coll_reduction_t;

/* One side of a gather, scatter or allgather: count elements of dt at
 * buf, or, on the side that holds a block per rank, counts[i] elements at
 * displs[i] elements from buf for rank i (counts and displs NULL: count
 * each, one block after another).  A receive side's buf is written. */
typedef struct amp_coll_blocks {
    const void *buf;
    int count;
    const int *counts, *displs;
    const amp_dt_t *dt;
} amp_coll_blocks_t;

/* One side of an exchange of a block per peer (alltoallv/w, and the
 * exchanges with the remote group of an inter-communicator): n blocks,
 * block i to or from peer first + i, counts[i] elements of dts[i] at
 * displs[i] bytes from the buffer. */
typedef struct amp_coll_side {
    int first, n;
    int *counts;
    ptrdiff_t *displs;
    const amp_dt_t **dts;
} amp_coll_side_t;

AMP_MUST_USE amp_status_t amp_coll_barrier(const amp_coll_comm_t *c);
AMP_MUST_USE amp_status_t amp_coll_bcast(const amp_coll_comm_t *c, void *buf,
                                         int count, const amp_dt_t *dt,
                                         int root);
/* sendbuf may equal recvbuf (in place).  recvbuf matters at root only. */
AMP_MUST_USE amp_status_t amp_coll_reduce(const amp_coll_comm_t *c,
                                          const void *sendbuf, void *recvbuf,
                                          int count, const amp_dt_t *dt,
                                          const amp_coll_op_t *op, int root);
AMP_MUST_USE amp_status_t amp_coll_allreduce(const amp_coll_comm_t *c,
                                             const void *sendbuf, void *recvbuf,
                                             int count, const amp_dt_t *dt,
                                             const amp_coll_op_t *op);

#endif
