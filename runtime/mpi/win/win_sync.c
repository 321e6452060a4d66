/*
 * Synchronization of windows (MPI chapter 11.5): fence, post-start-
 * complete-wait, passive-target locks, flushes and MPI_Win_sync.
 *
 * Operations on members of this process are complete when their call
 * returns (win_ops.c); those on members of other processes are complete
 * once answered, so every call that ends an access epoch or flushes first
 * waits for the window's outstanding answers (settle).  Then a fence is a
 * barrier on the window's communicator, the other calls go to the state's
 * counters and locks (rma/rma.h), through messages for members of other
 * processes.  The epoch state here is what lets the operations answer
 * MPI_ERR_RMA_SYNC outside one.
 */
#include "mpi/comm/comm.h"
#include "mpi/pt2pt/request.h"
#include "mpi/win/win.h"
#include "rma/rma.h"

#include <stdlib.h>

#define FENCE_ASSERTS                                                          \
    (MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE |                  \
     MPI_MODE_NOSUCCEED)
#define POST_ASSERTS (MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT)
/* Marks a lock taken with MPI_MODE_NOCHECK (nothing to release). */
#define LOCK_NOCHECK 0x100

static int enter(MPI_Win h, const char *call, amp_rank_t **rank, amp_win_t **w)
{
    int rc = amp_mpi_enter(rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_win(*rank, h, call, w);
    return rc;
}

static int check_assert(amp_rank_t *rank, amp_win_t *w, int assert, int allowed,
                        const char *call)
{
    if ((assert & ~allowed) == 0)
        return MPI_SUCCESS;
    return amp_win_error(rank, w, MPI_ERR_ASSERT, call,
                         "assertion %#x has bits this call does not take "
                         "(argument assert)",
                         (unsigned)assert);
}

static int sync_error(amp_rank_t *rank, amp_win_t *w, const char *call,
                      const char *why)
{
    return amp_win_error(rank, w, MPI_ERR_RMA_SYNC, call, "%s", why);
}

static int in_passive(const amp_win_t *w)
{
    return w->lock_all || w->nlocked;
}

static int remote(const amp_win_t *w, int r)
{
    return amp_rma_is_remote(w->shared, r);
}

/* Waits until members of other processes have answered every operation
 * and request of this rank on w; a failure one of them reported becomes
 * the error of call. */
static int settle(amp_rank_t *rank, amp_win_t *w, const char *call)
{
    if (!w->origin.pending && w->origin.error == AMP_OK)
        return MPI_SUCCESS; /* nothing in flight: the common case */
    rank->call = call;
    amp_status_t st = amp_rma_origin_wait(&w->origin);
    if (st == AMP_OK)
        return MPI_SUCCESS;
    if (st == AMP_ERR_ARG)
        return amp_win_error(rank, w, MPI_ERR_RMA_RANGE, call,
                             "an operation of this epoch reached memory that "
                             "its target (in another process) has not "
                             "attached to the window");
    return amp_win_error(
        rank, w, st == AMP_ERR_NOMEM ? MPI_ERR_NO_MEM : MPI_ERR_OTHER, call,
        "an operation of this epoch failed at its target in "
        "another process: %s",
        amp_status_str(st));
}

/* Splits the comm ranks in list (n of them) into those of this process,
 * kept in list (*nlocal), and those of other processes, handed to
 * each(w, me, r). */
static void split_remote(amp_win_t *w, int *list, int n, int *nlocal,
                         void (*each)(amp_rma_win_t *, int, int))
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (remote(w, list[i]))
            each(w->shared, w->rank, list[i]);
        else
            list[k++] = list[i];
    }
    *nlocal = k;
}

/* ---- fence -------------------------------------------------------------- */

