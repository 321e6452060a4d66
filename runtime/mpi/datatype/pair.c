/*
 * MPI_Type_get_value_index (MPI-4.1): the predefined value-index pair type
 * of MPI_MINLOC and MPI_MAXLOC for a value type and an index type, or
 * MPI_DATATYPE_NULL when there is none (a derived type, or a combination
 * no predefined pair holds).
 */
#include "mpi/handles.h"

typedef struct pair {
    MPI_Datatype value, index, pair;
} pair_t;

static const pair_t pairs[] = {
    {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
    {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
    {MPI_LONG, MPI_INT, MPI_LONG_INT},
    {MPI_INT, MPI_INT, MPI_2INT},
    {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
    {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
    {MPI_REAL, MPI_REAL, MPI_2REAL},
    {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
    {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
};

/* Checks h (argument arg): a datatype handle, committed or not. */
static int check_type(amp_rank_t *rank, MPI_Datatype h, const char *arg,
                      const char *call)
{
    if (amp_dt_lookup(rank, h))
        return MPI_SUCCESS;
    return amp_mpi_error(rank, NULL, MPI_ERR_TYPE, call,
                         "invalid datatype %#x (argument %s)", (unsigned)h,
                         arg);
}

int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                              MPI_Datatype *pair_type)
{
    const char *call = "MPI_Type_get_value_index";
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = check_type(rank, value_type, "value_type", call);
    if (rc == MPI_SUCCESS)
        rc = check_type(rank, index_type, "index_type", call);
    if (rc == MPI_SUCCESS && !pair_type)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument pair_type)");
    if (rc != MPI_SUCCESS)
        return rc;
    *pair_type = MPI_DATATYPE_NULL;
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
        if (pairs[i].value == value_type && pairs[i].index == index_type)
            *pair_type = pairs[i].pair;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Type_get_value_index)
