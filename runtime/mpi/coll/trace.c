/*
 * +trace: the records of a blocking collective (trace.h).  The bytes are
 * those of the call's arguments, as an MPI tool counts them: what this
 * rank's send buffer holds for the others and what its receive buffer
 * takes in (for a root, every member's part); an argument that MPI ignores
 * at this rank (a non-root's receive side of MPI_Gather...) counts 0, and
 * MPI_IN_PLACE counts the part the rank keeps as if sent.
 */
#include "mpi/coll/trace.h"
#include "mpi/comm/comm.h"
#include "sched/sched.h"

static uint64_t type_bytes(amp_rank_t *rank, MPI_Datatype h, MPI_Count n)
{
    const amp_dt_t *dt = amp_dt_lookup(rank, h);
    return dt && n > 0 ? (uint64_t)n * dt->size : 0;
}

/* The sum over the size members of counts (or counts_c) of type. */
static uint64_t sum_bytes(amp_rank_t *rank, int size, const int *counts,
                          const MPI_Count *counts_c, MPI_Datatype type)
{
    MPI_Count n = 0;
    for (int i = 0; i < size; i++)
        n += counts ? counts[i] : counts_c ? counts_c[i] : 0;
    return type_bytes(rank, type, n);
}

/* Member i's count of counts or counts_c. */
static MPI_Count count_at(const int *counts, const MPI_Count *counts_c, int i)
{
    return counts ? counts[i] : counts_c ? counts_c[i] : 0;
}

/* The same for the w form: a type per member. */
static uint64_t sum_w(amp_rank_t *rank, int size, const int *counts,
                      const MPI_Count *counts_c, const MPI_Datatype *types)
{
    uint64_t b = 0;
    for (int i = 0; types && i < size; i++)
        b += type_bytes(rank, types[i], count_at(counts, counts_c, i));
    return b;
}

typedef struct sizes {
    uint64_t sent, recv;
} sizes_t;

/* Gathers and scatters: the root's side of all members, each member's
 * own part. */
static sizes_t rooted(amp_rank_t *rank, const amp_coll_trace_t *a, int n,
                      int me)
{
    int root = me == a->root;
    int in_place = root && (a->op == AMP_TRACE_COLL_GATHER ||
                            a->op == AMP_TRACE_COLL_GATHERV)
                       ? a->sendbuf == MPI_IN_PLACE
                       : a->recvbuf == MPI_IN_PLACE;
    uint64_t own_r = type_bytes(rank, a->recvtype, a->recvcount);
    uint64_t own_s = type_bytes(rank, a->sendtype, a->sendcount);
    switch (a->op) {
    case AMP_TRACE_COLL_GATHER:
        return (sizes_t){root && in_place ? own_r : own_s,
                         root ? (uint64_t)n * own_r : 0};
    case AMP_TRACE_COLL_GATHERV:
        return (sizes_t){
            root && in_place
                ? type_bytes(rank, a->recvtype,
                             count_at(a->recvcounts, a->recvcounts_c, me))
                : own_s,
            root ? sum_bytes(rank, n, a->recvcounts, a->recvcounts_c,
                             a->recvtype)
                 : 0};
    case AMP_TRACE_COLL_SCATTER:
        return (sizes_t){root ? (uint64_t)n * own_s : 0,
                         root && in_place ? own_s : own_r};
    default: /* SCATTERV */
        return (sizes_t){
            root ? sum_bytes(rank, n, a->sendcounts, a->sendcounts_c,
                             a->sendtype)
                 : 0,
            root && in_place
                ? type_bytes(rank, a->sendtype,
                             count_at(a->sendcounts, a->sendcounts_c, me))
                : own_r};
    }
}

/* Every member sends and receives: allgathers and alltoalls. */
static sizes_t all(amp_rank_t *rank, const amp_coll_trace_t *a, int n, int me)
{
    int in_place = a->sendbuf == MPI_IN_PLACE;
    uint64_t own_r = type_bytes(rank, a->recvtype, a->recvcount);
    sizes_t s = {type_bytes(rank, a->sendtype, a->sendcount), 0};
    switch (a->op) {
    case AMP_TRACE_COLL_ALLGATHER:
        s.recv = (uint64_t)n * own_r;
        return (sizes_t){in_place ? own_r : s.sent, s.recv};
    case AMP_TRACE_COLL_ALLGATHERV:
        s.recv =
            sum_bytes(rank, n, a->recvcounts, a->recvcounts_c, a->recvtype);
        own_r = type_bytes(rank, a->recvtype,
                           count_at(a->recvcounts, a->recvcounts_c, me));
        return (sizes_t){in_place ? own_r : s.sent, s.recv};
    case AMP_TRACE_COLL_ALLTOALL:
        s.recv = (uint64_t)n * own_r;
        s.sent *= (uint64_t)n;
        break;
    case AMP_TRACE_COLL_ALLTOALLV:
        s.recv =
            sum_bytes(rank, n, a->recvcounts, a->recvcounts_c, a->recvtype);
        s.sent = in_place ? 0
                          : sum_bytes(rank, n, a->sendcounts, a->sendcounts_c,
                                      a->sendtype);
        break;
    default: /* ALLTOALLW */
        s.recv = sum_w(rank, n, a->recvcounts, a->recvcounts_c, a->recvtypes);
        s.sent = in_place ? 0
                          : sum_w(rank, n, a->sendcounts, a->sendcounts_c,
                                  a->sendtypes);
    }
    return (sizes_t){in_place ? s.recv : s.sent, s.recv};
}

