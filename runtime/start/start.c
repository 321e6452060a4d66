#define _GNU_SOURCE 1
#include "start/start.h"

#include "coll/nbc.h"
#include "rank/checkpoint.h"
#include "rank/period.h"
#include "rank/slot.h"
#include "mem/heap.h"
#include "gpu/gpu.h"
#include "rma/rma.h"

#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Bytes of the copy of argc, argv that copy_argv makes. */
static size_t argv_bytes(int argc, char **argv)
{
    size_t bytes = (size_t)(argc + 1) * sizeof(char *);
    for (int i = 0; i < argc; i++)
        bytes += strlen(argv[i]) + 1;
    return AMP_ROUND_UP(bytes, 16);
}

/* A command line up to this many bytes is copied on the rank's stack, in
 * the frame of its entry (below); a longer one in its heap. */
#define AMP_ARGV_ON_STACK 512
/* From this many ranks in a process, their first pages are touched by all
 * its PEs' cores before they are created (amp_slot_create_ahead): a
 * thread a PE costs less than the pages it touches. */
#define AMP_START_AHEAD_MIN 1024

/* Each rank gets its own argv (pointers and strings), as a process would,
 * into space (or, NULL, its heap): in its slot, it moves with the rank and
 * is saved in a checkpoint.  On the stack a rank that allocates nothing
 * never makes its heap (mpi/proc.h, amp_rank_heap). */
