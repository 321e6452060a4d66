/* Passive-target polling loops: a rank waits for a value by locking its
 * own member of the window, getting the value and unlocking, again and
 * again (or the same with MPI_Win_lock_all), while a rank of the other
 * half of the job (another process, when there are several) locks that
 * member exclusively and writes the value with a put, an accumulate, a
 * compare-and-swap or a fetch-and-op.  The waiting rank's unlocks must let
 * the writer in: its lock request, its operation and its unlock all need
 * the PE of the waiting rank (and, in one process, the writer may run on
 * that PE itself).  Windows of every flavor that passive target serves:
 * created, allocated, dynamic. */
#include "mpitest.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define WAIT_S 20.0 /* a wait this long is a hang: reported, then stop */

enum flavor { CREATED, ALLOCATED, DYNAMIC, NFLAVORS };
enum write { PUT, ACC, CAS, FOP, NWRITES };
enum spin { EXCLUSIVE, SHARED, ALL, NSPINS };

static const char *const flavor_names[] = {"created", "allocated", "dynamic"};
static const char *const write_names[] = {"put", "accumulate",
                                          "compare-and-swap", "fetch-and-op"};
static const char *const spin_names[] = {"lock exclusive", "lock shared",
                                         "lock_all"};

/* One window of one int64_t per rank, 0; *disp: each rank's displacement
 * of it (addresses for the dynamic window). */
typedef struct win {
    MPI_Win win;
    int64_t *mem;
    MPI_Aint *disp;
} win_t;

static void win_open(win_t *w, int flavor, int np)
{
    w->disp = calloc((size_t)np, sizeof(MPI_Aint));
    if (flavor == ALLOCATED) {
        MPI_Win_allocate(sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL,
                         MPI_COMM_WORLD, &w->mem, &w->win);
    } else {
        MPI_Alloc_mem(sizeof(int64_t), MPI_INFO_NULL, &w->mem);
        if (flavor == CREATED) {
            MPI_Win_create(w->mem, sizeof(int64_t), sizeof(int64_t),
                           MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
        } else {
            MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
            MPI_Win_attach(w->win, w->mem, sizeof(int64_t));
            MPI_Aint mine;
            MPI_Get_address(w->mem, &mine);
            MPI_Allgather(&mine, 1, MPI_AINT, w->disp, 1, MPI_AINT,
                          MPI_COMM_WORLD);
        }
    }
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, mt_world_rank(), 0, w->win);
    *w->mem = 0;
    MPI_Win_unlock(mt_world_rank(), w->win);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void win_close(win_t *w, int flavor)
{
    if (flavor == DYNAMIC)
        MPI_Win_detach(w->win, w->mem);
    MPI_Win_free(&w->win);
    if (flavor != ALLOCATED)
        MPI_Free_mem(w->mem);
    free(w->disp);
}

/* Writes key into member t's value (0 until now), as write says. */
static void write_value(const win_t *w, int write, int t, int64_t key)
{
    int64_t zero = 0, old = -1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w->win);
    switch (write) {
    case PUT:
        MPI_Put(&key, 1, MPI_INT64_T, t, w->disp[t], 1, MPI_INT64_T, w->win);
        old = 0;
        break;
    case ACC:
        MPI_Accumulate(&key, 1, MPI_INT64_T, t, w->disp[t], 1, MPI_INT64_T,
                       MPI_SUM, w->win);
        old = 0;
        break;
    case CAS:
        MPI_Compare_and_swap(&key, &zero, &old, MPI_INT64_T, t, w->disp[t],
                             w->win);
        break;
    default:
        MPI_Fetch_and_op(&key, &old, MPI_INT64_T, t, w->disp[t], MPI_SUM,
                         w->win);
    }
    MPI_Win_unlock(t, w->win);
    MT_CHECK_INT_EQ(old, 0);
}

/* Spins on this rank's own value until it is key; whether it came. */
static int wait_value(const win_t *w, int spin, int me, int64_t key)
{
    double start = MPI_Wtime();
    int64_t v = 0;
    while (v != key && MPI_Wtime() - start < WAIT_S) {
        if (spin == ALL)
            MPI_Win_lock_all(0, w->win);
        else
            MPI_Win_lock(spin == SHARED ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE,
                         me, 0, w->win);
        MPI_Get(&v, 1, MPI_INT64_T, me, w->disp[me], 1, MPI_INT64_T, w->win);
        if (spin == ALL)
            MPI_Win_unlock_all(w->win);
        else
            MPI_Win_unlock(me, w->win);
    }
    return v == key;
}

/* One round: the ranks of one half wait, those of the other write (half
 * 0 or 1 waits); whether every rank got through. */
static int round_(int flavor, int write, int spin, int half, int me, int np)
{
    win_t w;
    win_open(&w, flavor, np);
    int n = np / 2, ok = 1;
    int waiter = half ? n : 0, writer = half ? 0 : n; /* first of each */
    int64_t key = 1000 + 10 * write + spin;
    if (n && me >= waiter && me < waiter + n) {
        ok = wait_value(&w, spin, me, key);
        if (!ok)
            MT_FAIL("%s window, %s by rank %d, waiting with %s: the value "
                    "never came",
                    flavor_names[flavor], write_names[write],
                    me - waiter + writer, spin_names[spin]);
    } else if (n && me >= writer && me < writer + n) {
        usleep(5000); /* the waiter spins already */
        write_value(&w, write, me - writer + waiter, key);
    }
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    win_close(&w, flavor);
    return all;
}

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int ok = 1;
    for (int f = 0; ok && f < NFLAVORS; f++)
        for (int wr = 0; ok && wr < NWRITES; wr++)
            for (int s = 0; ok && s < NSPINS; s++)
                ok = round_(f, wr, s, (f + wr + s) % 2, me, np);
    return mt_finish_and_finalize();
}
