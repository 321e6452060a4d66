/*
 * coll_errors: argument checks of the collectives (under
 * MPI_ERRORS_RETURN): communicator, root, counts and count arrays,
 * datatypes, buffers, MPI_IN_PLACE where it is not allowed, the same
 * buffer as send and receive buffer, an operation not defined on the type,
 * a missing request; and that a nonblocking collective's request can be
 * neither cancelled nor freed while it is active.  Each erroneous call
 * fails on every rank (or runs on MPI_COMM_SELF), so the collectives after
 * it still match.
 */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm w = MPI_COMM_WORLD, self = MPI_COMM_SELF;
    MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(self, MPI_ERRORS_RETURN);
    int a[64], b[64], counts[1] = {1}, displs[1] = {0};
    int neg[1] = {-1};
    MPI_Request rq = MPI_REQUEST_NULL;

    MT_CHECK_ERR_CLASS(
        MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_NULL),
        MPI_ERR_COMM);
    MT_CHECK_ERR_CLASS(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, size, w),
                       MPI_ERR_ROOT);
    MT_CHECK_ERR_CLASS(MPI_Iscatter(a, 1, MPI_INT, b, 1, MPI_INT, -1, w, &rq),
                       MPI_ERR_ROOT);
    MT_CHECK_ERR_CLASS(MPI_Allgather(a, -1, MPI_INT, b, 1, MPI_INT, w),
                       MPI_ERR_COUNT);
    MT_CHECK_ERR_CLASS(MPI_Alltoall(a, 1, MPI_DATATYPE_NULL, b, 1, MPI_INT, w),
                       MPI_ERR_TYPE);
    MT_CHECK_ERR_CLASS(MPI_Allgather(a, 1, MPI_INT, a, 1, MPI_INT, w),
                       MPI_ERR_BUFFER);
    MT_CHECK_ERR_CLASS(MPI_Alltoall(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, w),
                       MPI_ERR_BUFFER);
    MT_CHECK_ERR_CLASS(MPI_Allgather(NULL, 1, MPI_INT, b, 1, MPI_INT, w),
                       MPI_ERR_BUFFER);
    MT_CHECK_ERR_CLASS(MPI_Scan(a, a, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
    MT_CHECK_ERR_CLASS(MPI_Exscan(a, b, 1, MPI_DOUBLE, MPI_BAND, w),
                       MPI_ERR_OP);
    MT_CHECK_ERR_CLASS(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_OP_NULL, w, &rq),
                       MPI_ERR_OP);
    MT_CHECK_ERR_CLASS(MPI_Ibarrier(w, NULL), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Reduce_scatter_block(a, b, -2, MPI_INT, MPI_SUM, w),
                       MPI_ERR_COUNT);
    MT_CHECK_ERR_CLASS(MPI_Reduce_local(a, b, 1, MPI_FLOAT_INT, MPI_SUM),
                       MPI_ERR_OP);
    MT_CHECK_ERR_CLASS(MPI_Reduce_local(a, a, 1, MPI_INT, MPI_SUM),
                       MPI_ERR_BUFFER);
    MT_CHECK(rq == MPI_REQUEST_NULL);

    /* Count arrays, on a communicator of one. */
    MT_CHECK_ERR_CLASS(
        MPI_Gatherv(a, 1, MPI_INT, b, NULL, displs, MPI_INT, 0, self),
        MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(
        MPI_Scatterv(a, counts, NULL, MPI_INT, b, 1, MPI_INT, 0, self),
        MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(
        MPI_Allgatherv(a, 1, MPI_INT, b, neg, displs, MPI_INT, self),
        MPI_ERR_COUNT);
    MT_CHECK_ERR_CLASS(MPI_Reduce_scatter(a, b, neg, MPI_INT, MPI_SUM, self),
                       MPI_ERR_COUNT);
    /* The root's own block: 2 ints sent, 1 received. */
    MT_CHECK_ERR_CLASS(MPI_Gather(a, 2, MPI_INT, b, 1, MPI_INT, 0, self),
                       MPI_ERR_TRUNCATE);
    MT_CHECK_MPI(MPI_Gather(a, 2, MPI_INT, b, 1, MPI_2INT, 0, self));

    /* An active nonblocking collective: no cancel, no free.  The last
     * rank joins the barrier only once the others have tried, so that
     * theirs cannot complete meanwhile (its own may: it tries cancel
     * only). */
    int last = size - 1, x = 0;
    if (rank == last)
        for (int i = 0; i < last; i++)
            MT_CHECK_MPI(MPI_Recv(&x, 0, MPI_INT, MPI_ANY_SOURCE, 99, w,
                                  MPI_STATUS_IGNORE));
    MT_CHECK_MPI(MPI_Ibarrier(w, &rq));
    MT_CHECK_ERR_CLASS(MPI_Cancel(&rq), MPI_ERR_REQUEST);
    if (rank != last) {
        MT_CHECK_ERR_CLASS(MPI_Request_free(&rq), MPI_ERR_REQUEST);
        MT_CHECK_MPI(MPI_Send(&x, 0, MPI_INT, last, 99, w));
    }
    if (rq != MPI_REQUEST_NULL)
        MT_CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    MT_CHECK(rq == MPI_REQUEST_NULL);
    MPI_Comm_set_errhandler(w, MPI_ERRORS_ARE_FATAL);
    return mt_finish_and_finalize();
}
