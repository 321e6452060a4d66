/*
 * Control variables: the process's runtime options (docs/runtime-options.md,
 * docs/tools.md).  A process's ranks share them: a write by one rank is
 * seen by all.  Most are read-only (they shaped the process at start: the
 * stacks, the slots, the PEs, the transports' thresholds); three may be
 * written, each read by the runtime where it acts: the balancer (at the
 * next load-balancing step), +lbdebug (at the next step) and +stats (at
 * exit).
 */
#include "mpi/tool/tool.h"

#include <string.h>

static void rd_int(void *buf, int v)
{
    memcpy(buf, &v, sizeof(v));
}

static void rd_ulong(void *buf, size_t v)
{
    unsigned long u = (unsigned long)v;
    memcpy(buf, &u, sizeof(u));
}

static void rd_vp(void *buf)
{
    rd_int(buf, amp_proc.nranks);
}
static void rd_p(void *buf)
{
    rd_int(buf, amp_proc.sched.npes);
}
static void rd_stacksize(void *buf)
{
    rd_ulong(buf, amp_proc.opts.stacksize);
}
static void rd_slot(void *buf)
{
    rd_ulong(buf, amp_proc.mem.slot_size);
}
static void rd_eager(void *buf)
{
    rd_ulong(buf, amp_proc.world.eager_limit);
}
static void rd_steal(void *buf)
{
    rd_int(buf, amp_proc.sched.steal);
}
static void rd_pinmap(void *buf)
{
    rd_int(buf, amp_proc.opts.pinmap);
}
static void rd_yield(void *buf)
{
    rd_int(buf, amp_proc.opts.yield_idle);
}
static void rd_split(void *buf)
{
    rd_ulong(buf, amp_proc.opts.node_split);
}
static void rd_net_eager(void *buf)
{
    rd_ulong(buf, amp_proc.opts.net_eager);
}

static void rd_steal_idle(void *buf)
{
    rd_ulong(buf, (size_t)amp_proc.sched.steal_idle_ns);
}

static void rd_poll_deadlock(void *buf)
{
    rd_ulong(buf, (size_t)amp_proc.sched.poll_deadlock_ns);
}

static void rd_lbperiod(void *buf)
{
    double s = (double)amp_proc.opts.lbperiod_ns * 1e-9;
    memcpy(buf, &s, sizeof(s));
}

static void rd_balancer(void *buf)
{
    rd_int(buf, __atomic_load_n(&amp_proc.lb.kind, __ATOMIC_RELAXED));
}

static void rd_lbdebug(void *buf)
{
    rd_int(buf, __atomic_load_n(&amp_proc.lb.debug, __ATOMIC_RELAXED));
}

static void rd_stats(void *buf)
{
    rd_int(buf, __atomic_load_n(&amp_proc.opts.stats, __ATOMIC_RELAXED));
}

static int wr_balancer(const void *buf)
{
    int v;
    memcpy(&v, buf, sizeof(v));
    if (v < AMP_LB_NONE || v >= AMP_LB_NKINDS)
        return MPI_T_ERR_INVALID;
    /* The strategy that weighs bytes sent needs the ranks to count them
     * (mpi/pt2pt/pt2pt.c) from now on. */
    __atomic_store_n(&amp_proc.lb.comm, amp_lb_kind_uses_sends(v),
                     __ATOMIC_RELAXED);
    __atomic_store_n(&amp_proc.lb.kind, v, __ATOMIC_RELAXED);
    return MPI_SUCCESS;
}

static int wr_lbdebug(const void *buf)
{
    int v;
    memcpy(&v, buf, sizeof(v));
    __atomic_store_n(&amp_proc.lb.debug, v, __ATOMIC_RELAXED);
    return MPI_SUCCESS;
}

static int wr_stats(const void *buf)
{
    int v;
    memcpy(&v, buf, sizeof(v));
    __atomic_store_n(&amp_proc.opts.stats, v, __ATOMIC_RELAXED);
    return MPI_SUCCESS;
}

#define RUNTIME AMP_TOOL_CAT_RUNTIME
#define SCHED AMP_TOOL_CAT_SCHED
#define LB AMP_TOOL_CAT_LB
#define NOENUM AMP_TOOL_ENUM_NONE

