/*
 * A rank's C library state: found from the running rank, allocated in its
 * heap on first use (so it moves and is checkpointed with the rank), and
 * the C library's own functions for everyone else.
 */
#include "libc/state.h"
#include "mem/heap.h"
#include "mpi/proc.h"

#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

void *amp_libc_real(_Atomic(void *) *cache, const char *name)
{
    void *fn = atomic_load_explicit(cache, memory_order_acquire);
    if (fn)
        return fn;
    fn = dlsym(RTLD_NEXT, name);
    if (!fn) {
        static const char msg[] = "ampi: the C library lacks a function "
                                  "this runtime stands in for\n";
        ssize_t ignored = write(STDERR_FILENO, msg, sizeof(msg) - 1);
        (void)ignored;
        _exit(1);
    }
    atomic_store_explicit(cache, fn, memory_order_release);
    return fn;
}

/* The state glibc starts a process with: random() as after srandom(1)
 * (the default TYPE_3 generator), drand48() from a zero state. */
amp_libc_rank_t *amp_libc_create(amp_rank_t *rank)
{
    amp_libc_rank_t *l = amp_heap_alloc(amp_rank_heap(rank), sizeof(*l), 16);
    if (!l)
        return NULL;
    memset(l, 0, sizeof(*l));
    initstate_r(1, (char *)l->random_tbl, sizeof(l->random_tbl), &l->random);
    rank->libc = l;
    return l;
}

amp_libc_buffers_t *amp_libc_buffers(void)
{
    amp_libc_rank_t *l = amp_libc_self();
    if (!l || l->buffers)
        return l ? l->buffers : NULL;
    amp_rank_t *rank = amp_rank_self();
    amp_libc_buffers_t *b = amp_heap_alloc(amp_rank_heap(rank), sizeof(*b), 16);
    if (b)
        memset(b, 0, sizeof(*b));
    l->buffers = b;
    return b;
}

void *amp_libc_realloc(void *p, size_t size)
{
    amp_rank_t *rank = amp_rank_self();
    if (!rank)
        return NULL;
    return p ? amp_heap_realloc(rank->heap, p, size)
             : amp_heap_alloc(amp_rank_heap(rank), size, 16);
}

void amp_libc_rank_end(void)
{
    amp_rank_t *rank = amp_rank_self();
    amp_libc_rank_t *l = rank ? rank->libc : NULL;
    if (!l)
        return;
    amp_libc_buffers_t *b = l->buffers;
    void *blocks[] = {b ? b->pw_buf : NULL, b ? b->gr_buf : NULL, b, l};
    rank->libc = NULL;
    for (size_t i = 0; i < sizeof(blocks) / sizeof(*blocks); i++)
        if (blocks[i] && amp_heap_free(rank->heap, blocks[i]) != AMP_OK)
            amp_log_error("a block of rank %d's C library state was not in "
                          "its heap",
                          rank->world_rank);
}
