#include "start/start.h"

#include "coll/nbc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

amp_proc_t amp_proc;

/* Each rank gets its own argv (pointers and strings), as a process would. */
static char **copy_argv(int argc, char **argv)
{
    size_t bytes = (size_t)(argc + 1) * sizeof(char *);
    for (int i = 0; i < argc; i++)
        bytes += strlen(argv[i]) + 1;
    char **copy = malloc(bytes);
    if (!copy)
        amp_fatal("out of memory copying the command line");
    char *s = (char *)(copy + argc + 1);
    for (int i = 0; i < argc; i++) {
        size_t n = strlen(argv[i]) + 1;
        memcpy(s, argv[i], n);
        copy[i] = s;
        s += n;
    }
    copy[argc] = NULL;
    return copy;
}

_Noreturn void amp_start_rank_exit(int status)
{
    amp_rank_t *rank = amp_rank_self();
    if (!rank)
        amp_fatal("the program ended a thread that is not an MPI rank");
    amp_start_run_tls_dtors(rank);
    amp_start_pie_rank_exit(rank);
    free(rank->argv);
    rank->argv = NULL;
    if (status != 0) {
        int zero = 0;
        atomic_compare_exchange_strong(&amp_proc.exit_status, &zero, status);
    }
    amp_sched_exit();
}

static void rank_entry(void *arg)
{
    amp_rank_t *rank = arg;
    rank->argv = copy_argv(amp_proc.argc, amp_proc.argv);
    amp_main_fn_t main_fn = amp_proc.main_fn;
    if (amp_proc.pie.active)
        main_fn = amp_start_pie_rank_enter(rank);
    amp_start_run_rank_inits();
    amp_start_rank_exit(main_fn(amp_proc.argc, rank->argv, amp_proc.envp));
}

static void create_rank(int r)
{
    amp_mem_t *mem = &amp_proc.mem;
    if (amp_mem_slot_commit(mem, r) != AMP_OK)
        amp_fatal("cannot set up rank %d; try fewer ranks (+vp) or a "
                  "smaller +stacksize",
                  r);
    amp_rank_t *rank = amp_mem_slot_rank_area(mem, r);
    memset(rank, 0, sizeof(*rank));
    /* The rank's copy of the static TLS block follows its struct. */
    void *tls = amp_tls_copy_init(
        &amp_proc.tls, (char *)rank + AMP_ROUND_UP(sizeof(*rank), 64));
    rank->world_rank = r;
    rank->slot = r;
    amp_start_pie_rank_create(rank);
    if (amp_rank_objects_init(rank) != AMP_OK)
        amp_fatal("out of memory setting up rank %d", r);
    amp_pe_t *pe = amp_proc.sched.pes[amp_proc.rank_pe[r]];
    amp_sched_thread_init(&rank->thr, pe, amp_mem_slot_stack(mem, r),
                          mem->stack_size, tls, rank_entry, rank);
    amp_p2p_ep_init(&rank->ep, &amp_proc.world, r, &rank->thr);
    amp_proc.world.eps[r] = &rank->ep;
    amp_proc.ranks[r] = rank;
    amp_sched_spawn(&rank->thr);
}

static void *pe_main(void *arg)
{
    amp_pe_t *pe = arg;
    if (amp_proc.opts.pin)
        amp_topo_pin_self(&amp_proc.topo, pe->id);
    amp_signals_thread_init();
    amp_sched_run(pe);
    return NULL;
}

static int choose_npes(const amp_opts_t *o)
{
    int n = o->p;
    if (n == 0)
        n = amp_proc.topo.ncores;
    return n > o->vp ? o->vp : n;
}

/* The scheduler's poll and pending hooks: p2p's channels, then the
 * collective schedules ready on the PE (coll/nbc.h). */
static void poll_hook(amp_pe_t *pe)
{
    amp_p2p_poll(pe);
    amp_nbc_poll(amp_proc.nbc_pes, pe);
}

static int pending_hook(amp_pe_t *pe)
{
    return amp_p2p_pending(pe) || amp_nbc_pending(amp_proc.nbc_pes, pe);
}

