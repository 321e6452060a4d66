/*
 * +trace: a blocking collective's own records (OTF2's MpiCollectiveBegin
 * and MpiCollectiveEnd): its communicator, root and the bytes this rank
 * sent and received, counted from its arguments.  Called only while
 * tracing, by the entry points scripts/gen_threads.py generates: begin
 * before the call, end after it with what it returned.
 */
#ifndef AMP_MPI_COLL_TRACE_H
#define AMP_MPI_COLL_TRACE_H

#include "mpi.h"

/* The arguments of a collective call that its sizes depend on; a side
 * the call lacks is 0 or NULL (*_c: the large-count forms' arrays). */
typedef struct amp_coll_trace {
    int op; /* amp_trace_coll_t */
    MPI_Comm comm;
    int root; /* -1: none */
    const void *sendbuf, *recvbuf;
    MPI_Count count, sendcount, recvcount;
    const int *sendcounts, *recvcounts;
    const MPI_Count *sendcounts_c, *recvcounts_c;
    MPI_Datatype datatype, sendtype, recvtype;
    const MPI_Datatype *sendtypes, *recvtypes;
} amp_coll_trace_t;

void amp_coll_trace_begin(const amp_coll_trace_t *a);
/* ret: what the call returned (sizes are counted only when it succeeded:
 * the arguments are then known to be valid). */
void amp_coll_trace_end(const amp_coll_trace_t *a, int ret);

#endif
