/*
 * start: the runtime's entry.  The program's main is renamed at link time
 * (-Wl,--wrap=main); libampi_main.a's __wrap_main calls amp_start_main,
 * which reads the runtime options, starts the PEs and runs the real main
 * once per rank.
 */
#ifndef AMP_START_H
#define AMP_START_H

#include "mpi/proc.h"

__attribute__((visibility("default"))) int
amp_start_main(int argc, char **argv, char **envp, amp_main_fn_t main_fn);

/* Ends the calling rank as if its main had returned status: the job's
 * exit status is the first non-zero one.  Fortran's END and STOP end a rank
 * this way (fortran_main.c, in libampi_main.a). */
__attribute__((visibility("default"))) _Noreturn void
amp_start_rank_exit(int status);

/* The process's Fortran I/O lock (fortran_io.c): the beginning and the end
 * of every I/O statement of flang's runtime in a program ampif90 linked
 * (fortran_io.S, fortran_main.c, in libampi_main.a). */
__attribute__((visibility("default"))) void amp_fortran_io_lock(void);
__attribute__((visibility("default"))) void amp_fortran_io_unlock(void);
/* Whether the caller is inside a Fortran I/O statement. */
int amp_fortran_io_held(void);

/* Tells mem/sys_alloc.c how to find the calling rank (alloc.c), before the
 * PEs start. */
void amp_start_alloc_init(void);

/* +stats (stats.c): this process's table of PEs and each rank's switches,
 * on stderr, once the PEs have stopped. */
void amp_start_stats_print(void);

/* Reads the options from the environment, then from argv, and removes the
 * runtime's own "+" options from argv.  Exits with a one-line message on a
 * bad option. */
void amp_opts_parse(amp_opts_t *opts, int *argc, char **argv);
/* Places the ranks: rank_pe[r] = the PE of rank r, for opts->vp ranks on
 * npes PEs (in a job of several processes, opts->vp is this process's
 * share and r counts its ranks from 0).  Exits with a one-line message naming
 * the option when the mapping does not fit (a PE in +mapping list: beyond
 * npes). */
void amp_opts_map(const amp_opts_t *opts, int npes, int *rank_pe);
/* Before the ranks start, on stderr: a one-line warning when pinned PEs
 * outnumber the cores the process may use, and with +showmap the placement
 * (the process's cores, then per PE its core and its ranks). */
typedef struct amp_placement {
    int proc, nprocs;    /* this process of the job's */
    const char *host;    /* its host name */
    int first, nlocal;   /* its world ranks: first .. first + nlocal - 1 */
    const int *local_pe; /* the PE of each */
    int pin_base;        /* PE i is on the process's core slot base + i */
    int cores;           /* the cores its PEs may spread over */
    int crowded;         /* idle PEs yield their core (amp_sched_set_crowded) */
} amp_placement_t;
void amp_opts_report_placement(const amp_opts_t *opts, const amp_topo_t *topo,
                               int npes, const amp_placement_t *placement);

/* Prints which rank waits where, then ends the process. */
_Noreturn void amp_report_deadlock(amp_sched_t *sched);
/* The report's lines for the ranks of this process (no exit). */
void amp_report_blocked(void);
/* What each rank of this process is doing, as signal sig ends it (the
 * handler of SIGTERM and SIGINT; no exit). */
void amp_report_terminated(int sig);
/* Installs that handler (AMPI_TERM_REPORT), once at startup. */
void amp_report_install_term(void);
/* Once the process has reported its ranks (a deadlock): the SIGTERM that
 * ends the job's other processes ends it without a second report. */
void amp_report_no_term(void);

/* Deadlock detection across the processes of a job (detect.c): the state
 * and the handler of its control messages, once the transport is up; the
 * scheduler's on_quiet hook; after the PEs have stopped and before the
 * transport closes, the end of this process's part (process 0 goes on
 * until every other process has ended); then the state's release. */
void amp_detect_init(void);
void amp_detect_quiet(amp_sched_t *sched);
void amp_detect_finish(amp_sched_t *sched);
void amp_detect_cleanup(void);

/* Fatal-signal handling for PE threads: names the rank whose stack
 * overflowed into its guard page.  Call amp_signals_install once, and
 * amp_signals_thread_init on each PE thread. */
void amp_signals_install(void);
void amp_signals_thread_init(void);

/* pie privatization (image.c).  amp_start_pie_setup reads the program
 * image (no-op unless it was built with -privatize=pie); the rank calls
 * amp_start_pie_rank_enter first, which runs the copy's initializers and
 * returns the copy's main, and amp_start_pie_rank_exit when it ends. */
void amp_start_pie_setup(void);
/* Maps and relocates the copy of the program of the rank in slot (a new
 * rank's, or one restarted or arriving: rank/slot.h); AMP_OK without pie. */
AMP_MUST_USE amp_status_t amp_start_pie_map(int slot);
amp_main_fn_t amp_start_pie_rank_enter(amp_rank_t *rank);
void amp_start_pie_rank_exit(amp_rank_t *rank);

/* Base of world rank's copy of the program image (0 without pie), for
 * debuggers: `add-symbol-file PROGRAM -o BASE` (docs/privatization-pie.md). */
__attribute__((visibility("default"))) uintptr_t
amp_pie_rank_base(int world_rank);


/* Runs the destructors the rank's thread_local objects registered
 * (tls_dtors.c). */
void amp_start_run_tls_dtors(amp_rank_t *rank);

/* Runs the exit handlers the rank registered (atexit, on_exit, C++ static
 * destructors of the program), newest first (exit.c). */
void amp_start_run_atexits(amp_rank_t *rank, int status);

#endif
