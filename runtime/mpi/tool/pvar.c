/*
 * Performance variables: the counters of this process's PEs, summed over
 * them (or one element per PE), read without stopping anybody: each value
 * is one that held lately (docs/tools.md).  The counters run all the
 * time; a handle of a counter or timer counts from its MPI_T_pvar_start
 * to its MPI_T_pvar_stop (it starts stopped, at zero), as the standard
 * has it for variables that are not continuous.  None can be written.
 * Sessions and handles are the rank's (rank->tool).
 */
#include "mpi/tool/tool.h"

#include "gpu/gpu.h"

#include <stdlib.h>
#include <string.h>

static void p2p_sum(amp_p2p_counts_t *sum)
{
    *sum = (amp_p2p_counts_t){0};
    for (int i = 0; i < amp_proc.sched.npes; i++) {
        amp_p2p_counts_t c;
        amp_p2p_pe_counts(amp_proc.sched.pes[i], &c);
        for (int r = 0; r < AMP_P2P_NROUTES; r++) {
            sum->sends[r] += c.sends[r];
            sum->bytes[r] += c.bytes[r];
        }
        sum->unexp_in += c.unexp_in;
        sum->unexp_out += c.unexp_out;
        sum->match_tries += c.match_tries;
    }
}

static void rd_sends(amp_tool_val_t *out, int n)
{
    amp_p2p_counts_t s;
    p2p_sum(&s);
    for (int i = 0; i < n; i++)
        out[i].u = 0;
    for (int r = 0; r < AMP_P2P_NROUTES; r++)
        out[n == 1 ? 0 : r].u += s.sends[r];
}

static void rd_bytes(amp_tool_val_t *out, int n)
{
    amp_p2p_counts_t s;
    p2p_sum(&s);
    for (int i = 0; i < n; i++)
        out[i].u = 0;
    for (int r = 0; r < AMP_P2P_NROUTES; r++)
        out[n == 1 ? 0 : r].u += s.bytes[r];
}

static void rd_unexp(amp_tool_val_t *out, int n)
{
    (void)n;
    amp_p2p_counts_t s;
    p2p_sum(&s);
    out[0].u = s.unexp_in;
}

static void rd_unexp_len(amp_tool_val_t *out, int n)
{
    (void)n;
    amp_p2p_counts_t s;
    p2p_sum(&s);
    /* Read PE by PE while they run: never below 0. */
    out[0].u = s.unexp_in > s.unexp_out ? s.unexp_in - s.unexp_out : 0;
}

static void rd_match(amp_tool_val_t *out, int n)
{
    (void)n;
    amp_p2p_counts_t s;
    p2p_sum(&s);
    out[0].u = s.match_tries;
}

static void rd_switches(amp_tool_val_t *out, int n)
{
    (void)n;
    out[0].u = 0;
    for (int i = 0; i < amp_proc.sched.npes; i++)
        out[0].u += amp_proc.sched.pes[i]->switches;
}

static void rd_lent(amp_tool_val_t *out, int n)
{
    (void)n;
    out[0].u = 0;
    for (int i = 0; i < amp_proc.sched.npes; i++)
        out[0].u += amp_proc.sched.pes[i]->lent_out;
}

static void rd_moved(amp_tool_val_t *out, int n)
{
    (void)n;
    out[0].u = 0;
    for (int i = 0; i < amp_proc.sched.npes; i++)
        out[0].u += amp_proc.sched.pes[i]->moved_in;
}

/* Seconds of cycle counter ticks. */
static double seconds(uint64_t ticks)
{
    double rate = amp_lb_cycles_per_second(&amp_proc.lb);
    return rate > 0 ? (double)ticks / rate : 0.0;
}

/* The calling PE's value includes the stretch its thread is running
 * (a rank that never switched out read 0 before); another PE's is as of
 * its last switch. */
static void rd_busy(amp_tool_val_t *out, int n)
{
    const amp_pe_t *self = amp_pe_self();
    for (int i = 0; i < n; i++) {
        const amp_pe_t *pe = amp_proc.sched.pes[i];
        out[i].d = seconds(pe == self ? amp_sched_pe_busy() : pe->busy);
    }
}