static char **copy_argv(amp_rank_t *rank, int argc, char **argv, void *space)
{
    char **copy =
        space ? space
              : amp_heap_alloc(amp_rank_heap(rank), argv_bytes(argc, argv), 16);
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

/* The program's main may take three parameters, two or none: it is called
 * as the C library calls it, which the function check of Clang's
 * UndefinedBehaviorSanitizer would report. */
#if defined(__clang__)
__attribute__((no_sanitize("function")))
#endif
static void
rank_entry(void *arg)
{
    amp_rank_t *rank = arg;
    size_t bytes = argv_bytes(amp_proc.argc, amp_proc.argv);
    _Alignas(16) char space[bytes <= AMP_ARGV_ON_STACK ? bytes : 16];
    rank->argv = copy_argv(rank, amp_proc.argc, amp_proc.argv,
                           bytes <= AMP_ARGV_ON_STACK ? space : NULL);
    amp_main_fn_t main_fn = amp_proc.main_fn;
    if (amp_proc.opts.gather)
        main_fn = amp_ckpt_gather_main;
    else if (amp_proc.pie.active)
        main_fn = amp_start_pie_rank_enter(rank);
    amp_rank_run_inits();
    amp_start_rank_exit(main_fn(amp_proc.argc, rank->argv, amp_proc.envp));
}

static void create_rank(int r, int pe_id)
{
    amp_pe_t *pe = amp_proc.sched.pes[pe_id];
    if (amp_proc.restart) { /* +restart: from its file (restart.c) */
        amp_restart_rank(r, pe, amp_start_pie_map);
        return;
    }
    amp_rank_t *rank = amp_slot_create(r, pe, amp_start_pie_map, rank_entry);
    amp_sched_spawn(&rank->thr);
}

static void *pe_main(void *arg)
{
    amp_pe_t *pe = arg;
    if (amp_proc.opts.pin &&
        amp_topo_pin_self(&amp_proc.topo, amp_proc.pin_base + pe->id) != AMP_OK)
        amp_log_error("PE %d: cannot bind its thread to a core; it runs "
                      "unbound (+nopin or AMPI_PIN=0 binds none)",
                      pe->id);
    amp_signals_thread_init();
    if (amp_proc.gpu)
        amp_gpu_pe_enter(amp_proc.gpu, pe);
    amp_sched_run(pe);
    return NULL;
}

/* This process's share of the job's +vp ranks: a block of consecutive
 * world ranks from floor(index * vp / nprocs), so that the counts differ
 * by at most one. */
static void share_ranks(const amp_boot_t *boot, int vp, int *first, int *nlocal)
{
    long long p = boot->index, n = boot->nprocs;
    *first = (int)(p * vp / n);
    *nlocal = (int)((p + 1) * vp / n) - *first;
}

/* This process's index among the job's processes that share its cores,
 * and their count: those of its node (PMIx), or, once the processes have
 * met (amp_p2p_net_init), every one on its kernel, host names aside: the
 * "nodes" of one machine (containers, network namespaces) each count only
 * their own processes, and each of them would otherwise pin its PEs from
 * the machine's first core on, where they take turns with the others'. */
static int core_sharers(int *index)
{
    const amp_boot_t *b = &amp_proc.boot;
    const amp_p2p_world_t *w = &amp_proc.world;
    if (w->nprocs > 1 && w->machine_size > b->local_size) {
        *index = w->machine_index;
        return w->machine_size;
    }
    *index = b->local_index;
    return b->local_size > 1 ? b->local_size : 1;
}

/* Processes of one machine that were all left free to use every core of
 * it (mpirun --bind-to none, as ampirun starts them) share the cores out:
 * process k pins from core slot k * share on, and +p defaults to its
 * share (of its node's: the others are known only after +p is chosen). */
static int core_share(void)
{
    const amp_topo_t *t = &amp_proc.topo;
    int index, sharers = core_sharers(&index);
    if (sharers < 2 || t->ncores != t->machine_cores)
        return t->ncores;
    int share = t->ncores / sharers;
    share = share > 0 ? share : 1;
    amp_proc.pin_base = index * share;
    return share;
}

static int choose_npes(const amp_opts_t *o, int nlocal)
{
    int share = core_share();
    int n = o->p ? o->p : share;
    return n > nlocal ? nlocal : n;
}

/* The scheduler's hooks also run on a blocked rank's stack (it polls and
 * sleeps before it switches away): what UCX, the GPU library or the C
 * library allocate meanwhile is the runtime's, not the rank's, so the rank's
 * allocations go to the C library until the hook returns
 * (mem/sys_alloc.h). */

/* amp_sys_alloc_enter and leave for hooks that run on pe itself. */
static amp_rank_t *enter_on(amp_pe_t *pe)
{
    amp_rank_t *rank = pe->current ? (amp_rank_t *)pe->current->owner : NULL;
    if (rank)
        rank->sys_alloc++;
    return rank;
}

static void leave_on(amp_rank_t *rank)
{
    if (rank)
        rank->sys_alloc--;
}

/* The poll hook: p2p's channels, then the collective schedules ready on
 * the PE (coll/nbc.h). */
static AMP_POLL_PATH void poll_hook(amp_pe_t *pe)
{
    amp_rank_t *rank = enter_on(pe);
    amp_p2p_poll(pe);
    amp_nbc_poll(amp_proc.nbc_pes, pe);
    if (amp_proc.gpu) /* GPU operations' events (gpu/gpu.h) */
        amp_gpu_poll(amp_proc.gpu, pe);
    amp_io_poll(amp_proc.io, pe); /* file I/O done by helpers (io/io.h) */
    leave_on(rank);
}

static void item_hook(amp_pe_t *pe, amp_inbox_item_t *item)
{
    amp_rank_t *rank = enter_on(pe);
    amp_p2p_handle_item(pe, item);
    leave_on(rank);
}

/* The idle loop's look, many times a microsecond: only the GPU's query
 * may allocate (UCX's progress, in amp_p2p_pending, marks itself).  pe
 * may be another PE: the caller's rank is marked. */
static int gpu_pending(amp_pe_t *pe)
{
    amp_sys_alloc_enter();
    int pending = amp_gpu_pending(amp_proc.gpu, pe);
    amp_sys_alloc_leave();
    return pending;
}

static AMP_POLL_PATH int pending_hook(amp_pe_t *pe)
{
    return amp_p2p_pending(pe) || amp_nbc_pending(amp_proc.nbc_pes, pe) ||
           amp_io_pending(amp_proc.io, pe) ||
           (amp_proc.gpu && gpu_pending(pe));
}

static void sleep_hook(amp_pe_t *pe, long ns)
{
    amp_sys_alloc_enter();
    amp_p2p_net_sleep(pe, ns);
    amp_sys_alloc_leave();
}

static void wake_hook(amp_pe_t *pe)
{
    amp_sys_alloc_enter();
    amp_p2p_net_wake(pe);
    amp_sys_alloc_leave();
}

static void setup_memory(void)
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
        .slot_size = o->isomalloc_slot,
        .guard = o->isomalloc_guard,
    };
    /* A slot for every rank of the job, the same in every process. */
    amp_status_t status = amp_mem_init(&amp_proc.mem, o->vp, &layout);
    if (status == AMP_ERR_ARG)
        amp_fatal("+isomalloc_slot: %zu bytes do not hold a rank's heap%s; "
                  "use at least %zu",
                  o->isomalloc_slot,
                  layout.image_size ? " and its copy of the program" : "",
                  amp_mem_min_slot_size(&layout));
    if (status != AMP_OK)
        amp_fatal("cannot reserve %zu-byte isomalloc slots for %d ranks; "
                  "lower +vp, +stacksize or +isomalloc_slot",
                  amp_proc.mem.slot_size, o->vp);
    if (amp_proc.restart)
        amp_restart_check_layout();
}

