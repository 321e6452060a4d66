/*
 * Attributes cached on communicators, datatypes and windows (attr.c, and
 * from Fortran ../fortran/fortran_attr.c), info objects and window hints
 * (info.c), and error handler objects (errhandler.c).
 */
#ifndef AMP_MPI_ATTR_H
#define AMP_MPI_ATTR_H

#include "mpi/handles.h"

/* ---- attributes (attr.c) ---- */
AMP_MUST_USE amp_status_t amp_attr_rank_init(amp_rank_t *rank);
/* Copies old's attributes onto newcomm through their copy callbacks
 * (MPI_Comm_dup and its kin); on failure none is left on newcomm and the
 * error (through old's handler) is returned. */
int amp_attr_comm_copy(amp_rank_t *rank, amp_comm_t *old, amp_comm_t *newcomm,
                       const char *call);
/* Deletes comm's attributes through their delete callbacks, newest first;
 * stops at the first that fails and returns its error (MPI_Comm_free, and
 * MPI_Finalize for MPI_COMM_SELF). */
int amp_attr_comm_delete_all(amp_rank_t *rank, amp_comm_t *comm,
                             const char *call);
/* Deletes win's attributes through their delete callbacks, newest first;
 * stops at the first that fails (MPI_Win_free). */
int amp_attr_win_delete_all(amp_rank_t *rank, amp_win_t *win, const char *call);
/* Deletes whatever attributes comm still has (amp_comm_destroy). */
void amp_attr_comm_clear(amp_rank_t *rank, amp_comm_t *comm);
/* The same for datatypes: old (predefined or derived) to newdt on
 * MPI_Type_dup, and all of h's attributes on MPI_Type_free. */
int amp_attr_type_copy(amp_rank_t *rank, MPI_Datatype old, amp_dt_t *newdt,
                       const char *call);
int amp_attr_type_delete_all(amp_rank_t *rank, MPI_Datatype h,
                             const char *call);

/* ---- attributes from Fortran (attr.c, for fortran_attr.c) ----
 * kind: AMP_ATTR_COMM, _TYPE or _WIN.  A value set from Fortran
 * (INTEGER(KIND=MPI_ADDRESS_KIND), or with is_int the INTEGER of
 * MPI_ATTR_PUT) stays in the attribute: C gets a pointer to it (MPI 3.1
 * section 17.2.7), Fortran the value; a value set from C comes to Fortran
 * as the pointer's integer.  A keyval made by the Fortran binding has its
 * callbacks called with Fortran's values (amp_attr_keyval_fortran). */
enum { AMP_ATTR_COMM = 1, AMP_ATTR_TYPE, AMP_ATTR_WIN };
int amp_attr_fortran_set(int kind, int obj, int keyval, MPI_Aint value,
                         int is_int, const char *call);
int amp_attr_fortran_get(int kind, int obj, int keyval, MPI_Aint *value,
                         int *flag, const char *call);
void amp_attr_keyval_fortran(int keyval, int is_int);

/* ---- error handlers (errhandler.c) ----
 * For objects whose calls live elsewhere (sessions, files): a new handler
 * of kind (enum amp_errh_kind) calling fn; whether eh may be the handler
 * of such an object (the error through MPI_COMM_WORLD's handler if not;
 * returns an MPI code); and what is wrong with eh as the handler of an
 * object of kind (-1: any), formatted into buf, and its error class
 * (MPI_ERR_ERRHANDLER: no error handler; MPI_ERR_ARG: one made for another
 * kind of object), or 0 when nothing is. */
int amp_errh_create(int kind, void *fn, MPI_Errhandler *errhandler,
                    const char *call);
int amp_errh_check(amp_rank_t *rank, MPI_Errhandler eh, int kind,
                   const char *call);
int amp_errh_problem(amp_rank_t *rank, MPI_Errhandler eh, int kind, char *buf,
                     size_t len);

/* ---- info objects (info.c) ---- */
/* space: NULL, or amp_info_rank_space() bytes for the table's first
 * chunk (base/table.h, amp_table_init_in). */
AMP_MUST_USE amp_status_t amp_info_rank_init(amp_rank_t *rank, void *space);
size_t amp_info_rank_space(void);
/* The hints behind info handle h, or NULL (MPI_INFO_NULL, invalid). */
struct amp_info *amp_info_lookup(amp_rank_t *rank, MPI_Info h);
/* Sets key to value in info h (an info object) as the runtime returns it:
 * value may be empty (MPI-4.1's "mpi_memory_alloc_kinds" with no kind),
 * which MPI_Info_set refuses.  MPI_ERR_NO_MEM, or MPI_SUCCESS. */
int amp_info_put(amp_rank_t *rank, MPI_Info h, const char *key,
                 const char *value);
/* MPI_SUCCESS when h is MPI_INFO_NULL or an info object, else
 * MPI_ERR_INFO through comm's handler. */
int amp_check_info(amp_rank_t *rank, amp_comm_t *comm, MPI_Info h,
                   const char *call);
/* Adds hints (may be NULL) to comm's: comm->info keeps a copy, and
 * comm->asserts the AMP_ASSERT_* bits of the mpi_assert_* keys set to
 * "true" ("false" clears one).  MPI_Comm_dup passes the old comm->info,
 * MPI_Comm_dup_with_info amp_info_lookup(rank, info). */
AMP_MUST_USE amp_status_t amp_comm_info_apply(amp_rank_t *rank,
                                              amp_comm_t *comm,
                                              const struct amp_info *hints);
void amp_info_destroy(struct amp_info *info);
/* Clears every info object of a rank that left this process (their
 * handles go with its tables: amp_rank_objects_forget). */
void amp_info_forget_all(amp_rank_t *rank);

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
