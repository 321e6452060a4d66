/* Datatype calls: constructors, commit and free, bounds, envelopes and
 * names.  The layouts themselves are built in dt/. */
#include "mpi/attr/attr.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int lookup_any(amp_rank_t *rank, MPI_Datatype h, const char *call,
                      const char *arg, const amp_dt_t **dt)
{
    *dt = amp_dt_lookup(rank, h);
    if (*dt && ((*dt)->predefined || (*dt)->user_refs > 0))
        return MPI_SUCCESS;
    *dt = NULL;
    return amp_mpi_error(rank, NULL, MPI_ERR_TYPE, call,
                         "invalid datatype handle %#x (argument %s)",
                         (unsigned)h, arg);
}

static int null_arg(amp_rank_t *rank, const char *call, const char *arg)
{
    return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                         "NULL pointer (argument %s)", arg);
}

/* Enters call and checks the arguments every constructor over one old
 * type has. */
static int ctor_enter(const char *call, int count, MPI_Datatype oldtype,
                      const void *newtype, amp_rank_t **rank,
                      const amp_dt_t **old)
{
    int rc = amp_mpi_enter(rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_count(*rank, NULL, count, call, "count");
    if (rc == MPI_SUCCESS)
        rc = lookup_any(*rank, oldtype, call, "oldtype", old);
    if (rc == MPI_SUCCESS && !newtype)
        rc = null_arg(*rank, call, "newtype");
    return rc;
}

/* Enters call and looks up datatype (argument datatype). */
static int type_enter(MPI_Datatype datatype, const char *call,
                      amp_rank_t **rank, const amp_dt_t **dt)
{
    int rc = amp_mpi_enter(rank, call);
    if (rc == MPI_SUCCESS)
        rc = lookup_any(*rank, datatype, call, "datatype", dt);
    return rc;
}

static int check_blocklen(amp_rank_t *rank, const char *call, int len,
                          const char *arg, int i)
{
    if (len >= 0)
        return MPI_SUCCESS;
    if (i < 0)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "negative block length %d (argument %s)", len,
                             arg);
    return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                         "negative block length %d (argument %s[%d])", len, arg,
                         i);
}

static int check_array(amp_rank_t *rank, const char *call, int count,
                       const void *array, const char *arg)
{
    if (count == 0 || array)
        return MPI_SUCCESS;
    return null_arg(rank, call, arg);
}

/* A table entry for a new type, with room for its envelope; NULL when out
 * of memory. */
static amp_dt_t *type_new(amp_rank_t *rank, int nints, int naddrs, int ntypes)
{
    amp_dt_t *dt = amp_table_alloc(&rank->dts);
    if (!dt)
        return NULL;
    dt->ints = malloc((size_t)(nints ? nints : 1) * sizeof(int));
    dt->addrs = malloc((size_t)(naddrs ? naddrs : 1) * sizeof(ptrdiff_t));
    dt->types = malloc((size_t)(ntypes ? ntypes : 1) * sizeof(int));
    if (!dt->ints || !dt->addrs || !dt->types) {
        amp_dt_destroy(dt);
        amp_table_free(&rank->dts, dt);
        return NULL;
    }
    dt->nints = nints;
    dt->naddrs = naddrs;
    dt->ntypes = ntypes;
    return dt;
}

/* Answers a failed constructor: frees dt (which may be NULL). */
static int type_fail(amp_rank_t *rank, amp_dt_t *dt, amp_status_t st,
                     const char *call)
{
    if (dt) {
        amp_dt_destroy(dt);
        amp_table_free(&rank->dts, dt);
    }
    if (st == AMP_ERR_ARG)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "the type's size or bounds overflow MPI_Aint");
    return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call,
                         "out of memory, or one element would have more "
                         "than %d separate data blocks (AMP_DT_MAX_BLOCKS)",
                         AMP_DT_MAX_BLOCKS);
}

/* Hands out a finished type: the types its envelope names stay alive as
 * long as it does. */
static int type_publish(amp_rank_t *rank, amp_dt_t *dt, int combiner,
                        MPI_Datatype *newtype)
{
    for (int i = 0; i < dt->ntypes; i++) {
        amp_dt_t *in = amp_dt_derived(rank, dt->types[i]);
        if (in)
            in->refs++;
    }
    dt->combiner = combiner;
    dt->refs = 1;
    dt->user_refs = 1;
    *newtype = AMPI_HANDLE(AMPI_HANDLE_DATATYPE_DERIVED, dt->obj.idx);
    return MPI_SUCCESS;
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    amp_rank_t *rank;
    const amp_dt_t *old;
    const char *call = "MPI_Type_contiguous";
    int rc = ctor_enter(call, count, oldtype, newtype, &rank, &old);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_dt_t *dt = type_new(rank, 1, 0, 1);
    amp_status_t st =
        dt ? amp_dt_make_contiguous(dt, count, old) : AMP_ERR_NOMEM;
    if (st != AMP_OK)
        return type_fail(rank, dt, st, call);
    dt->ints[0] = count;
    dt->types[0] = oldtype;
    return type_publish(rank, dt, MPI_COMBINER_CONTIGUOUS, newtype);
}
AMP_WEAK_ALIAS(Type_contiguous)

/* vector (stride in elements of oldtype) and hvector (in bytes). */
static int vector_common(int count, int blocklength, MPI_Aint stride, int bytes,
                         MPI_Datatype oldtype, MPI_Datatype *newtype,
                         const char *call)
{
    amp_rank_t *rank;
    const amp_dt_t *old;
    int rc = ctor_enter(call, count, oldtype, newtype, &rank, &old);
    if (rc == MPI_SUCCESS)
        rc = check_blocklen(rank, call, blocklength, "blocklength", -1);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_dt_t *dt = type_new(rank, bytes ? 2 : 3, bytes ? 1 : 0, 1);
    ptrdiff_t hstride = bytes ? stride : stride * old->extent;
    amp_status_t st =
        dt ? amp_dt_make_hvector(dt, count, (size_t)blocklength, hstride, old)
           : AMP_ERR_NOMEM;
    if (st != AMP_OK)
        return type_fail(rank, dt, st, call);
    dt->ints[0] = count;
    dt->ints[1] = blocklength;
    if (bytes)
        dt->addrs[0] = stride;
    else
        dt->ints[2] = (int)stride;
    dt->types[0] = oldtype;
    return type_publish(
        rank, dt, bytes ? MPI_COMBINER_HVECTOR : MPI_COMBINER_VECTOR, newtype);
}

