/*
 * MPI_T_init_thread and MPI_T_finalize (counted per rank: each rank is an
 * MPI process), enumerations, categories, and the MPI-4.0 events and
 * event sources, of which there are none.  The calls work before MPI_Init
 * and after MPI_Finalize, and return their error class itself: no error
 * handler applies to them (MPI-4.0 section 15.3.10).
 */
#include "mpi/tool/tool.h"

#include <stdlib.h>
#include <string.h>

int amp_tool_enter(amp_rank_t **rank, amp_tool_t **tool, const char *call)
{
    amp_mpi_enter_any(rank, call);
    *tool = (*rank)->tool;
    return *tool && (*tool)->inits > 0 ? MPI_SUCCESS
                                       : MPI_T_ERR_NOT_INITIALIZED;
}

void amp_tool_put_str(const char *s, char *buf, int *len)
{
    if (!len)
        return;
    int need = (int)strlen(s) + 1;
    if (!buf || *len <= 0) {
        *len = need;
        return;
    }
    int n = need < *len ? need : *len;
    memcpy(buf, s, (size_t)n - 1);
    buf[n - 1] = '\0';
    *len = n;
}

int PMPI_T_init_thread(int required, int *provided)
{
    amp_rank_t *rank;
    amp_mpi_enter_any(&rank, "MPI_T_init_thread");
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        return MPI_T_ERR_INVALID;
    if (!rank->tool) {
        amp_tool_t *t = calloc(1, sizeof(*t));
        if (!t)
            return MPI_T_ERR_MEMORY;
        amp_table_init(&t->cvars, sizeof(amp_tool_chandle_t), 1);
        amp_table_init(&t->sessions, sizeof(amp_tool_session_t), 1);
        amp_table_init(&t->phandles, sizeof(amp_tool_phandle_t), 1);
        rank->tool = t;
    }
    rank->tool->inits++;
    /* Every call may come from any thread of the rank (mpi/threads/). */
    if (provided)
        *provided = MPI_THREAD_MULTIPLE;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_init_thread)

int PMPI_T_finalize(void)
{
    amp_rank_t *rank;
    amp_tool_t *t;
    int rc = amp_tool_enter(&rank, &t, "MPI_T_finalize");
    if (rc != MPI_SUCCESS)
        return rc;
    if (--t->inits > 0)
        return MPI_SUCCESS;
    for (int s = 1; s < amp_table_capacity(&t->sessions); s++)
        if (amp_table_lookup(&t->sessions, s))
            amp_tool_session_drop(t, s);
    amp_table_cleanup(&t->cvars);
    amp_table_cleanup(&t->sessions);
    amp_table_cleanup(&t->phandles);
    free(t);
    rank->tool = NULL;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_finalize)

/* ---- enumerations ---- */

/* The enumeration of handle h, or AMP_TOOL_ENUM_NONE. */
static int enum_of(MPI_T_enum h)
{
    if (h == AMPI_HANDLE(AMPI_HANDLE_T_ENUM, AMP_TOOL_ENUM_BALANCER))
        return AMP_TOOL_ENUM_BALANCER;
    return AMP_TOOL_ENUM_NONE;
}

/* The balancers, in amp_lb_kind_t's order. */
#define NBALANCERS AMP_LB_NKINDS

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name,
                         int *name_len)
{
    amp_rank_t *rank;
    amp_tool_t *t;
    int rc = amp_tool_enter(&rank, &t, "MPI_T_enum_get_info");
    if (rc != MPI_SUCCESS)
        return rc;
    if (enum_of(enumtype) != AMP_TOOL_ENUM_BALANCER)
        return MPI_T_ERR_INVALID_HANDLE;
    if (num)
        *num = NBALANCERS;
    amp_tool_put_str("balancer", name, name_len);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_enum_get_info)

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name,
                         int *name_len)
{
    amp_rank_t *rank;
    amp_tool_t *t;
    int rc = amp_tool_enter(&rank, &t, "MPI_T_enum_get_item");
    if (rc != MPI_SUCCESS)
        return rc;
    if (enum_of(enumtype) != AMP_TOOL_ENUM_BALANCER)
        return MPI_T_ERR_INVALID_HANDLE;
    if (index < 0 || index >= NBALANCERS)
        return MPI_T_ERR_INVALID_ITEM;
    if (value)
        *value = index;
    amp_tool_put_str(amp_lb_kind_name(index), name, name_len);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_enum_get_item)

/* ---- categories ---- */