/* Reductions, the broadcast and the barrier. */
static sizes_t reduction(amp_rank_t *rank, const amp_coll_trace_t *a, int n,
                         int me)
{
    uint64_t b = type_bytes(rank, a->datatype, a->count);
    switch (a->op) {
    case AMP_TRACE_COLL_BARRIER: return (sizes_t){0, 0};
    case AMP_TRACE_COLL_BCAST:
        return me == a->root ? (sizes_t){b, 0} : (sizes_t){0, b};
    case AMP_TRACE_COLL_REDUCE: return (sizes_t){b, me == a->root ? b : 0};
    case AMP_TRACE_COLL_REDUCE_SCATTER_BLOCK:
        b = type_bytes(rank, a->datatype, a->recvcount);
        return (sizes_t){(uint64_t)n * b, b};
    case AMP_TRACE_COLL_REDUCE_SCATTER:
        return (sizes_t){
            sum_bytes(rank, n, a->recvcounts, a->recvcounts_c, a->datatype),
            type_bytes(rank, a->datatype,
                       count_at(a->recvcounts, a->recvcounts_c, me))};
    default: return (sizes_t){b, b}; /* ALLREDUCE, SCAN, EXSCAN */
    }
}

static sizes_t sizes_of(amp_rank_t *rank, const amp_coll_trace_t *a,
                        const amp_comm_t *c)
{
    switch (a->op) {
    case AMP_TRACE_COLL_GATHER:
    case AMP_TRACE_COLL_GATHERV:
    case AMP_TRACE_COLL_SCATTER:
    case AMP_TRACE_COLL_SCATTERV: return rooted(rank, a, c->size, c->rank);
    case AMP_TRACE_COLL_ALLGATHER:
    case AMP_TRACE_COLL_ALLGATHERV:
    case AMP_TRACE_COLL_ALLTOALL:
    case AMP_TRACE_COLL_ALLTOALLV:
    case AMP_TRACE_COLL_ALLTOALLW: return all(rank, a, c->size, c->rank);
    default: return reduction(rank, a, c->size, c->rank);
    }
}

/* The context of a's communicator, -1 for none or an inter-communicator
 * (the archive defines intra-communicators only). */
static int ctx_of(amp_rank_t *rank, const amp_coll_trace_t *a, amp_comm_t **c)
{
    *c = amp_comm_lookup(rank, a->comm);
    return *c && !(*c)->is_inter ? (*c)->ctx : -1;
}

void amp_coll_trace_begin(const amp_coll_trace_t *a)
{
    amp_pe_t *pe = amp_pe_self();
    amp_rank_t *rank = amp_rank_self();
    amp_comm_t *c;
    if (pe && pe->trace && rank)
        amp_trace_put(pe->trace, AMP_TRACE_COLL_BEGIN, a->op,
                      rank->world_rank + 1, ctx_of(rank, a, &c), 0, 0);
}

void amp_coll_trace_end(const amp_coll_trace_t *a, int ret)
{
    amp_pe_t *pe = amp_pe_self();
    amp_rank_t *rank = amp_rank_self();
    if (!pe || !pe->trace || !rank)
        return;
    amp_comm_t *c;
    int ctx = ctx_of(rank, a, &c);
    int ok = ret == MPI_SUCCESS && ctx >= 0;
    sizes_t s = ok ? sizes_of(rank, a, c) : (sizes_t){0, 0};
    int root = ok && a->root >= 0 && a->root < c->size ? a->root : -1;
    amp_trace_put(pe->trace, AMP_TRACE_COLL_END, a->op, rank->world_rank + 1,
                  ctx, root, s.sent);
    amp_trace_put(pe->trace, AMP_TRACE_COLL_RECV, 0, rank->world_rank + 1, 0, 0,
                  s.recv);
}
