/*
 * User data representations (MPI_Register_datarep, MPI 3.1 section
 * 13.5.3): each rank's registry of names and their conversion and extent
 * callbacks.  MPI_Pack_external, MPI_Unpack_external and
 * MPI_Pack_external_size (pack.c) use a registered representation besides
 * "external32"; the file views of MPI-IO are to find them here too
 * (amp_datarep_find).
 */
#include "mpi/impl.h"

#include <stdlib.h>
#include <string.h>

/* The representations the runtime defines itself (MPI-IO's "native" and
 * "internal", and "external32"): not to be registered again. */
static int builtin(const char *name)
{
    return strcmp(name, "native") == 0 || strcmp(name, "internal") == 0 ||
           strcmp(name, "external32") == 0;
}

const amp_datarep_t *amp_datarep_find(amp_rank_t *rank, const char *name)
{
    for (const amp_datarep_t *d = rank->datareps; d; d = d->next)
        if (strcmp(d->name, name) == 0)
            return d;
    return NULL;
}

void amp_datarep_clear(amp_rank_t *rank)
{
    while (rank->datareps) {
        amp_datarep_t *d = rank->datareps;
        rank->datareps = d->next;
        free(d);
    }
}

int PMPI_Register_datarep(const char *datarep,
                          MPI_Datarep_conversion_function *read_conversion_fn,
                          MPI_Datarep_conversion_function *write_conversion_fn,
                          MPI_Datarep_extent_function *dtype_file_extent_fn,
                          void *extra_state)
{
    const char *call = "MPI_Register_datarep";
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!datarep || !dtype_file_extent_fn)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument %s)",
                             datarep ? "dtype_file_extent_fn" : "datarep");
    size_t len = strlen(datarep);
    if (len == 0 || len >= MPI_MAX_DATAREP_STRING)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "a data representation's name has 1 to %d "
                             "characters (MPI_MAX_DATAREP_STRING - 1), not "
                             "%zu (argument datarep)",
                             MPI_MAX_DATAREP_STRING - 1, len);
    if (builtin(datarep) || amp_datarep_find(rank, datarep))
        return amp_mpi_error(rank, NULL, MPI_ERR_DUP_DATAREP, call,
                             "\"%s\" is defined already (argument datarep)",
                             datarep);
    amp_datarep_t *d = calloc(1, sizeof(*d));
    if (!d)
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call, "out of memory");
    memcpy(d->name, datarep, len + 1);
    d->read = read_conversion_fn;
    d->write = write_conversion_fn;
    d->extent = dtype_file_extent_fn;
    d->extra_state = extra_state;
    d->next = rank->datareps;
    rank->datareps = d;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Register_datarep)