/* A PE's idle time up to the start of its current stretch (the stretch
 * under way may be either): between the first tick and that start, what
 * its threads did not run.  Busy ticks read first: a switch between the
 * reads only makes the value briefly larger. */
static void rd_idle(amp_tool_val_t *out, int n)
{
    for (int i = 0; i < n; i++) {
        const amp_pe_t *pe = amp_proc.sched.pes[i];
        uint64_t busy = pe->busy;
        uint64_t start = pe->run_start, from = pe->run_from;
        uint64_t span = from && start > from ? start - from : 0;
        out[i].d = span > busy ? seconds(span - busy) : 0.0;
    }
}

static void rd_lb_rounds(amp_tool_val_t *out, int n)
{
    (void)n;
    out[0].u = amp_proc.lb.rounds;
}

static void rd_lb_time(amp_tool_val_t *out, int n)
{
    (void)n;
    out[0].d = amp_proc.lb.plan_total_s;
}

static void rd_gpu_copies(amp_tool_val_t *out, int n)
{
    (void)n;
    uint64_t copies, bytes;
    amp_gpu_copy_counts(amp_proc.gpu, &copies, &bytes);
    out[0].u = copies;
}

static void rd_gpu_bytes(amp_tool_val_t *out, int n)
{
    (void)n;
    uint64_t copies, bytes;
    amp_gpu_copy_counts(amp_proc.gpu, &copies, &bytes);
    out[0].u = bytes;
}

#define COUNTER MPI_T_PVAR_CLASS_COUNTER
#define TIMER MPI_T_PVAR_CLASS_TIMER
#define P2P AMP_TOOL_CAT_P2P
#define SCHED AMP_TOOL_CAT_SCHED
#define LB AMP_TOOL_CAT_LB

const amp_tool_pvar_t amp_tool_pvars[] = {
    {"p2p_messages_sent",
     "messages the ranks of this process sent (point-to-point and the "
     "collectives' own)",
     COUNTER, 0, AMP_TOOL_ONE, P2P, 0, rd_sends},
    {"p2p_bytes_sent", "bytes of those messages", COUNTER, 0, AMP_TOOL_ONE, P2P,
     0, rd_bytes},
    {"p2p_messages_sent_by_route",
     "messages sent: to a rank of the same PE, to another PE of the "
     "process, to another process",
     COUNTER, 0, AMP_TOOL_PER_ROUTE, P2P, 0, rd_sends},
    {"p2p_bytes_sent_by_route", "bytes sent, by the same three routes", COUNTER,
     0, AMP_TOOL_PER_ROUTE, P2P, 0, rd_bytes},
    {"p2p_unexpected_messages",
     "messages that arrived before their receive and waited in an "
     "unexpected queue",
     COUNTER, 0, AMP_TOOL_ONE, P2P, 0, rd_unexp},
    {"p2p_unexpected_queue_length",
     "messages in the unexpected queues of this process's ranks now",
     MPI_T_PVAR_CLASS_LEVEL, 0, AMP_TOOL_ONE, P2P, 1, rd_unexp_len},
    {"p2p_match_attempts",
     "entries of the posted-receive and unexpected queues compared while "
     "matching",
     COUNTER, 0, AMP_TOOL_ONE, P2P, 0, rd_match},
    {"sched_context_switches",
     "switches of this process's PEs to a rank or another thread", COUNTER, 0,
     AMP_TOOL_ONE, SCHED, 0, rd_switches},
    {"sched_busy_time", "seconds each PE of the process ran threads", TIMER, 1,
     AMP_TOOL_PER_PE, SCHED, 0, rd_busy},
    {"sched_idle_time", "seconds each PE of the process was idle", TIMER, 1,
     AMP_TOOL_PER_PE, SCHED, 0, rd_idle},
    {"sched_ranks_lent", "ranks the PEs lent to idle PEs", COUNTER, 0,
     AMP_TOOL_ONE, SCHED, 0, rd_lent},
    {"lb_ranks_moved", "ranks that moved to another PE of the process", COUNTER,
     0, AMP_TOOL_ONE, LB, 0, rd_moved},
    {"lb_steps", "load-balancing steps", COUNTER, 0, AMP_TOOL_ONE, LB, 0,
     rd_lb_rounds},
    {"lb_time", "seconds the load-balancing steps spent deciding", TIMER, 1,
     AMP_TOOL_ONE, LB, 0, rd_lb_time},
    {"gpu_device_copies",
     "copies the GPUs made for MPI calls on device buffers (within a "
     "device, between devices, to and from the host); 0 without a GPU",
     COUNTER, 0, AMP_TOOL_ONE, AMP_TOOL_CAT_GPU, 0, rd_gpu_copies},
    {"gpu_device_copy_bytes", "bytes of those copies", COUNTER, 0,
     AMP_TOOL_ONE, AMP_TOOL_CAT_GPU, 0, rd_gpu_bytes},
};