int PMPI_Type_vector(int count, int blocklength, int stride,
                     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return vector_common(count, blocklength, stride, 0, oldtype, newtype,
                         "MPI_Type_vector");
}
AMP_WEAK_ALIAS(Type_vector)

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                             MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return vector_common(count, blocklength, stride, 1, oldtype, newtype,
                         "MPI_Type_create_hvector");
}
AMP_WEAK_ALIAS(Type_create_hvector)

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride,
                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return vector_common(count, blocklength, stride, 1, oldtype, newtype,
                         "MPI_Type_hvector");
}
AMP_WEAK_ALIAS(Type_hvector)

/* The four indexed constructors: block lengths from blens (or blen for
 * all), displacements from idisp (in extents of oldtype) or adisp (bytes). */
typedef struct indexed_args {
    int count;
    const int *blens;
    int blen;
    const int *idisp;
    const MPI_Aint *adisp;
    int combiner;
} indexed_args_t;

/* Whether each block has its own length; whether displacements are in
 * extents of oldtype (else bytes). */
#define PER_BLOCK(a)                                                           \
    ((a)->combiner == MPI_COMBINER_INDEXED ||                                  \
     (a)->combiner == MPI_COMBINER_HINDEXED)
#define INT_DISP(a)                                                            \
    ((a)->combiner == MPI_COMBINER_INDEXED ||                                  \
     (a)->combiner == MPI_COMBINER_INDEXED_BLOCK)

static int check_indexed(amp_rank_t *rank, const indexed_args_t *a,
                         const char *call)
{
    int rc = MPI_SUCCESS;
    if (PER_BLOCK(a))
        rc = check_array(rank, call, a->count, a->blens,
                         "array_of_blocklengths");
    else
        rc = check_blocklen(rank, call, a->blen, "blocklength", -1);
    if (rc == MPI_SUCCESS)
        rc = check_array(rank, call, a->count,
                         INT_DISP(a) ? (const void *)a->idisp : a->adisp,
                         "array_of_displacements");
    for (int i = 0; PER_BLOCK(a) && rc == MPI_SUCCESS && i < a->count; i++)
        rc =
            check_blocklen(rank, call, a->blens[i], "array_of_blocklengths", i);
    return rc;
}

/* Records the envelope of an indexed type (MPI's order of arguments). */
static void indexed_envelope(amp_dt_t *dt, const indexed_args_t *a,
                             MPI_Datatype oldtype)
{
    int *ip = dt->ints;
    *ip++ = a->count;
    if (PER_BLOCK(a)) {
        memcpy(ip, a->blens, (size_t)a->count * sizeof(int));
        ip += a->count;
    } else {
        *ip++ = a->blen;
    }
    if (INT_DISP(a))
        memcpy(ip, a->idisp, (size_t)a->count * sizeof(int));
    else
        memcpy(dt->addrs, a->adisp, (size_t)a->count * sizeof(MPI_Aint));
    dt->types[0] = oldtype;
}

static int indexed_common(const indexed_args_t *a, MPI_Datatype oldtype,
                          MPI_Datatype *newtype, const char *call)
{
    amp_rank_t *rank;
    const amp_dt_t *old;
    int rc = ctor_enter(call, a->count, oldtype, newtype, &rank, &old);
    if (rc == MPI_SUCCESS)
        rc = check_indexed(rank, a, call);
    if (rc != MPI_SUCCESS)
        return rc;
    int nints =
        1 + (PER_BLOCK(a) ? a->count : 1) + (INT_DISP(a) ? a->count : 0);
    amp_dt_t *dt = type_new(rank, nints, INT_DISP(a) ? 0 : a->count, 1);
    amp_dt_part_t *parts =
        malloc((size_t)(a->count ? a->count : 1) * sizeof(*parts));
    amp_status_t st = AMP_ERR_NOMEM;
    if (dt && parts) {
        for (int i = 0; i < a->count; i++) {
            parts[i].disp = INT_DISP(a) ? (ptrdiff_t)a->idisp[i] * old->extent
                                        : a->adisp[i];
            parts[i].blocklen = (size_t)(PER_BLOCK(a) ? a->blens[i] : a->blen);
            parts[i].type = old;
        }
        st = amp_dt_make_struct(dt, a->count, parts, 0);
    }
    free(parts);
    if (st != AMP_OK)
        return type_fail(rank, dt, st, call);
    indexed_envelope(dt, a, oldtype);
    return type_publish(rank, dt, a->combiner, newtype);
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    indexed_args_t a = {count, array_of_blocklengths, 0, array_of_displacements,
                        NULL,  MPI_COMBINER_INDEXED};
    return indexed_common(&a, oldtype, newtype, "MPI_Type_indexed");
}
AMP_WEAK_ALIAS(Type_indexed)

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[],
                              MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    indexed_args_t a = {count, array_of_blocklengths,  0,
                        NULL,  array_of_displacements, MPI_COMBINER_HINDEXED};
    return indexed_common(&a, oldtype, newtype, "MPI_Type_create_hindexed");
}
AMP_WEAK_ALIAS(Type_create_hindexed)

