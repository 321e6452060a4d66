/*
 * A rank's end (amp_start_rank_exit: its main returned, or exit, Fortran's
 * END or STOP), exit() and the exit handlers of a rank, as a process's
 * under any other MPI.
 *
 * exit(status) in a rank that has called MPI_Finalize, or that never called
 * MPI_Init and exits with status 0, ends only that rank, as its process's
 * exit would: codes that end main with MPI_Finalize(); exit(0); let the
 * other ranks finish.  exit(status) between MPI_Init and MPI_Finalize, or
 * with a non-zero status before MPI_Init, ends the job with that status
 * (under a launcher, the others of a job whose process failed are killed
 * too).
 *
 * Handlers the program registers from a rank (atexit, at_quick_exit aside,
 * and the C++ destructors of its static objects, through __cxa_atexit, and
 * on_exit) belong to the rank: they run, newest first, in the rank, with
 * its own globals, when the rank ends (its main returns, exit, Fortran's
 * END or STOP), after the destructors of its thread_local objects and
 * before its program copy's finalizers (pie), the order of glibc's exit.
 * Registrations of shared libraries (their dso handle is not the
 * program's), of code outside the ranks, for objects in the process's own
 * data (static objects of code built without privatization: a static
 * library's, flang's runtime's) and from inside a Fortran I/O statement
 * (flang's runtime closing its units) go to the C library and run once,
 * when the process exits.  A rank's stdio output is flushed when it
 * ends.
 */
#define _GNU_SOURCE 1
#include "start/start.h"
#include "libc/libc.h"
#include "mem/heap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct amp_atexit {
    void (*fn)(void *);      /* atexit, __cxa_atexit */
    void (*on)(int, void *); /* on_exit */
    void *arg;
    struct amp_atexit *next;
};

typedef int (*cxa_atexit_fn_t)(void (*)(void *), void *, void *);
typedef int (*on_exit_fn_t)(void (*)(int, void *), void *);
typedef void (*exit_fn_t)(int);

/* Whether dso (the handle a registration names) is the program's own: the
 * executable, or under pie the rank's copy of it. */
static int program_dso(const amp_rank_t *rank, const void *dso)
{
    uintptr_t a = (uintptr_t)dso;
    if (rank->pie_base)
        return amp_pie_in_image(&amp_proc.pie, rank->pie_base, a);
    return a >= amp_proc.exe_lo && a < amp_proc.exe_hi;
}

static int push(amp_rank_t *rank, void (*fn)(void *), void (*on)(int, void *),
                void *arg)
{
    struct amp_atexit *h = amp_heap_alloc(amp_rank_heap(rank), sizeof(*h), 16);
    if (!h)
        return -1;
    *h = (struct amp_atexit){fn, on, arg, rank->atexits};
    rank->atexits = h;
    return 0;
}

__attribute__((visibility("default"))) int __cxa_atexit(void (*fn)(void *),
                                                        void *arg, void *dso);
__attribute__((visibility("default"))) int on_exit(void (*fn)(int, void *),
                                                   void *arg);
__attribute__((visibility("default"))) _Noreturn void exit(int status);

/* Whether a registration of the program's, made now by rank with object
 * arg, is the rank's.  Not when it names an object of the process's own
 * data (a static object of code built without privatization, such as a
 * static library's or flang's runtime's: one for every rank, destroyed
 * once), nor when it comes from inside a Fortran I/O statement (flang's
 * runtime closing the process's units at exit). */
static int rank_owns(const amp_rank_t *rank, const void *arg)
{
    uintptr_t a = (uintptr_t)arg;
    if (a >= amp_proc.exe_lo && a < amp_proc.exe_hi && !rank->pie_base)
        return 0;
    return !amp_fortran_io_held();
}

int __cxa_atexit(void (*fn)(void *), void *arg, void *dso)
{
    amp_rank_t *rank = amp_rank_self();
    if (rank && program_dso(rank, dso) && rank_owns(rank, arg))
        return push(rank, fn, NULL, arg);
    static _Atomic(void *) cache;
    cxa_atexit_fn_t next;
    void *sym = amp_libc_real(&cache, "__cxa_atexit");
    memcpy(&next, &sym, sizeof(next));
    return next(fn, arg, dso);
}

int on_exit(void (*fn)(int, void *), void *arg)
{
    amp_rank_t *rank = amp_rank_self();
    if (rank && rank_owns(rank, arg))
        return push(rank, NULL, fn, arg);
    static _Atomic(void *) cache;
    on_exit_fn_t next;
    void *sym = amp_libc_real(&cache, "on_exit");
    memcpy(&next, &sym, sizeof(next));
    return next(fn, arg);
}

void amp_start_run_atexits(amp_rank_t *rank, int status)
{
    /* A handler may register more; they run too. */
    while (rank->atexits) {
        struct amp_atexit *h = rank->atexits;
        rank->atexits = h->next;
        if (h->on)
            h->on(status, h->arg);
        else
            h->fn(h->arg);
        if (amp_heap_free(rank->heap, h) != AMP_OK)
            amp_log_error("rank %d: an exit handler's record was not in its "
                          "heap",
                          rank->world_rank);
    }
}

/* The calling rank's end, in glibc's order: thread_local destructors,
 * exit handlers, program copy's finalizers, stdio; then its thread. */
_Noreturn void amp_start_rank_exit(int status)
{
    amp_rank_t *rank = amp_rank_self();
    if (!rank)
        amp_fatal("the program ended a thread that is not an MPI rank");
    amp_start_run_tls_dtors(rank);
    amp_start_run_atexits(rank, status);
    amp_start_pie_rank_exit(rank);
    amp_libc_rank_end();
    fflush(NULL); /* what the rank wrote, as its process's exit would */
    /* A short command line was copied on the rank's stack (start.c). */
    if (rank->heap && amp_heap_contains(rank->heap, rank->argv))
        free(rank->argv);
    rank->argv = NULL;
    if (status != 0) {
        int zero = 0;
        atomic_compare_exchange_strong(&amp_proc.exit_status, &zero, status);
    }
    amp_sched_exit();
}

/* Whether exit(status) from rank ends the rank alone, as the process's exit
 * would end one process of the job. */
static int ends_rank_only(const amp_rank_t *rank, int status)
{
    return rank->state == AMP_MPI_FINALIZED ||
           (rank->state == AMP_MPI_NOT_INIT && status == 0);
}

void exit(int status)
{
    amp_rank_t *rank = amp_rank_self();
    if (rank && ends_rank_only(rank, status))
        amp_start_rank_exit(status);
    if (rank) {
        /* The job ends: this rank's handlers run as its process's would. */
        amp_start_run_tls_dtors(rank);
        amp_start_run_atexits(rank, status);
        amp_proc_abandon();
    }
    static _Atomic(void *) cache;
    exit_fn_t next;
    void *sym = amp_libc_real(&cache, "exit");
    memcpy(&next, &sym, sizeof(next));
    next(status);
    _exit(status); /* not reached */
}
