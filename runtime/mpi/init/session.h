/*
 * Sessions (session.c), as the rank set-up of rank_objects.c sees them.
 */
#ifndef AMP_MPI_SESSION_H
#define AMP_MPI_SESSION_H

#include "mpi/call.h"
#include "mpi/memkinds.h"

/* A session of a rank (session.c). */
typedef struct amp_session {
    amp_obj_t obj;
    MPI_Errhandler errh;
    int thread_level;
    amp_bsend_t bsend; /* session_buffer.c: its buffer of buffered sends */
    /* ../memkinds.h: the memory allocation kinds it supports, of those
     * its info asked for ("mpi_memory_alloc_kinds") */
    char memkinds[AMP_MEMKINDS_LEN];
} amp_session_t;

/* Enters call on session h (session.c); an invalid one is an error of no
 * object, of class MPI_ERR_SESSION. */
int amp_session_enter(MPI_Session h, const char *call, amp_rank_t **rank,
                      amp_session_t **s);
/* An error of class errclass of a call on s, through s's handler. */
int amp_session_error(amp_rank_t *rank, amp_session_t *s, int errclass,
                      const char *call, const char *detail);

/* A new rank's table of sessions, with MPI_SESSION_NULL. */
AMP_MUST_USE amp_status_t amp_session_rank_init(amp_rank_t *rank);

#endif