int PMPI_Type_hindexed(int count, int array_of_blocklengths[],
                       MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                       MPI_Datatype *newtype)
{
    indexed_args_t a = {count, array_of_blocklengths,  0,
                        NULL,  array_of_displacements, MPI_COMBINER_HINDEXED};
    return indexed_common(&a, oldtype, newtype, "MPI_Type_hindexed");
}
AMP_WEAK_ALIAS(Type_hindexed)

int PMPI_Type_create_indexed_block(int count, int blocklength,
                                   const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    indexed_args_t a = {count,       NULL,
                        blocklength, array_of_displacements,
                        NULL,        MPI_COMBINER_INDEXED_BLOCK};
    return indexed_common(&a, oldtype, newtype,
                          "MPI_Type_create_indexed_block");
}
AMP_WEAK_ALIAS(Type_create_indexed_block)

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    indexed_args_t a = {count,
                        NULL,
                        blocklength,
                        NULL,
                        array_of_displacements,
                        MPI_COMBINER_HINDEXED_BLOCK};
    return indexed_common(&a, oldtype, newtype,
                          "MPI_Type_create_hindexed_block");
}
AMP_WEAK_ALIAS(Type_create_hindexed_block)

static int check_struct(amp_rank_t *rank, int count, const int *blens,
                        const MPI_Aint *disps, const MPI_Datatype *types,
                        const amp_dt_t **olds, const char *call)
{
    int rc = check_array(rank, call, count, blens, "array_of_blocklengths");
    if (rc == MPI_SUCCESS)
        rc = check_array(rank, call, count, disps, "array_of_displacements");
    if (rc == MPI_SUCCESS)
        rc = check_array(rank, call, count, types, "array_of_types");
    for (int i = 0; rc == MPI_SUCCESS && i < count; i++) {
        rc = check_blocklen(rank, call, blens[i], "array_of_blocklengths", i);
        olds[i] = amp_dt_lookup(rank, types[i]);
        if (rc == MPI_SUCCESS &&
            (!olds[i] || (!olds[i]->predefined && olds[i]->user_refs == 0)))
            rc = amp_mpi_error(rank, NULL, MPI_ERR_TYPE, call,
                               "invalid datatype handle %#x "
                               "(argument array_of_types[%d])",
                               (unsigned)types[i], i);
    }
    return rc;
}

static int struct_common(int count, const int *blens, const MPI_Aint *disps,
                         const MPI_Datatype *types, MPI_Datatype *newtype,
                         const char *call)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_count(rank, NULL, count, call, "count");
    if (rc == MPI_SUCCESS && !newtype)
        rc = null_arg(rank, call, "newtype");
    if (rc != MPI_SUCCESS)
        return rc;
    const amp_dt_t **olds = malloc((size_t)(count ? count : 1) * sizeof(*olds));
    amp_dt_part_t *parts = malloc((size_t)(count ? count : 1) * sizeof(*parts));
    if (!olds || !parts) {
        free(olds);
        free(parts);
        return type_fail(rank, NULL, AMP_ERR_NOMEM, call);
    }
    rc = check_struct(rank, count, blens, disps, types, olds, call);
    amp_dt_t *dt = NULL;
    amp_status_t st = AMP_OK;
    if (rc == MPI_SUCCESS) {
        for (int i = 0; i < count; i++)
            parts[i] = (amp_dt_part_t){disps[i], (size_t)blens[i], olds[i]};
        dt = type_new(rank, 1 + count, count, count);
        st = dt ? amp_dt_make_struct(dt, count, parts, 1) : AMP_ERR_NOMEM;
    }
    free(olds);
    free(parts);
    if (rc != MPI_SUCCESS)
        return rc;
    if (st != AMP_OK)
        return type_fail(rank, dt, st, call);
    dt->ints[0] = count;
    memcpy(dt->ints + 1, blens, (size_t)count * sizeof(int));
    memcpy(dt->addrs, disps, (size_t)count * sizeof(MPI_Aint));
    memcpy(dt->types, types, (size_t)count * sizeof(MPI_Datatype));
    return type_publish(rank, dt, MPI_COMBINER_STRUCT, newtype);
}

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[],
                            MPI_Datatype *newtype)
{
    return struct_common(count, array_of_blocklengths, array_of_displacements,
                         array_of_types, newtype, "MPI_Type_create_struct");
}
AMP_WEAK_ALIAS(Type_create_struct)

int PMPI_Type_struct(int count, int array_of_blocklengths[],
                     MPI_Aint array_of_displacements[],
                     MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return struct_common(count, array_of_blocklengths, array_of_displacements,
                         array_of_types, newtype, "MPI_Type_struct");
}
AMP_WEAK_ALIAS(Type_struct)

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    amp_rank_t *rank;
    const amp_dt_t *old;
    const char *call = "MPI_Type_create_resized";
    int rc = ctor_enter(call, 0, oldtype, newtype, &rank, &old);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_dt_t *dt = type_new(rank, 0, 2, 1);
    amp_status_t st =
        dt ? amp_dt_make_resized(dt, old, lb, extent) : AMP_ERR_NOMEM;
    if (st != AMP_OK)
        return type_fail(rank, dt, st, call);
    dt->addrs[0] = lb;
    dt->addrs[1] = extent;
    dt->types[0] = oldtype;
    return type_publish(rank, dt, MPI_COMBINER_RESIZED, newtype);
}
AMP_WEAK_ALIAS(Type_create_resized)

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    amp_rank_t *rank;
    const amp_dt_t *old;
    const char *call = "MPI_Type_dup";
    int rc = ctor_enter(call, 0, oldtype, newtype, &rank, &old);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_dt_t *dt = type_new(rank, 0, 0, 1);
    amp_status_t st = dt ? amp_dt_make_dup(dt, old) : AMP_ERR_NOMEM;
    if (st != AMP_OK)
        return type_fail(rank, dt, st, call);
    dt->types[0] = oldtype;
    dt->committed = old->committed;
    rc = amp_attr_type_copy(rank, oldtype, dt, call);
    if (rc != MPI_SUCCESS) {
        amp_dt_destroy(dt);
        amp_table_free(&rank->dts, dt);
        return rc;
    }
    return type_publish(rank, dt, MPI_COMBINER_DUP, newtype);
}
AMP_WEAK_ALIAS(Type_dup)

