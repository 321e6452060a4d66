/* +lbperiod and +ckptperiod: the job agrees at which collective to balance
 * or checkpoint (period.h). */
#include "rank/period.h"
#include "mpi/impl.h"

#include <limits.h>
#include <stdlib.h>
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

/* A PE's window for +lbearly: its busy ticks and the cycle counter when
 * the first of its ranks started period gen + 1 (gen: the steps before
 * it).  Written and read by that PE's ranks only. */
struct amp_period_pe {
    uint64_t busy, cycles;
    unsigned long gen; /* 0: no period yet */
};

/* The period starts for the rank now (+lbearly); the window of its PE
 * starts with the first of the PE's ranks to get here, so that every rank
 * of a PE measures the same stretch.  After a step no rank returns
 * before every rank of the process is in place (lb.h), so the window
 * leaves out the step itself: how long the PE took in the ranks that
 * came from another process is not idle time of the new placement. */
static void mark(amp_rank_t *rank, long now)
{
    const amp_opts_t *o = &amp_proc.opts;
    unsigned long gen = amp_proc.lb.rounds + 1;
    rank->lbp_mark_ns = now;
    rank->lbp_mark_gen = gen;
    rank->lbp_early = o->lbearly > 0 && o->lbperiod_ns > 0;
    if (!amp_proc.period_pes) /* a rank restarted in a job without periods */
        return;
    struct amp_period_pe *w = &amp_proc.period_pes[amp_pe_self()->id];
    if (w->gen != gen) {
        w->busy = amp_sched_pe_busy();
        w->cycles = amp_sched_cycles();
        w->gen = gen;
    }
}

/* When the period's early look is due; LONG_MAX when none is to come. */
static long early_at(const amp_rank_t *rank)
{
    if (!rank->lbp_early)
        return LONG_MAX;
    const amp_opts_t *o = &amp_proc.opts;
    return rank->lbp_mark_ns + (long)(o->lbearly * (double)o->lbperiod_ns);
}

/* Thousandths of the period so far in which the rank's PE ran threads;
 * -1 when the PE's window is not this period's (the rank runs as a guest
 * on a PE none of whose own ranks started it), which cannot tell. */
static int pe_busy(const amp_rank_t *rank)
{
    if (!amp_proc.period_pes || !rank->lbp_mark_gen)
        return -1;
    const struct amp_period_pe *w = &amp_proc.period_pes[amp_pe_self()->id];
    if (w->gen != rank->lbp_mark_gen)
        return -1;
    return amp_period_busy(w->busy, amp_sched_pe_busy(), w->cycles,
                           amp_sched_cycles());
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
        /* Ranks that came from another process slow their new PEs for a
         * while (their memory's first uses there), and the PEs waiting on
         * them look idle: an early look would take that for imbalance
         * and move ranks again.  The period after such a step has none. */
        if (amp_proc.lb.cross)
            rank->lbp_early = 0;
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
    int first = !rank->lbp_mark_ns;
    if (first && amp_proc.opts.lbperiod_ns > 0)
        amp_migrate_load_restart(rank);
    int job[6];
    ask(rank, now, job);
    rank = amp_rank_self();
    /* The first period starts once every rank has come to the job's first
     * collective: the PEs' windows leave out the ranks' set-up. */
    if (first)
        mark(rank, now_ns());
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
    amp_proc.period_pes =
        calloc((size_t)amp_proc.sched.npes, sizeof(*amp_proc.period_pes));
    if (!amp_proc.period_pes)
        amp_fatal("out of memory starting %d PEs", amp_proc.sched.npes);
    amp_proc.lb_periodic = world_collective;
}
