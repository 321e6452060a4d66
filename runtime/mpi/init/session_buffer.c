/*
 * The buffer of buffered sends of a session (MPI-4.1): the communicators
 * made from its process sets' groups use it when they have none of their
 * own (../pt2pt/bsend.c does the work).  MPI_Session_finalize detaches it
 * (session.c).
 */
#include "mpi/init/session.h"
#include "mpi/pt2pt/request.h"

int PMPI_Session_attach_buffer(MPI_Session session, void *buffer, int size)
{
    const char *call = "MPI_Session_attach_buffer", *why = NULL;
    amp_rank_t *rank;
    amp_session_t *s;
    int rc = amp_session_enter(session, call, &rank, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = amp_bsend_attach(&s->bsend, buffer, size, &why);
    if (rc != MPI_SUCCESS)
        return amp_session_error(rank, s, rc, call, why);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Session_attach_buffer)

int PMPI_Session_detach_buffer(MPI_Session session, void *buffer_addr,
                               int *size)
{
    const char *call = "MPI_Session_detach_buffer";
    amp_rank_t *rank;
    amp_session_t *s;
    int rc = amp_session_enter(session, call, &rank, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!buffer_addr || !size)
        return amp_session_error(rank, s, MPI_ERR_ARG, call,
                                 buffer_addr ? "NULL pointer (argument size)"
                                             : "NULL pointer (argument "
                                               "buffer_addr)");
    amp_bsend_detach(rank, &s->bsend, buffer_addr, size, call);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Session_detach_buffer)

int PMPI_Session_flush_buffer(MPI_Session session)
{
    const char *call = "MPI_Session_flush_buffer";
    amp_rank_t *rank;
    amp_session_t *s;
    int rc = amp_session_enter(session, call, &rank, &s);
    if (rc == MPI_SUCCESS)
        amp_bsend_flush(rank, &s->bsend, call);
    return rc;
}
AMP_WEAK_ALIAS(Session_flush_buffer)

int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
{
    const char *call = "MPI_Session_iflush_buffer";
    amp_rank_t *rank;
    amp_session_t *s;
    int rc = amp_session_enter(session, call, &rank, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!request)
        return amp_session_error(rank, s, MPI_ERR_ARG, call,
                                 "NULL pointer (argument request)");
    rc = amp_bsend_iflush(rank, &s->bsend, request);
    if (rc != MPI_SUCCESS)
        return amp_session_error(rank, s, rc, call, "out of memory");
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Session_iflush_buffer)