const int amp_tool_npvars =
    (int)(sizeof(amp_tool_pvars) / sizeof(amp_tool_pvars[0]));

int amp_tool_pvar_count(const amp_tool_pvar_t *p)
{
    switch (p->per) {
    case AMP_TOOL_PER_PE: return amp_proc.sched.npes;
    case AMP_TOOL_PER_ROUTE: return AMP_P2P_NROUTES;
    default: return 1;
    }
}

/* ---- variables ---- */

int PMPI_T_pvar_get_num(int *num_pvar)
{
    amp_rank_t *rank;
    amp_tool_t *t;
    int rc = amp_tool_enter(&rank, &t, "MPI_T_pvar_get_num");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_pvar)
        return MPI_T_ERR_INVALID;
    *num_pvar = amp_tool_npvars;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_pvar_get_num)

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len,
                         int *verbosity, int *var_class, MPI_Datatype *datatype,
                         MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *readonly, int *continuous, int *atomic)
{
    amp_rank_t *rank;
    amp_tool_t *t;
    int rc = amp_tool_enter(&rank, &t, "MPI_T_pvar_get_info");
    if (rc != MPI_SUCCESS)
        return rc;
    if (pvar_index < 0 || pvar_index >= amp_tool_npvars)
        return MPI_T_ERR_INVALID_INDEX;
    const amp_tool_pvar_t *p = &amp_tool_pvars[pvar_index];
    amp_tool_put_str(p->name, name, name_len);
    amp_tool_put_str(p->desc, desc, desc_len);
    if (verbosity)
        *verbosity = MPI_T_VERBOSITY_USER_BASIC;
    if (var_class)
        *var_class = p->cls;
    if (datatype)
        *datatype = p->is_dbl ? MPI_DOUBLE : MPI_UNSIGNED_LONG_LONG;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (readonly)
        *readonly = 1;
    if (continuous)
        *continuous = p->continuous;
    if (atomic)
        *atomic = 0;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_pvar_get_info)

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    amp_rank_t *rank;
    amp_tool_t *t;
    int rc = amp_tool_enter(&rank, &t, "MPI_T_pvar_get_index");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !pvar_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < amp_tool_npvars; i++)
        if (amp_tool_pvars[i].cls == var_class &&
            strcmp(amp_tool_pvars[i].name, name) == 0) {
            *pvar_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}
AMP_WEAK_ALIAS(T_pvar_get_index)

/* ---- sessions ---- */

/* The session of handle h, or NULL. */
static amp_tool_session_t *session_of(amp_tool_t *t, MPI_T_pvar_session h)
{
    if (AMP_HANDLE_KIND(h) != AMPI_HANDLE_T_SESSION)
        return NULL;
    return amp_table_lookup(&t->sessions, AMP_HANDLE_INDEX(h));
}

static void phandle_free(amp_tool_t *t, amp_tool_phandle_t *h)
{
    free(h->acc); /* base and now are in the same block */
    amp_table_free(&t->phandles, h);
}

