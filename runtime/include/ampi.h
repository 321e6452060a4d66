/*
 * ampi.h: extensions beyond the MPI standard.  Included by mpi.h, which
 * also defines the macro AMPI so programs can test for them.
 */
#ifndef AMPI_AMPI_H
#define AMPI_AMPI_H

#ifdef __cplusplus
extern "C" {
#endif

/* Lets the other ranks of this worker thread run before the caller
 * continues. */
__attribute__((visibility("default"))) int AMPI_Yield(void);

/* Registers fn to run in every rank, on the rank's own copies of the
 * privatized globals, before its main.  The privatization plugin calls it
 * from constructors; it must be called before the ranks start. */
__attribute__((visibility("default"))) void
AMPI_Register_rank_init(void (*fn)(void));

#ifdef __cplusplus
}
#endif

#endif
