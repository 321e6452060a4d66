/*
 * AMPI's migration and load-balancing extensions (ampi.h): AMPI_Migrate,
 * AMPI_Migrate_to_pe, the migration callbacks and the load measurement.
 * The moves themselves are lb/'s (lb/lb.h); this file checks the calls,
 * measures each rank's load and keeps its callbacks.
 */
#include "rank/checkpoint.h"
#include "rank/ckpt_dir.h"
#include "mpi/impl.h"
#include "rank/move.h"
#include "rank/period.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* Whether the job has several processes: then the processes agree on the
 * moves, and ranks may change process (move.h). */
static int several_processes(void)
{
    return amp_proc.world.nprocs > 1 || amp_proc.boot.nprocs > 1;
}

/* The rank's load since its last AMPI_Migrate, in seconds, or the value
 * AMPI_Load_set_value gave. */
static double rank_load(const amp_rank_t *rank)
{
    const amp_lb_rank_t *rl = &rank->lb;
    if (rl->has_value)
        return rl->value;
    uint64_t ticks = rl->acc;
    if (!rl->stopped)
        ticks += amp_sched_self_busy() - rl->mark;
    return (double)ticks / amp_lb_cycles_per_second(&amp_proc.lb);
}

void amp_migrate_load_restart(amp_rank_t *rank)
{
    rank->lb.since = amp_sched_cycles();
    rank->lb.mark = amp_sched_self_busy();
    rank->lb.acc = 0;
}

static void load_reset(amp_rank_t *rank)
{
    amp_migrate_load_restart(rank);
    rank->lb.has_value = 0;
    memset(&rank->lb.sends, 0, sizeof(rank->lb.sends));
}

/* A nonblocking collective still running would be advanced on the rank's
 * old PE (coll/nbc.h), and a file operation completes there (io/io.h):
 * refuse to move with one.  Pending point-to-point requests move with the
 * rank. */
static int pending_coll(amp_rank_t *rank)
{
    amp_table_t *t = &rank->reqs;
    for (int i = t->first; i < amp_table_capacity(t); i++) {
        amp_req_t *r = amp_table_lookup(t, i);
        if (!r || !r->active || r->p2p.done || r->kind == AMP_REQ_SEND ||
            r->kind == AMP_REQ_RECV || r->kind == AMP_REQ_DONE)
            continue;
        return i;
    }
    return -1;
}

static int check_no_pending_coll(amp_rank_t *rank, const char *call)
{
    int i = pending_coll(rank);
    if (i >= 0) {
        amp_req_t *r = amp_table_lookup(&rank->reqs, i);
        return amp_mpi_error(
            rank, NULL, MPI_ERR_REQUEST, call,
            "a nonblocking %s (request %#x) is still "
            "pending; complete it before %s",
            r->kind == AMP_REQ_IO ? "file operation" : "collective",
            (unsigned)AMPI_HANDLE(AMPI_HANDLE_REQUEST, i), call);
    }
    return MPI_SUCCESS;
}

/* Device transfers whose end completes a request of the rank are handled
 * by its PE (gpu/gpu.h, p2p/dev.c): let them finish first (they need no
 * rank to progress; the PE polls them while other ranks run).  A sender
 * whose data a copy on the receiver's PE reads may move meanwhile: its
 * buffer stays at its address, and the end of the copy reaches it on the
 * PE it runs on then (p2p.c, finish_rndv). */
static void wait_device_idle(amp_rank_t *rank)
{
    while (rank->ep.dev_busy > 0) {
        amp_sched_yield();
        rank = amp_rank_self();
    }
}

/* The PE a rank lodged on by AMPI_Migrate_to_pe, or -1. */
static int lodged_pe(const amp_rank_t *rank)
{
    const amp_pe_t *lodge = rank->thr.lodge;
    return lodge ? lodge->id : -1;
}

/* The collective step of AMPI_Migrate, the periodic steps and the
 * checkpoints: every rank of the process, asking for PE want (-1: the
 * balancer's choice; with no balancer, a barrier).  A rank lodged on a PE
 * by AMPI_Migrate_to_pe asks for that PE, unless it must stay, and its
 * home moves there: its migration callbacks ran when it went there. */