const amp_tool_cvar_t amp_tool_cvars[] = {
    {"vp", "ranks of the job (+vp, AMPI_VP)", MPI_INT, MPI_T_SCOPE_CONSTANT,
     RUNTIME, NOENUM, rd_vp, NULL},
    {"p", "PEs (worker threads) of this process (+p, AMPI_P)", MPI_INT,
     MPI_T_SCOPE_CONSTANT, RUNTIME, NOENUM, rd_p, NULL},
    {"stacksize", "bytes of each rank's stack (+stacksize, AMPI_STACKSIZE)",
     MPI_UNSIGNED_LONG, MPI_T_SCOPE_READONLY, RUNTIME, NOENUM, rd_stacksize,
     NULL},
    {"isomalloc_slot",
     "bytes of address space of each rank's slot (+isomalloc_slot, "
     "AMPI_ISOMALLOC_SLOT)",
     MPI_UNSIGNED_LONG, MPI_T_SCOPE_READONLY, RUNTIME, NOENUM, rd_slot, NULL},
    {"eager_limit",
     "largest message sent eagerly, in bytes; larger ones go by rendezvous "
     "(+eager, AMPI_EAGER_LIMIT)",
     MPI_UNSIGNED_LONG, MPI_T_SCOPE_READONLY, RUNTIME, NOENUM, rd_eager, NULL},
    {"node_split_copy",
     "bytes from which a copy between processes of a node is split "
     "(AMPI_NODE_SPLIT_COPY; 0: the default)",
     MPI_UNSIGNED_LONG, MPI_T_SCOPE_READONLY, RUNTIME, NOENUM, rd_split, NULL},
    {"net_eager",
     "largest message sent eagerly through UCX to a process no ring of "
     "this node reaches, in bytes (AMPI_NET_EAGER; the eager limit if "
     "larger)",
     MPI_UNSIGNED_LONG, MPI_T_SCOPE_READONLY, RUNTIME, NOENUM, rd_net_eager,
     NULL},
    {"yield_when_idle",
     "an idle PE yields its core: 1, 0, -1 when the cores are crowded "
     "(AMPI_YIELD_WHEN_IDLE)",
     MPI_INT, MPI_T_SCOPE_READONLY, SCHED, NOENUM, rd_yield, NULL},
    {"poll_deadlock_ns",
     "nanoseconds a PE with only polling ranks waits before reporting a "
     "deadlock (AMPI_POLL_DEADLOCK)",
     MPI_UNSIGNED_LONG, MPI_T_SCOPE_READONLY, SCHED, NOENUM, rd_poll_deadlock,
     NULL},
    {"steal", "idle PEs run ranks of busy ones (+nosteal, AMPI_STEAL)", MPI_INT,
     MPI_T_SCOPE_READONLY, SCHED, NOENUM, rd_steal, NULL},
    {"steal_idle_ns",
     "nanoseconds a PE is idle before it asks for a rank (AMPI_STEAL_IDLE)",
     MPI_UNSIGNED_LONG, MPI_T_SCOPE_READONLY, SCHED, NOENUM, rd_steal_idle,
     NULL},
    {"pinmap", "placed ranks are never lent (+pinmap, AMPI_PINMAP)", MPI_INT,
     MPI_T_SCOPE_READONLY, SCHED, NOENUM, rd_pinmap, NULL},
    {"stats",
     "print the table of PEs and ranks at exit: nonzero (+stats, "
     "AMPI_STATS); writable",
     MPI_INT, MPI_T_SCOPE_LOCAL, SCHED, NOENUM, rd_stats, wr_stats},
    {"balancer",
     "the load-balancing strategy of the next step (+balancer, "
     "AMPI_BALANCER); writable, the same in every process",
     MPI_INT, MPI_T_SCOPE_ALL_EQ, LB, AMP_TOOL_ENUM_BALANCER, rd_balancer,
     wr_balancer},
    {"lbdebug",
     "report each load-balancing step: nonzero (+lbdebug, AMPI_LBDEBUG); "
     "writable",
     MPI_INT, MPI_T_SCOPE_LOCAL, LB, NOENUM, rd_lbdebug, wr_lbdebug},
    {"lbperiod", "seconds between +lbperiod's steps (0: off)", MPI_DOUBLE,
     MPI_T_SCOPE_READONLY, LB, NOENUM, rd_lbperiod, NULL},
};

const int amp_tool_ncvars =
    (int)(sizeof(amp_tool_cvars) / sizeof(amp_tool_cvars[0]));

