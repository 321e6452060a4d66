/*
 * mpi_t.h: the MPI tool information interface (MPI-3.1 section 14.3,
 * MPI-4.0 chapter 15), included by mpi.h.  C only: the standard gives it
 * no Fortran binding.
 *
 * Control variables are this process's runtime options, performance
 * variables its counters; docs/tools.md lists every one.  There are no
 * event types and no event sources (MPI_T_event_get_num and
 * MPI_T_source_get_num give 0, which the standard allows).
 *
 * Include mpi.h, not this file.
 */
#ifndef AMPI_MPI_T_H
#define AMPI_MPI_T_H

#ifndef AMPI_MPI_H
#error "include <mpi.h> instead of mpi_t.h"
#endif

/* ---- Types and handles ---- */

#define AMPI_HANDLE_T_ENUM 0x65
#define AMPI_HANDLE_T_CVAR 0x63
#define AMPI_HANDLE_T_PVAR 0x70
#define AMPI_HANDLE_T_SESSION 0x71
#define AMPI_HANDLE_T_EVENT_REG 0x72
#define AMPI_HANDLE_T_EVENT 0x76

typedef int MPI_T_enum;
typedef int MPI_T_cvar_handle;
typedef int MPI_T_pvar_handle;
typedef int MPI_T_pvar_session;
typedef int MPI_T_event_registration;
typedef int MPI_T_event_instance;

#define MPI_T_ENUM_NULL ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)
#define MPI_T_PVAR_ALL_HANDLES ((MPI_T_pvar_handle)-1)

typedef enum MPI_T_source_order {
    MPI_T_SOURCE_ORDERED,
    MPI_T_SOURCE_UNORDERED
} MPI_T_source_order;

typedef enum MPI_T_cb_safety {
    MPI_T_CB_REQUIRE_NONE,
    MPI_T_CB_REQUIRE_MPI_RESTRICTED,
    MPI_T_CB_REQUIRE_THREAD_SAFE,
    MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE
} MPI_T_cb_safety;

typedef void MPI_T_event_cb_function(MPI_T_event_instance event_instance,
                                     MPI_T_event_registration event_registration,
                                     MPI_T_cb_safety cb_safety,
                                     void *user_data);
typedef void MPI_T_event_free_cb_function(
    MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
    void *user_data);
typedef void MPI_T_event_dropped_cb_function(
    MPI_Count count, MPI_T_event_registration event_registration,
    int source_index, MPI_T_cb_safety cb_safety, void *user_data);

/* ---- Constants ---- */

#define MPI_T_VERBOSITY_USER_BASIC 1
#define MPI_T_VERBOSITY_USER_DETAIL 2
#define MPI_T_VERBOSITY_USER_ALL 3
#define MPI_T_VERBOSITY_TUNER_BASIC 4
#define MPI_T_VERBOSITY_TUNER_DETAIL 5
#define MPI_T_VERBOSITY_TUNER_ALL 6
#define MPI_T_VERBOSITY_MPIDEV_BASIC 7
#define MPI_T_VERBOSITY_MPIDEV_DETAIL 8
#define MPI_T_VERBOSITY_MPIDEV_ALL 9

#define MPI_T_BIND_NO_OBJECT 0
#define MPI_T_BIND_MPI_COMM 1
#define MPI_T_BIND_MPI_DATATYPE 2
#define MPI_T_BIND_MPI_ERRHANDLER 3
#define MPI_T_BIND_MPI_FILE 4
#define MPI_T_BIND_MPI_GROUP 5
#define MPI_T_BIND_MPI_OP 6
#define MPI_T_BIND_MPI_REQUEST 7
#define MPI_T_BIND_MPI_WIN 8
#define MPI_T_BIND_MPI_MESSAGE 9
#define MPI_T_BIND_MPI_INFO 10
#define MPI_T_BIND_MPI_SESSION 11

