/*
 * The layer's state beside the per-rank struct (proc.h): the one
 * process-wide struct, and the thread-local binding of a kernel thread to
 * the rank it acts for (set by threads/).
 */
#include "mpi/proc.h"

#include "mem/heap.h"

#include <stdlib.h>

/* The one process-wide struct. */
amp_proc_t amp_proc;

/* A fatal error of the runtime (amp_fatal, base/) keeps +trace's records
 * as an abnormal end does (a second one, from inside, finds them taken). */
void amp_fatal_last_words(void)
{
    amp_proc_abandon();
}

__thread amp_mt_bind_t *amp_mt_bound
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

amp_rank_t *amp_mt_rank(void)
{
    amp_rank_t *rank = amp_rank_self();
    if (rank)
        return rank;
    return amp_mt_bound ? amp_mt_bound->rank : NULL;
}

void *amp_rank_alloc(amp_rank_t *rank, size_t n)
{
    return amp_heap_alloc(amp_rank_heap(rank), n, 16);
}

struct amp_heap *amp_rank_heap_make(amp_rank_t *rank)
{
    const amp_mem_t *mem = &amp_proc.mem;
    rank->heap = amp_heap_create(amp_mem_slot_heap(mem, rank->slot),
                                 mem->heap_size, mem->page_size);
    if (!rank->heap)
        amp_fatal("cannot set up the heap of rank %d in its isomalloc slot",
                  rank->world_rank);
    return rank->heap;
}