/* ---- the calls ---- */

int PMPI_T_cvar_get_num(int *num_cvar)
{
    amp_rank_t *rank;
    amp_tool_t *t;
    int rc = amp_tool_enter(&rank, &t, "MPI_T_cvar_get_num");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_cvar)
        return MPI_T_ERR_INVALID;
    *num_cvar = amp_tool_ncvars;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_cvar_get_num)

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len,
                         int *verbosity, MPI_Datatype *datatype,
                         MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *scope)
{
    amp_rank_t *rank;
    amp_tool_t *t;
    int rc = amp_tool_enter(&rank, &t, "MPI_T_cvar_get_info");
    if (rc != MPI_SUCCESS)
        return rc;
    if (cvar_index < 0 || cvar_index >= amp_tool_ncvars)
        return MPI_T_ERR_INVALID_INDEX;
    const amp_tool_cvar_t *c = &amp_tool_cvars[cvar_index];
    amp_tool_put_str(c->name, name, name_len);
    amp_tool_put_str(c->desc, desc, desc_len);
    if (verbosity)
        *verbosity = MPI_T_VERBOSITY_USER_BASIC;
    if (datatype)
        *datatype = c->dt;
    if (enumtype)
        *enumtype = c->enumtype ? AMPI_HANDLE(AMPI_HANDLE_T_ENUM, c->enumtype)
                                : MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope)
        *scope = c->scope;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_cvar_get_info)

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    amp_rank_t *rank;
    amp_tool_t *t;
    int rc = amp_tool_enter(&rank, &t, "MPI_T_cvar_get_index");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !cvar_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < amp_tool_ncvars; i++)
        if (strcmp(amp_tool_cvars[i].name, name) == 0) {
            *cvar_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}
AMP_WEAK_ALIAS(T_cvar_get_index)

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle,
                             MPI_T_cvar_handle *handle, int *count)
{
    (void)obj_handle; /* every variable binds to no object */
    amp_rank_t *rank;
    amp_tool_t *t;
    int rc = amp_tool_enter(&rank, &t, "MPI_T_cvar_handle_alloc");
    if (rc != MPI_SUCCESS)
        return rc;
    if (cvar_index < 0 || cvar_index >= amp_tool_ncvars)
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    amp_tool_chandle_t *h = amp_table_alloc(&t->cvars);
    if (!h)
        return MPI_T_ERR_OUT_OF_HANDLES;
    h->cvar = cvar_index;
    *handle = AMPI_HANDLE(AMPI_HANDLE_T_CVAR, h->obj.idx);
    *count = 1;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_cvar_handle_alloc)

/* Enters call with handle h: its object in *out. */
static int enter_handle(MPI_T_cvar_handle h, amp_tool_t **tool,
                        amp_tool_chandle_t **out, const char *call)
{
    amp_rank_t *rank;
    int rc = amp_tool_enter(&rank, tool, call);
    if (rc != MPI_SUCCESS)
        return rc;
    *out = AMP_HANDLE_KIND(h) == AMPI_HANDLE_T_CVAR
               ? amp_table_lookup(&(*tool)->cvars, AMP_HANDLE_INDEX(h))
               : NULL;
    return *out ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    amp_tool_t *t;
    amp_tool_chandle_t *h;
    if (!handle)
        return MPI_T_ERR_INVALID;
    int rc = enter_handle(*handle, &t, &h, "MPI_T_cvar_handle_free");
    if (rc != MPI_SUCCESS)
        return rc;
    amp_table_free(&t->cvars, h);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_cvar_handle_free)

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    amp_tool_t *t;
    amp_tool_chandle_t *h;
    int rc = enter_handle(handle, &t, &h, "MPI_T_cvar_read");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!buf)
        return MPI_T_ERR_INVALID;
    amp_tool_cvars[h->cvar].read(buf);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_cvar_read)

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    amp_tool_t *t;
    amp_tool_chandle_t *h;
    int rc = enter_handle(handle, &t, &h, "MPI_T_cvar_write");
    if (rc != MPI_SUCCESS)
        return rc;
    const amp_tool_cvar_t *c = &amp_tool_cvars[h->cvar];
    if (!c->write)
        return MPI_T_ERR_CVAR_SET_NEVER;
    if (!buf)
        return MPI_T_ERR_INVALID;
    return c->write(buf);
}
AMP_WEAK_ALIAS(T_cvar_write)