void amp_tool_session_drop(amp_tool_t *t, int s)
{
    for (int i = 1; i < amp_table_capacity(&t->phandles); i++) {
        amp_tool_phandle_t *h = amp_table_lookup(&t->phandles, i);
        if (h && h->session == s)
            phandle_free(t, h);
    }
    amp_table_free(&t->sessions, amp_table_lookup(&t->sessions, s));
}

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    amp_rank_t *rank;
    amp_tool_t *t;
    int rc = amp_tool_enter(&rank, &t, "MPI_T_pvar_session_create");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!session)
        return MPI_T_ERR_INVALID;
    amp_tool_session_t *s = amp_table_alloc(&t->sessions);
    if (!s)
        return MPI_T_ERR_OUT_OF_SESSIONS;
    *session = AMPI_HANDLE(AMPI_HANDLE_T_SESSION, s->obj.idx);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_pvar_session_create)

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    amp_rank_t *rank;
    amp_tool_t *t;
    int rc = amp_tool_enter(&rank, &t, "MPI_T_pvar_session_free");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!session)
        return MPI_T_ERR_INVALID;
    amp_tool_session_t *s = session_of(t, *session);
    if (!s)
        return MPI_T_ERR_INVALID_SESSION;
    amp_tool_session_drop(t, s->obj.idx);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_pvar_session_free)

/* ---- handles ---- */

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index,
                             void *obj_handle, MPI_T_pvar_handle *handle,
                             int *count)
{
    (void)obj_handle; /* every variable binds to no object */
    amp_rank_t *rank;
    amp_tool_t *t;
    int rc = amp_tool_enter(&rank, &t, "MPI_T_pvar_handle_alloc");
    if (rc != MPI_SUCCESS)
        return rc;
    amp_tool_session_t *s = session_of(t, session);
    if (!s)
        return MPI_T_ERR_INVALID_SESSION;
    if (pvar_index < 0 || pvar_index >= amp_tool_npvars)
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    const amp_tool_pvar_t *p = &amp_tool_pvars[pvar_index];
    int n = amp_tool_pvar_count(p);
    amp_tool_phandle_t *h = amp_table_alloc(&t->phandles);
    if (!h)
        return MPI_T_ERR_OUT_OF_HANDLES;
    h->acc = calloc(3 * (size_t)n, sizeof(amp_tool_val_t));
    if (!h->acc) {
        amp_table_free(&t->phandles, h);
        return MPI_T_ERR_MEMORY;
    }
    h->base = h->acc + n;
    h->now = h->base + n;
    h->session = s->obj.idx;
    h->pvar = pvar_index;
    h->count = n;
    h->started = p->continuous;
    *handle = AMPI_HANDLE(AMPI_HANDLE_T_PVAR, h->obj.idx);
    *count = n;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_pvar_handle_alloc)

/* Enters call with handle h of session: *s and *out (NULL for
 * MPI_T_PVAR_ALL_HANDLES when all is set). */
static int enter_handle(MPI_T_pvar_session session, MPI_T_pvar_handle h,
                        int all, amp_tool_t **t, amp_tool_phandle_t **out,
                        const char *call)
{
    amp_rank_t *rank;
    int rc = amp_tool_enter(&rank, t, call);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_tool_session_t *s = session_of(*t, session);
    if (!s)
        return MPI_T_ERR_INVALID_SESSION;
    *out = NULL;
    if (all && h == MPI_T_PVAR_ALL_HANDLES)
        return MPI_SUCCESS;
    if (AMP_HANDLE_KIND(h) == AMPI_HANDLE_T_PVAR)
        *out = amp_table_lookup(&(*t)->phandles, AMP_HANDLE_INDEX(h));
    if (!*out || (*out)->session != s->obj.idx)
        return MPI_T_ERR_INVALID_HANDLE;
    return MPI_SUCCESS;
}

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session,
                            MPI_T_pvar_handle *handle)
{
    amp_tool_t *t;
    amp_tool_phandle_t *h;
    if (!handle)
        return MPI_T_ERR_INVALID;
    int rc =
        enter_handle(session, *handle, 0, &t, &h, "MPI_T_pvar_handle_free");
    if (rc != MPI_SUCCESS)
        return rc;
    phandle_free(t, h);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_pvar_handle_free)

/* The values of handle h now: what it holds, plus, while it is started,
 * what the counts gained since its start (into out, h->count; not
 * h->acc). */