static int lb_step(amp_rank_t *rank, int want, const char *call)
{
    int barrier = want < 0 && amp_proc.lb.kind == AMP_LB_NONE;
    int lodged = want != AMP_LB_STAY && !barrier ? lodged_pe(rank) : -1;
    if (lodged >= 0)
        want = lodged;
    int rc =
        want == AMP_LB_STAY ? MPI_SUCCESS : check_no_pending_coll(rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    wait_device_idle(rank);
    rank = amp_rank_self();
    /* A rank with kernel threads bound to it stays on its PE: their calls
     * are handed to it there (threads.h). */
    if (want == -1 && atomic_load(&rank->mt_threads) > 0)
        want = AMP_LB_STAY;
    const char *saved = rank->call;
    rank->call = call;
    amp_lb_callback_fn_t about = rank->lb.about_to_migrate,
                         just = rank->lb.just_migrated;
    if (lodged >= 0) /* no second call of its callbacks */
        rank->lb.about_to_migrate = rank->lb.just_migrated = NULL;
    double load = rank_load(rank), plan = load;
    double len = (double)(amp_sched_cycles() - rank->lb.since);
    if (amp_proc.opts.lbpredict && !rank->lb.has_value)
        plan = amp_lb_predict(rank->lb.prev, rank->lb.prev_len, load, len);
    static const amp_lb_hooks_t one = {.remap = amp_move_remap};
    if (barrier) {
        rc = PMPI_Barrier(MPI_COMM_WORLD);
    } else if (several_processes()) {
        /* Ranks may change process (move.h). */
        amp_move_rank_ready(rank);
        int how = amp_lb_exchange(&amp_proc.lb, rank->world_rank, plan, want,
                                  &rank->lb, &amp_move_hooks);
        amp_move_rank_done(amp_rank_self(), how);
    } else {
        amp_lb_exchange(&amp_proc.lb, rank->world_rank, plan, want, &rank->lb,
                        &one);
    }
    rank = amp_rank_self();
    if (lodged >= 0) {
        rank->lb.about_to_migrate = about;
        rank->lb.just_migrated = just;
    }
    rank->call = saved;
    rank->lb.prev = load;
    rank->lb.prev_len = len;
    load_reset(rank);
    return rc;
}

void amp_migrate_periodic(void)
{
    amp_rank_t *rank = amp_rank_self();
    /* From a helper running a call of one of its kernel threads: it has
     * threads bound to its PE, and stays. */
    int want = pending_coll(rank) >= 0 || amp_pe_self()->current != &rank->thr
                   ? AMP_LB_STAY
                   : -1;
    /* Its only error (the barrier's, with no balancer) went through
     * MPI_COMM_WORLD's handler already. */
    (void)lb_step(rank, want, "+lbperiod");
}

void amp_checkpoint_periodic(void)
{
    static const char call[] = "+ckptperiod";
    amp_rank_t *rank = amp_rank_self();
    amp_sys_alloc_enter();
    int aslr_off = amp_ckpt_aslr_off();
    amp_sys_alloc_leave();
    if (!aslr_off) {
        (void)amp_mpi_error(rank, NULL, MPI_ERR_OTHER, call,
                            "address-space randomization is on "
                            "(AMPI_NO_REEXEC set?), so a checkpoint could "
                            "not be restarted; unset AMPI_NO_REEXEC");
        return;
    }
    /* Without +ckptdir, in memory (docs/checkpoint.md). */
    char dir[PATH_MAX];
    int in_memory = !amp_proc.opts.ckptdir;
    if (!in_memory)
        snprintf(dir, sizeof(dir), "%s", amp_proc.opts.ckptdir);
    else {
        amp_ckpt_dir_memory(dir, sizeof(dir));
        atomic_store(&amp_proc.ckpt_in_memory, 1);
    }
    /* The ranks of the process meet first, which leaves it quiet. */
    if (lb_step(rank, amp_pe_self()->id, call) == MPI_SUCCESS)
        (void)amp_ckpt_write(amp_rank_self(), dir, in_memory, call);
}

/* The value of key in info (MPI_INFO_NULL: none) into value; 1 if set. */
static int info_value(MPI_Info info, const char *key, char *value, int len)
{
    int flag = 0;
    if (info == MPI_INFO_NULL ||
        PMPI_Info_get(info, key, len - 1, value, &flag) != MPI_SUCCESS)
        return 0;
    return flag;
}

/* "ampi_checkpoint" = value (docs/checkpoint.md): "to_file=DIR" writes
 * the ranks' state into DIR, "in_memory" into the node's memory (a
 * directory of /dev/shm: ckpt_dir.h), after the balancer ran if info asks
 * for it too.  The ranks of the process first meet in lb/ (with no move unless
 * balancing), which leaves the process quiet: what was sent before is in
 * the receivers' queues. */
static int checkpoint(amp_rank_t *rank, MPI_Info info, char *value,
                      const char *call)
{
    static const char to_file[] = "to_file=";
    char dir[PATH_MAX];
    int in_memory = strcmp(value, "in_memory") == 0;
    if (in_memory) {
        amp_ckpt_dir_memory(dir, sizeof(dir));
        atomic_store(&amp_proc.ckpt_in_memory, 1);
    } else if (strncmp(value, to_file, strlen(to_file)) == 0 &&
               value[strlen(to_file)])
        snprintf(dir, sizeof(dir), "%s", value + strlen(to_file));
    else
        return amp_mpi_error(rank, NULL, MPI_ERR_INFO_VALUE, call,
                             "\"ampi_checkpoint\" = \"%s\": use "
                             "\"to_file=DIR\" or \"in_memory\" (argument "
                             "info)",
                             value);
    amp_sys_alloc_enter();
    int aslr_off = amp_ckpt_aslr_off();
    amp_sys_alloc_leave();
    if (!aslr_off)
        return amp_mpi_error(rank, NULL, MPI_ERR_OTHER, call,
                             "address-space randomization is on "
                             "(AMPI_NO_REEXEC set?), so a "
                             "checkpoint could not be restarted; unset "
                             "AMPI_NO_REEXEC");
    char lb[16];
    int balance = info_value(info, "ampi_load_balance", lb, sizeof(lb)) &&
                  strcmp(lb, "false") != 0 && amp_proc.lb.kind != AMP_LB_NONE;
    int rc = lb_step(rank, balance ? -1 : amp_pe_self()->id, call);
    if (rc != MPI_SUCCESS)
        return rc;
    return amp_ckpt_write(amp_rank_self(), dir, in_memory, call);
}

/* The checkpoint info asks for, if it does (*asked).  Out of line: its
 * buffers (a value and a directory, 5 KB) take a rank's stack only when it
 * checkpoints; in AMPI_Migrate's frame they made each of a million ranks
 * touch another page of its stack at every balancing step. */
static __attribute__((noinline)) int checkpoint_if_asked(amp_rank_t *rank,
                                                         MPI_Info info,
                                                         const char *call,
                                                         int *asked)
{
    char value[MPI_MAX_INFO_VAL];
    *asked = info_value(info, "ampi_checkpoint", value, sizeof(value));
    return *asked ? checkpoint(rank, info, value, call) : MPI_SUCCESS;
}

int AMPI_Migrate(MPI_Info info)
{
    static const char call[] = "AMPI_Migrate";
    amp_rank_t *rank;
    amp_sched_go_home();
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The read-only AMPI_INFO_LB_SYNC and _ASYNC ask for a step alone:
     * no lookup, whose buffers took each of a million ranks a page further
     * down its stack. */
    if (info == AMPI_INFO_LB_SYNC || info == AMPI_INFO_LB_ASYNC)
        return lb_step(rank, -1, call);
    rc = amp_check_info(rank, NULL, info, call);
    if (rc != MPI_SUCCESS)
        return rc;
    int asked = 0;
    rc = checkpoint_if_asked(rank, info, call, &asked);
    if (asked)
        return rc;
    char value[32]; /* "sync", "async", "false"; more is an error */
    if (!info_value(info, "ampi_load_balance", value, sizeof(value)) ||
        strcmp(value, "false") == 0)
        return PMPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(value, "sync") != 0 && strcmp(value, "async") != 0)
        return amp_mpi_error(rank, NULL, MPI_ERR_INFO_VALUE, call,
                             "\"ampi_load_balance\" = \"%s\": use \"sync\", "
                             "\"async\" or \"false\" (argument info)",
                             value);
    return lb_step(rank, -1, call);
}

