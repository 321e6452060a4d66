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

#include "mpi/call.h"

#include <time.h>

/* amp_mt_bind_t and amp_mt_bound, the binding of the calling kernel
 * thread, are proc.h's. */

/* Binds the calling kernel thread to rank (b on its stack or heap until
 * amp_mt_unbind(b)); counted: b's thread is counted in sched.outside
 * from now on (by whoever made it; amp_mt_unbind uncounts it). */
void amp_mt_bind(amp_mt_bind_t *b, amp_rank_t *rank, int main, int inherit,
                 int counted);
void amp_mt_unbind(amp_mt_bind_t *b);

/* Runs fn(arg) for the calling bound thread on its rank's PE, in a helper
 * ULT of the rank, and returns when it has returned. */
void amp_mt_forward(void (*fn)(void *), void *arg);

/* Runs fn(arg) on a kernel thread bound to the rank of the calling ULT
 * (the rank's own, as its main thread), the ULT waiting in the scheduler
 * meanwhile: OpenMP regions (start/omp_fork.c) and waits with no way to
 * try them (syncs.c). */
void amp_mt_run_aside(void (*fn)(void *), void *arg);

/* waits.c: the rank whose own ULT makes this call from the program
 * (caller: the call's return address) while its other threads may need
 * its PE: while calls of theirs are under way (busy 0: for a wait that
 * cannot block the caller), or while it has threads at all (busy 1);
 * else NULL.  Such a wait lets the PE run the others between its tries. */
amp_rank_t *amp_mt_waiting_rank(const void *caller, int busy);

/* The C library's own function (waits.c), found at the first call. */
void *amp_mt_libc(amp_mt_libc_t fn);

/* Whether clock says until has come (a timed wait's end); EINVAL for a
 * time POSIX rejects, else 0 or ETIMEDOUT. */
int amp_mt_expired(clockid_t clock, const struct timespec *until);

/* amp_mt_init, the per-PE part made before the PEs start, and amp_mt_rank,
 * the rank a thread acts for, are in proc.h. */

#endif