static void current(const amp_tool_phandle_t *h, amp_tool_val_t *out)
{
    const amp_tool_pvar_t *p = &amp_tool_pvars[h->pvar];
    p->read(out, h->count);
    if (p->continuous)
        return; /* continuous: the value itself */
    for (int i = 0; i < h->count; i++) {
        if (!h->started)
            out[i] = h->acc[i];
        else if (p->is_dbl) /* read while they run: never less */
            out[i].d =
                h->acc[i].d +
                (out[i].d > h->base[i].d ? out[i].d - h->base[i].d : 0.0);
        else
            out[i].u = h->acc[i].u + (out[i].u - h->base[i].u);
    }
}

/* Starts (on) or stops handle h, which is not continuous. */
static void start_stop(amp_tool_phandle_t *h, int on)
{
    if (h->started == on)
        return;
    if (on)
        amp_tool_pvars[h->pvar].read(h->base, h->count);
    else {
        current(h, h->now);
        memcpy(h->acc, h->now, (size_t)h->count * sizeof(*h->acc));
    }
    h->started = on;
}

/* Starts or stops handle (or all the session's that may be). */
static int start_stop_call(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                           int on, const char *call)
{
    amp_tool_t *t;
    amp_tool_phandle_t *h;
    int rc = enter_handle(session, handle, 1, &t, &h, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (h) {
        if (amp_tool_pvars[h->pvar].continuous)
            return MPI_T_ERR_PVAR_NO_STARTSTOP;
        start_stop(h, on);
        return MPI_SUCCESS;
    }
    int s = AMP_HANDLE_INDEX(session);
    for (int i = 1; i < amp_table_capacity(&t->phandles); i++) {
        amp_tool_phandle_t *x = amp_table_lookup(&t->phandles, i);
        if (x && x->session == s && !amp_tool_pvars[x->pvar].continuous)
            start_stop(x, on);
    }
    return MPI_SUCCESS;
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return start_stop_call(session, handle, 1, "MPI_T_pvar_start");
}
AMP_WEAK_ALIAS(T_pvar_start)

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return start_stop_call(session, handle, 0, "MPI_T_pvar_stop");
}
AMP_WEAK_ALIAS(T_pvar_stop)

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                     void *buf)
{
    amp_tool_t *t;
    amp_tool_phandle_t *h;
    int rc = enter_handle(session, handle, 0, &t, &h, "MPI_T_pvar_read");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!buf)
        return MPI_T_ERR_INVALID;
    amp_tool_val_t *v = h->now;
    current(h, v);
    for (int i = 0; i < h->count; i++)
        if (amp_tool_pvars[h->pvar].is_dbl)
            memcpy((double *)buf + i, &v[i].d, sizeof(double));
        else
            memcpy((unsigned long long *)buf + i, &v[i].u,
                   sizeof(unsigned long long));
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(T_pvar_read)

/* Every variable is read-only: writes and resets are refused. */
static int no_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                    const char *call)
{
    amp_tool_t *t;
    amp_tool_phandle_t *h;
    int rc = enter_handle(session, handle, 1, &t, &h, call);
    if (rc != MPI_SUCCESS)
        return rc;
    /* MPI_T_PVAR_ALL_HANDLES (reset only): nothing to reset. */
    return h ? MPI_T_ERR_PVAR_NO_WRITE : MPI_SUCCESS;
}

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                      const void *buf)
{
    (void)buf;
    if (handle == MPI_T_PVAR_ALL_HANDLES)
        return MPI_T_ERR_INVALID_HANDLE;
    return no_write(session, handle, "MPI_T_pvar_write");
}
AMP_WEAK_ALIAS(T_pvar_write)

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return no_write(session, handle, "MPI_T_pvar_reset");
}
AMP_WEAK_ALIAS(T_pvar_reset)

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                          void *buf)
{
    (void)buf;
    if (handle == MPI_T_PVAR_ALL_HANDLES)
        return MPI_T_ERR_INVALID_HANDLE;
    return no_write(session, handle, "MPI_T_pvar_readreset");
}
AMP_WEAK_ALIAS(T_pvar_readreset)