static int check_subarray(amp_rank_t *rank, int ndims, const int *sizes,
                          const int *subsizes, const int *starts, int order,
                          const char *call)
{
    if (ndims <= 0)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "ndims %d is not positive (argument ndims)",
                             ndims);
    if (!sizes || !subsizes || !starts)
        return null_arg(rank, call,
                        !sizes      ? "array_of_sizes"
                        : !subsizes ? "array_of_subsizes"
                                    : "array_of_starts");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "order %d is neither MPI_ORDER_C nor "
                             "MPI_ORDER_FORTRAN (argument order)",
                             order);
    for (int i = 0; i < ndims; i++) {
        if (sizes[i] <= 0 || subsizes[i] < 0 || starts[i] < 0 ||
            subsizes[i] > sizes[i] || starts[i] > sizes[i] - subsizes[i])
            return amp_mpi_error(
                rank, NULL, MPI_ERR_ARG, call,
                "dimension %d: subarray of %d at %d does not fit in %d "
                "(arguments array_of_subsizes, array_of_starts, "
                "array_of_sizes)",
                i, subsizes[i], starts[i], sizes[i]);
    }
    return MPI_SUCCESS;
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                              const int array_of_subsizes[],
                              const int array_of_starts[], int order,
                              MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    amp_rank_t *rank;
    const amp_dt_t *old;
    const char *call = "MPI_Type_create_subarray";
    int rc = ctor_enter(call, 0, oldtype, newtype, &rank, &old);
    if (rc == MPI_SUCCESS)
        rc = check_subarray(rank, ndims, array_of_sizes, array_of_subsizes,
                            array_of_starts, order, call);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_dt_t *dt = type_new(rank, 2 + 3 * ndims, 0, 1);
    amp_status_t st =
        dt ? amp_dt_make_subarray(dt, ndims, array_of_sizes, array_of_subsizes,
                                  array_of_starts, order == MPI_ORDER_C, old)
           : AMP_ERR_NOMEM;
    if (st != AMP_OK)
        return type_fail(rank, dt, st, call);
    size_t n = (size_t)ndims * sizeof(int);
    dt->ints[0] = ndims;
    memcpy(dt->ints + 1, array_of_sizes, n);
    memcpy(dt->ints + 1 + ndims, array_of_subsizes, n);
    memcpy(dt->ints + 1 + 2 * ndims, array_of_starts, n);
    dt->ints[1 + 3 * ndims] = order;
    dt->types[0] = oldtype;
    return type_publish(rank, dt, MPI_COMBINER_SUBARRAY, newtype);
}
AMP_WEAK_ALIAS(Type_create_subarray)

static int check_darray_dim(amp_rank_t *rank, int i, int gsize, int distrib,
                            int darg, int psize, const char *call)
{
    if (gsize <= 0 || psize <= 0)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "dimension %d: gsize %d and psize %d must be "
                             "positive (arguments array_of_gsizes, "
                             "array_of_psizes)",
                             i, gsize, psize);
    if (distrib != MPI_DISTRIBUTE_BLOCK && distrib != MPI_DISTRIBUTE_CYCLIC &&
        distrib != MPI_DISTRIBUTE_NONE)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "dimension %d: distribution %d is not "
                             "MPI_DISTRIBUTE_BLOCK, _CYCLIC or _NONE "
                             "(argument array_of_distribs)",
                             i, distrib);
    if (distrib == MPI_DISTRIBUTE_NONE && psize != 1)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "dimension %d: MPI_DISTRIBUTE_NONE needs psize "
                             "1, not %d (argument array_of_psizes)",
                             i, psize);
    if (distrib != MPI_DISTRIBUTE_NONE && darg != MPI_DISTRIBUTE_DFLT_DARG &&
        darg <= 0)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "dimension %d: distribution argument %d is "
                             "neither positive nor MPI_DISTRIBUTE_DFLT_DARG "
                             "(argument array_of_dargs)",
                             i, darg);
    if (distrib == MPI_DISTRIBUTE_BLOCK && darg != MPI_DISTRIBUTE_DFLT_DARG &&
        (long long)darg * psize < gsize)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "dimension %d: %d blocks of %d cannot cover %d "
                             "elements (arguments array_of_dargs, "
                             "array_of_psizes, array_of_gsizes)",
                             i, psize, darg, gsize);
    return MPI_SUCCESS;
}

/* A distributed array (MPI_Type_create_darray): the block of process
 * prank, of size processes in a row-major grid of psizes, of an
 * ndims-dimensional array of gsizes elements in order (MPI_ORDER_C or
 * _FORTRAN), each dimension distributed as distribs with dargs. */
typedef struct darray_desc {
    int size, prank, ndims;
    const int *gsizes, *distribs, *dargs, *psizes;
    int order;
} darray_desc_t;

