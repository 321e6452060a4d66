/* Datatype calls. */
#include "mpi/impl.h"

#include <limits.h>

static int lookup_any(amp_rank_t *rank, MPI_Datatype h, const char *call,
                      const char *arg, const amp_dt_t **dt)
{
    *dt = amp_dt_lookup(rank, h);
    if (*dt)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, NULL, MPI_ERR_TYPE, call,
                         "invalid datatype handle %#x (argument %s)",
                         (unsigned)h, arg);
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    amp_rank_t *rank;
    const amp_dt_t *old;
    const char *call = "MPI_Type_contiguous";
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_count(rank, NULL, count, call, "count");
    if (rc == MPI_SUCCESS)
        rc = lookup_any(rank, oldtype, call, "oldtype", &old);
    if (rc == MPI_SUCCESS && !newtype)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument newtype)");
    if (rc != MPI_SUCCESS)
        return rc;
    amp_dt_t *dt = amp_table_alloc(&rank->dts);
    if (!dt || amp_dt_make_contiguous(dt, count, old) != AMP_OK) {
        if (dt)
            amp_table_free(&rank->dts, dt);
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call, "out of memory");
    }
    dt->combiner = MPI_COMBINER_CONTIGUOUS;
    dt->old_handle = oldtype;
    *newtype = AMPI_HANDLE(AMPI_HANDLE_DATATYPE_DERIVED, dt->obj.idx);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Type_contiguous)

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    amp_rank_t *rank;
    const amp_dt_t *dt;
    int rc = amp_mpi_enter(&rank, "MPI_Type_commit");
    if (rc == MPI_SUCCESS && !datatype)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Type_commit",
                           "NULL pointer (argument datatype)");
    if (rc == MPI_SUCCESS)
        rc = lookup_any(rank, *datatype, "MPI_Type_commit", "datatype", &dt);
    if (rc == MPI_SUCCESS && !dt->predefined)
        ((amp_dt_t *)dt)->committed = 1;
    return rc;
}
AMP_WEAK_ALIAS(Type_commit)

int PMPI_Type_free(MPI_Datatype *datatype)
{
    amp_rank_t *rank;
    const amp_dt_t *dt;
    int rc = amp_mpi_enter(&rank, "MPI_Type_free");
    if (rc == MPI_SUCCESS && !datatype)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Type_free",
                           "NULL pointer (argument datatype)");
    if (rc == MPI_SUCCESS)
        rc = lookup_any(rank, *datatype, "MPI_Type_free", "datatype", &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    if (dt->predefined)
        return amp_mpi_error(rank, NULL, MPI_ERR_TYPE, "MPI_Type_free",
                             "%s is predefined and cannot be freed", dt->name);
    /* Operations in flight keep their own copy of what they need. */
    amp_dt_destroy((amp_dt_t *)dt);
    amp_table_free(&rank->dts, (amp_dt_t *)dt);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Type_free)

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    amp_rank_t *rank;
    const amp_dt_t *dt;
    int rc = amp_mpi_enter(&rank, "MPI_Type_size");
    if (rc == MPI_SUCCESS)
        rc = lookup_any(rank, datatype, "MPI_Type_size", "datatype", &dt);
    if (rc == MPI_SUCCESS && !size)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Type_size",
                           "NULL pointer (argument size)");
    if (rc == MPI_SUCCESS)
        *size = dt->size > INT_MAX ? MPI_UNDEFINED : (int)dt->size;
    return rc;
}
AMP_WEAK_ALIAS(Type_size)

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    amp_rank_t *rank;
    const amp_dt_t *dt;
    int rc = amp_mpi_enter(&rank, "MPI_Type_size_x");
    if (rc == MPI_SUCCESS)
        rc = lookup_any(rank, datatype, "MPI_Type_size_x", "datatype", &dt);
    if (rc == MPI_SUCCESS && !size)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Type_size_x",
                           "NULL pointer (argument size)");
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
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = lookup_any(rank, datatype, call, "datatype", &dt);
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