int PMPI_Win_fence(int assert, MPI_Win win)
{
    const char *call = "MPI_Win_fence";
    amp_rank_t *rank;
    amp_win_t *w;
    int rc = enter(win, call, &rank, &w);
    if (rc == MPI_SUCCESS)
        rc = check_assert(rank, w, assert, FENCE_ASSERTS, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (in_passive(w) || w->started || w->exposing)
        return sync_error(rank, w, call,
                          "another epoch (lock or post-start-complete-wait) "
                          "is open on the window");
    /* A failure reported by a target still ends the epoch: the others
     * wait in the barrier. */
    int failed = settle(rank, w, call);
    amp_rma_sync();
    rc = PMPI_Barrier(w->comm);
    if (rc != MPI_SUCCESS)
        return amp_win_error(rank, w, MPI_ERR_INTERN, call,
                             "the fence's barrier failed");
    amp_rma_sync();
    w->fence = !(assert &MPI_MODE_NOSUCCEED);
    return failed;
}
AMP_WEAK_ALIAS(Win_fence)

/* ---- post-start-complete-wait -------------------------------------------- */

/* The comm ranks of the window's members in group h, into w->access (start)
 * or *out (post); *n of them. */
static int group_ranks(amp_rank_t *rank, amp_win_t *w, MPI_Group h,
                       const char *call, int *out, int *n)
{
    amp_comm_t *c = amp_comm_lookup(rank, w->comm);
    amp_group_t *g;
    int rc = amp_check_group(rank, c, h, call, "group", &g);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int i = 0; i < g->size; i++) {
        int r = 0;
        while (r < c->size && amp_comm_world_rank(c, r) != g->world[i])
            r++;
        if (r == c->size)
            return amp_win_error(rank, w, MPI_ERR_GROUP, call,
                                 "member %d of the group is not in the "
                                 "window's group (argument group)",
                                 i);
        out[i] = r;
    }
    *n = g->size;
    return MPI_SUCCESS;
}

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    const char *call = "MPI_Win_start";
    amp_rank_t *rank;
    amp_win_t *w;
    int n = 0;
    int rc = enter(win, call, &rank, &w);
    if (rc == MPI_SUCCESS)
        rc = check_assert(rank, w, assert, MPI_MODE_NOCHECK, call);
    if (rc == MPI_SUCCESS && (w->started || in_passive(w)))
        rc = sync_error(rank, w, call,
                        "an access epoch is already open on the window");
    if (rc == MPI_SUCCESS)
        rc = group_ranks(rank, w, group, call, w->access, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    rank->call = call;
    amp_rma_start(w->shared, w->rank, w->access, n, assert &MPI_MODE_NOCHECK);
    for (int i = 0; i < n; i++)
        w->acc[w->access[i]] = 1;
    w->naccess = n;
    w->started = 1;
    w->fence = 0;
    amp_rma_sync();
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Win_start)

int PMPI_Win_complete(MPI_Win win)
{
    const char *call = "MPI_Win_complete";
    amp_rank_t *rank;
    amp_win_t *w;
    int rc = enter(win, call, &rank, &w);
    if (rc == MPI_SUCCESS && !w->started)
        rc = sync_error(rank, w, call,
                        "no MPI_Win_start epoch is open on the window");
    if (rc == MPI_SUCCESS)
        rc = settle(rank, w, call);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int i = 0; i < w->naccess; i++)
        w->acc[w->access[i]] = 0;
    int nlocal;
    split_remote(w, w->access, w->naccess, &nlocal, amp_rma_remote_complete);
    amp_rma_complete(w->shared, w->rank, w->access, nlocal);
    w->naccess = 0;
    w->started = 0;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Win_complete)

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    const char *call = "MPI_Win_post";
    amp_rank_t *rank;
    amp_win_t *w;
    int n = 0;
    int rc = enter(win, call, &rank, &w);
    if (rc == MPI_SUCCESS)
        rc = check_assert(rank, w, assert, POST_ASSERTS, call);
    if (rc == MPI_SUCCESS && w->exposing)
        rc = sync_error(rank, w, call,
                        "an exposure epoch is already open on the window");
    int *origins = NULL;
    if (rc == MPI_SUCCESS) {
        origins = malloc((size_t)w->size * sizeof(int));
        if (!origins)
            rc = amp_win_error(rank, w, MPI_ERR_NO_MEM, call,
                               "out of memory for the group");
    }
    if (rc == MPI_SUCCESS)
        rc = group_ranks(rank, w, group, call, origins, &n);
    if (rc == MPI_SUCCESS) {
        if (!(assert &MPI_MODE_NOCHECK)) {
            int nlocal;
            split_remote(w, origins, n, &nlocal, amp_rma_remote_post);
            amp_rma_post(w->shared, w->rank, origins, nlocal);
        }
        w->exposing = 1;
        w->nexpose = n;
        w->fence = 0;
    }
    free(origins);
    return rc;
}
AMP_WEAK_ALIAS(Win_post)