/* Whether the rank's own thread may run as a guest of another PE now
 * (sched.h, "Lending"): not while kernel threads of the rank are bound to
 * its PE (their calls run there, by helpers, and its mutexes yield to
 * them), not with CUDA devices (a kernel thread's current device is its
 * PE's), not outside MPI_Init..MPI_Finalize, and not where +pinmap keeps
 * the placement the program chose. */
static int may_lend_hook(amp_thread_t *thr)
{
    amp_rank_t *rank = thr->owner;
    const amp_opts_t *o = &amp_proc.opts;
    if (!rank || &rank->thr != thr || rank->state != AMP_MPI_ACTIVE ||
        amp_proc.gpu)
        return 0;
    if (o->pinmap && (o->mapped || rank->placed))
        return 0;
    return !atomic_load_explicit(&rank->mt_threads, memory_order_relaxed) &&
           !atomic_load_explicit(&rank->mt_calls, memory_order_relaxed);
}

static void setup_pes(int npes)
{
    amp_opts_t *o = &amp_proc.opts;
    int multi = amp_proc.boot.nprocs > 1;
    /* Across processes, an idle PE sleeps on its UCX worker, and a deadlock
     * is no longer this process's alone to see. */
    amp_sched_hooks_t hooks = {
        .on_item = item_hook,
        .on_poll = poll_hook,
        .pending = pending_hook,
        .on_deadlock = multi ? NULL : amp_report_deadlock,
        .on_quiet = multi ? amp_detect_quiet : NULL,
        .on_sleep = multi ? sleep_hook : NULL,
        .on_wake = multi ? wake_hook : NULL,
        .may_lend = may_lend_hook,
    };
    if (amp_sched_init(&amp_proc.sched, npes, &hooks) != AMP_OK)
        amp_fatal("out of memory starting %d PEs", npes);
    amp_proc.sched.poll_deadlock_ns =
        o->poll_deadlock_ns ? o->poll_deadlock_ns : 10000000000L;
    for (int i = 0; i < npes; i++)
        if (amp_p2p_pe_init(amp_proc.sched.pes[i], o->eager, &amp_proc.world) !=
            AMP_OK)
            amp_fatal("out of memory starting PE %d", i);
    amp_proc.nbc_pes = amp_nbc_pes_create(npes);
    if (!amp_proc.nbc_pes || amp_mt_init(npes) != AMP_OK)
        amp_fatal("out of memory starting %d PEs", npes);
    /* CUDA when there is a driver and a device; host-only otherwise.  The
     * processes of a node take their devices in turn (+gpumap rr). */
    if (amp_gpu_create(npes, amp_proc.boot.local_index * npes, o->gpumap,
                       &amp_proc.gpu) != AMP_OK)
        amp_fatal("cannot use the CUDA devices as +gpumap says; "
                  "+gpumap none runs host-only");
    amp_proc.world.gpu = amp_proc.gpu;
    /* File I/O's helper threads: two, or one per PE up to eight. */
    int nio = o->iothreads ? o->iothreads : npes < 2 ? 2 : npes > 8 ? 8 : npes;
    if (amp_io_create(&amp_proc.sched, nio, &amp_proc.io) != AMP_OK)
        amp_fatal("cannot start %d helper threads for file I/O; lower "
                  "+iothreads",
                  nio);
}

/* Where the ranks run: this process's on its PEs (local_pe), every rank's
 * process and PE in amp_proc.world (exchanged with the other processes). */
static void place_ranks(int npes, int first, int nlocal, int *local_pe)
{
    amp_opts_t local = amp_proc.opts;
    local.vp = nlocal;
    amp_opts_map(&local, npes, local_pe);
    amp_p2p_world_t *w = &amp_proc.world;
    w->nranks = amp_proc.opts.vp;
    w->eager_limit = amp_proc.opts.eager;
    w->nprocs = 1;
    w->node_shm = amp_proc.opts.node_shm;
    w->node_membarrier = amp_proc.opts.node_membarrier;
    w->node_split = amp_proc.opts.node_split;
    w->net_eager = amp_proc.opts.net_eager;
    if (amp_proc.boot.nprocs == 1) {
        if (amp_node_init_alone(&w->node) != AMP_OK)
            amp_fatal("out of memory starting");
        amp_proc.rank_pe = local_pe;
        return;
    }
    if (amp_p2p_net_init(w, &amp_proc.sched, &amp_proc.boot, first, nlocal,
                         local_pe) != AMP_OK)
        amp_fatal("cannot connect the %d processes of the job through UCX",
                  amp_proc.boot.nprocs);
    amp_rma_remote_init(w);
    amp_io_remote_init(w);
    amp_detect_init();
    amp_proc.rank_pe = w->rank_pe;
}