/* Checks the darray arguments and resolves them into dims and coords. */
static int check_darray(amp_rank_t *rank, const darray_desc_t *d,
                        amp_dt_darray_dim_t *dims, int *coords,
                        const char *call)
{
    int size = d->size, ndims = d->ndims, order = d->order;
    const int *gsizes = d->gsizes, *distribs = d->distribs;
    const int *dargs = d->dargs, *psizes = d->psizes;
    long long procs = 1;
    for (int i = 0; i < ndims; i++) {
        int rc = check_darray_dim(rank, i, gsizes[i], distribs[i], dargs[i],
                                  psizes[i], call);
        if (rc != MPI_SUCCESS)
            return rc;
        procs *= psizes[i];
        if (procs > size)
            break;
        int darg = dargs[i];
        if (distribs[i] == MPI_DISTRIBUTE_BLOCK &&
            darg == MPI_DISTRIBUTE_DFLT_DARG)
            darg = (gsizes[i] + psizes[i] - 1) / psizes[i];
        else if (darg == MPI_DISTRIBUTE_DFLT_DARG)
            darg = 1;
        int dist = distribs[i] == MPI_DISTRIBUTE_BLOCK    ? AMP_DT_DIST_BLOCK
                   : distribs[i] == MPI_DISTRIBUTE_CYCLIC ? AMP_DT_DIST_CYCLIC
                                                          : AMP_DT_DIST_NONE;
        dims[i] = (amp_dt_darray_dim_t){gsizes[i], dist, darg, psizes[i]};
    }
    if (procs != size)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "the process grid (array_of_psizes) does not "
                             "have size %d processes (argument size)",
                             size);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "order %d is neither MPI_ORDER_C nor "
                             "MPI_ORDER_FORTRAN (argument order)",
                             order);
    /* The process grid is row-major whatever the array's order. */
    for (int i = ndims - 1, r = d->prank; i >= 0; i--) {
        coords[i] = r % psizes[i];
        r /= psizes[i];
    }
    return MPI_SUCCESS;
}

static int check_darray_args(amp_rank_t *rank, const darray_desc_t *d,
                             const char *call)
{
    int size = d->size, prank = d->prank, ndims = d->ndims;
    const int *gsizes = d->gsizes, *distribs = d->distribs;
    const int *dargs = d->dargs, *psizes = d->psizes;
    if (size <= 0 || prank < 0 || prank >= size)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "rank %d is not within a group of size %d "
                             "(arguments rank, size)",
                             prank, size);
    if (ndims <= 0)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "ndims %d is not positive (argument ndims)",
                             ndims);
    if (!gsizes || !distribs || !dargs || !psizes)
        return null_arg(rank, call,
                        !gsizes     ? "array_of_gsizes"
                        : !distribs ? "array_of_distribs"
                        : !dargs    ? "array_of_dargs"
                                    : "array_of_psizes");
    return MPI_SUCCESS;
}

/* Records the darray constructor's arguments for MPI_Type_get_contents. */
static void darray_envelope(amp_dt_t *dt, const darray_desc_t *d,
                            MPI_Datatype oldtype)
{
    int ndims = d->ndims;
    size_t n = (size_t)ndims * sizeof(int);
    dt->ints[0] = d->size;
    dt->ints[1] = d->prank;
    dt->ints[2] = ndims;
    memcpy(dt->ints + 3, d->gsizes, n);
    memcpy(dt->ints + 3 + ndims, d->distribs, n);
    memcpy(dt->ints + 3 + 2 * ndims, d->dargs, n);
    memcpy(dt->ints + 3 + 3 * ndims, d->psizes, n);
    dt->ints[3 + 4 * ndims] = d->order;
    dt->types[0] = oldtype;
}

int PMPI_Type_create_darray(int size, int prank, int ndims,
                            const int array_of_gsizes[],
                            const int array_of_distribs[],
                            const int array_of_dargs[],
                            const int array_of_psizes[], int order,
                            MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    amp_rank_t *rank;
    const amp_dt_t *old;
    const char *call = "MPI_Type_create_darray";
    darray_desc_t d = {.size = size,
                       .prank = prank,
                       .ndims = ndims,
                       .gsizes = array_of_gsizes,
                       .distribs = array_of_distribs,
                       .dargs = array_of_dargs,
                       .psizes = array_of_psizes,
                       .order = order};
    int rc = ctor_enter(call, 0, oldtype, newtype, &rank, &old);
    if (rc == MPI_SUCCESS)
        rc = check_darray_args(rank, &d, call);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_dt_darray_dim_t *dims = malloc((size_t)ndims * sizeof(*dims));
    int *coords = malloc((size_t)ndims * sizeof(int));
    if (!dims || !coords)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call, "out of memory");
    if (rc == MPI_SUCCESS)
        rc = check_darray(rank, &d, dims, coords, call);
    amp_dt_t *dt = NULL;
    amp_status_t st = AMP_OK;
    if (rc == MPI_SUCCESS) {
        dt = type_new(rank, 4 + 4 * ndims, 0, 1);
        st = dt ? amp_dt_make_darray(dt, ndims, dims, coords,
                                     order == MPI_ORDER_C, old)
                : AMP_ERR_NOMEM;
    }
    free(dims);
    free(coords);
    if (rc != MPI_SUCCESS)
        return rc;
    if (st != AMP_OK)
        return type_fail(rank, dt, st, call);
    darray_envelope(dt, &d, oldtype);
    return type_publish(rank, dt, MPI_COMBINER_DARRAY, newtype);
}
AMP_WEAK_ALIAS(Type_create_darray)

/* type_enter for the calls that take the handle by pointer. */
static int type_ref_enter(const MPI_Datatype *datatype, const char *call,
                          amp_rank_t **rank, const amp_dt_t **dt)
{
    int rc = amp_mpi_enter(rank, call);
    if (rc == MPI_SUCCESS && !datatype)
        rc = null_arg(*rank, call, "datatype");
    if (rc == MPI_SUCCESS)
        rc = lookup_any(*rank, *datatype, call, "datatype", dt);
    return rc;
}

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    amp_rank_t *rank;
    const amp_dt_t *dt;
    int rc = type_ref_enter(datatype, "MPI_Type_commit", &rank, &dt);
    if (rc == MPI_SUCCESS && !dt->predefined)
        ((amp_dt_t *)dt)->committed = 1;
    return rc;
}
AMP_WEAK_ALIAS(Type_commit)