#define MPI_T_SCOPE_CONSTANT 0
#define MPI_T_SCOPE_READONLY 1
#define MPI_T_SCOPE_LOCAL 2
#define MPI_T_SCOPE_GROUP 3
#define MPI_T_SCOPE_GROUP_EQ 4
#define MPI_T_SCOPE_ALL 5
#define MPI_T_SCOPE_ALL_EQ 6

#define MPI_T_PVAR_CLASS_STATE 0
#define MPI_T_PVAR_CLASS_LEVEL 1
#define MPI_T_PVAR_CLASS_SIZE 2
#define MPI_T_PVAR_CLASS_PERCENTAGE 3
#define MPI_T_PVAR_CLASS_HIGHWATERMARK 4
#define MPI_T_PVAR_CLASS_LOWWATERMARK 5
#define MPI_T_PVAR_CLASS_COUNTER 6
#define MPI_T_PVAR_CLASS_AGGREGATE 7
#define MPI_T_PVAR_CLASS_TIMER 8
#define MPI_T_PVAR_CLASS_GENERIC 9

/* Error classes of the interface (after mpi4.h's). */
#define MPI_T_ERR_MEMORY 62
#define MPI_T_ERR_NOT_INITIALIZED 63
#define MPI_T_ERR_CANNOT_INIT 64
#define MPI_T_ERR_INVALID_INDEX 65
#define MPI_T_ERR_INVALID_ITEM 66
#define MPI_T_ERR_INVALID_HANDLE 67
#define MPI_T_ERR_OUT_OF_HANDLES 68
#define MPI_T_ERR_OUT_OF_SESSIONS 69
#define MPI_T_ERR_INVALID_SESSION 70
#define MPI_T_ERR_CVAR_SET_NOT_NOW 71
#define MPI_T_ERR_CVAR_SET_NEVER 72
#define MPI_T_ERR_PVAR_NO_STARTSTOP 73
#define MPI_T_ERR_PVAR_NO_WRITE 74
#define MPI_T_ERR_PVAR_NO_ATOMIC 75
#define MPI_T_ERR_INVALID_NAME 76
#define MPI_T_ERR_INVALID 77
#define MPI_T_ERR_NOT_ACCESSIBLE 78
#define MPI_T_ERR_NOT_SUPPORTED 79

/* ---- Functions ---- */

#define AMPI_DECLARE(ret, name, params)                                        \
    AMPI_API ret MPI_##name params;                                            \
    AMPI_API ret PMPI_##name params;