static int wait_or_test(MPI_Win win, int *flag, const char *call)
{
    amp_rank_t *rank;
    amp_win_t *w;
    int rc = enter(win, call, &rank, &w);
    if (rc == MPI_SUCCESS && !w->exposing)
        rc = sync_error(rank, w, call,
                        "no MPI_Win_post epoch is open on the window");
    if (rc != MPI_SUCCESS)
        return rc;
    rank->call = call;
    int done = amp_rma_wait(w->shared, w->rank, w->nexpose, flag == NULL);
    if (!done) { /* MPI_Win_test in a loop lets the origins run */
        amp_mpi_poll(rank, call);
        rank = amp_rank_self();
        w = amp_win_lookup(rank, win);
    }
    if (done) {
        w->exposing = 0;
        amp_rma_sync();
    }
    if (flag)
        *flag = done;
    return MPI_SUCCESS;
}

int PMPI_Win_wait(MPI_Win win)
{
    return wait_or_test(win, NULL, "MPI_Win_wait");
}
AMP_WEAK_ALIAS(Win_wait)

int PMPI_Win_test(MPI_Win win, int *flag)
{
    if (!flag) {
        amp_rank_t *rank;
        amp_win_t *w;
        int rc = enter(win, "MPI_Win_test", &rank, &w);
        if (rc != MPI_SUCCESS)
            return rc;
        return amp_win_error(rank, w, MPI_ERR_ARG, "MPI_Win_test",
                             "NULL pointer (argument flag)");
    }
    return wait_or_test(win, flag, "MPI_Win_test");
}
AMP_WEAK_ALIAS(Win_test)

/* ---- passive target ------------------------------------------------------ */

static int check_target(amp_rank_t *rank, amp_win_t *w, int r, const char *call)
{
    if (r >= 0 && r < w->size)
        return MPI_SUCCESS;
    return amp_win_error(rank, w, MPI_ERR_RANK, call,
                         "rank %d is not in the window's group of %d "
                         "(argument rank)",
                         r, w->size);
}