int PMPI_Type_free(MPI_Datatype *datatype)
{
    amp_rank_t *rank;
    const amp_dt_t *dt;
    int rc = type_ref_enter(datatype, "MPI_Type_free", &rank, &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    if (dt->predefined)
        return amp_mpi_error(rank, NULL, MPI_ERR_TYPE, "MPI_Type_free",
                             "%s is predefined and cannot be freed", dt->name);
    if (dt->f90)
        return amp_mpi_error(rank, NULL, MPI_ERR_TYPE, "MPI_Type_free",
                             "a type from MPI_Type_create_f90_* is "
                             "predefined and cannot be freed");
    /* Operations in flight keep their own copy of what they need; types
     * built from this one keep it alive for MPI_Type_get_contents. */
    rc = amp_attr_type_delete_all(rank, *datatype, "MPI_Type_free");
    if (rc != MPI_SUCCESS)
        return rc;
    ((amp_dt_t *)dt)->user_refs--;
    amp_type_drop(rank, dt);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Type_free)

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    amp_rank_t *rank;
    const amp_dt_t *dt;
    int rc = type_enter(datatype, "MPI_Type_size", &rank, &dt);
    if (rc == MPI_SUCCESS && !size)
        rc = null_arg(rank, "MPI_Type_size", "size");
    if (rc == MPI_SUCCESS)
        *size = dt->size > INT_MAX ? MPI_UNDEFINED : (int)dt->size;
    return rc;
}
AMP_WEAK_ALIAS(Type_size)

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    amp_rank_t *rank;
    const amp_dt_t *dt;
    int rc = type_enter(datatype, "MPI_Type_size_x", &rank, &dt);
    if (rc == MPI_SUCCESS && !size)
        rc = null_arg(rank, "MPI_Type_size_x", "size");
    if (rc == MPI_SUCCESS)
        *size = (MPI_Count)dt->size;
    return rc;
}
AMP_WEAK_ALIAS(Type_size_x)

static int extent_common(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent,
                         int true_extent, const char *call)
{
    amp_rank_t *rank;
    const amp_dt_t *dt;
    int rc = type_enter(datatype, call, &rank, &dt);
    if (rc == MPI_SUCCESS && (!lb || !extent))
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument %s)", lb ? "extent" : "lb");
    if (rc != MPI_SUCCESS)
        return rc;
    *lb = true_extent ? dt->true_lb : dt->lb;
    *extent = true_extent ? dt->true_extent : dt->extent;
    return MPI_SUCCESS;
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    return extent_common(datatype, lb, extent, 0, "MPI_Type_get_extent");
}
AMP_WEAK_ALIAS(Type_get_extent)

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                              MPI_Aint *true_extent)
{
    return extent_common(datatype, true_lb, true_extent, 1,
                         "MPI_Type_get_true_extent");
}
AMP_WEAK_ALIAS(Type_get_true_extent)

static int extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent,
                    int true_extent, const char *call)
{
    MPI_Aint l, e;
    int rc = extent_common(datatype, &l, &e, true_extent, call);
    if (rc == MPI_SUCCESS && (!lb || !extent))
        rc = amp_mpi_error(amp_rank_self(), NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument %s)", lb ? "extent" : "lb");
    if (rc == MPI_SUCCESS) {
        *lb = l;
        *extent = e;
    }
    return rc;
}

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb,
                           MPI_Count *extent)
{
    return extent_x(datatype, lb, extent, 0, "MPI_Type_get_extent_x");
}
AMP_WEAK_ALIAS(Type_get_extent_x)

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                                MPI_Count *true_extent)
{
    return extent_x(datatype, true_lb, true_extent, 1,
                    "MPI_Type_get_true_extent_x");
}
AMP_WEAK_ALIAS(Type_get_true_extent_x)

/* The legacy bound queries (MPI-1). */
static int legacy_bound(MPI_Datatype datatype, MPI_Aint *out, int which,
                        const char *call)
{
    MPI_Aint lb, extent;
    if (!out)
        return amp_mpi_error(amp_rank_self(), NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument %s)",
                             which == 1 ? "extent" : "displacement");
    int rc = extent_common(datatype, &lb, &extent, 0, call);
    if (rc == MPI_SUCCESS)
        *out = which == 0 ? lb : which == 1 ? extent : lb + extent;
    return rc;
}

int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    return legacy_bound(datatype, extent, 1, "MPI_Type_extent");
}
AMP_WEAK_ALIAS(Type_extent)

int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    return legacy_bound(datatype, displacement, 0, "MPI_Type_lb");
}
AMP_WEAK_ALIAS(Type_lb)

int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    return legacy_bound(datatype, displacement, 2, "MPI_Type_ub");
}
AMP_WEAK_ALIAS(Type_ub)

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers,
                           int *num_addresses, int *num_datatypes,
                           int *combiner)
{
    amp_rank_t *rank;
    const amp_dt_t *dt;
    const char *call = "MPI_Type_get_envelope";
    int rc = type_enter(datatype, call, &rank, &dt);
    if (rc == MPI_SUCCESS &&
        (!num_integers || !num_addresses || !num_datatypes || !combiner))
        rc = null_arg(rank, call,
                      !num_integers    ? "num_integers"
                      : !num_addresses ? "num_addresses"
                      : !num_datatypes ? "num_datatypes"
                                       : "combiner");
    if (rc != MPI_SUCCESS)
        return rc;
    *num_integers = dt->predefined ? 0 : dt->nints;
    *num_addresses = dt->predefined ? 0 : dt->naddrs;
    *num_datatypes = dt->predefined ? 0 : dt->ntypes;
    *combiner = dt->combiner;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Type_get_envelope)

/* The caller's arrays of MPI_Type_get_contents: room for max_i integers
 * at ints, max_a addresses at addrs and max_t datatypes at types. */
typedef struct contents_out {
    int max_i, max_a, max_t;
    const void *ints, *addrs, *types;
} contents_out_t;

