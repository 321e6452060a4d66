/*
 * Windows (win.c, win_ops.c, win_sync.c) and their memory shared by the
 * processes of a node (win_node.c).  The window object is ../handles.h's,
 * its hints ../attr/info.c's.
 */
#ifndef AMP_MPI_WIN_H
#define AMP_MPI_WIN_H

#include "mpi/handles.h"

/* ---- windows across the processes of a node (win_node.c) ----
 * Window memory that the processes of this node share (rma/rma.h). */

/* The processes other than this one, on this node, that run members of
 * comm: how many. */
int amp_win_node_others(const amp_comm_t *c);
/* MPI_Win_allocate: this member's size bytes in a node object the other
 * processes of the node that run members (amp_win_node_others, at least
 * one) will map; sets w->base, w->own_shm. */
AMP_MUST_USE amp_status_t amp_win_node_expose(const amp_comm_t *c, amp_win_t *w,
                                              size_t size);
/* After the segments are exchanged, by the first member of this process:
 * maps the memory of member r of another process of this node (created
 * by amp_win_node_expose there: serial its node object's + 1, 0 none), or
 * lets its puts and gets be cross-memory copies. */
AMP_MUST_USE amp_status_t amp_win_node_peer(const amp_comm_t *c, amp_win_t *w,
                                            int r, unsigned serial);
/* MPI_Win_allocate_shared over members in several processes of this node:
 * one node object for all segments, made by comm rank 0, mapped by the
 * first member of each other process; collective (st: this member's
 * outcome so far). */
AMP_MUST_USE amp_status_t amp_win_node_shared(const amp_comm_t *c, amp_win_t *w,
                                              amp_status_t st);
/* Once every process has mapped it: the name of this member's node
 * object goes. */
void amp_win_node_unlink(amp_win_t *w);

/* ---- windows (win.c) ---- */
AMP_MUST_USE amp_status_t amp_win_rank_init(amp_rank_t *rank);
/* amp_mpi_error through the window's error handler. */
int amp_win_error(amp_rank_t *rank, amp_win_t *win, int errclass,
                  const char *call, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* ---- AMPI_Iget's get (win_ops.c, for iget.c) ---- */
/* count elements of type into buf from tcount elements of ttype at disp
 * of target's window, for call. */
typedef struct amp_win_get {
    void *buf;
    int count;
    MPI_Datatype type;
    int target;
    MPI_Aint disp;
    int tcount;
    MPI_Datatype ttype;
    const char *call;
} amp_win_get_t;
/* Starts g on window win: inside any access epoch the caller has to the
 * target (fence, PSCW, lock, lock_all), or, with none, under a shared lock
 * taken and given back at once.  *request completes when buf holds the
 * data. */
int amp_win_get_start(const amp_win_get_t *g, MPI_Win win,
                      MPI_Request *request);

#endif