/* Charm++'s AMPI_Migrate_to_pe: the calling rank alone goes to PE pe of
 * its process (-1: stays where it runs).  It runs there at once, between
 * its calls, as a guest: its home PE, where its messages are matched,
 * still carries out its MPI calls until the next step where the ranks of
 * the process meet (AMPI_Migrate, +lbperiod, a checkpoint) makes pe its
 * home (lb_step; sched.h, "Lodging"). */
int AMPI_Migrate_to_pe(int pe)
{
    static const char call[] = "AMPI_Migrate_to_pe";
    amp_rank_t *rank;
    amp_sched_go_home();
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    int npes = amp_proc.sched.npes;
    if (pe < -1 || pe >= npes)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "PE %d does not exist: this process has %d PEs "
                             "(0 .. %d, or -1 to stay) (argument pe)",
                             pe, npes, npes - 1);
    if (pe < 0)
        return MPI_SUCCESS;
    rank->placed = 1; /* +pinmap: never lent from now on */
    amp_pe_t *to = amp_proc.sched.pes[pe];
    if (to == amp_sched_where(&rank->thr))
        return MPI_SUCCESS;
    amp_lb_callback_fn_t just = rank->lb.just_migrated;
    if (rank->lb.about_to_migrate)
        rank->lb.about_to_migrate();
    amp_sched_lodge(to);
    if (just)
        just();
    return MPI_SUCCESS;
}