static int check_contents(amp_rank_t *rank, const amp_dt_t *dt,
                          const contents_out_t *o, const char *call)
{
    int max_i = o->max_i, max_a = o->max_a, max_t = o->max_t;
    const void *ints = o->ints, *addrs = o->addrs, *types = o->types;
    if (dt->predefined)
        return amp_mpi_error(rank, NULL, MPI_ERR_TYPE, call,
                             "%s is predefined (MPI_COMBINER_NAMED) and has "
                             "no contents (argument datatype)",
                             dt->name);
    if (max_i < dt->nints || max_a < dt->naddrs || max_t < dt->ntypes)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "the type needs %d integers, %d addresses and "
                             "%d datatypes, more than max_integers %d, "
                             "max_addresses %d or max_datatypes %d",
                             dt->nints, dt->naddrs, dt->ntypes, max_i, max_a,
                             max_t);
    if ((dt->nints && !ints) || (dt->naddrs && !addrs) ||
        (dt->ntypes && !types))
        return null_arg(rank, call,
                        dt->nints && !ints     ? "array_of_integers"
                        : dt->naddrs && !addrs ? "array_of_addresses"
                                               : "array_of_datatypes");
    return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers,
                           int max_addresses, int max_datatypes,
                           int array_of_integers[],
                           MPI_Aint array_of_addresses[],
                           MPI_Datatype array_of_datatypes[])
{
    amp_rank_t *rank;
    const amp_dt_t *dt;
    const char *call = "MPI_Type_get_contents";
    int rc = type_enter(datatype, call, &rank, &dt);
    if (rc == MPI_SUCCESS)
        rc = check_contents(rank, dt,
                            &(contents_out_t){.max_i = max_integers,
                                              .max_a = max_addresses,
                                              .max_t = max_datatypes,
                                              .ints = array_of_integers,
                                              .addrs = array_of_addresses,
                                              .types = array_of_datatypes},
                            call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (dt->nints)
        memcpy(array_of_integers, dt->ints, (size_t)dt->nints * sizeof(int));
    if (dt->naddrs)
        memcpy(array_of_addresses, dt->addrs,
               (size_t)dt->naddrs * sizeof(MPI_Aint));
    for (int i = 0; i < dt->ntypes; i++) {
        /* A derived type comes back as a handle the caller must free. */
        amp_dt_t *in = amp_dt_derived(rank, dt->types[i]);
        if (in) {
            in->refs++;
            in->user_refs++;
        }
        array_of_datatypes[i] = dt->types[i];
    }
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Type_get_contents)

/* A predefined type's name as this rank set it, or NULL. */
static const char *predefined_name(const amp_rank_t *rank, MPI_Datatype h)
{
    if (!rank->dt_names || AMP_HANDLE_KIND(h) != AMPI_HANDLE_DATATYPE)
        return NULL;
    return rank->dt_names[AMP_HANDLE_INDEX(h)];
}

/* Names predefined type h for this rank only, as a process names it for
 * itself: the other ranks keep the standard's name. */
static int name_predefined(amp_rank_t *rank, MPI_Datatype h, const char *text,
                           size_t len, const char *call)
{
    if (!rank->dt_names) {
        rank->dt_names = amp_rank_alloc(rank, AMPI_DTID_COUNT * sizeof(char *));
        if (rank->dt_names)
            memset(rank->dt_names, 0, AMPI_DTID_COUNT * sizeof(char *));
    }
    char *name = rank->dt_names ? amp_rank_alloc(rank, len + 1) : NULL;
    if (!name)
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call, "out of memory");
    memcpy(name, text, len);
    name[len] = '\0';
    free(rank->dt_names[AMP_HANDLE_INDEX(h)]);
    rank->dt_names[AMP_HANDLE_INDEX(h)] = name;
    return MPI_SUCCESS;
}

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    amp_rank_t *rank;
    const amp_dt_t *dt;
    const char *call = "MPI_Type_set_name";
    int rc = type_enter(datatype, call, &rank, &dt);
    if (rc == MPI_SUCCESS && !type_name)
        rc = null_arg(rank, call, "type_name");
    if (rc != MPI_SUCCESS)
        return rc;
    size_t len = strnlen(type_name, MPI_MAX_OBJECT_NAME - 1);
    if (dt->predefined)
        return name_predefined(rank, datatype, type_name, len, call);
    char *name = malloc(len + 1);
    if (!name)
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call, "out of memory");
    memcpy(name, type_name, len);
    name[len] = '\0';
    amp_dt_t *d = (amp_dt_t *)dt;
    free(d->owned_name);
    d->owned_name = name;
    d->name = name;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Type_set_name)

/* MPI_DATATYPE_NULL's name is "MPI_DATATYPE_NULL" (MPI-4.1). */
int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    amp_rank_t *rank;
    const amp_dt_t *dt = NULL;
    const char *call = "MPI_Type_get_name";
    int null = datatype == MPI_DATATYPE_NULL;
    int rc = null ? amp_mpi_enter(&rank, call)
                  : type_enter(datatype, call, &rank, &dt);
    if (rc == MPI_SUCCESS && (!type_name || !resultlen))
        rc = null_arg(rank, call, type_name ? "resultlen" : "type_name");
    if (rc != MPI_SUCCESS)
        return rc;
    const char *name =
        null ? "MPI_DATATYPE_NULL" : predefined_name(rank, datatype);
    if (!name)
        name = dt->name ? dt->name : "";
    size_t len = strnlen(name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(type_name, name, len);
    type_name[len] = '\0';
    *resultlen = (int)len;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Type_get_name)