static void setup(int npes)
{
    amp_opts_t *o = &amp_proc.opts;
    if (amp_tls_image_init(&amp_proc.tls) != AMP_OK)
        amp_fatal("cannot read the program's thread-local storage layout");
    amp_start_pie_setup();
    amp_mem_layout_t layout = {
        .stack_size = o->stacksize,
        .rank_area = AMP_ROUND_UP(sizeof(amp_rank_t), 64) +
                     amp_tls_copy_size(&amp_proc.tls),
        .image_size = amp_pie_copy_size(&amp_proc.pie),
        .image_align = amp_pie_copy_align(&amp_proc.pie),
    };
    if (amp_mem_init(&amp_proc.mem, o->vp, &layout) != AMP_OK)
        amp_fatal("cannot reserve memory for %d ranks with %zu-byte stacks; "
                  "lower +vp or +stacksize",
                  o->vp, o->stacksize);
    amp_sched_hooks_t hooks = {.on_item = amp_p2p_handle_item,
                               .on_poll = poll_hook,
                               .pending = pending_hook,
                               .on_deadlock = amp_report_deadlock};
    if (amp_sched_init(&amp_proc.sched, npes, &hooks) != AMP_OK)
        amp_fatal("out of memory starting %d PEs", npes);
    for (int i = 0; i < npes; i++)
        if (amp_p2p_pe_init(amp_proc.sched.pes[i], o->eager, &amp_proc.world) !=
            AMP_OK)
            amp_fatal("out of memory starting PE %d", i);
    pthread_mutex_init(&amp_proc.idup_ctxs.lock, NULL);
    amp_proc.nbc_pes = amp_nbc_pes_create(npes);
    if (!amp_proc.nbc_pes)
        amp_fatal("out of memory starting %d PEs", npes);
    amp_proc.nranks = o->vp;
    amp_proc.ranks = calloc((size_t)o->vp, sizeof(*amp_proc.ranks));
    amp_proc.world.eps = calloc((size_t)o->vp, sizeof(*amp_proc.world.eps));
    amp_proc.rank_pe = calloc((size_t)o->vp, sizeof(*amp_proc.rank_pe));
    if (!amp_proc.ranks || !amp_proc.world.eps || !amp_proc.rank_pe)
        amp_fatal("out of memory for %d ranks", o->vp);
    amp_opts_map(o, npes, amp_proc.rank_pe);
    amp_proc.world.nranks = o->vp;
    amp_proc.world.eager_limit = o->eager;
    for (int r = 0; r < o->vp; r++)
        create_rank(r);
}

/* exit() in a rank ends the process without returning through
 * amp_start_main: leave the PMIx job properly there too, or the launcher
 * reports an abnormal termination (mpirun: "exiting improperly"). */
static void boot_cleanup_at_exit(void)
{
    amp_boot_cleanup(&amp_proc.boot);
}

/* A launcher started several processes, but ranks cannot yet talk across
 * processes (no transport between them): refuse before any rank starts
 * rather than run one separate job per process.  Process 0 says so; the
 * fence keeps the others from exiting first, which would make the launcher
 * kill the job before the message is out. */
static _Noreturn void refuse_multi_process(amp_boot_t *boot)
{
    if (boot->index == 0)
        amp_log_error("this job has %d processes (started by a PMIx "
                      "launcher); running across processes needs the UCX "
                      "transport, which this version does not have yet: run "
                      "one process with +vp N +p P",
                      boot->nprocs);
    amp_boot_fence(boot);
    amp_boot_cleanup(boot);
    exit(1);
}

/* +stats: how often each rank was switched to, for tuning and tests. */
static void print_stats(void)
{
    for (int r = 0; r < amp_proc.nranks; r++) {
        amp_rank_t *rank = amp_proc.ranks[r];
        fprintf(stderr, "ampi: stats: rank %d on PE %d resumed %lu times\n", r,
                rank->thr.pe->id, rank->thr.resumes);
    }
}

int amp_start_main(int argc, char **argv, char **envp, amp_main_fn_t main_fn)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    amp_proc.wtime_base = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    amp_opts_parse(&amp_proc.opts, &argc, argv);
    if (amp_boot_init(&amp_proc.boot) != AMP_OK)
        amp_fatal("cannot join the job of the PMIx launcher that set "
                  "PMIX_NAMESPACE; unset it to run the program alone");
    if (amp_proc.boot.pmix && atexit(boot_cleanup_at_exit) != 0)
        amp_fatal("cannot register the PMIx cleanup at exit");
    if (amp_proc.boot.nprocs > 1)
        refuse_multi_process(&amp_proc.boot);
    amp_proc.main_fn = main_fn;
    amp_proc.argc = argc;
    amp_proc.argv = argv;
    amp_proc.envp = envp;
    if (amp_topo_init(&amp_proc.topo) != AMP_OK)
        amp_proc.opts.pin = 0; /* ncores is the affinity mask's count */
    int npes = choose_npes(&amp_proc.opts);
    setup(npes);
    amp_opts_report_placement(&amp_proc.opts, &amp_proc.topo, npes,
                              amp_proc.rank_pe);
    amp_signals_install();
    for (int i = 1; i < npes; i++)
        if (pthread_create(&amp_proc.sched.pes[i]->thread, NULL, pe_main,
                           amp_proc.sched.pes[i]) != 0)
            amp_fatal("cannot start the thread for PE %d", i);
    pe_main(amp_proc.sched.pes[0]);
    for (int i = 1; i < npes; i++)
        pthread_join(amp_proc.sched.pes[i]->thread, NULL);
    fflush(NULL);
    if (amp_proc.opts.stats)
        print_stats();
    amp_boot_cleanup(&amp_proc.boot);
    return atomic_load(&amp_proc.exit_status);
}
