/*
 * One Fortran I/O statement of flang's runtime at a time in the process.
 *
 * flang's runtime keeps one set of units for the process and does not
 * guard a unit against two I/O statements at once: ranks printing from
 * two PEs of a process lose lines or crash it.  ampif90 wraps every
 * statement's beginning (_FortranAioBegin..., start/fortran_io.S) and its
 * end (_FortranAioEndIoStatement, start/fortran_main.c) with these.
 *
 * The owner is the rank's thread, not the kernel thread: a function in an
 * output list may call MPI, and its rank may block there or be lent to
 * another PE before the statement ends.  A rank that waits lets the other
 * ranks of its PE run meanwhile (so the owner's partners in such a call
 * can answer), and a statement inside a statement of the same rank
 * (internal I/O in an output list) nests.
 */
#define _GNU_SOURCE 1
#include "start/start.h"

#include <sched.h>
#include <stdint.h>
#include <unistd.h>

/* The calling rank's thread, or an id of the kernel thread (a thread of a
 * rank's own, outside the PEs). */
static void *io_self(void)
{
    amp_pe_t *pe = amp_pe_self();
    if (pe && pe->current)
        return pe->current;
    return (void *)~(uintptr_t)gettid();
}

void amp_fortran_io_lock(void)
{
    void *me = io_self(), *none = NULL;
    if (atomic_load_explicit(&amp_proc.fortran_io_owner,
                             memory_order_acquire) == me) {
        amp_proc.fortran_io_depth++;
        return;
    }
    while (!atomic_compare_exchange_weak_explicit(
        &amp_proc.fortran_io_owner, &none, me, memory_order_acquire,
        memory_order_relaxed)) {
        none = NULL;
        amp_pe_t *pe = amp_pe_self();
        if (pe && pe->current)
            amp_sched_yield();
        else
            sched_yield();
    }
    amp_proc.fortran_io_depth = 1;
}

void amp_fortran_io_unlock(void)
{
    if (--amp_proc.fortran_io_depth == 0)
        atomic_store_explicit(&amp_proc.fortran_io_owner, NULL,
                              memory_order_release);
}

int amp_fortran_io_held(void)
{
    return atomic_load_explicit(&amp_proc.fortran_io_owner,
                                memory_order_relaxed) == io_self();
}
