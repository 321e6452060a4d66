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

#ifdef __cplusplus
}
#endif

#endif
