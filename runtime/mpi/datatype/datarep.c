/*
 * Data representations registered with MPI_Register_datarep (datarep.h).
 *
 * Each rank keeps its own registry, as each MPI process would, so that a
 * legacy program that registers a representation in every rank works with
 * many ranks in one process.  The program's functions are called in the
 * calling rank's context (its copy of the program under pie
 * privatization), with C's arguments or, for a representation registered
 * from Fortran, by reference with IERROR last.
 */
#include "mpi/datatype/datarep.h"

#include <stdlib.h>
#include <string.h>

amp_datarep_t *amp_datarep_lookup(amp_rank_t *rank, const char *name)
{
    for (amp_datarep_t *r = rank->datareps; r; r = r->next)
        if (strcmp(r->name, name) == 0)
            return r;
    return NULL;
}

/* Fortran's forms of the functions (arguments by reference). */
typedef void f_extent_fn_t(MPI_Fint *datatype, MPI_Aint *extent,
                           MPI_Aint *extra_state, MPI_Fint *ierror);
typedef void f_convert_fn_t(void *userbuf, MPI_Fint *datatype, MPI_Fint *count,
                            void *filebuf, MPI_Offset *position,
                            MPI_Aint *extra_state, MPI_Fint *ierror);

int amp_datarep_extent(amp_rank_t *rank, const amp_datarep_t *r,
                       MPI_Datatype dtype, MPI_Aint *extent)
{
    int rc;
    *extent = 0;
    if (r->fortran) {
        f_extent_fn_t *fn = amp_pie_to_rank(rank, (void *)r->extent_fn);
        MPI_Fint dt = dtype, ierr = MPI_SUCCESS;
        MPI_Aint extra = (MPI_Aint)(intptr_t)r->extra_state;
        fn(&dt, extent, &extra, &ierr);
        rc = ierr;
    } else {
        MPI_Datarep_extent_function *fn =
            amp_pie_to_rank(rank, (void *)r->extent_fn);
        rc = fn(dtype, extent, r->extra_state);
    }
    if (rc == MPI_SUCCESS && *extent < 0)
        rc = MPI_ERR_CONVERSION;
    return rc;
}

int amp_datarep_convert(amp_rank_t *rank, const amp_datarep_t *r, int write,
                        void *userbuf, MPI_Datatype dtype, int count,
                        void *filebuf, MPI_Offset position)
{
    MPI_Datarep_conversion_function *c = write ? r->write_fn : r->read_fn;
    if (!c)
        return MPI_SUCCESS;
    if (r->fortran) {
        f_convert_fn_t *fn = amp_pie_to_rank(rank, (void *)c);
        MPI_Fint dt = dtype, n = count, ierr = MPI_SUCCESS;
        MPI_Aint extra = (MPI_Aint)(intptr_t)r->extra_state;
        fn(userbuf, &dt, &n, filebuf, &position, &extra, &ierr);
        return ierr;
    }
    MPI_Datarep_conversion_function *fn = amp_pie_to_rank(rank, (void *)c);
    return fn(userbuf, dtype, count, filebuf, position, r->extra_state);
}

void amp_datarep_cleanup(amp_rank_t *rank)
{
    while (rank->datareps) {
        amp_datarep_t *r = rank->datareps;
        rank->datareps = r->next;
        free(r);
    }
}
