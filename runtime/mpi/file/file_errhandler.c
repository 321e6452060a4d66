/*
 * Files' error handlers: MPI_File_create_errhandler, File_set_errhandler,
 * File_get_errhandler, File_call_errhandler.  Each file keeps its handler
 * (amp_file_errh_slot), and MPI_FILE_NULL's (the rank's file_errh,
 * MPI_ERRORS_RETURN at first) takes the errors of calls without a file and
 * is the one new files start with.  The handler objects are
 * attr/errhandler.c's.
 */
#include "mpi/file/fileio.h"
#include "mpi/attr/attr.h"

#include <stdio.h>

/* Enters call on file handle file (MPI_FILE_NULL allowed): *slot is
 * where its handler lives. */
static int enter_file(MPI_File file, const char *call, amp_rank_t **rank,
                      MPI_Errhandler **slot)
{
    char msg[AMP_ERRMSG_LEN];
    int rc = amp_mpi_enter(rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    *slot = amp_file_errh_slot(*rank, file);
    if (*slot)
        return MPI_SUCCESS;
    snprintf(msg, sizeof(msg), "%s: invalid file handle %#x (argument file)",
             call, (unsigned)file);
    return amp_mpi_error_file(*rank, (*rank)->file_errh, MPI_FILE_NULL,
                              MPI_ERR_FILE, msg);
}

int PMPI_File_create_errhandler(
    MPI_File_errhandler_function *file_errhandler_fn,
    MPI_Errhandler *errhandler)
{
    return amp_errh_create(AMP_ERRH_FILE, (void *)file_errhandler_fn,
                           errhandler, "MPI_File_create_errhandler");
}
AMP_WEAK_ALIAS(File_create_errhandler)

int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    const char *call = "MPI_File_set_errhandler";
    amp_rank_t *rank;
    MPI_Errhandler *slot;
    char why[128], msg[AMP_ERRMSG_LEN];
    int rc = enter_file(file, call, &rank, &slot);
    if (rc != MPI_SUCCESS)
        return rc;
    int errclass =
        amp_errh_problem(rank, errhandler, AMP_ERRH_FILE, why, sizeof(why));
    if (errclass) {
        snprintf(msg, sizeof(msg), "%s: %s", call, why);
        return amp_mpi_error_file(rank, *slot, file, errclass, msg);
    }
    *slot = errhandler;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(File_set_errhandler)

int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    const char *call = "MPI_File_get_errhandler";
    amp_rank_t *rank;
    MPI_Errhandler *slot;
    char msg[AMP_ERRMSG_LEN];
    int rc = enter_file(file, call, &rank, &slot);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!errhandler) {
        snprintf(msg, sizeof(msg), "%s: NULL pointer (argument errhandler)",
                 call);
        return amp_mpi_error_file(rank, *slot, file, MPI_ERR_ARG, msg);
    }
    *errhandler = *slot;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(File_get_errhandler)

int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    const char *call = "MPI_File_call_errhandler";
    amp_rank_t *rank;
    MPI_Errhandler *slot;
    char detail[64];
    int rc = enter_file(fh, call, &rank, &slot);
    if (rc != MPI_SUCCESS)
        return rc;
    snprintf(detail, sizeof(detail), "error code %d raised by the program",
             errorcode);
    amp_errh_apply(rank, *slot, fh, errorcode, 1, call, detail);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(File_call_errhandler)
