/*
 * Sessions (session.c), as the rank set-up of rank_objects.c sees them.
 */
#ifndef AMP_MPI_SESSION_H
#define AMP_MPI_SESSION_H

#include "mpi/call.h"

/* A new rank's table of sessions, with MPI_SESSION_NULL. */
AMP_MUST_USE amp_status_t amp_session_rank_init(amp_rank_t *rank);

#endif
