/*
 * MPI_THREAD_MULTIPLE: MPI calls from the kernel threads of a rank
 * (threads.c), private to the mpi module.
 *
 * A rank is one user-level thread (ULT) on a PE, and the rank's MPI state
 * (its tables, its endpoint) is only ever touched by its PE, without
 * locks.  A kernel thread of the rank (one it created with pthread_create,
 * or an OpenMP thread of a parallel region it started) is "bound" to the
 * rank: amp_mt_bound says which rank, and its thread pointer (%fs:0) is
 * the rank's, so privatized globals are the rank's in it too.  Its MPI
 * calls do not run on it: each generated entry point (scripts/
 * gen_threads.py) hands the call to the rank's PE as a scheduler task, a
 * helper ULT of the rank runs it there (between the rank's own MPI work,
 * never at the same time) and the thread sleeps until the helper has
 * returned.  A blocking call blocks the helper, not the PE.  Each thread's
 * calls run in the order it makes them, so MPI's ordering per thread
 * holds.  docs/mpi-support.md describes the model and its cost.
 */
#ifndef AMP_MPI_THREADS_H
#define AMP_MPI_THREADS_H

#include "mpi/impl.h"

/* How a kernel thread is bound to a rank (a stack of them: an OpenMP
 * region of a bound thread binds it again). */
typedef struct amp_mt_bind {
    amp_rank_t *rank;
    void *own_tp; /* the kernel thread's own thread pointer */
    int main;     /* it runs the rank's main thread's part (the master of
                     a parallel region the rank's ULT started) */
    int inherit;  /* threads it creates are bound to the rank too */
    int counted;  /* counted in sched.outside (amp_sched_outside_begin) */
    struct amp_mt_bind *prev;
} amp_mt_bind_t;

/* The calling kernel thread's binding, or NULL (the runtime's own thread
 * pointer-relative TLS, never the rank's). */
extern __thread amp_mt_bind_t *amp_mt_bound
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* Binds the calling kernel thread to rank (b on its stack or heap until
 * amp_mt_unbind(b)); counted: b's thread is counted in sched.outside
 * from now on (by whoever made it; amp_mt_unbind uncounts it). */
void amp_mt_bind(amp_mt_bind_t *b, amp_rank_t *rank, int main, int inherit,
                 int counted);
void amp_mt_unbind(amp_mt_bind_t *b);

/* Runs fn(arg) for the calling bound thread on its rank's PE, in a helper
 * ULT of the rank, and returns when it has returned. */
void amp_mt_forward(void (*fn)(void *), void *arg);

/* The rank the calling thread acts for: the running rank on a PE, the
 * bound rank elsewhere, or NULL. */
amp_rank_t *amp_mt_rank(void);

/* amp_mt_init, the per-PE part made before the PEs start, is in proc.h. */

#endif