/* Whether this process's PEs outnumber the cores it may use, or the PEs
 * of the job's processes on this node its hardware threads (every process
 * runs npes, as ampirun starts them). */
static int crowded(int npes)
{
    const amp_topo_t *t = &amp_proc.topo;
    int index, local = core_sharers(&index);
    int pus = t->machine_pus > 0 ? t->machine_pus : t->ncores;
    return npes > t->ncores || (long)local * npes > pus;
}

/* Where the PEs pin (pin_base) and whether they yield when idle, among the
 * processes known to share this one's cores (core_sharers). */
static void share_cores(int npes)
{
    const amp_opts_t *o = &amp_proc.opts;
    core_share();
    amp_sched_set_crowded(&amp_proc.sched,
                          o->yield_idle < 0 ? crowded(npes) : o->yield_idle);
}

static void setup(int npes, int first, int nlocal, int *local_pe)
{
    amp_opts_t *o = &amp_proc.opts;
    setup_memory();
    setup_pes(npes);
    share_cores(npes);
    /* On as the ranks arrive, once they outnumber the PEs (rank/slot.c). */
    amp_sched_set_steal(&amp_proc.sched, 0, o->steal_idle_ns);
    if (o->trace) {
        if (amp_trace_init(&amp_proc.trace, o->trace, amp_proc.boot.index,
                           amp_proc.boot.nprocs, o->vp, npes) != AMP_OK)
            amp_fatal("+trace (AMPI_TRACE) %s: cannot write a trace there "
                      "(the line above says why)",
                      o->trace);
        amp_sched_set_traced(&amp_proc.sched, &amp_proc.trace);
    }
    amp_proc.nranks = o->vp;
    amp_proc.ranks = calloc((size_t)o->vp, sizeof(*amp_proc.ranks));
    if (!amp_proc.ranks ||
        amp_p2p_world_eps_init(&amp_proc.world, o->vp) != AMP_OK)
        amp_fatal("out of memory for %d ranks", o->vp);
    place_ranks(npes, first, nlocal, local_pe);
    /* The PEs start after this: pinned among every process of this kernel. */
    share_cores(npes);
    amp_p2p_world_t *w = &amp_proc.world;
    if (amp_lb_init(&amp_proc.lb, &amp_proc.sched, o->vp, w->proc,
                    amp_proc.rank_pe,
                    w->nprocs > 1 ? w->rank_proc : NULL) != AMP_OK)
        amp_fatal("out of memory for %d ranks", nlocal);
    amp_proc.lb.kind = o->balancer;
    amp_proc.lb.debug = o->lbdebug;
    amp_proc.lb.min_gain = o->lbmingain;
    amp_proc.lb.comm = amp_lb_kind_uses_sends(o->balancer);
    amp_period_init();
    if (w->nprocs > 1)
        amp_move_init(amp_start_pie_map);
    /* Many ranks: their first pages touched by every PE's core at once,
     * before they are created here one by one (with one PE, at least their
     * tables' pages are backed in one call, not a fault each). */
    if (nlocal >= AMP_START_AHEAD_MIN && !amp_proc.restart)
        amp_slot_create_ahead(first, first + nlocal, npes);
    for (int i = 0; i < nlocal; i++)
        create_rank(first + i, local_pe[i]);
}

/* exit() in a rank ends the process without returning through
 * amp_start_main: leave the PMIx job properly there too, or the launcher
 * reports an abnormal termination (mpirun: "exiting improperly"). */
static void boot_cleanup_at_exit(void)
{
    amp_boot_cleanup(&amp_proc.boot);
}

/* Resolves +vp against the job, places this process's ranks and creates
 * them; reports the placement when asked to. */
static void start_ranks(void)
{
    amp_opts_t *o = &amp_proc.opts;
    amp_boot_t *boot = &amp_proc.boot;
    if (o->vp == 0)
        o->vp = boot->nprocs; /* one rank per process */
    if (o->vp < boot->nprocs)
        amp_fatal("+vp %d: the job has %d processes, and each needs at "
                  "least one rank",
                  o->vp, boot->nprocs);
    int first, nlocal;
    share_ranks(boot, o->vp, &first, &nlocal);
    int npes = choose_npes(o, nlocal);
    int *local_pe = calloc((size_t)nlocal, sizeof(int));
    if (!local_pe)
        amp_fatal("out of memory for %d ranks", nlocal);
    setup(npes, first, nlocal, local_pe);
    char host[64] = "";
    gethostname(host, sizeof(host) - 1);
    amp_placement_t where = {.proc = boot->index,
                             .nprocs = boot->nprocs,
                             .host = host,
                             .first = first,
                             .nlocal = nlocal,
                             .local_pe = local_pe,
                             .pin_base = amp_proc.pin_base,
                             .cores = core_share(),
                             .crowded = amp_proc.sched.crowded};
    amp_opts_report_placement(o, &amp_proc.topo, npes, &where);
    if (amp_proc.rank_pe != local_pe)
        free(local_pe);
}

