/*
 * Per-rank initializers.  A privatized variable whose static initializer
 * takes the address of another privatized variable (int *p = &x;) cannot be
 * initialized by the loader: each rank's p must point at that rank's x.  The
 * Clang plugin zeroes such initializers and emits a function that sets
 * them, registered from an ELF constructor through AMPI_Register_rank_init;
 * every rank runs the registered functions, in order, on its own
 * thread-local copies before its main.
 */
#include "rank/slot.h"
#include "mpi/impl.h"

#include <stdlib.h>

void AMPI_Register_rank_init(void (*fn)(void))
{
    if (!fn)
        return;
    if (amp_proc.main_fn)
        amp_fatal("AMPI_Register_rank_init called after the ranks started "
                  "(a library with privatized globals loaded with dlopen?); "
                  "link privatized libraries with the program instead");
    void (**inits)(void) =
        realloc(amp_proc.rank_inits,
                (size_t)(amp_proc.nrank_inits + 1) * sizeof(*inits));
    if (!inits)
        amp_fatal("out of memory registering a per-rank initializer");
    inits[amp_proc.nrank_inits++] = fn;
    amp_proc.rank_inits = inits;
}

void amp_rank_run_inits(void)
{
    for (int i = 0; i < amp_proc.nrank_inits; i++)
        amp_proc.rank_inits[i]();
}
