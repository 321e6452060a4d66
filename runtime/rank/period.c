/* +lbperiod and +ckptperiod: the job agrees at which collective to balance
 * or checkpoint (period.h). */
#include "rank/period.h"
#include "mpi/impl.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
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

/* The rank measures its PE's idle time from now on (+lbearly). */
static void mark(amp_rank_t *rank, long now)
{
    const amp_opts_t *o = &amp_proc.opts;
    rank->lbp_mark_ns = now;
    rank->lbp_mark_pe = amp_pe_self()->id;
    rank->lbp_mark_busy = amp_sched_pe_busy();
    rank->lbp_mark_cycles = amp_sched_cycles();
    rank->lbp_early = o->lbearly > 0 && o->lbperiod_ns > 0;
}

/* When the period's early look is due; LONG_MAX when none is to come. */
static long early_at(const amp_rank_t *rank)
{
    if (!rank->lbp_early)
        return LONG_MAX;
    const amp_opts_t *o = &amp_proc.opts;
    return rank->lbp_mark_ns + (long)(o->lbearly * (double)o->lbperiod_ns);
}

/* Thousandths of the time since the mark the rank's PE ran threads; -1
 * when the rank is on another PE than then, which cannot tell. */
static int pe_busy(const amp_rank_t *rank)
{
    if (amp_pe_self()->id != rank->lbp_mark_pe)
        return -1;
    return amp_period_busy(rank->lbp_mark_busy, amp_sched_pe_busy(),
                           rank->lbp_mark_cycles, amp_sched_cycles());
}

static long earliest(long a, long b)
{
    return a < b ? a : b;
}

/* The question, asked by every rank at the same collective: fills job
 * with the largest over the job of whether the +lbperiod and +ckptperiod
 * periods are over, minus the gap each rank proposes, whether the early
 * look is due, how busy the busiest PE was and minus how busy the least
 * busy was (thousandths). */
static void ask(amp_rank_t *rank, long now, int job[6])
{
    long lb_end = atomic_load(&amp_proc.lb_deadline),
         ckpt_end = atomic_load(&amp_proc.ckpt_deadline);
    long early = early_at(rank);
    long deadline = earliest(earliest(lb_end, ckpt_end), early);
    int busy = pe_busy(rank);
    int mine[6] = {now >= lb_end,
                   now >= ckpt_end,
                   -(int)next_gap(rank, now, deadline),
                   now >= early,
                   busy,
                   busy < 0 ? -1000 : -busy};
    int none[6] = {0, 0, -1, 0, -1, -1000};
    memcpy(job, none, sizeof(none));
    if (PMPI_Allreduce(mine, job, 6, MPI_INT, MPI_MAX, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        job[0] = job[1] = job[3] = 0; /* every rank got the same error */
}

/* After a step (balancing, lb; checkpoint, ckpt): the next question at
 * the next collective, the periods that ended start again. */
static void stepped(amp_rank_t *rank, int lb, int ckpt)
{
    rank->lbp_gap = 0;
    rank->lbp_next = rank->lbp_count + 1;
    rank->lbp_asked_count = rank->lbp_count;
    rank->lbp_asked_ns = now_ns();
    if (lb) {
        mark(rank, rank->lbp_asked_ns);
        atomic_store(&amp_proc.lb_deadline,
                     now_ns() + amp_proc.opts.lbperiod_ns);
    }
    if (ckpt)
        atomic_store(&amp_proc.ckpt_deadline,
                     now_ns() + amp_proc.opts.ckptperiod_ns);
}

/* At each blocking collective over MPI_COMM_WORLD of the calling rank,
 * before it runs. */
static void world_collective(void)
{
    amp_rank_t *rank = amp_rank_self();
    if (++rank->lbp_count < rank->lbp_next)
        return;
    long now = now_ns();
    if (!rank->lbp_mark_ns) {
        mark(rank, now);
        if (amp_proc.opts.lbperiod_ns > 0)
            amp_migrate_load_restart(rank);
    }
    int job[6];
    ask(rank, now, job);
    rank = amp_rank_self();
    int early_step = !job[0] && job[3] && amp_period_uneven(job[4], -job[5]);
    if (job[3])
        rank->lbp_early = 0; /* the period's look is over */
    if (!job[0] && !job[1] && !early_step) {
        rank->lbp_gap = (unsigned long)-job[2];
        rank->lbp_next = rank->lbp_count + rank->lbp_gap;
        rank->lbp_asked_count = rank->lbp_count;
        rank->lbp_asked_ns = now;
        return;
    }
    if (early_step && amp_proc.lb.debug && rank->world_rank == 0)
        fprintf(stderr,
                "ampi: lb: step %lu comes early: the least busy PE ran "
                "threads %.1f%% of the time since the last step, the "
                "busiest %.1f%%\n",
                amp_proc.lb.rounds + 1, -job[5] / 10.0, job[4] / 10.0);
    int lb = job[0] || early_step;
    if (lb)
        amp_migrate_periodic();
    if (job[1])
        amp_checkpoint_periodic(); /* a restarted rank resumes in it */
    stepped(amp_rank_self(), lb, job[1]); /* it may have changed process */
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