/* ---- Fortran types by size and by precision (MPI 3.1 sections 17.1.9,
 * 17.1.10) ---- */

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const int real[] = {AMPI_DTID_MPI_REAL4, AMPI_DTID_MPI_REAL8,
                               AMPI_DTID_MPI_REAL16},
                     integer[] = {AMPI_DTID_MPI_INTEGER1,
                                  AMPI_DTID_MPI_INTEGER2,
                                  AMPI_DTID_MPI_INTEGER4,
                                  AMPI_DTID_MPI_INTEGER8,
                                  AMPI_DTID_MPI_INTEGER16},
                     complex[] = {AMPI_DTID_MPI_COMPLEX8,
                                  AMPI_DTID_MPI_COMPLEX16,
                                  AMPI_DTID_MPI_COMPLEX32};
    const char *call = "MPI_Type_match_size";
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!datatype)
        return null_arg(rank, call, "datatype");
    const int *ids = typeclass == MPI_TYPECLASS_REAL      ? real
                     : typeclass == MPI_TYPECLASS_INTEGER ? integer
                     : typeclass == MPI_TYPECLASS_COMPLEX ? complex
                                                          : NULL;
    int n = typeclass == MPI_TYPECLASS_REAL      ? 3
            : typeclass == MPI_TYPECLASS_INTEGER ? 5
                                                 : 3;
    if (!ids)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "unknown type class %d (argument typeclass): "
                             "MPI_TYPECLASS_REAL, _INTEGER or _COMPLEX",
                             typeclass);
    for (int i = 0; i < n; i++) {
        const amp_dt_t *dt = amp_dt_predefined(ids[i]);
        if (dt && dt->size == (size_t)size && size > 0) {
            *datatype = AMPI_PREDEFINED_DATATYPE(ids[i]);
            return MPI_SUCCESS;
        }
    }
    return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                         "no Fortran type of that class is %d bytes "
                         "(argument size)",
                         size);
}
AMP_WEAK_ALIAS(Type_match_size)

/* The type MPI_Type_create_f90_* gives for combiner and (p, r): made once
 * per rank, a duplicate of the predefined type id with that envelope. */
static int f90_type(amp_rank_t *rank, int combiner, int p, int r, int id,
                    MPI_Datatype *newtype, const char *call)
{
    int nints = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
    for (int i = 0; i < amp_table_capacity(&rank->dts); i++) {
        amp_dt_t *dt = amp_table_lookup(&rank->dts, i);
        if (dt && dt->f90 && dt->combiner == combiner && dt->ints[0] == p &&
            (nints == 1 || dt->ints[1] == r)) {
            *newtype = AMPI_HANDLE(AMPI_HANDLE_DATATYPE_DERIVED, i);
            return MPI_SUCCESS;
        }
    }
    amp_dt_t *dt = type_new(rank, nints, 0, 0);
    amp_status_t st =
        dt ? amp_dt_make_dup(dt, amp_dt_predefined(id)) : AMP_ERR_NOMEM;
    if (st != AMP_OK)
        return type_fail(rank, dt, st, call);
    dt->ints[0] = p;
    if (nints == 2)
        dt->ints[1] = r;
    dt->committed = 1;
    dt->f90 = 1;
    return type_publish(rank, dt, combiner, newtype);
}

/* The smallest of the kinds (precision, range, type id) with at least
 * precision p and range r (MPI_UNDEFINED: any); 0 when none. */
static int f90_pick(const int (*kinds)[3], int n, int p, int r)
{
    for (int i = 0; i < n; i++)
        if ((p == MPI_UNDEFINED || kinds[i][0] >= p) &&
            (r == MPI_UNDEFINED || kinds[i][1] >= r) &&
            amp_dt_predefined(kinds[i][2]))
            return kinds[i][2];
    return 0;
}

/* MPI_Type_create_f90_real (complex 0) and _complex (complex 1):
 * SELECTED_REAL_KIND(p, r) of the IEEE kinds 4, 8 and 16. */
static int f90_real(int p, int r, MPI_Datatype *newtype, int complex,
                    const char *call)
{
    static const int reals[][3] = {{6, 37, AMPI_DTID_MPI_REAL4},
                                   {15, 307, AMPI_DTID_MPI_REAL8},
                                   {33, 4931, AMPI_DTID_MPI_REAL16}},
                     complexes[][3] = {{6, 37, AMPI_DTID_MPI_COMPLEX8},
                                       {15, 307, AMPI_DTID_MPI_COMPLEX16},
                                       {33, 4931, AMPI_DTID_MPI_COMPLEX32}};
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!newtype)
        return null_arg(rank, call, "newtype");
    int id = p == MPI_UNDEFINED && r == MPI_UNDEFINED
                 ? 0
                 : f90_pick(complex ? complexes : reals, 3, p, r);
    if (!id)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "no %s kind has precision %d and range %d "
                             "(arguments p, r; MPI_UNDEFINED: any, not both)",
                             complex ? "COMPLEX" : "REAL", p, r);
    return f90_type(rank,
                    complex ? MPI_COMBINER_F90_COMPLEX : MPI_COMBINER_F90_REAL,
                    p, r, id, newtype, call);
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    return f90_real(p, r, newtype, 0, "MPI_Type_create_f90_real");
}
AMP_WEAK_ALIAS(Type_create_f90_real)

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    return f90_real(p, r, newtype, 1, "MPI_Type_create_f90_complex");
}
AMP_WEAK_ALIAS(Type_create_f90_complex)

/* SELECTED_INT_KIND(r): the kinds 1, 2, 4, 8 and 16 hold 2, 4, 9, 18 and
 * 38 decimal digits. */
int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    static const int ints[][3] = {{2, 0, AMPI_DTID_MPI_INTEGER1},
                                  {4, 0, AMPI_DTID_MPI_INTEGER2},
                                  {9, 0, AMPI_DTID_MPI_INTEGER4},
                                  {18, 0, AMPI_DTID_MPI_INTEGER8},
                                  {38, 0, AMPI_DTID_MPI_INTEGER16}};
    const char *call = "MPI_Type_create_f90_integer";
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!newtype)
        return null_arg(rank, call, "newtype");
    int id = r == MPI_UNDEFINED ? 0 : f90_pick(ints, 5, r, MPI_UNDEFINED);
    if (!id)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "no INTEGER kind has a range of %d decimal "
                             "digits (argument r)",
                             r);
    return f90_type(rank, MPI_COMBINER_F90_INTEGER, r, 0, id, newtype, call);
}
AMP_WEAK_ALIAS(Type_create_f90_integer)
