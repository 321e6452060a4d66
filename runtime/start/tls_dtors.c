/*
 * Destructors of privatized thread-locals, per rank.
 *
 * The C++ runtime registers each thread_local object's destructor with
 * glibc's __cxa_thread_atexit_impl, which keeps one list per kernel thread
 * and runs it when that thread exits.  Ranks share kernel threads, so that
 * would destroy every rank's objects late, on the worker thread, with the
 * worker's own thread pointer in place.  The runtime's definition takes the
 * registrations made by ranks (it is found before glibc's) and runs each
 * rank's list, newest first, when the rank ends; registrations from other
 * threads go on to glibc.
 */
#define _GNU_SOURCE 1
#include "start/start.h"

#include <dlfcn.h>
#include <stdlib.h>

typedef int (*thread_atexit_fn_t)(void (*fn)(void *), void *obj, void *dso);

struct amp_tls_dtor {
    void (*fn)(void *);
    void *obj;
    struct amp_tls_dtor *next;
};

__attribute__((visibility("default"))) int
__cxa_thread_atexit_impl(void (*fn)(void *), void *obj, void *dso);

int __cxa_thread_atexit_impl(void (*fn)(void *), void *obj, void *dso)
{
    amp_rank_t *rank = amp_rank_self();
    if (!rank) {
        thread_atexit_fn_t next =
            (thread_atexit_fn_t)dlsym(RTLD_NEXT, "__cxa_thread_atexit_impl");
        return next ? next(fn, obj, dso) : -1;
    }
    struct amp_tls_dtor *d = malloc(sizeof(*d));
    if (!d)
        return -1;
    d->fn = fn;
    d->obj = obj;
    d->next = rank->tls_dtors;
    rank->tls_dtors = d;
    return 0;
}

void amp_start_run_tls_dtors(amp_rank_t *rank)
{
    /* A destructor may register more; they run too. */
    while (rank->tls_dtors) {
        struct amp_tls_dtor *d = rank->tls_dtors;
        rank->tls_dtors = d->next;
        d->fn(d->obj);
        free(d);
    }
}
