/*
 * Windows (win.c, win_ops.c, win_sync.c), their memory shared by the
 * processes of a node (win_node.c), and their hints (info.c).
 */
#ifndef AMP_MPI_WIN_H
#define AMP_MPI_WIN_H

#include "mpi/call.h"

/* A window (win.c): this rank's view of a window; the memory and the
 * locks its members share are in the rma module's state (rma/rma.h). */
typedef struct amp_win {
    amp_obj_t obj;
    struct amp_rma_win *shared;
    MPI_Comm comm; /* private duplicate of the creating communicator; its
                      error handler is the window's */
    int rank, size;
    int flavor; /* MPI_WIN_FLAVOR_* */
    void *base; /* as MPI_WIN_BASE reports it */
    MPI_Aint bytes;
    int disp_unit;
    void *own_mem;          /* MPI_Win_allocate's memory (C heap) */
    unsigned own_shm;       /* its memory is node object serial - 1 */
    struct amp_attr *attrs; /* attr.c */
    struct amp_info *hints; /* info.c: the window hints set, or NULL */
    char name[MPI_MAX_OBJECT_NAME];
    /* Epochs (win_sync.c). */
    int fence;               /* a fence epoch may be open */
    int lock_all;            /* in MPI_Win_lock_all */
    int nlocked;             /* targets locked with MPI_Win_lock */
    int *locks;              /* by target: 0 or MPI_LOCK_SHARED/EXCLUSIVE */
    unsigned char *acc;      /* by target: in the MPI_Win_start group */
    int started;             /* between MPI_Win_start and complete */
    int *access, naccess;    /* MPI_Win_start's group (comm ranks) */
    int exposing, nexpose;   /* between MPI_Win_post and wait/test */
    amp_rma_origin_t origin; /* what members in other processes owe it */
} amp_win_t;

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
amp_win_t *amp_win_lookup(amp_rank_t *rank, MPI_Win h);
/* Looks up h, answering MPI_ERR_WIN (through MPI_COMM_WORLD's handler)
 * when it is no window. */
int amp_check_win(amp_rank_t *rank, MPI_Win h, const char *call,
                  amp_win_t **win);
/* amp_mpi_error through the window's error handler. */
int amp_win_error(amp_rank_t *rank, amp_win_t *win, int errclass,
                  const char *call, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The predefined attributes MPI_WIN_BASE .. MPI_WIN_MODEL: 1 (and the
 * value through attribute_val, *flag 1) when keyval is one. */
int amp_win_predefined_attr(amp_win_t *w, int keyval, void *attribute_val,
                            int *flag);

/* ---- window hints (info.c) ---- */
/* A window's hints: amp_win_info_apply keeps in *set (created on first
 * use) the standard's window hints found in hints, ignoring other keys;
 * amp_win_info_get hands out a new info object with every window hint, its
 * value from set or else its default (MPI_Win_get_info). */
AMP_MUST_USE amp_status_t amp_win_info_apply(struct amp_info **set,
                                             const struct amp_info *hints);
int amp_win_info_get(amp_rank_t *rank, const struct amp_info *set,
                     MPI_Info *info_used, const char *call);

#endif