static const struct {
    const char *name, *desc;
} cats[AMP_TOOL_NCATS] = {
    [AMP_TOOL_CAT_RUNTIME] = {"runtime", "the process's start-up options"},
    [AMP_TOOL_CAT_P2P] = {"p2p", "point-to-point messages: sends by route, "
                                 "the unexpected queues, matching"},
    [AMP_TOOL_CAT_SCHED] = {"sched", "the PEs: context switches, busy and "
                                     "idle time, ranks lent"},
    [AMP_TOOL_CAT_LB] = {"lb", "load balancing: the strategy, ranks moved, "
                               "time spent deciding"},
    [AMP_TOOL_CAT_GPU] = {"gpu", "CUDA device buffers in MPI calls: the "
                                 "copies the GPUs made"},
};

/* The variables of category cat among the first n of a table: their
 * indices into out (up to len), and how many there are. */
static int cvars_of(int cat, int len, int *out)
{
    int k = 0;
    for (int i = 0; i < amp_tool_ncvars; i++)
        if (amp_tool_cvars[i].cat == cat) {
            if (out && k < len)
                out[k] = i;
            k++;
        }
    return k;
}

static int pvars_of(int cat, int len, int *out)
{
    int k = 0;
    for (int i = 0; i < amp_tool_npvars; i++)
        if (amp_tool_pvars[i].cat == cat) {
            if (out && k < len)
                out[k] = i;
            k++;
        }
    return k;
}

int PMPI_T_category_get_num(int *num_cat)
{
    amp_rank_t *rank;
    amp_tool_t *t;
    int rc = amp_tool_enter(&rank, &t, "MPI_T_category_get_num");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_cat)
        return MPI_T_ERR_INVALID;
    *num_cat = AMP_TOOL_NCATS;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_category_get_num)

/* Enters call about category cat_index. */
static int enter_cat(int cat_index, const char *call)
{
    amp_rank_t *rank;
    amp_tool_t *t;
    int rc = amp_tool_enter(&rank, &t, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (cat_index < 0 || cat_index >= AMP_TOOL_NCATS)
        return MPI_T_ERR_INVALID_INDEX;
    return MPI_SUCCESS;
}

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len,
                             char *desc, int *desc_len, int *num_cvars,
                             int *num_pvars, int *num_categories)
{
    int rc = enter_cat(cat_index, "MPI_T_category_get_info");
    if (rc != MPI_SUCCESS)
        return rc;
    amp_tool_put_str(cats[cat_index].name, name, name_len);
    amp_tool_put_str(cats[cat_index].desc, desc, desc_len);
    if (num_cvars)
        *num_cvars = cvars_of(cat_index, 0, NULL);
    if (num_pvars)
        *num_pvars = pvars_of(cat_index, 0, NULL);
    if (num_categories)
        *num_categories = 0;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_category_get_info)

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    amp_rank_t *rank;
    amp_tool_t *t;
    int rc = amp_tool_enter(&rank, &t, "MPI_T_category_get_index");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !cat_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < AMP_TOOL_NCATS; i++)
        if (strcmp(cats[i].name, name) == 0) {
            *cat_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}
AMP_WEAK_ALIAS(T_category_get_index)

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    int rc = enter_cat(cat_index, "MPI_T_category_get_cvars");
    if (rc != MPI_SUCCESS)
        return rc;
    if (len < 0 || (len > 0 && !indices))
        return MPI_T_ERR_INVALID;
    cvars_of(cat_index, len, indices);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_category_get_cvars)

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    int rc = enter_cat(cat_index, "MPI_T_category_get_pvars");
    if (rc != MPI_SUCCESS)
        return rc;
    if (len < 0 || (len > 0 && !indices))
        return MPI_T_ERR_INVALID;
    pvars_of(cat_index, len, indices);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_category_get_pvars)

int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    (void)indices; /* no category has subcategories */
    int rc = enter_cat(cat_index, "MPI_T_category_get_categories");
    if (rc == MPI_SUCCESS && len < 0)
        rc = MPI_T_ERR_INVALID;
    return rc;
}
AMP_WEAK_ALIAS(T_category_get_categories)

int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    int rc = enter_cat(cat_index, "MPI_T_category_get_num_events");
    if (rc == MPI_SUCCESS && num_events)
        *num_events = 0;
    return rc;
}
AMP_WEAK_ALIAS(T_category_get_num_events)

int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
    (void)indices; /* no events */
    int rc = enter_cat(cat_index, "MPI_T_category_get_events");
    if (rc == MPI_SUCCESS && len < 0)
        rc = MPI_T_ERR_INVALID;
    return rc;
}
AMP_WEAK_ALIAS(T_category_get_events)

int PMPI_T_category_changed(int *update_number)
{
    amp_rank_t *rank;
    amp_tool_t *t;
    int rc = amp_tool_enter(&rank, &t, "MPI_T_category_changed");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!update_number)
        return MPI_T_ERR_INVALID;
    *update_number = 0; /* the tables never change */
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_category_changed)
