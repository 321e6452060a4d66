/*
 * MPI-IO as the rest of the layer sees it: data representations
 * (datarep.c) and file handles (file.c).  The file objects themselves are
 * private to the file*.c files (file.h).
 */
#ifndef AMP_MPI_FILEIO_H
#define AMP_MPI_FILEIO_H

#include "mpi/handles.h"

/* ---- data representations (datarep.c) ---- */

/* A data representation registered with MPI_Register_datarep.  Each rank
 * has its own registry, as each MPI process would: a legacy program
 * registers the same name in every rank. */
typedef struct amp_datarep {
    struct amp_datarep *next;
    char name[MPI_MAX_DATAREP_STRING];
    MPI_Datarep_conversion_function *read_fn, *write_fn; /* may be NULL */
    MPI_Datarep_extent_function *extent_fn;
    void *extra_state;
    int fortran; /* the functions are Fortran's (called by fortran.c) */
} amp_datarep_t;

/* The representation rank registered under name, or NULL. */
amp_datarep_t *amp_datarep_lookup(amp_rank_t *rank, const char *name);
/* Registers r (copied) under name for the calling rank: the
 * MPI_Register_datarep of C and of Fortran (r->fortran set); returns the
 * MPI code. */
int amp_datarep_register(const char *name, const amp_datarep_t *r,
                         const char *call);
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

/* ---- files (file.c) ---- */
AMP_MUST_USE amp_status_t amp_file_rank_init(amp_rank_t *rank);
/* Where the error handler of file handle fh lives: the file's, or
 * MPI_FILE_NULL's; NULL when fh is no file. */
MPI_Errhandler *amp_file_errh_slot(amp_rank_t *rank, MPI_File fh);
/* The first open file of rank (for checkpoints), its path in *path, or
 * MPI_FILE_NULL. */
MPI_File amp_file_first_open(amp_rank_t *rank, const char **path);
#endif
