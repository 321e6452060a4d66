/*
 * Data representations (datarep.c): each rank's registry of those the
 * program registered (MPI_Register_datarep, ../file/datarep.c), which
 * MPI_Pack_external (pack.c) and file views use, and the calls of their
 * extent and conversion functions.
 */
#ifndef AMP_MPI_DATAREP_H
#define AMP_MPI_DATAREP_H

#include "mpi/handles.h"

/* A data representation registered with MPI_Register_datarep.  Each rank
 * has its own registry, as each MPI process would: a legacy program
 * registers the same name in every rank. */
typedef struct amp_datarep {
    struct amp_datarep *next;
    char name[MPI_MAX_DATAREP_STRING];
    MPI_Datarep_conversion_function *read_fn, *write_fn; /* may be NULL */
    MPI_Datarep_extent_function *extent_fn;
    void *extra_state;
    int fortran; /* the functions are Fortran's (fortran/fortran.c) */
} amp_datarep_t;

/* The representation rank registered under name, or NULL. */
amp_datarep_t *amp_datarep_lookup(amp_rank_t *rank, const char *name);
/* The extent in the file of predefined type dtype (through the program's
 * extent function); returns the MPI code of the function (or
 * MPI_ERR_CONVERSION when it gives a negative extent). */
int amp_datarep_extent(amp_rank_t *rank, const amp_datarep_t *r,
                       MPI_Datatype dtype, MPI_Aint *extent);
/* The program's conversion of count basic values between userbuf (laid
 * out as dtype tiled, from value position on) and filebuf (contiguous, the
 * file's representation); write: user to file.  MPI_SUCCESS without a
 * call when the representation has no such function (the caller copies
 * the bytes as they are).  Returns the function's code. */
int amp_datarep_convert(amp_rank_t *rank, const amp_datarep_t *r, int write,
                        void *userbuf, MPI_Datatype dtype, int count,
                        void *filebuf, MPI_Offset position);
/* Frees rank's registry (MPI_Finalize). */
void amp_datarep_cleanup(amp_rank_t *rank);

#endif