/* The executable's loaded range (the first object dl_iterate_phdr reports):
 * exit handlers registered with its dso handle are its ranks' (exit.c). */
static int program_range(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        uintptr_t hi = lo + ph->p_memsz;
        if (!amp_proc.exe_hi || lo < amp_proc.exe_lo)
            amp_proc.exe_lo = lo;
        if (hi > amp_proc.exe_hi)
            amp_proc.exe_hi = hi;
    }
    return 1;
}

/* +lbdebug: what each PE lent to idle PEs and ran for them (sched.h,
 * "Lending"), once the ranks are done. */
static void print_lending(void)
{
    const amp_sched_t *s = &amp_proc.sched;
    for (int i = 0; i < s->npes; i++)
        fprintf(stderr,
                "ampi: lb: process %d PE %d lent ranks %lu times, ran "
                "others' ranks %lu times\n",
                amp_proc.boot.index, i, s->pes[i]->lent_out, s->pes[i]->guests);
}

int amp_start_main(int argc, char **argv, char **envp, amp_main_fn_t main_fn)
{
    /* Without address-space randomization, so that a checkpoint can be
     * restarted (rank/checkpoint.h); returns when nothing is to be done. */
    amp_restart_reexec(argv, envp);
    amp_start_alloc_init();
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    amp_proc.wtime_base = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    amp_opts_parse(&amp_proc.opts, &argc, argv);
    if (amp_boot_init(&amp_proc.boot) != AMP_OK)
        amp_fatal("cannot join the job of the PMIx launcher that set "
                  "PMIX_NAMESPACE; unset it to run the program alone");
    if (amp_proc.boot.pmix && atexit(boot_cleanup_at_exit) != 0)
        amp_fatal("cannot register the PMIx cleanup at exit");
    /* MPI_Wtime counts from the node's boot in every process of a job, so
     * that the processes of a node agree (MPI_WTIME_IS_GLOBAL). */
    if (amp_proc.boot.nprocs > 1)
        amp_proc.wtime_base = 0;
    amp_proc.main_fn = main_fn;
    dl_iterate_phdr(program_range, NULL);
    amp_proc.argc = argc;
    amp_proc.argv = argv;
    amp_proc.envp = envp;
    if (amp_proc.opts.restart)
        amp_restart_prepare(&amp_proc.opts);
    if (amp_topo_init(&amp_proc.topo) != AMP_OK)
        amp_proc.opts.pin = 0; /* ncores is the affinity mask's count */
    start_ranks();
    amp_signals_install();
    amp_report_install_term();
    int npes = amp_proc.sched.npes;
    for (int i = 1; i < npes; i++)
        if (pthread_create(&amp_proc.sched.pes[i]->thread, NULL, pe_main,
                           amp_proc.sched.pes[i]) != 0)
            amp_fatal("cannot start the thread for PE %d", i);
    pe_main(amp_proc.sched.pes[0]);
    for (int i = 1; i < npes; i++)
        pthread_join(amp_proc.sched.pes[i]->thread, NULL);
    fflush(NULL);
    amp_gpu_destroy(amp_proc.gpu);
    amp_proc.gpu = NULL;
    amp_io_destroy(amp_proc.io);
    amp_proc.io = NULL;
    amp_detect_finish(&amp_proc.sched);
    amp_p2p_net_finish(&amp_proc.world, &amp_proc.sched, &amp_proc.boot);
    amp_detect_cleanup();
    amp_ckpt_job_end();
    /* Its own line says what went wrong; the program's status stands. */
    if (amp_proc.opts.trace) {
        amp_status_t traced = amp_trace_finish(&amp_proc.trace, &amp_proc.boot);
        (void)traced;
    }
    if (amp_proc.opts.stats)
        amp_start_stats_print();
    if (amp_proc.opts.lbdebug && amp_proc.sched.steal)
        print_lending();
    amp_boot_cleanup(&amp_proc.boot);
    return atomic_load(&amp_proc.exit_status);
}