/* Tool interface: setup, enumerations and control variables */
AMPI_DECLARE(int, T_init_thread, (int required, int *provided))
AMPI_DECLARE(int, T_finalize, (void))
AMPI_DECLARE(int, T_enum_get_info, (MPI_T_enum enumtype, int *num, char *name, int *name_len))
AMPI_DECLARE(int, T_enum_get_item, (MPI_T_enum enumtype, int index, int *value, char *name, int *name_len))
AMPI_DECLARE(int, T_cvar_get_num, (int *num_cvar))
AMPI_DECLARE(int, T_cvar_get_info, (int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope))
AMPI_DECLARE(int, T_cvar_get_index, (const char *name, int *cvar_index))
AMPI_DECLARE(int, T_cvar_handle_alloc, (int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count))
AMPI_DECLARE(int, T_cvar_handle_free, (MPI_T_cvar_handle *handle))
AMPI_DECLARE(int, T_cvar_read, (MPI_T_cvar_handle handle, void *buf))
AMPI_DECLARE(int, T_cvar_write, (MPI_T_cvar_handle handle, const void *buf))
/* Tool interface: performance variables, sessions and handles */
AMPI_DECLARE(int, T_pvar_get_num, (int *num_pvar))
AMPI_DECLARE(int, T_pvar_get_info, (int pvar_index, char *name, int *name_len, int *verbosity, int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *readonly, int *continuous, int *atomic))
AMPI_DECLARE(int, T_pvar_get_index, (const char *name, int var_class, int *pvar_index))
AMPI_DECLARE(int, T_pvar_session_create, (MPI_T_pvar_session *session))
AMPI_DECLARE(int, T_pvar_session_free, (MPI_T_pvar_session *session))
AMPI_DECLARE(int, T_pvar_handle_alloc, (MPI_T_pvar_session session, int pvar_index, void *obj_handle, MPI_T_pvar_handle *handle, int *count))
AMPI_DECLARE(int, T_pvar_handle_free, (MPI_T_pvar_session session, MPI_T_pvar_handle *handle))
AMPI_DECLARE(int, T_pvar_start, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
AMPI_DECLARE(int, T_pvar_stop, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
AMPI_DECLARE(int, T_pvar_read, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf))
AMPI_DECLARE(int, T_pvar_write, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf))
AMPI_DECLARE(int, T_pvar_reset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
AMPI_DECLARE(int, T_pvar_readreset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf))
/* Tool interface: categories */
AMPI_DECLARE(int, T_category_get_num, (int *num_cat))
AMPI_DECLARE(int, T_category_get_info, (int cat_index, char *name, int *name_len, char *desc, int *desc_len, int *num_cvars, int *num_pvars, int *num_categories))
AMPI_DECLARE(int, T_category_get_index, (const char *name, int *cat_index))
AMPI_DECLARE(int, T_category_get_cvars, (int cat_index, int len, int indices[]))
AMPI_DECLARE(int, T_category_get_pvars, (int cat_index, int len, int indices[]))
AMPI_DECLARE(int, T_category_get_categories, (int cat_index, int len, int indices[]))
AMPI_DECLARE(int, T_category_changed, (int *update_number))
AMPI_DECLARE(int, T_category_get_num_events, (int cat_index, int *num_events))
AMPI_DECLARE(int, T_category_get_events, (int cat_index, int len, int indices[]))
/* Tool interface: event sources and events (MPI-4.0; none here) */
AMPI_DECLARE(int, T_source_get_num, (int *num_sources))
AMPI_DECLARE(int, T_source_get_info, (int source_index, char *name, int *name_len, char *desc, int *desc_len, MPI_T_source_order *ordering, MPI_Count *ticks_per_second, MPI_Count *max_ticks, MPI_Info *info))
AMPI_DECLARE(int, T_source_get_timestamp, (int source_index, MPI_Count *timestamp))
AMPI_DECLARE(int, T_event_get_num, (int *num_events))
AMPI_DECLARE(int, T_event_get_info, (int event_index, char *name, int *name_len, int *verbosity, MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[], int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc, int *desc_len, int *bind))
AMPI_DECLARE(int, T_event_get_index, (const char *name, int *event_index))
AMPI_DECLARE(int, T_event_handle_alloc, (int event_index, void *obj_handle, MPI_Info info, MPI_T_event_registration *event_registration))
AMPI_DECLARE(int, T_event_handle_set_info, (MPI_T_event_registration event_registration, MPI_Info info))
AMPI_DECLARE(int, T_event_handle_get_info, (MPI_T_event_registration event_registration, MPI_Info *info_used))
AMPI_DECLARE(int, T_event_register_callback, (MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data, MPI_T_event_cb_function *event_cb_function))
AMPI_DECLARE(int, T_event_callback_set_info, (MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, MPI_Info info))
AMPI_DECLARE(int, T_event_callback_get_info, (MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, MPI_Info *info_used))
AMPI_DECLARE(int, T_event_handle_free, (MPI_T_event_registration event_registration, void *user_data, MPI_T_event_free_cb_function *free_cb_function))
AMPI_DECLARE(int, T_event_set_dropped_handler, (MPI_T_event_registration event_registration, MPI_T_event_dropped_cb_function *dropped_cb_function))
AMPI_DECLARE(int, T_event_read, (MPI_T_event_instance event_instance, int element_index, void *buffer))
AMPI_DECLARE(int, T_event_copy, (MPI_T_event_instance event_instance, void *buffer))
AMPI_DECLARE(int, T_event_get_timestamp, (MPI_T_event_instance event_instance, MPI_Count *event_timestamp))
AMPI_DECLARE(int, T_event_get_source, (MPI_T_event_instance event_instance, int *source_index))

#undef AMPI_DECLARE

#endif
