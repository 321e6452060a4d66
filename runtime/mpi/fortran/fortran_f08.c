/*
 * use mpi_f08's choice buffers: TYPE(*), DIMENSION(..) dummies, which the
 * compiler hands over as C descriptors.  The module's procedures
 * (scripts/gen_fortran.py --f08) call amp_f08_buf for the address to give
 * the call, and amp_f08_buf_end after it.  A contiguous buffer is used in
 * place.  A non-contiguous array section (MPI_SUBARRAYS_SUPPORTED is
 * .FALSE.) is copied into a contiguous temporary for a call that is over
 * when it returns (and the data copied back when the call writes it), as a
 * compiler does for an assumed-size dummy; a nonblocking call cannot have
 * one (the call keeps the buffer after it returns): MPI_ERR_BUFFER.
 *
 * Only the members of a descriptor that gfortran and flang lay out alike
 * are read: the base address, the element length, the rank and the
 * dimensions (extent and byte stride), at the same offsets in both.
 */
#include "mpi/fortran/fortran.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    ptrdiff_t lower_bound, extent, sm;
} f_dim_t;

typedef struct {
    void *base_addr;
    size_t elem_len;
    int version;
    signed char rank;
    unsigned char pad[3]; /* attribute and type: in another order in each */
    f_dim_t dim[15];
} f_desc_t;

_Static_assert(offsetof(f_desc_t, dim) == 24, "descriptor dimensions");

/* What amp_f08_buf's mode says of the call. */
enum { F08_IN = 1, F08_OUT = 2, F08_ASYNC = 4 };

static int contiguous(const f_desc_t *d)
{
    ptrdiff_t want = (ptrdiff_t)d->elem_len;
    for (int i = 0; i < d->rank; i++) {
        if (d->dim[i].extent == 0)
            return 1;
        if (d->dim[i].extent > 1 && d->dim[i].sm != want)
            return 0;
        want *= d->dim[i].extent;
    }
    return 1;
}

static size_t elements(const f_desc_t *d)
{
    size_t n = 1;
    for (int i = 0; i < d->rank; i++)
        n *= d->dim[i].extent > 0 ? (size_t)d->dim[i].extent : 0;
    return n;
}

/* Copies every element of d's section between it and the packed tmp, in
 * array element order (in: from the section). */
static void copy_section(const f_desc_t *d, char *tmp, int in)
{
    ptrdiff_t idx[15] = {0};
    size_t n = elements(d), len = d->elem_len;
    for (size_t e = 0; e < n; e++) {
        char *at = d->base_addr;
        for (int i = 0; i < d->rank; i++)
            at += idx[i] * d->dim[i].sm;
        if (in)
            memcpy(tmp + e * len, at, len);
        else
            memcpy(at, tmp + e * len, len);
        for (int i = 0; i < d->rank && ++idx[i] == d->dim[i].extent; i++)
            idx[i] = 0;
    }
}

AMPI_API void *amp_f08_buf(const f_desc_t *d, int mode, void **tmp,
                           MPI_Fint *ierror)
{
    *tmp = NULL;
    *ierror = MPI_SUCCESS;
    if (contiguous(d))
        return d->base_addr;
    amp_rank_t *rank = amp_mt_rank();
    if (mode & F08_ASYNC) {
        *ierror = amp_mpi_error(
            rank, NULL, MPI_ERR_BUFFER, "use mpi_f08",
            "a nonblocking or one-sided call was given a non-contiguous "
            "array section (MPI_SUBARRAYS_SUPPORTED is .FALSE.): pass a "
            "contiguous array, or describe the layout with a datatype");
        return NULL;
    }
    size_t bytes = elements(d) * d->elem_len;
    *tmp = malloc(bytes ? bytes : 1);
    if (!*tmp) {
        *ierror = amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, "use mpi_f08",
                                "no memory for a %zu-byte copy of a "
                                "non-contiguous array section",
                                bytes);
        return NULL;
    }
    if (mode & F08_IN)
        copy_section(d, *tmp, 1);
    return *tmp;
}

AMPI_API void amp_f08_buf_end(const f_desc_t *d, int mode, void *tmp)
{
    if (!tmp)
        return;
    if (mode & F08_OUT)
        copy_section(d, tmp, 0);
    free(tmp);
}

/* MPI_Buffer_detach of mpi_f08: BUFFER_ADDR (TYPE(C_PTR)) gets the
 * address. */
AMPI_API void amp_f08_buffer_detach(void **buffer_addr, MPI_Fint *size,
                                    MPI_Fint *ierror)
{
    int c_size = 0;
    *ierror = PMPI_Buffer_detach(buffer_addr, &c_size);
    if (*ierror == MPI_SUCCESS)
        *size = c_size;
}
