/*
 * MPI-4.0's events and event sources (section 15.3.8): this runtime
 * offers no event type and no source, as the standard allows.  The counts
 * are 0; every index is invalid, and no registration or event instance
 * can exist, so each handle given is invalid.
 */
#include "mpi/tool/tool.h"

/* Enters call; then fails with class rc when it entered. */
static int none(const char *call, int rc)
{
    amp_rank_t *rank;
    amp_tool_t *t;
    int in = amp_tool_enter(&rank, &t, call);
    return in != MPI_SUCCESS ? in : rc;
}

/* Enters call and gives *num 0. */
static int zero(const char *call, int *num)
{
    int rc = none(call, MPI_SUCCESS);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num)
        return MPI_T_ERR_INVALID;
    *num = 0;
    return MPI_SUCCESS;
}

int PMPI_T_source_get_num(int *num_sources)
{
    return zero("MPI_T_source_get_num", num_sources);
}
AMP_WEAK_ALIAS(T_source_get_num)

int PMPI_T_source_get_info(int source_index, char *name, int *name_len,
                           char *desc, int *desc_len,
                           MPI_T_source_order *ordering,
                           MPI_Count *ticks_per_second, MPI_Count *max_ticks,
                           MPI_Info *info)
{
    (void)source_index, (void)name, (void)name_len, (void)desc;
    (void)desc_len, (void)ordering, (void)ticks_per_second;
    (void)max_ticks, (void)info;
    return none("MPI_T_source_get_info", MPI_T_ERR_INVALID_INDEX);
}
AMP_WEAK_ALIAS(T_source_get_info)

int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    (void)source_index, (void)timestamp;
    return none("MPI_T_source_get_timestamp", MPI_T_ERR_INVALID_INDEX);
}
AMP_WEAK_ALIAS(T_source_get_timestamp)

int PMPI_T_event_get_num(int *num_events)
{
    return zero("MPI_T_event_get_num", num_events);
}
AMP_WEAK_ALIAS(T_event_get_num)

int PMPI_T_event_get_info(int event_index, char *name, int *name_len,
                          int *verbosity, MPI_Datatype array_of_datatypes[],
                          MPI_Aint array_of_displacements[], int *num_elements,
                          MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                          int *desc_len, int *bind)
{
    (void)event_index, (void)name, (void)name_len, (void)verbosity;
    (void)array_of_datatypes, (void)array_of_displacements;
    (void)num_elements, (void)enumtype, (void)info, (void)desc;
    (void)desc_len, (void)bind;
    return none("MPI_T_event_get_info", MPI_T_ERR_INVALID_INDEX);
}
AMP_WEAK_ALIAS(T_event_get_info)

int PMPI_T_event_get_index(const char *name, int *event_index)
{
    amp_rank_t *rank;
    amp_tool_t *t;
    int rc = amp_tool_enter(&rank, &t, "MPI_T_event_get_index");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !event_index)
        return MPI_T_ERR_INVALID;
    return MPI_T_ERR_INVALID_NAME;
}
AMP_WEAK_ALIAS(T_event_get_index)

int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration)
{
    (void)event_index, (void)obj_handle, (void)info;
    (void)event_registration;
    return none("MPI_T_event_handle_alloc", MPI_T_ERR_INVALID_INDEX);
}
AMP_WEAK_ALIAS(T_event_handle_alloc)

int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration,
                                 MPI_Info info)
{
    (void)event_registration, (void)info;
    return none("MPI_T_event_handle_set_info", MPI_T_ERR_INVALID_HANDLE);
}
AMP_WEAK_ALIAS(T_event_handle_set_info)

int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration,
                                 MPI_Info *info_used)
{
    (void)event_registration, (void)info_used;
    return none("MPI_T_event_handle_get_info", MPI_T_ERR_INVALID_HANDLE);
}
AMP_WEAK_ALIAS(T_event_handle_get_info)

int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info,
                                   void *user_data,
                                   MPI_T_event_cb_function *event_cb_function)
{
    (void)event_registration, (void)cb_safety, (void)info, (void)user_data;
    (void)event_cb_function;
    return none("MPI_T_event_register_callback", MPI_T_ERR_INVALID_HANDLE);
}
AMP_WEAK_ALIAS(T_event_register_callback)

int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info)
{
    (void)event_registration, (void)cb_safety, (void)info;
    return none("MPI_T_event_callback_set_info", MPI_T_ERR_INVALID_HANDLE);
}
AMP_WEAK_ALIAS(T_event_callback_set_info)

int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety,
                                   MPI_Info *info_used)
{
    (void)event_registration, (void)cb_safety, (void)info_used;
    return none("MPI_T_event_callback_get_info", MPI_T_ERR_INVALID_HANDLE);
}
AMP_WEAK_ALIAS(T_event_callback_get_info)

int PMPI_T_event_handle_free(MPI_T_event_registration event_registration,
                             void *user_data,
                             MPI_T_event_free_cb_function *free_cb_function)
{
    (void)event_registration, (void)user_data, (void)free_cb_function;
    return none("MPI_T_event_handle_free", MPI_T_ERR_INVALID_HANDLE);
}
AMP_WEAK_ALIAS(T_event_handle_free)

int PMPI_T_event_set_dropped_handler(
    MPI_T_event_registration event_registration,
    MPI_T_event_dropped_cb_function *dropped_cb_function)
{
    (void)event_registration, (void)dropped_cb_function;
    return none("MPI_T_event_set_dropped_handler", MPI_T_ERR_INVALID_HANDLE);
}
AMP_WEAK_ALIAS(T_event_set_dropped_handler)

int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index,
                      void *buffer)
{
    (void)event_instance, (void)element_index, (void)buffer;
    return none("MPI_T_event_read", MPI_T_ERR_INVALID_HANDLE);
}
AMP_WEAK_ALIAS(T_event_read)

int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    (void)event_instance, (void)buffer;
    return none("MPI_T_event_copy", MPI_T_ERR_INVALID_HANDLE);
}
AMP_WEAK_ALIAS(T_event_copy)

int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance,
                               MPI_Count *event_timestamp)
{
    (void)event_instance, (void)event_timestamp;
    return none("MPI_T_event_get_timestamp", MPI_T_ERR_INVALID_HANDLE);
}
AMP_WEAK_ALIAS(T_event_get_timestamp)

int PMPI_T_event_get_source(MPI_T_event_instance event_instance,
                            int *source_index)
{
    (void)event_instance, (void)source_index;
    return none("MPI_T_event_get_source", MPI_T_ERR_INVALID_HANDLE);
}
AMP_WEAK_ALIAS(T_event_get_source)