int AMPI_Register_about_to_migrate(void (*fn)(void))
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "AMPI_Register_about_to_migrate");
    if (rc == MPI_SUCCESS)
        rank->lb.about_to_migrate = fn;
    return rc;
}

int AMPI_Register_just_migrated(void (*fn)(void))
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "AMPI_Register_just_migrated");
    if (rc == MPI_SUCCESS)
        rank->lb.just_migrated = fn;
    return rc;
}

int AMPI_Load_set_value(double value)
{
    static const char call[] = "AMPI_Load_set_value";
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!(value >= 0))
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "a load must be a number >= 0, got %g "
                             "(argument value)",
                             value);
    rank->lb.value = value;
    rank->lb.has_value = 1;
    return MPI_SUCCESS;
}

int AMPI_Load_start_measure(void)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "AMPI_Load_start_measure");
    if (rc != MPI_SUCCESS || !rank->lb.stopped)
        return rc;
    rank->lb.stopped = 0;
    rank->lb.mark = amp_sched_self_busy();
    return MPI_SUCCESS;
}

int AMPI_Load_stop_measure(void)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "AMPI_Load_stop_measure");
    if (rc != MPI_SUCCESS || rank->lb.stopped)
        return rc;
    rank->lb.acc += amp_sched_self_busy() - rank->lb.mark;
    rank->lb.stopped = 1;
    return MPI_SUCCESS;
}

/* ---- the Fortran binding of these calls ---- */

/* ampi_migrate_ and the others: how flang and gfortran name AMPI_MIGRATE
 * and the rest.  The C calls have no PMPI_ names, so neither do these.
 * Info handles are the C handles (mpif.h has AMPI_INFO_LB_SYNC ...).  A
 * callback is a Fortran SUBROUTINE without arguments, passed as EXTERNAL: the C
 * side gets its address and calls it as a void (*)(void). */
AMPI_API void ampi_migrate_(const MPI_Fint *info, MPI_Fint *ierror)
{
    *ierror = AMPI_Migrate(*info);
}

AMPI_API void ampi_migrate_to_pe_(const MPI_Fint *pe, MPI_Fint *ierror)
{
    *ierror = AMPI_Migrate_to_pe(*pe);
}

AMPI_API void ampi_register_about_to_migrate_(void (*fn)(void),
                                              MPI_Fint *ierror)
{
    *ierror = AMPI_Register_about_to_migrate(fn);
}

AMPI_API void ampi_register_just_migrated_(void (*fn)(void), MPI_Fint *ierror)
{
    *ierror = AMPI_Register_just_migrated(fn);
}

/* VALUE is DOUBLE PRECISION. */
AMPI_API void ampi_load_set_value_(const double *value, MPI_Fint *ierror)
{
    *ierror = AMPI_Load_set_value(*value);
}

AMPI_API void ampi_load_start_measure_(MPI_Fint *ierror)
{
    *ierror = AMPI_Load_start_measure();
}

AMPI_API void ampi_load_stop_measure_(MPI_Fint *ierror)
{
    *ierror = AMPI_Load_stop_measure();
}