int PMPI_Win_lock(int lock_type, int r, int assert, MPI_Win win)
{
    const char *call = "MPI_Win_lock";
    amp_rank_t *rank;
    amp_win_t *w;
    int rc = enter(win, call, &rank, &w);
    if (rc == MPI_SUCCESS && lock_type != MPI_LOCK_SHARED &&
        lock_type != MPI_LOCK_EXCLUSIVE)
        rc = amp_win_error(rank, w, MPI_ERR_LOCKTYPE, call,
                           "lock type %d is neither MPI_LOCK_SHARED nor "
                           "MPI_LOCK_EXCLUSIVE (argument lock_type)",
                           lock_type);
    if (rc == MPI_SUCCESS && r == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        rc = check_target(rank, w, r, call);
    if (rc == MPI_SUCCESS)
        rc = check_assert(rank, w, assert, MPI_MODE_NOCHECK, call);
    if (rc == MPI_SUCCESS && (w->lock_all || w->locks[r]))
        rc = sync_error(rank, w, call,
                        "the window is already locked at that rank");
    if (rc != MPI_SUCCESS)
        return rc;
    int excl = lock_type == MPI_LOCK_EXCLUSIVE;
    rank->call = call;
    if (!(assert &MPI_MODE_NOCHECK) && remote(w, r)) {
        amp_rma_remote_lock(w->shared, &w->origin, r, excl);
        rc = settle(rank, w, call);
        if (rc != MPI_SUCCESS)
            return rc;
    } else if (!(assert &MPI_MODE_NOCHECK)) {
        amp_rma_lock(w->shared, r, excl);
    }
    w->locks[r] = lock_type | (assert &MPI_MODE_NOCHECK ? LOCK_NOCHECK : 0);
    w->nlocked++;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Win_lock)

/* The end of a passive-target epoch polls, as a flush does (unlock and
 * unlock_all): a loop of lock, get, unlock on a member of this process
 * that waits for another rank's put is a polling loop.  Were it not, the
 * rank would keep its PE to itself: neither the other ranks of the PE nor
 * the requests of other processes (lock requests, operations on members
 * this PE runs) would be served, and the value would never come. */
int PMPI_Win_unlock(int r, MPI_Win win)
{
    const char *call = "MPI_Win_unlock";
    amp_rank_t *rank;
    amp_win_t *w;
    int rc = enter(win, call, &rank, &w);
    if (rc == MPI_SUCCESS && r == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        rc = check_target(rank, w, r, call);
    if (rc == MPI_SUCCESS && !w->locks[r])
        rc = sync_error(rank, w, call,
                        "the window is not locked at that rank (call "
                        "MPI_Win_lock first)");
    if (rc != MPI_SUCCESS)
        return rc;
    /* A failed operation is reported, and the lock released all the same. */
    rc = settle(rank, w, call);
    amp_rma_sync();
    int excl = (w->locks[r] & ~LOCK_NOCHECK) == MPI_LOCK_EXCLUSIVE;
    int held = !(w->locks[r] & LOCK_NOCHECK);
    w->locks[r] = 0;
    w->nlocked--;
    if (held && remote(w, r)) {
        amp_rma_remote_unlock(w->shared, &w->origin, r, excl);
        int rc2 = settle(rank, w, call);
        rc = rc != MPI_SUCCESS ? rc : rc2;
    } else if (held) {
        amp_rma_unlock(w->shared, r, excl);
    }
    amp_mpi_poll(rank, call);
    return rc;
}
AMP_WEAK_ALIAS(Win_unlock)

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    const char *call = "MPI_Win_lock_all";
    amp_rank_t *rank;
    amp_win_t *w;
    int rc = enter(win, call, &rank, &w);
    if (rc == MPI_SUCCESS)
        rc = check_assert(rank, w, assert, MPI_MODE_NOCHECK, call);
    if (rc == MPI_SUCCESS && in_passive(w))
        rc = sync_error(rank, w, call, "the window is already locked");
    if (rc != MPI_SUCCESS)
        return rc;
    rank->call = call;
    /* One member after the other, in rank order, each granted before the
     * next is asked: a lock-all that held some members while it waited
     * for another, behind an exclusive request queued there, could close
     * a cycle with other lock-alls (each waiting behind an exclusive
     * request for a member another holds).  In rank order, whoever waits
     * holds only lower members than the one it waits for. */
    for (int r = 0; !(assert &MPI_MODE_NOCHECK) && r < w->size; r++) {
        if (!remote(w, r)) {
            amp_rma_lock(w->shared, r, 0);
            continue;
        }
        amp_rma_remote_lock(w->shared, &w->origin, r, 0);
        int rc2 = settle(rank, w, call);
        rc = rc != MPI_SUCCESS ? rc : rc2;
    }
    w->lock_all = 1 | (assert &MPI_MODE_NOCHECK ? LOCK_NOCHECK : 0);
    return rc;
}
AMP_WEAK_ALIAS(Win_lock_all)

int PMPI_Win_unlock_all(MPI_Win win)
{
    const char *call = "MPI_Win_unlock_all";
    amp_rank_t *rank;
    amp_win_t *w;
    int rc = enter(win, call, &rank, &w);
    if (rc == MPI_SUCCESS && !w->lock_all)
        rc = sync_error(rank, w, call,
                        "the window is not locked with MPI_Win_lock_all");
    if (rc != MPI_SUCCESS)
        return rc;
    /* A failed operation is reported, and the locks released all the same. */
    rc = settle(rank, w, call);
    amp_rma_sync();
    int held = !(w->lock_all & LOCK_NOCHECK);
    w->lock_all = 0;
    for (int r = 0; held && r < w->size; r++) {
        if (remote(w, r))
            amp_rma_remote_unlock(w->shared, &w->origin, r, 0);
        else
            amp_rma_unlock(w->shared, r, 0);
    }
    int rc2 = held ? settle(rank, w, call) : MPI_SUCCESS;
    amp_mpi_poll(rank, call);
    return rc != MPI_SUCCESS ? rc : rc2;
}
AMP_WEAK_ALIAS(Win_unlock_all)

/* Flushes: operations on members of this process are complete at their
 * call already; these wait for the answers of the others, order memory
 * and check that a passive-target epoch (at r, or any when all) is open.
 * Waiting for every answer also covers MPI_Win_flush(r). */
static int flush(MPI_Win win, int r, int all, const char *call)
{
    amp_rank_t *rank;
    amp_win_t *w;
    int rc = enter(win, call, &rank, &w);
    if (rc != MPI_SUCCESS || (!all && r == MPI_PROC_NULL))
        return rc;
    if (!all)
        rc = check_target(rank, w, r, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (all ? !in_passive(w) : !w->lock_all && !w->locks[r])
        return sync_error(rank, w, call,
                          "no passive-target epoch (MPI_Win_lock or "
                          "MPI_Win_lock_all) is open");
    rc = settle(rank, w, call);
    amp_rma_sync();
    /* Flushes are where one-sided polling loops (compare-and-swap, fetch
     * and no-op) poll: the other ranks of the PE run meanwhile.  After an
     * operation that moved data (run_op reset the polls) the poll is left
     * out while nothing else on the PE waits to run, but for one flush in
     * AMP_SCHED_POLL_SKIPS: a loop of stores into another process's
     * window and flushes would otherwise spend most of its time in the
     * transports' progress. */
    if (rank->polls != 0 || !amp_sched_poll_skip())
        amp_mpi_poll(rank, call);
    return rc;
}

int PMPI_Win_flush(int r, MPI_Win win)
{
    return flush(win, r, 0, "MPI_Win_flush");
}
AMP_WEAK_ALIAS(Win_flush)

int PMPI_Win_flush_local(int r, MPI_Win win)
{
    return flush(win, r, 0, "MPI_Win_flush_local");
}
AMP_WEAK_ALIAS(Win_flush_local)

int PMPI_Win_flush_all(MPI_Win win)
{
    return flush(win, -1, 1, "MPI_Win_flush_all");
}
AMP_WEAK_ALIAS(Win_flush_all)

int PMPI_Win_flush_local_all(MPI_Win win)
{
    return flush(win, -1, 1, "MPI_Win_flush_local_all");
}
AMP_WEAK_ALIAS(Win_flush_local_all)

int PMPI_Win_sync(MPI_Win win)
{
    amp_rank_t *rank;
    amp_win_t *w;
    int rc = enter(win, "MPI_Win_sync", &rank, &w);
    if (rc == MPI_SUCCESS) {
        amp_rma_sync();
        amp_mpi_poll(rank, "MPI_Win_sync"); /* as a flush (see there) */
    }
    return rc;
}
AMP_WEAK_ALIAS(Win_sync)
