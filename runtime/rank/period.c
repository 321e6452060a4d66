/* +lbperiod and +ckptperiod: the job agrees at which collective to balance
 * or checkpoint (period.h). */
#include "rank/period.h"
#include "mpi/impl.h"

#include <limits.h>
#include <time.h>

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* The gap the calling rank proposes at a question asked at now. */
static long next_gap(const amp_rank_t *rank, long now, long deadline)
{
    if (!rank->lbp_asked_ns)
        return 1;
    return amp_period_gap(rank->lbp_count - rank->lbp_asked_count,
                          now - rank->lbp_asked_ns, deadline - now,
                          rank->lbp_gap);
}

/* At each blocking collective over MPI_COMM_WORLD of the calling rank,
 * before it runs. */
static void world_collective(void)
{
    amp_rank_t *rank = amp_rank_self();
    if (++rank->lbp_count < rank->lbp_next)
        return;
    long now = now_ns(), lb_end = atomic_load(&amp_proc.lb_deadline),
         ckpt_end = atomic_load(&amp_proc.ckpt_deadline);
    long deadline = lb_end < ckpt_end ? lb_end : ckpt_end;
    /* Whether each period is over, and minus the gap the rank proposes:
     * the largest of each is the job's answer and its shortest gap. */
    int mine[3] = {now >= lb_end, now >= ckpt_end,
                   -(int)next_gap(rank, now, deadline)};
    int job[3] = {0, 0, -1};
    if (PMPI_Allreduce(mine, job, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        job[0] = job[1] = 0; /* every rank got the same error: no step */
    rank = amp_rank_self();
    if (!job[0] && !job[1]) {
        rank->lbp_gap = (unsigned long)-job[2];
        rank->lbp_next = rank->lbp_count + rank->lbp_gap;
        rank->lbp_asked_count = rank->lbp_count;
        rank->lbp_asked_ns = now;
        return;
    }
    if (job[0])
        amp_migrate_periodic();
    if (job[1])
        amp_checkpoint_periodic(); /* a restarted rank resumes in it */
    rank = amp_rank_self();        /* it may have changed process */
    rank->lbp_gap = 0;
    rank->lbp_next = rank->lbp_count + 1;
    rank->lbp_asked_count = rank->lbp_count;
    rank->lbp_asked_ns = now_ns();
    if (job[0])
        atomic_store(&amp_proc.lb_deadline,
                     now_ns() + amp_proc.opts.lbperiod_ns);
    if (job[1])
        atomic_store(&amp_proc.ckpt_deadline,
                     now_ns() + amp_proc.opts.ckptperiod_ns);
}

static long deadline_after(long period_ns)
{
    return period_ns > 0 ? now_ns() + period_ns : LONG_MAX;
}

void amp_period_init(void)
{
    const amp_opts_t *o = &amp_proc.opts;
    if (o->lbperiod_ns <= 0 && o->ckptperiod_ns <= 0)
        return;
    atomic_store(&amp_proc.lb_deadline, deadline_after(o->lbperiod_ns));
    atomic_store(&amp_proc.ckpt_deadline, deadline_after(o->ckptperiod_ns));
    amp_proc.lb_periodic = world_collective;
}
