/*
 * MPI_Register_datarep (fileio.h): a data representation added to the
 * calling rank's registry (../datatype/datarep.c), from C or from Fortran.
 */
#include "mpi/file/fileio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_predefined(const char *name)
{
    return strcmp(name, "native") == 0 || strcmp(name, "internal") == 0 ||
           strcmp(name, "external32") == 0;
}

static int error(amp_rank_t *rank, int errclass, const char *call,
                 const char *detail)
{
    char msg[AMP_ERRMSG_LEN * 2];
    snprintf(msg, sizeof(msg), "%s: %s", call, detail);
    return amp_mpi_error_file(rank, rank->file_errh, MPI_FILE_NULL, errclass,
                              msg);
}

int amp_datarep_register(const char *name, const amp_datarep_t *r,
                         const char *call)
{
    amp_rank_t *rank;
    char detail[AMP_ERRMSG_LEN];
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !name[0] || strlen(name) >= MPI_MAX_DATAREP_STRING)
        return error(rank, MPI_ERR_ARG, call,
                     !name    ? "NULL pointer (argument datarep)"
                     : !*name ? "empty name (argument datarep)"
                              : "name longer than MPI_MAX_DATAREP_STRING - 1 "
                                "characters (argument datarep)");
    if (!r->extent_fn)
        return error(rank, MPI_ERR_ARG, call,
                     "NULL pointer (argument dtype_file_extent_fn)");
    if (is_predefined(name) || amp_datarep_lookup(rank, name)) {
        snprintf(detail, sizeof(detail),
                 "data representation \"%s\" is already defined (argument "
                 "datarep)",
                 name);
        return error(rank, MPI_ERR_DUP_DATAREP, call, detail);
    }
    amp_datarep_t *copy = malloc(sizeof(*copy));
    if (!copy)
        return error(rank, MPI_ERR_NO_MEM, call, "out of memory");
    *copy = *r;
    snprintf(copy->name, sizeof(copy->name), "%s", name);
    copy->next = rank->datareps;
    rank->datareps = copy;
    return MPI_SUCCESS;
}

int PMPI_Register_datarep(const char *datarep,
                          MPI_Datarep_conversion_function *read_conversion_fn,
                          MPI_Datarep_conversion_function *write_conversion_fn,
                          MPI_Datarep_extent_function *dtype_file_extent_fn,
                          void *extra_state)
{
    amp_datarep_t r = {.read_fn = read_conversion_fn,
                       .write_fn = write_conversion_fn,
                       .extent_fn = dtype_file_extent_fn,
                       .extra_state = extra_state};
    return amp_datarep_register(datarep, &r, "MPI_Register_datarep");
}
AMP_WEAK_ALIAS(Register_datarep)
