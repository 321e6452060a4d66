/*
 * MPI-IO as the rest of the layer sees it: registering data
 * representations (datarep.c) and file handles (file.c).  The file
 * objects themselves are private to the file*.c files (file.h); the
 * registry of data representations is ../datatype/datarep.h's.
 */
#ifndef AMP_MPI_FILEIO_H
#define AMP_MPI_FILEIO_H

#include "mpi/datatype/datarep.h"

/* ---- data representations (datarep.c) ---- */
/* Registers r (copied) under name for the calling rank: the
 * MPI_Register_datarep of C and of Fortran (r->fortran set); returns the
 * MPI code. */
int amp_datarep_register(const char *name, const amp_datarep_t *r,
                         const char *call);

/* ---- files (file.c) ---- */
AMP_MUST_USE amp_status_t amp_file_rank_init(amp_rank_t *rank);
/* Where the error handler of file handle fh lives: the file's, or
 * MPI_FILE_NULL's; NULL when fh is no file. */
MPI_Errhandler *amp_file_errh_slot(amp_rank_t *rank, MPI_File fh);
/* The first open file of rank (for checkpoints), its path in *path, or
 * MPI_FILE_NULL. */
MPI_File amp_file_first_open(amp_rank_t *rank, const char **path);
#endif
